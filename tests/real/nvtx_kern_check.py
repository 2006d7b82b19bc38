#!/usr/bin/env python3
"""The hierarchical GPU flamegraph against nsys's own attribution (issue 25 item 2).

Usage: nvtx_kern_check.py LABEL NSYS_NVTXKERNSUM.csv FOLDED EXPORT.sqlite

FOLDED is `gpuflame collapse --levels nvtx,kernel EXPORT`: every frame but the leaf is an NVTX range. For
every NVTX range name R and kernel name K, the weights of the stacks whose path contains R (once per
occurrence) and whose leaf is K are summed; the sum must equal nsys's `nvtx_kern_sum` "Total Time" for
(R, K) summed over PID/TID (rows whose range is None are kernels outside every range: not compared).
Copies and memsets (leaves `[CUDA mem...`) are not kernels and are left out.

gpuflame groups NVTX names by policy nvtx.group (issue 40); its default drops the suffixes PyTorch's emit_nvtx
appends (`, seq = N`, `, op_id = N`, `, sizes = [...]`, `, input_op_ids = [...]`). nsys's ranges are grouped
here the same way by a regular expression of this file's own, and nsys's rows summed per grouped range: the
sum over the raw ranges that group to R. No frame of the folded stacks may keep such a suffix.

nsys's query joins a kernel to every CUPTI_ACTIVITY_KIND_RUNTIME row of its correlation id, so where a
capture records each launch twice (nsys 2022.2 with --cudabacktrace: `cudaLaunchKernel` and
`cudaLaunchKernel_v7000`, one correlation id) its Total Time counts each kernel twice. That multiplicity is
read from the export here by SQL; when it is the same for every kernel, nsys's totals are divided by it
(and said so); when it varies, the case fails. Prints one ok / not ok line.
"""
import csv
import re
import sqlite3
import sys
from collections import defaultdict


# emit_nvtx: name[, seq = N][, op_id = N][, sizes = [...]][, input_op_ids = [...]] (torch's getNvtxStr order)
EMIT_NVTX = re.compile(r"(?:, seq = -?[0-9]+)?(?:, op_id = [0-9]+)?(?:, sizes = \[.*)?(?:, input_op_ids = \[.*)?$")
SUFFIX_LEFT = re.compile(r", (?:seq|op_id) = [0-9]+|, (?:sizes|input_op_ids) = \[")


def group(name):
    g = EMIT_NVTX.sub("", name, count=1)
    return g if g else name


def nsys_totals(path):
    out = defaultdict(int)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    ri, ki = head.index("NVTX Range"), head.index("Kernel Name")
    ti = next(i for i, h in enumerate(head) if h.startswith("Total Time"))
    for r in rows[1:]:
        if len(r) != len(head) or r[ri] in ("None", ""):
            continue
        out[(group(r[ri].replace(";", ",")), r[ki].replace(";", ","))] += int(r[ti])
    return out


def raw_range_names(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {r["NVTX Range"] for r in rows if r.get("NVTX Range") not in (None, "", "None")}


def folded_totals(path):
    out = defaultdict(int)
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            stack, count = line.rsplit(" ", 1)
            frames = stack.split(";")
            leaf = frames[-1]
            if leaf.startswith("[CUDA mem"):
                continue
            for r in frames[:-1]:
                out[(r, leaf)] += int(count)
    return out


def multiplicity(db):
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT count(r.rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r "
        "ON k.correlationId = r.correlationId AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000) "
        "GROUP BY k.rowid").fetchall()
    con.close()
    return {m for (m,) in rows}


def main():
    label, ns_csv, folded, db = sys.argv[1:5]
    ns, gf = nsys_totals(ns_csv), folded_totals(folded)
    raw_ranges = raw_range_names(ns_csv)
    mult = multiplicity(db)
    note = ""
    if len(mult) > 1:
        print(f"not ok - {label}: kernels match 1 or several runtime rows ({sorted(mult)}): nsys's totals "
              "cannot be compared")
        return 1
    m = mult.pop() if mult else 1
    if m != 1:
        note = f" (nsys joins each kernel to its {m} runtime rows: its totals / {m})"
        ns = {k: v // m for k, v in ns.items()}
    if not ns:
        print(f"not ok - {label}: nsys's nvtx_kern_sum has no kernel inside a range")
        return 1
    left = sorted({r for r, _ in gf if SUFFIX_LEFT.search(r)})
    if left:
        print(f"not ok - {label}: {len(left)} NVTX frames keep an emit_nvtx suffix; first: {left[0][:120]!r}")
        return 1
    bad = [(k, ns.get(k), gf.get(k)) for k in sorted(set(ns) | set(gf)) if ns.get(k, 0) != gf.get(k, 0)]
    if bad:
        k, a, b = bad[0]
        print(f"not ok - {label}: {len(bad)} of {len(set(ns) | set(gf))} (range, kernel) totals differ; first: "
              f"{k[0]!r} / {k[1][:80]!r}: nsys {a}, gpuflame {b}{note}")
        return 1
    grouped = f" ({len(raw_ranges)} raw ranges grouped to {len({r for r, _ in ns})})" if len(raw_ranges) != len(
        {r for r, _ in ns}) else ""
    print(f"ok - {label}: {len(ns)} (range, kernel) totals equal to nsys nvtx_kern_sum{grouped}, "
          f"{sum(ns.values())} ns{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
