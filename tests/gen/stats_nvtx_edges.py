#!/usr/bin/env python3
"""Writes a small SQLite export (nsys column names) with the NVTX parent and GPU-op count cases of the
real fixtures nvfuser/report1.sqlite and pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite, for
tests/real/test_stats_equal.sh (compared with the real nsys 2022.4) and tests/cli/test_stats.sh (known
answers, no nsys). Pid 4343, all on its main thread but one range; rowids in the order below.

* Ties (timestamps below 2^24 ns, exact in the scripts' float32 R-tree): a zero-length push/pop range
  where one sibling ends and the next starts (both enclose it with the same tightness: the lower rowid,
  here the later sibling, is its parent); a push/pop range inside two crossing start/end ranges of equal
  tightness (projection: the lower rowid, the later-starting one).
* Duplicate correlation ids (pipit: cudaLaunchKernel around cudaLaunchKernel_v7000, one correlation id):
  NumGPUOps is count(DISTINCT correlationId); another call launched between the two; a start/end range
  that encloses only the inner call; a push/pop range that encloses the inner call but not the outer;
  a kernel and a memset of one correlation id; a call on a second thread with the same correlation id as
  the pair (a range there counts its own call).
* Above 2^32 ns (nvfuser): a range that starts 710 ns after its parent and 2,020 ns after its
  grandparent, around 9.03e9 ns: the exact rule (gpuflame, and the current scripts' rescaled R-tree)
  makes the parent its parent; nsys 2022.4's float32 R-tree filter misses it and takes the grandparent
  (docs/REPORTS.md, V4).

usage: stats_nvtx_edges.py OUT.sqlite
"""
import os
import sqlite3
import sys

out = sys.argv[1]
if os.path.exists(out):
    os.remove(out)
db = sqlite3.connect(out)
db.executescript("""
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
""")
db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_NAME', 'gpuflame NVTX parent edge cases (synthetic)')")
db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.2')")
db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA Edge GPU', '0000:01:00.0')")
KIND = ["Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static", "Unknown"]
db.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, ?, ?)", [(i, "X", l) for i, l in enumerate(KIND)])
P = 4343
G = (1 << 48) | (P << 24)
T = G | P
T2 = G | (P + 1)
L = 9026221514  # nvfuser's ExecutorDispatch::run2 (RangeId 13464)

# (start, end, eventType, text[, globalTid]): rowids 1..
nv = [
    (2000, 3000, 59, "sib B"),              # 1 starts where sib A ends
    (1000, 2000, 59, "sib A"),              # 2
    (2000, 2000, 59, "zero at the seam"),   # 3 sib A and sib B tie: rowid 1
    (12000, 22000, 60, "se Y"),             # 4 crosses se X
    (10000, 20000, 60, "se X"),             # 5
    (15000, 17000, 59, "in both"),          # 6 se X and se Y tie (8000): rowid 4
    (30000, 40000, 59, "dup corr"),         # 7 3 correlation ids in 4 calls
    (31000, 34990, 59, "inner only"),       # 8 the inner call and corr 12, not the outer call
    (31090, 34950, 60, "se inner"),         # 9 only the inner call
    (L, L + 1005839, 59, "late grandparent"),       # 10
    (L + 961190, L + 1001779, 59, "late parent"),   # 11
    (L + 961900, L + 1001509, 59, "late child"),    # 12 710 ns after its parent
    (31000, 35000, 59, "other thread", T2),         # 13 around its own call of corr 10
]
for s, e, et, txt, *g in nv:
    db.execute("INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, domainId) VALUES (?, ?, ?, ?, ?, 0)",
               (s, e, et, txt, g[0] if g else T))

S = {"cudaLaunchKernel": 1, "cudaLaunchKernel_v7000": 2, "cudaMemsetAsync_v3020": 3, "kern": 4}
db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in S.items()])
# (start, end, name, corr[, globalTid])
rt = [(1200, 1300, "cudaLaunchKernel", 1), (2200, 2300, "cudaLaunchKernel", 2), (16000, 16100, "cudaLaunchKernel", 3),
      (31000, 35000, "cudaLaunchKernel", 10), (31050, 31080, "cudaLaunchKernel", 12),
      (31100, 34900, "cudaLaunchKernel_v7000", 10), (36000, 37000, "cudaMemsetAsync_v3020", 11),
      (L + 962000, L + 1001000, "cudaLaunchKernel", 20), (31500, 31600, "cudaLaunchKernel", 10, T2)]
for s, e, n, c, *g in rt:
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
               (s, e, g[0] if g else T, c, S[n]))
# (start, end, corr)
ks = [(5000, 5100, 1), (6000, 6200, 2), (18000, 18300, 3), (50000, 50400, 10), (51000, 51100, 12), (52000, 52050, 11),
      (L + 998906, L + 1900209, 20)]
for s, e, c in ks:
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, greenContextId, streamId, "
               "correlationId, globalPid, demangledName, shortName, mangledName, registersPerThread, gridX, gridY, "
               "gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory) "
               "VALUES (?, ?, 0, 1, NULL, 7, ?, ?, 4, 4, NULL, 32, 1, 1, 1, 128, 1, 1, 0, 0)", (s, e, c, G))
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(start, end, deviceId, contextId, greenContextId, streamId, "
           "correlationId, globalPid, value, bytes, memKind) VALUES (53000, 53500, 0, 1, NULL, 7, 11, ?, 0, 4096, 2)",
           (G,))
db.commit()
db.close()
