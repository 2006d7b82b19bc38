#!/usr/bin/env python3
"""Writes a small SQLite export (nsys column names, schema 3.x shape) holding the cases NVIDIA's report
scripts treat specially, for tests/real/test_stats_equal.sh (compared with the real nsys 2022.4) and
tests/cli/test_stats.sh (known answers, no nsys):

* NVTX: rows not in start order; two identical push/pop ranges (each other's parent in the scripts' R-tree
  join, so they and the range below them have no tree level); start/end ranges that cross each other and
  enclose push/pop ranges (the projection's parents mix both styles); a zero-length range at its parent's
  end; an unended range on a second thread; a named domain (domain-create row, text); a range named by
  textId; ranges with equal totals (nvtx_sum ties). The last NVTX timestamp is a push/pop range's end, so
  every era closes unended ranges at the same time.
* CUDA API: names with a 6-character `_vNNNN` suffix, a `_v` that is not 6 from the end, a name that is
  nothing but `_vabcd`; calls with equal totals (cuda_api_sum ties keep the nameId order); a call longer
  than 2^31 ns (the median of large values); two ThreadNames rows for one thread (cuda_api_trace repeats
  the call); equal start times.
* GPU: kernels and a memcpy starting at the same ns (kernels first); the same kernel with two grid sizes;
  a memcpy whose copyKind has no label (left out of the mem summaries, an empty name in the GPU trace); a
  zero-length memcpy (no throughput); a memset; a kernel name with a comma; a mangled name.

usage: stats_edges.py OUT.sqlite
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
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER,
  dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
""")
db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_NAME', 'gpuflame stats edge cases (synthetic)')")
db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.2')")
OPER = ["Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array", "Array-to-Host", "Array-to-Array",
        "Array-to-Device", "Device-to-Array", "Device-to-Device", "Host-to-Host", "Peer-to-Peer",
        "Unified Host-to-Device", "Unified Device-to-Host", "Unified Device-to-Device"]
KIND = ["Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static", "Unknown"]
db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", [(i, "X", l) for i, l in enumerate(OPER)])
db.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, ?, ?)", [(i, "X", l) for i, l in enumerate(KIND)])
P = 4242
G = (1 << 48) | (P << 24)
T1, T2 = G | P, G | (P + 1)
S = {}


def sid(s):
    if s not in S:
        S[s] = len(S) + 1
    return S[s]


db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA Edge GPU', '0000:01:00.0')")
db.execute("INSERT INTO ThreadNames VALUES (?, 10, ?)", (sid("main"), T1))
db.execute("INSERT INTO ThreadNames VALUES (?, 20, ?)", (sid("main, renamed"), T1))
db.execute("INSERT INTO ThreadNames VALUES (?, 5, ?)", (sid("worker"), T2))

# NVTX (rowids in this order). Domain 7 on T1, named by text.
nv = [
    (100, None, 75, None, T1, None, 7),                        # 1 domain create "EdgeDomain"
    (5000, 9000, 59, "late root", T1, None, 0),                # 2
    (1000, 4000, 59, "root A", T1, None, 0),                   # 3
    (1500, 2000, 59, "child A1", T1, None, 7),                 # 4 named domain
    (2500, 3500, 59, None, T1, sid("child A2 (textId)"), 0),   # 5 textId
    (6000, 7000, 59, "dup", T1, None, 0),                      # 6 identical pair
    (6000, 7000, 59, "dup", T1, None, 0),                      # 7
    (6200, 6300, 59, "under dup", T1, None, 0),                # 8
    (1000, 8000, 60, "se X", T1, None, 0),                     # 9 start/end, crosses se Y
    (3000, 8800, 60, "se Y", T1, None, 0),                     # 10
    (4000, 4000, 59, "zero at A end", T1, None, 0),            # 11
    (150, None, 59, "unended", T2, None, 0),                   # 12
    (200, 300, 59, "w1", T2, None, 0),                         # 13
    (400, 500, 59, "w1", T2, None, 0),                         # 14
    (600, 700, 59, "tie, with comma", T2, None, 0),            # 15 total 100 like w1 x2? no: 100 vs 200
    (9100, 9500, 59, "last", T1, None, 0),                     # 16 the last timestamp
]
for s, e, et, txt, g, tid, dom in nv:
    if et == 75:
        txt = "EdgeDomain"
    db.execute("INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, textId, domainId) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)", (s, e, et, txt, g, tid, dom))

launch = sid("cudaLaunchKernel_v7000")
memcpy = sid("cudaMemcpyAsync_v3020")
odd = sid("cuOdd_vAB")
bare = sid("_vabcd")
sync = sid("cudaDeviceSynchronize_v3020")
# (start, end, nameId, corr, thread)
rt = [(1600, 1700, launch, 1, T1), (2600, 2700, launch, 2, T1), (6250, 6260, launch, 3, T1),
      (3200, 3300, memcpy, 4, T1), (9200, 9300, launch, 5, T1), (1100, 1200, odd, 6, T1),
      (1300, 1400, bare, 7, T1), (10000, 4000010000, sync, 8, T1), (1800, 1900, odd, 9, T1),
      (5100, 5200, launch, 10, T1), (5100, 5200, memcpy, 11, T1), (250, 260, launch, 12, T2)]
for s, e, n, c, g in rt:
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)", (s, e, g, c, n))

ka = sid("kernA(float*, int)")
kas = sid("kernA")
kam = sid("_Z5kernAPfi")
kb = sid("void kernB<(int)4>(float const*, float*)")
kbs = sid("kernB")
# (start, end, corr, demangled, short, mangled, gridX, stream)
ks = [(20000, 20100, 1, ka, kas, kam, 1, 7), (20050, 20150, 2, kb, kbs, None, 1, 7), (30000, 30100, 3, ka, kas, kam, 2, 7),
      (40000, 40100, 5, kb, kbs, None, 1, 8), (40000, 40200, 9, ka, kas, kam, 1, 8), (45000, 45300, 10, kb, kbs, None, 4, 7),
      (46000, 46100, 12, kb, kbs, None, 1, 9)]
for s, e, c, d, sh, mg, gx, st in ks:
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, greenContextId, streamId, "
               "correlationId, globalPid, demangledName, shortName, mangledName, registersPerThread, gridX, gridY, "
               "gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory) "
               "VALUES (?, ?, 0, 1, NULL, ?, ?, ?, ?, ?, ?, 32, ?, 1, 1, 128, 1, 1, 0, 1024)",
               (s, e, st, c, G, d, sh, mg, gx))
# (start, end, corr, bytes, copyKind, srcKind, dstKind)
mc = [(40000, 40300, 4, 1000, 1, 0, 2), (50000, 50007, 11, 3, 1, 1, 2), (50100, 50104, 8, 4, 2, 2, 1),
      (60000, 60001, 8, 5, 99, 2, 2), (61000, 61000, 8, 4096, 8, 2, 2)]
for s, e, c, b, k, sk, dk in mc:
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(start, end, deviceId, contextId, greenContextId, streamId, "
               "correlationId, globalPid, bytes, copyKind, srcKind, dstKind) VALUES (?, ?, 0, 1, NULL, 7, ?, ?, ?, ?, ?, ?)",
               (s, e, c, G, b, k, sk, dk))
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(start, end, deviceId, contextId, greenContextId, streamId, "
           "correlationId, globalPid, value, bytes, memKind) VALUES (70000, 70050, 0, 1, NULL, 7, 10, ?, 0, 2048, 2)",
           (G,))
db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in S.items()])
db.commit()
db.close()
