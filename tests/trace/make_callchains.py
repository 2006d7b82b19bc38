#!/usr/bin/env python3
"""Adds documented-schema launch backtraces to a temporary copy of a real nsys SQLite export.

No public export has CUDA_CALLCHAINS rows, so this writes them the way nsys does (docs/spec/NSYS.md §7.3,
§7.7): CUDA_CALLCHAINS(id, symbol, module, unresolved, originalIP, stackDepth), PRIMARY KEY (id,
stackDepth), depth 0 = innermost, symbol/module are StringIds ids; CUPTI_ACTIVITY_KIND_RUNTIME.callchainId
points at the chain. It covers deep stacks (up to 48 frames), shared prefixes, identical chains under two
ids, unresolved frames (hex symbol text, and NULL symbol with only originalIP), missing strings (symbol or
module ids absent from StringIds), one kernel launch left without a chain, and one backtraced call that
launched no GPU work.

usage: make_callchains.py SRC.sqlite DST.sqlite EXPECTED.json
EXPECTED.json: {"kernels": [{"corr", "pid", "start", "frames": [innermost first] | null}],
                "kernel_total": ns of backtraced kernels, "api_only_total": ns, "distinct_stacks": n}
"""
import json
import os
import shutil
import sqlite3
import sys

src, dst, expected_path = sys.argv[1:4]
shutil.copyfile(src, dst)
db = sqlite3.connect(dst)
cur = db.cursor()

cur.execute("SELECT coalesce(max(id), 0) FROM StringIds")
next_sid = cur.fetchone()[0] + 1
strings = {}


def sid(text):
    global next_sid
    if text not in strings:
        cur.execute("INSERT INTO StringIds(id, value) VALUES (?, ?)", (next_sid, text))
        strings[text] = next_sid
        next_sid += 1
    return strings[text]


MISSING = next_sid + 1000000  # a StringIds id that does not exist

cur.execute("DROP TABLE IF EXISTS CUDA_CALLCHAINS")
cur.execute("""CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER, module INTEGER,
               unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL,
               PRIMARY KEY (id, stackDepth))""")

APP = "/home/user/app/bin/trainer"
CUDART = "/usr/local/cuda/lib64/libcudart.so.12"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"


def frame(sym, mod, unresolved=0, ip=None):
    return {"sym": sym, "mod": mod, "unresolved": unresolved, "ip": ip}


def outer(n):
    """n shared outer frames, outermost last (so the list reads innermost first)."""
    fr = [frame("layer_%d(Model&)" % i, APP) for i in range(n - 3)]
    return fr + [frame("main", APP), frame("__libc_start_main@@GLIBC_2", LIBC), frame("_start", APP)]


shared = outer(40)
chains = {
    # deep stack through a shared 40-frame prefix
    1: [frame("cudaLaunchKernel", CUDART), frame("launch_gemm<float>(Tensor const&)", APP),
        frame("Gemm::forward()", APP)] + shared,
    # same prefix, different inner frames (a shared prefix in the flamegraph)
    2: [frame("cudaLaunchKernel", CUDART), frame("launch_relu(Tensor&)", APP)] + shared,
    # unresolved frames: hex text in StringIds (what nsys writes) and a NULL symbol with only originalIP
    3: [frame("cudaLaunchKernel", CUDART), frame("0x7910176bebab", "/usr/lib/libcuda.so.1", 1, 0x7910176bebab),
        frame(None, "/usr/lib/libcuda.so.1", 1, 0x7910177d6ca5)] + outer(6),
    # missing strings: a symbol id and a module id absent from StringIds
    4: [frame("cudaLaunchKernel", CUDART), frame(MISSING, APP), frame("worker()", MISSING)] + outer(5),
}
chains[5] = list(chains[1])  # identical to chain 1 under another id: stored once
chains[6] = [frame("cudaMalloc", CUDART), frame("alloc_buffers()", APP)] + outer(4)  # no GPU work


def text(f):
    if isinstance(f["sym"], str):
        sym = f["sym"]
    elif f["sym"] is None and f["unresolved"] and f["ip"] is not None:
        sym = "0x%x" % f["ip"]
    else:
        sym = "?"
    if isinstance(f["mod"], str):
        return "%s (%s)" % (sym, os.path.basename(f["mod"]))
    return sym


for cid, frames in chains.items():
    for depth, f in enumerate(frames):
        s = f["sym"] if isinstance(f["sym"], int) else (sid(f["sym"]) if f["sym"] is not None else None)
        m = f["mod"] if isinstance(f["mod"], int) else sid(f["mod"])
        cur.execute("INSERT INTO CUDA_CALLCHAINS VALUES (?, ?, ?, ?, ?, ?)",
                    (cid, s, m, f["unresolved"], f["ip"], depth))

# kernel launches: runtime rows whose (pid, correlationId) matches a kernel
cur.execute("""SELECT r.rowid, r.correlationId, (r.globalTid >> 24) & 16777215, r.start, r.end
               FROM CUPTI_ACTIVITY_KIND_RUNTIME r ORDER BY r.start""")
runtime = cur.fetchall()
cur.execute("""SELECT correlationId, (globalPid >> 24) & 16777215, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL
               ORDER BY start""")
kernels = cur.fetchall()
kernel_keys = {(k[1], k[0]) for k in kernels}
gpu_keys = set(kernel_keys)
for table in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
    cur.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (table,))
    if cur.fetchone()[0]:
        cur.execute("SELECT correlationId, (globalPid >> 24) & 16777215 FROM %s" % table)
        gpu_keys |= {(pid, corr) for corr, pid in cur.fetchall()}

cur.execute("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = NULL")
launches = [r for r in runtime if (r[2], r[1]) in kernel_keys]
order = [1, 2, 3, 4, 5]
assigned = {}
for i, r in enumerate(launches):
    if i == len(launches) - 1 and len(launches) > 1:
        break  # the last launch keeps no backtrace
    cid = order[i % len(order)]
    cur.execute("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = ? WHERE rowid = ?", (cid, r[0]))
    assigned[(r[2], r[1])] = cid
api_only = [r for r in runtime if (r[2], r[1]) not in gpu_keys]
api_only_total = 0
if api_only:
    r = api_only[0]
    cur.execute("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 6 WHERE rowid = ?", (r[0],))
    api_only_total = r[4] - r[3]
db.commit()

out = {"kernels": [], "kernel_total": 0, "api_only_total": api_only_total,
       "distinct_stacks": len({tuple(text(f) for f in chains[c]) for c in set(assigned.values())} |
                              ({tuple(text(f) for f in chains[6])} if api_only else set()))}
for corr, pid, start, end in kernels:
    cid = assigned.get((pid, corr))
    out["kernels"].append({"corr": corr, "pid": pid, "start": start,
                           "frames": [text(f) for f in chains[cid]] if cid else None})
    if cid:
        out["kernel_total"] += end - start
with open(expected_path, "w") as f:
    json.dump(out, f, indent=1)
db.close()
