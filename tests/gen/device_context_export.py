#!/usr/bin/env python3
"""Writes a two-GPU SQLite export (sample_export.py's schema) whose synchronization rows record the wrong
device, as a real 2-GPU H100 capture does (issue 24, item 3): process 4100 drives context 1 on GPU 0
(stream 7) and context 2 on GPU 1 (stream 21); kernels and copies of each context record their own device,
but every CUPTI_ACTIVITY_KIND_SYNCHRONIZATION row says deviceId 0, except the last row of context 2, which
says device 1 (so the corrected lane meets one that already exists). Known answers, by construction:

  GPU 0: kernels and sync rows of context 1 only: SYNC0 sync rows on stream 7
  GPU 1: kernels and sync rows of context 2 only: SYNC1 sync rows on stream 21 (SYNC1 - 1 recorded as GPU 0)

usage: device_context_export.py OUT.sqlite
       device_context_export.py --ranks N OUT.sqlite
  N processes of an MPI job in one export (issue 41 item 5): rank r is pid 5000+r, drives context 1 (the
  same contextId in every process) on GPU r, stream 7 (the same stream id everywhere); every sync row of
  every rank records device 0. Rank r has RANK_SYNC sync rows, all of which belong on GPU r.
       device_context_export.py --mixed OUT.sqlite
  One process (pid 4200, GPUs 0 and 1) whose contexts tell their device through different tables: context 3
  ran kernels on GPU 0 and a copy on GPU 1 (ambiguous: its 2 sync rows, recorded as device 1, stay there);
  context 4 ran only memsets, on GPU 1 (a CUPTI_ACTIVITY_KIND_MEMSET table: its 3 sync rows, recorded as
  device 0, belong on GPU 1); context 5 ran kernels on GPU 0 and its 2 sync rows say so. The tables are
  written in an order that interleaves the contexts, so the importer meets each context in several runs.
"""
import importlib.util
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("sample_export", os.path.join(HERE, "sample_export.py"))
_sample = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_sample)

SYNC0, SYNC1 = 3, 4
PID = 4100
GPID = (1 << 48) | (PID << 24)
GTID = GPID | PID


RANK_SYNC = 5


def ranks(n, out):
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(_sample.SCHEMA)
    strings = {}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[s], s))
        return strings[s]

    db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_NAME', 'gpuflame device-from-context export (synthetic)')")
    db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.2')")
    ncol = len([r for r in db.execute("PRAGMA table_info(TARGET_INFO_GPU)")])
    for dev in range(n):
        row = [0, dev, "Tesla V100-SXM2-16GB", "0000:%02x:00.0" % (0x04 + dev)] + [None] * (ncol - 4)
        db.execute("INSERT INTO TARGET_INFO_GPU VALUES (%s)" % ",".join("?" * ncol), row)
    launch, sync, kname = sid("cudaLaunchKernel"), sid("cudaDeviceSynchronize"), sid("saxpy")
    corr = 1
    for r in range(n):
        pid = 5000 + r
        gpid, gtid = (1 << 48) | (pid << 24), (1 << 48) | (pid << 24) | pid
        db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", (gpid, pid, "app"))
        db.execute("INSERT INTO ThreadNames VALUES (?, ?, ?)", (sid("MPI Rank %d" % r), 0, gtid))
        t = 1_000_000 + 7_000 * r
        for i in range(RANK_SYNC):
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                       (t, t + 4000, gtid, corr, launch))
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 1, NULL, 7, ?, ?, ?, ?, NULL, 1, 0, "
                       "64, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, ?, 0, NULL, 1)",
                       (t + 6000, t + 36000, r, corr, gpid, kname, kname, corr))
            corr += 1
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                       (t + 5000, t + 37000, gtid, corr, sync))
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?, ?, 0, 1, NULL, 7, ?, ?, 3, 0)",
                       (t + 6000, t + 36500, corr, gpid))
            corr += 1
            t += 100_000
    db.commit()
    db.close()


MEMSET_SCHEMA = """
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
"""


def mixed(out):
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(_sample.SCHEMA + MEMSET_SCHEMA)
    strings = {}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[s], s))
        return strings[s]

    db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_NAME', 'gpuflame device-from-context export (synthetic)')")
    db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.2')")
    ncol = len([r for r in db.execute("PRAGMA table_info(TARGET_INFO_GPU)")])
    for dev in (0, 1):
        row = [0, dev, "NVIDIA H100 80GB HBM3", "0000:%02x:00.0" % (0x18 + dev)] + [None] * (ncol - 4)
        db.execute("INSERT INTO TARGET_INFO_GPU VALUES (%s)" % ",".join("?" * ncol), row)
    pid = 4200
    gpid = (1 << 48) | (pid << 24)
    gtid = gpid | pid
    db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", (gpid, pid, "python3"))
    db.execute("INSERT INTO ThreadNames VALUES (?, ?, ?)", (sid("python3"), 0, gtid))
    launch, sync, memset = sid("cudaLaunchKernel"), sid("cudaStreamSynchronize"), sid("cudaMemsetAsync")
    kname = sid("fill")
    corr, t = 1, 1_000_000

    def call(name):
        nonlocal corr, t
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                   (t, t + 4000, gtid, corr, name))
        corr += 1
        t += 100_000
        return corr - 1, t - 100_000

    def kernel(dev, ctx, stream):
        c, s = call(launch)
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, NULL, 1, 0, "
                   "64, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, ?, 0, NULL, 1)",
                   (s + 6000, s + 56000, dev, ctx, stream, c, gpid, kname, kname, c))

    def sync_row(recorded, ctx, stream):
        c, s = call(sync)
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?, ?, ?, ?, NULL, ?, ?, ?, 3, 0)",
                   (s + 6000, s + 56500, recorded, ctx, stream, c, gpid))

    kernel(0, 3, 7)
    kernel(0, 5, 8)
    kernel(0, 3, 7)
    kernel(0, 5, 8)
    c, s = call(memset)
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, 1, 4, NULL, 9, ?, ?, 0, 4096, NULL, 2)",
               (s + 6000, s + 9000, c, gpid))
    c, s = call(sid("cudaMemcpyAsync"))
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 1, 3, NULL, 7, ?, ?, 4096, 1, NULL, 0, 2, "
               "NULL, NULL, 1, 3, NULL, NULL, NULL)", (s + 6000, s + 9000, c, gpid))
    c, s = call(memset)
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, 1, 4, NULL, 9, ?, ?, 0, 4096, NULL, 2)",
               (s + 6000, s + 9000, c, gpid))
    for recorded, ctx, stream in ((1, 3, 7), (0, 4, 9), (0, 5, 8), (0, 4, 9), (1, 3, 7), (0, 5, 8), (0, 4, 9)):
        sync_row(recorded, ctx, stream)
    for i, label in enumerate(["Host-to-Device", "Device-to-Host", "Device-to-Device"]):
        db.execute("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", (i + 1, "X", label))
    db.commit()
    db.close()


def main():
    if sys.argv[1] == "--ranks":
        return ranks(int(sys.argv[2]), sys.argv[3])
    if sys.argv[1] == "--mixed":
        return mixed(sys.argv[2])
    out = sys.argv[1]
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(_sample.SCHEMA)
    strings = {}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[s], s))
        return strings[s]

    db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_NAME', 'gpuflame device-from-context export (synthetic)')")
    db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.2')")
    ncol = len([r for r in db.execute("PRAGMA table_info(TARGET_INFO_GPU)")])
    for dev in (0, 1):
        row = [0, dev, "NVIDIA H100 80GB HBM3", "0000:%02x:00.0" % (0x18 + dev)] + [None] * (ncol - 4)
        db.execute("INSERT INTO TARGET_INFO_GPU VALUES (%s)" % ",".join("?" * ncol), row)
    db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", (GPID, PID, "python3"))
    db.execute("INSERT INTO ThreadNames VALUES (?, ?, ?)", (sid("python3"), 0, GTID))
    corr, t = 1, 1_000_000
    launch, sync = sid("cudaLaunchKernel"), sid("cudaStreamSynchronize")
    for dev, ctx, stream, nsync in ((0, 1, 7, SYNC0), (1, 2, 21, SYNC1)):
        kname = sid("gemm_on_gpu%d" % dev)
        for i in range(nsync):
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                       (t, t + 4000, GTID, corr, launch))
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, NULL, 1, 0, "
                       "64, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, ?, 0, NULL, 1)",
                       (t + 6000, t + 56000, dev, ctx, stream, corr, GPID, kname, kname, corr))
            corr += 1
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                       (t + 5000, t + 57000, GTID, corr, sync))
            recorded = 1 if (dev == 1 and i == nsync - 1) else 0
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?, ?, ?, ?, NULL, ?, ?, ?, 3, 0)",
                       (t + 6000, t + 56500, recorded, ctx, stream, corr, GPID))
            corr += 1
            t += 100_000
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, ?, NULL, ?, ?, ?, 4096, 1, NULL, 0, 2, "
                   "NULL, NULL, ?, ?, NULL, NULL, NULL)", (t, t + 3000, dev, ctx, stream, corr, GPID, dev, ctx))
        corr += 1
        t += 100_000
    for i, label in enumerate(["Host-to-Device", "Device-to-Host", "Device-to-Device"]):
        db.execute("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", (i + 1, "X", label))
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
