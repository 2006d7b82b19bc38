#!/usr/bin/env python3
"""Generates an nsys-shaped SQLite export (docs/spec/NSYS.md §7.3 columns) for the timeline benchmark:
KERNELS kernels and as many CUDA runtime calls (the launches, same correlationId, one process, 4
threads), STACKS distinct launch backtraces in CUDA_CALLCHAINS (depth 3..64, shared prefixes), every
launch pointing at one of them; StringIds, ThreadNames, TARGET_INFO_GPU. No indexes (like nsys).
With STACKS = 0 there is no CUDA_CALLCHAINS table and every callchainId is NULL.
usage: gen_trace_sqlite.py OUT.sqlite KERNELS STACKS"""
import os
import random
import sqlite3
import sys

out, nk, ns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if os.path.exists(out):
    os.remove(out)
rnd = random.Random(7)
db = sqlite3.connect(out)
db.execute("PRAGMA journal_mode=OFF")
db.execute("PRAGMA synchronous=OFF")
db.executescript("""
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, busLocation TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL);
""")
if ns:
    db.execute("""CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
      unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth))""")
strings = {}


def sid(s):
    if s not in strings:
        strings[s] = len(strings) + 1
    return strings[s]


PID = 31337
gtid = [(1 << 48) | (PID << 24) | (PID + t) for t in range(4)]
gpid = (1 << 48) | (PID << 24)
db.executemany("INSERT INTO ThreadNames VALUES (?, 0, ?)", [(sid("worker-%d" % t), g) for t, g in enumerate(gtid)])
db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100 80GB HBM3', '0000:01:00.0')")
launch = sid("cudaLaunchKernel_v7000")
kernels = [sid("void gemm_kernel<%d>(float const*, float*, int)" % i) for i in range(200)]
mods = [sid("/opt/app/lib/libmodel_%d.so" % i) for i in range(20)] + [sid("/usr/lib/x86_64-linux-gnu/libc.so.6")]
cudart = sid("/usr/local/cuda/lib64/libcudart.so.12")
pool = [sid("ns::module_%d::forward(at::Tensor const&)" % i) for i in range(5000)]
prefixes = [[rnd.choice(pool) for _ in range(rnd.randint(2, 60))] for _ in range(2000)]
rows = []
for c in range(1, ns + 1):
    pre = prefixes[rnd.randrange(len(prefixes))]
    frames = [(sid("cudaLaunchKernel"), cudart), (sid("launch_site_%d(void*)" % c), mods[c % 20])]
    frames += [(f, mods[f % 21]) for f in pre[:62]]
    for depth, (s, m) in enumerate(frames):
        rows.append((c, s, m, 0, 0x400000 + c * 64 + depth, depth))
    if len(rows) > 200000:
        db.executemany("INSERT INTO CUDA_CALLCHAINS VALUES (?, ?, ?, ?, ?, ?)", rows)
        rows = []
if rows:
    db.executemany("INSERT INTO CUDA_CALLCHAINS VALUES (?, ?, ?, ?, ?, ?)", rows)
t = 1000000
rt, kr = [], []
for i in range(nk):
    corr = i + 1
    t += rnd.randint(500, 5000)
    ad = rnd.randint(2000, 9000)
    rt.append((t, t + ad, 0, gtid[i % 4], corr, launch, 0, rnd.randint(1, ns) if ns else None))
    ks = t + ad + 3000
    kn = kernels[rnd.randrange(200)]
    kr.append((ks, ks + int(rnd.expovariate(1 / 20000)) + 1000, 0, 1, None, 7 + i % 4, corr, gpid, kn, kn, None, 0, 0,
               32, rnd.randint(1, 4096), 1, 1, 256, 1, 1, 0, 4096))
    if len(rt) >= 100000:
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", rt)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%s)" % ",".join("?" * 22), kr)
        rt, kr = [], []
if rt:
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", rt)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%s)" % ",".join("?" * 22), kr)
db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in strings.items()])
db.commit()
db.close()
