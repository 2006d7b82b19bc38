#!/usr/bin/env python3
"""Rebuilds SQLite exports (nsys 2025.x column names) from the `nsys stats` CSVs nsys 2025.1 recorded in
../shared/fixtures/real/roboflow-inference/, so that `gpuflame stats` on them can be compared byte for byte
with what a current nsys wrote (tests/cli/test_stats.sh):

  OUT/nvtx.sqlite  from nvtx_pushpop_trace.csv + nvtx_gpu_proj_trace.csv: one push/pop range per row
                   (rowid = RangeId, default domain, the name without its ':'), and for every leaf range one
                   CUDA call inside it launching one kernel at the projected start/duration, so that the
                   three NVTX reports (and nvtx_gpu_proj_sum.csv) come out as recorded.
  OUT/cuda.sqlite  from cuda_gpu_trace.csv (csv:mem=B): its kernel and two memcpys, with the GPU name, and
                   the kernel again as cuda_gpu_kern_sum.csv summarises it.
  OUT/both.sqlite  both (the analysis of docs/spec/NVTX_ANALYSIS.md §15, schema 2, reads all four reports).

Nothing is invented beyond what the CSVs determine, except the launching calls' own times (inside their
range) and correlation ids of the NVTX capture (the projection CSV has none).

usage: recorded_exports.py FIXTURES_DIR OUT_DIR
"""
import csv
import os
import sqlite3
import sys

fix, out = sys.argv[1], sys.argv[2]
rob = os.path.join(fix, "real", "roboflow-inference")
SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
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
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
"""
OPER = ["Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array", "Array-to-Host", "Array-to-Array",
        "Array-to-Device", "Device-to-Array", "Device-to-Device", "Host-to-Host", "Peer-to-Peer",
        "Unified Host-to-Device", "Unified Device-to-Host", "Unified Device-to-Device"]
KIND = ["Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static", "Unknown"]


def new_db(path):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, 'X', ?)", list(enumerate(OPER)))
    db.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, 'X', ?)", list(enumerate(KIND)))
    return db


def gtid(pid, tid):
    return (1 << 48) | (pid << 24) | tid


os.makedirs(out, exist_ok=True)

def fill_nvtx(db, sid):
    """the NVTX capture: ranges from nvtx_pushpop_trace.csv, one launch + kernel per leaf range"""
    host = list(csv.DictReader(open(os.path.join(rob, "nvtx_pushpop_trace.csv"), newline="")))
    gpu = {int(r["RangeId"]): r for r in csv.DictReader(open(os.path.join(rob, "nvtx_gpu_proj_trace.csv"), newline=""))}
    for r in sorted(host, key=lambda r: int(r["RangeId"])):
        pid, tid = int(r["PID"]), int(r["TID"])
        db.execute("INSERT INTO NVTX_EVENTS(rowid, start, end, eventType, text, globalTid, domainId) "
                   "VALUES (?, ?, ?, 59, ?, ?, 0)", (int(r["RangeId"]), int(r["Start (ns)"]), int(r["End (ns)"]),
                                                     r["Name"][1:], gtid(pid, tid)))
    corr = 0
    launch = sid("cudaLaunchKernel_v7000")
    kern = sid("smoke_kernel()")
    for r in host:
        if int(r["NumChild"]) != 0:
            continue
        g = gpu[int(r["RangeId"])]
        corr += 1
        s = int(r["Start (ns)"])
        pid, tid = int(r["PID"]), int(r["TID"])
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                   (s + 1, s + 2, gtid(pid, tid), corr, launch))
        ps, pd = int(g["Projected Start (ns)"]), int(g["Projected Duration (ns)"])
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId, correlationId, "
                   "globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, "
                   "blockZ, staticSharedMemory, dynamicSharedMemory) "
                   "VALUES (?, ?, 0, 1, 7, ?, ?, ?, ?, 32, 1, 1, 1, 1, 1, 1, 0, 0)",
                   (ps, ps + pd, corr, gtid(pid, 0), kern, kern))
    if not db.execute("SELECT 1 FROM TARGET_INFO_GPU WHERE id = 0").fetchone():
        db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA L4', '0000:00:03.0')")


def fill_cuda(db, sid, corr_base=0):
    """the CUDA capture: cuda_gpu_trace.csv's rows (its launches long after any NVTX range)"""
    rows = list(csv.DictReader(open(os.path.join(rob, "cuda_gpu_trace.csv"), newline="")))
    gpid = gtid(2124, 0)
    for r in rows:
        start, dur = int(r["Start (ns)"]), int(r["Duration (ns)"])
        name, devid = r["Device"].rsplit(" (", 1)
        devid = int(devid.rstrip(")"))
        if not db.execute("SELECT 1 FROM TARGET_INFO_GPU WHERE id = ?", (devid,)).fetchone():
            db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, ?, ?, '0000:00:03.0')", (devid, name))
        corr = int(r["CorrId"]) + corr_base
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                   (start - 20000, start - 10000, gtid(2124, 2124), corr, sid("cudaLaunchKernel_v7000")))
        if r["Name"].startswith("[CUDA memcpy "):
            op = OPER.index(r["Name"][len("[CUDA memcpy "):-1])
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(start, end, deviceId, contextId, streamId, "
                       "correlationId, globalPid, bytes, copyKind, srcKind, dstKind) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (start, start + dur, devid, int(r["Ctx"]), int(r["Strm"]), corr, gpid, int(r["Bytes (B)"]),
                        op, KIND.index(r["SrcMemKd"]), KIND.index(r["DstMemKd"])))
        else:
            n = sid(r["Name"])
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId, "
                       "correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, "
                       "blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (start, start + dur, devid, int(r["Ctx"]), int(r["Strm"]), corr, gpid, n, n,
                        int(r["Reg/Trd"]), int(r["GrdX"]), int(r["GrdY"]), int(r["GrdZ"]), int(r["BlkX"]),
                        int(r["BlkY"]), int(r["BlkZ"]), int(r["StcSMem (B)"]), int(r["DymSMem (B)"])))


def build(path, fills):
    db = new_db(path)
    strings = {}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
        return strings[s]

    for f in fills:
        f(db, sid)
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in strings.items()])
    db.commit()
    db.close()


build(os.path.join(out, "nvtx.sqlite"), [fill_nvtx])
build(os.path.join(out, "cuda.sqlite"), [fill_cuda])
# both captures in one export (analyze --schema-version 2); the CUDA capture's correlation ids moved past
# the NVTX capture's
build(os.path.join(out, "both.sqlite"), [fill_nvtx, lambda db, sid: fill_cuda(db, sid, 1000)])
