#!/usr/bin/env python3
"""Writes SQLite exports with the real nsys schema (tests/gen/sample_export.py's tables plus MEMSET,
PROFILER_OVERHEAD, CUPTI_ACTIVITY_KIND_GRAPH_TRACE) with findings planted at known places, for
tests/cli/test_findings.sh (expected rows written beside) and the real-nsys tier.

usage: findings_export.py VARIANT OUT.sqlite [--expect OUT.json] [--kernels N]

  planted    five processes on two GPUs, every rule's finding planted where its expected row says:
             GPU gaps (one exactly at the 500 ms threshold, one split by CUDA profiling overhead),
             chunks of low GPU use aligned to gpu-low-util's chunks, synchronization calls (ties in
             table order), pageable async copies, synchronous memcpy/memset (and the ones nsys's rules
             leave out), a storm of tiny kernels, CUDA graph launches with graph-node kernels, NCCL
             kernels. --expect writes the expected CSV rows per rule and the expected gpu-busy,
             launch-overhead, cuda-graphs and nccl-wait numbers (computed here from the rows written).
  collapsed  graph launches traced as whole graphs (CUPTI_ACTIVITY_KIND_GRAPH_TRACE), no graph kernels.
  quirks     the corners where SQLite's semantics decide nsys's rows: two processes idle in the same
             gpu-low-util chunks (their NULL groups merge), a correlation id shared by two processes,
             NULL and equal device ids on copies, equal durations, unknown memory kinds, a graph of the
             real-nsys tier only (compared with nsys, not with planted values), a copy and a kernel of two
             contexts ending together before an idle gap.
  older      the shape of an nsys 2022.2 export taken with --cudabacktrace (real/pipit): every runtime call
             recorded twice under one correlation id, as cudaMemcpy and cudaMemcpy_v3020, and an empty
             VULKAN_WORKLOAD table; twelve idle gaps whose longest come last. --expect: the rows of
             cuda-sync-memcpy:rows=-1 (one per call name) and of gpu-starv:gap=0:rows=5 with the table
             (the first 5 gaps in time, then longest first) and without it (the 5 longest).
  bench      N kernels (default 1,000,000) with their launch calls, 2 GPUs x 4 streams, copies, syncs,
             NCCL kernels and idle gaps: the findings benchmark.
"""
import argparse
import importlib.util
import json
import os
import random
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("sample_export", os.path.join(HERE, "sample_export.py"))
_sample = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_sample)

EXTRA = """
ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN graphId INTEGER;
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE PROFILER_OVERHEAD (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
"""
GRAPH_TRACE = """
CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, graphId INTEGER NOT NULL, graphExecId INTEGER NOT NULL);
"""

MS = 1_000_000
US = 1_000
T0 = 10_000_000_000


class Export:
    def __init__(self, path, graph_trace=False):
        self.path = path
        self.tmp = path + ".tmp"
        if os.path.exists(self.tmp):
            os.remove(self.tmp)
        self.db = sqlite3.connect(self.tmp)
        self.db.execute("PRAGMA journal_mode=OFF")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.executescript(_sample.SCHEMA + EXTRA + (GRAPH_TRACE if graph_trace else ""))
        self.strings = {}
        self.corr = 1000
        self.runtime, self.kernels, self.memcpy, self.memset, self.overhead, self.graphs = [], [], [], [], [], []
        self.ops = []          # (device, start, end, kind) of every GPU op, for the expected busy time
        self.parts = []        # (device, start, end, part): the parts of docs/SEMANTICS.md (copies twice)
        self.names = {}        # kernel name -> stats, for the expected launch-overhead rows
        meta = [("EXPORT_PRODUCT_NAME", "gpuflame findings export (synthetic, not a real capture)"),
                ("EXPORT_PRODUCT_VERSION", "2025.1.3.140"), ("EXPORT_SCHEMA_VERSION", "3.17.2")]
        self.db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", meta)
        for i, (n, lab) in enumerate([("UNKNOWN", "Unknown"), ("HTOD", "Host-to-Device"), ("DTOH", "Device-to-Host"),
                                      ("HTOA", "Host-to-Array"), ("ATOH", "Array-to-Host"), ("ATOA", "Array-to-Array"),
                                      ("ATOD", "Array-to-Device"), ("DTOA", "Device-to-Array"),
                                      ("DTOD", "Device-to-Device"), ("HTOH", "Host-to-Host"), ("PTOP", "Peer-to-Peer")]):
            self.db.execute("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", (i, "CUDA_MEMCPY_KIND_" + n, lab))
        for dev, name in ((0, "NVIDIA A100-SXM4-80GB"), (1, "NVIDIA A100-SXM4-80GB")):
            row = [None] * 41
            row[0:4] = [0, dev, name, "0000:%02d:00.0" % (7 + dev)]
            self.db.execute("INSERT INTO TARGET_INFO_GPU VALUES (%s)" % ",".join("?" * 41), row)

    def sid(self, s):
        if s not in self.strings:
            self.strings[s] = len(self.strings) + 1
            self.db.execute("INSERT INTO StringIds VALUES (?, ?)", (self.strings[s], s))
        return self.strings[s]

    @staticmethod
    def gpid(pid):
        return pid << 24

    @staticmethod
    def gtid(pid, tid):
        return (pid << 24) | tid

    def process(self, pid, tids=()):
        self.db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", (self.gpid(pid), pid, "app%d" % pid))
        for t in (pid,) + tuple(tids):
            self.db.execute("INSERT INTO ThreadNames VALUES (?, 0, ?)", (self.sid("thread %d" % t), self.gtid(pid, t)))

    def call(self, pid, tid, name, start, dur, corr=None):
        if corr is None:
            self.corr += 1
            corr = self.corr
        self.runtime.append((start, start + dur, 0, self.gtid(pid, tid), corr, self.sid(name), 0, None))
        return corr

    def kernel(self, pid, dev, ctx, stream, start, dur, name, api=5 * US, lead=20 * US, api_name="cudaLaunchKernel_v7000",
               tid=None, corr=None, graph_node=None, graph=None, launch=True):
        if launch and corr is None:
            corr = self.call(pid, tid or pid, api_name, start - lead, api)
        n = self.sid(name)
        self.kernels.append((start, start + dur, dev, ctx, None, stream, corr, self.gpid(pid), n, n, None, 0, 0, 32,
                             1, 1, 1, 128, 1, 1, 0, 0, 0, 0, len(self.kernels) + 1, 0, graph_node, 1, graph))
        self.ops.append((dev, start, start + dur, "kernel"))
        self.parts.append((dev, start, start + dur, "comm" if "nccl" in name.lower() else "compute"))
        st = self.names.setdefault(name, {"kernels": 0, "launched": 0, "api": 0, "ktot": 0, "kmax": 0, "delay": 0,
                                          "dmax": None, "tiny": 0})
        st["kernels"] += 1
        st["ktot"] += dur
        st["kmax"] = max(st["kmax"], dur)
        if launch:
            st["launched"] += 1
            st["api"] += api
            d = start - (start - lead + api)
            st["delay"] += d
            st["dmax"] = d if st["dmax"] is None else max(st["dmax"], d)
            st["tiny"] += dur < api
        return corr

    def copy(self, pid, dev, ctx, stream, start, dur, api_name, nbytes, copy_kind, src_kind, dst_kind, src_dev=None,
             dst_dev=None, tid=None, corr=None, api_dur=10 * US):
        if corr is None:
            corr = self.call(pid, tid or pid, api_name, start - 30 * US, api_dur)
        self.memcpy.append((start, start + dur, dev, ctx, None, stream, corr, self.gpid(pid), nbytes, copy_kind, None,
                            src_kind, dst_kind, src_dev, None, dst_dev, None, None, None, None))
        self.ops.append((dev, start, start + dur, "memcpy"))
        self.parts.append((dev, start, start + dur, "copy"))
        direction = {1: "h2d", 3: "h2d", 2: "d2h", 4: "d2h", 5: "d2d", 6: "d2d", 7: "d2d", 8: "d2d", 10: "p2p"}
        if copy_kind in direction:
            self.parts.append((dev, start, start + dur, direction[copy_kind]))
        return corr

    def set(self, pid, dev, ctx, stream, start, dur, api_name, nbytes, mem_kind, tid=None, corr=None):
        if corr is None:
            corr = self.call(pid, tid or pid, api_name, start - 30 * US, 10 * US)
        self.memset.append((start, start + dur, dev, ctx, None, stream, corr, self.gpid(pid), 0, nbytes, None, mem_kind))
        self.ops.append((dev, start, start + dur, "memset"))
        self.parts.append((dev, start, start + dur, "memset"))
        return corr

    def profiler_overhead(self, pid, tid, name, start, end):
        self.overhead.append((start, end, self.gtid(pid, tid), self.sid(name), 0))

    def graph_range(self, pid, dev, ctx, stream, start, dur, corr, graph, graph_exec):
        self.graphs.append((start, start + dur, dev, ctx, None, stream, corr, self.gpid(pid), graph, graph_exec))

    def nvtx(self, pid, tid, text, start, end):
        self.db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, text, globalTid, domainId) "
                        "VALUES (?, ?, 59, NULL, ?, ?, 0)", (start, end, text, self.gtid(pid, tid)))

    def finish(self):
        ex = self.db.executemany
        ex("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", self.runtime)
        ex("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%s)" % ",".join("?" * 29), self.kernels)
        ex("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (%s)" % ",".join("?" * 20), self.memcpy)
        ex("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (%s)" % ",".join("?" * 12), self.memset)
        ex("INSERT INTO PROFILER_OVERHEAD VALUES (?,?,?,?,?)", self.overhead)
        if self.graphs:
            ex("INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (%s)" % ",".join("?" * 10), self.graphs)
        self.db.commit()
        self.db.close()
        os.replace(self.tmp, self.path)

    def busy(self, kinds=None):
        """device -> (ops, first, last, union of the ops' intervals, union of the kernels')"""
        out = {}
        for dev in sorted({o[0] for o in self.ops}):
            ops = sorted((s, e, k) for d, s, e, k in self.ops if d == dev)

            def union(iv):
                tot, cs, ce = 0, None, None
                for s, e in iv:
                    if ce is None or s > ce:
                        if ce is not None:
                            tot += ce - cs
                        cs, ce = s, e
                    elif e > ce:
                        ce = e
                return tot + (ce - cs if ce is not None else 0)
            out[dev] = (len(ops), ops[0][0], max(e for _, e, _ in ops), union([(s, e) for s, e, _ in ops]),
                        union([(s, e) for s, e, k in ops if k == "kernel"]))
        return out

    def part(self, dev, *names):
        """the union of the intervals of these parts on a device"""
        iv = sorted((s, e) for d, s, e, p in self.parts if d == dev and p in names)
        tot, cs, ce = 0, None, None
        for s, e in iv:
            if ce is None or s > ce:
                if ce is not None:
                    tot += ce - cs
                cs, ce = s, e
            elif e > ce:
                ce = e
        return tot + (ce - cs if ce is not None else 0)


def planted(path, expect):
    x = Export(path)
    P1, P2, P3, P4, P5 = 1001, 2002, 3003, 4004, 5005
    x.process(P1, (1002,))
    for p in (P2, P3, P4, P5):
        x.process(p)
    nccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
    # P1 on GPU 0 (context 1): busy 0-500 ms (100 NCCL kernels inside), idle 500-1100 ms (a 600 ms gap),
    # busy 1100-1500, idle 1500-2900 split by CUDA profiling overhead at 2000-2100 into exactly 500 ms
    # (not reported: gap > 500 ms) and 800 ms, busy 2900-3000. Every kernel 1 ms with its launch call.
    for i in range(500):
        x.kernel(P1, 0, 1, 7, T0 + i * MS, MS, nccl if 100 <= i < 200 else "gemm_kernel")
    for i in range(400):
        x.kernel(P1, 0, 1, 7, T0 + 1100 * MS + i * MS, MS, "gemm_kernel")
    for i in range(100):
        x.kernel(P1, 0, 1, 7, T0 + 2900 * MS + i * MS, MS, "gemm_kernel")
    x.profiler_overhead(P1, P1, "CUDA profiling overhead", T0 + 2000 * MS, T0 + 2100 * MS)
    # P1 on GPU 1 (context 2): dense 200-400 ms, 100 µs kernels
    for i in range(2000):
        x.kernel(P1, 1, 2, 14, T0 + 200 * MS + i * 100 * US, 100 * US, "small_kernel")
    # P2 on GPU 0 (context 3): the span is 3 s, so gpu-low-util's 30 chunks are 100 ms each. Dense but for
    # chunks 10-14 (a 20 ms kernel each: 20 %), chunk 25 (45 %) and chunk 27 (50 %: not below 50).
    t = T0
    for i in range(1000):
        x.kernel(P2, 0, 3, 21, t + i * MS, MS, "p2_kernel")
    for c in range(10, 15):
        x.kernel(P2, 0, 3, 21, T0 + c * 100 * MS, 20 * MS, "p2_kernel")
    for i in range(1000):
        x.kernel(P2, 0, 3, 21, T0 + 1500 * MS + i * MS, MS, "p2_kernel")
    x.kernel(P2, 0, 3, 21, T0 + 2500 * MS, 45 * MS, "p2_kernel")
    for i in range(100):
        x.kernel(P2, 0, 3, 21, T0 + 2600 * MS + i * MS, MS, "p2_kernel")
    x.kernel(P2, 0, 3, 21, T0 + 2700 * MS, 50 * MS, "p2_kernel")
    for i in range(200):
        x.kernel(P2, 0, 3, 21, T0 + 2800 * MS + i * MS, MS, "p2_kernel")
    x.profiler_overhead(P2, P2, "CUPTI Buffer flush", T0 + 1200 * MS, T0 + 1300 * MS)  # not a CUDA overhead name
    # P3 on GPU 1 (context 4): a storm, 1000 kernels of 2 µs, each launched by a 5 µs call, 10 µs apart
    for i in range(1000):
        a = T0 + 500 * MS + i * 10 * US
        x.kernel(P3, 1, 4, 28, a + 8 * US, 2 * US, "tiny_kernel", api=5 * US, lead=8 * US)
    # P4 on GPU 1 (context 5): 5 graph launches, 3 graph-node kernels of 100 µs each, back to back
    for g in range(5):
        c = x.call(P4, P4, "cudaGraphLaunch_v10000", T0 + 600 * MS + g * 300 * US - 50 * US, 10 * US)
        for k in range(3):
            x.kernel(P4, 1, 5, 35, T0 + 600 * MS + g * 300 * US + k * 100 * US, 100 * US, "graph_node_kernel_%d" % k,
                     corr=c, graph_node=100 + k, graph=77, launch=False)
            st = x.names["graph_node_kernel_%d" % k]
            st["launched"] += 1
            st["api"] += 10 * US
            d = (T0 + 600 * MS + g * 300 * US + k * 100 * US) - (T0 + 600 * MS + g * 300 * US - 40 * US)
            st["delay"] += d
            st["dmax"] = d if st["dmax"] is None else max(st["dmax"], d)
            st["tiny"] += 100 * US < 10 * US
    # P5 on GPU 1 (context 6): copies and memsets back to back from 700 ms
    t = T0 + 700 * MS
    copies = [  # api, bytes, copyKind, srcKind, dstKind, srcDev, dstDev, dur
        ("cudaMemcpyAsync_v3020", 1_000_000, 1, 0, 2, None, None, 300 * US),      # pageable async
        ("cudaMemcpyAsync_v3020", 2_000_000, 1, 1, 2, None, None, 150 * US),      # pinned: fine
        ("cudaMemcpy2DAsync_v3020", 65_536, 2, 2, 0, None, None, 40 * US),        # pageable async (D2H)
        ("cudaMemcpy_v3020", 4_000_000, 2, 2, 0, None, None, 500 * US),           # synchronous
        ("cudaMemcpy_v3020", 64_000, 1, 0, 2, None, None, 20 * US),               # small H2D: left out
        ("cudaMemcpy_v3020", 64_001, 1, 0, 2, None, None, 20 * US),               # synchronous
        ("cudaMemcpy_v3020", 8_000_000, 8, 2, 2, 1, 1, 100 * US),                 # same device: left out
        ("cudaMemcpyPeer_v4000", 500, 10, 2, 2, 0, 1, 20 * US),                   # synchronous, ties with 64001
    ]
    for api, nb, ck, sk, dk, sd, dd, dur in copies:
        x.copy(P5, 1, 6, 42, t, dur, api, nb, ck, sk, dk, sd, dd)
        t += dur
    sets = [("cudaMemset_v3020", 1_000_000, 1, 60 * US), ("cudaMemset_v3020", 2_000_000, 4, 80 * US),
            ("cudaMemset_v3020", 3_000_000, 2, 30 * US), ("cudaMemsetAsync_v3020", 4_000_000, 1, 30 * US)]
    for api, nb, mk, dur in sets:
        x.set(P5, 1, 6, 42, t, dur, api, nb, mk)
        t += dur
    # synchronization calls (runtime only); two of 1 ms: table order decides
    x.call(P1, P1, "cudaStreamSynchronize_v3020", T0 + 1600 * MS, MS)
    x.call(P1, P1, "cudaDeviceSynchronize_v3020", T0 + 1700 * MS, 2 * MS)
    x.call(P1, 1002, "cudaStreamSynchronize_ptsz_v7000", T0 + 1800 * MS, MS)
    x.call(P1, P1, "cudaEventSynchronize_v3020", T0 + 1900 * MS, 5 * MS)           # not one of the rule's
    x.nvtx(P1, P1, "phase two", T0 + 1000 * MS, T0 + 2000 * MS)
    x.finish()
    if not expect:
        return
    e = {}
    e["gpu-starv"] = ["Row#,Duration (ns),Start (ns),PID,Device ID,Context ID",
                      "1,%d,%d,%d,0,1" % (800 * MS, T0 + 2100 * MS, P1),
                      "2,%d,%d,%d,0,1" % (600 * MS, T0 + 500 * MS, P1)]
    e["gpu-low-util"] = ["Row#,In-Use (%),Duration (ns),Start (ns),PID,Device ID,Context ID",
                         "1,0.0,%d,%d,%d,0,1" % (500 * MS, T0 + 1500 * MS, P1),
                         "2,0.0,%d,%d,%d,0,1" % (600 * MS, T0 + 500 * MS, P1),
                         "3,0.0,%d,%d,%d,0,1" % (800 * MS, T0 + 2100 * MS, P1),
                         "4,20.0,%d,%d,%d,1,4" % (9992 * US, T0 + 500 * MS + 8 * US, P3),
                         "5,20.0,%d,%d,%d,0,3" % (500 * MS, T0 + 1000 * MS, P2),
                         "6,45.0,%d,%d,%d,0,3" % (100 * MS, T0 + 2500 * MS, P2)]
    e["cuda-sync-api"] = ["Duration (ns),Start (ns),PID,TID,API Name",
                          "%d,%d,%d,%d,cudaDeviceSynchronize_v3020" % (2 * MS, T0 + 1700 * MS, P1, P1),
                          "%d,%d,%d,%d,cudaStreamSynchronize_v3020" % (MS, T0 + 1600 * MS, P1, P1),
                          "%d,%d,%d,%d,cudaStreamSynchronize_ptsz_v7000" % (MS, T0 + 1800 * MS, P1, 1002)]
    starts, t = [], T0 + 700 * MS
    for c in copies:
        starts.append(t)
        t += c[7]
    kind = {0: "Pageable", 1: "Pinned", 2: "Device"}

    def crow(i):
        api, nb, ck, sk, dk, sd, dd, dur = copies[i]
        return "%d,%d,%s,%s,%.3f,%d,1,6,42,%s" % (dur, starts[i], kind[sk], kind[dk], nb / 1e6, P5, api)
    hdr = "Duration (ns),Start (ns),Src Kind,Dst Kind,Bytes (MB),PID,Device ID,Context ID,Stream ID,API Name"
    e["cuda-async-memcpy"] = [hdr, crow(0), crow(2)]
    e["cuda-sync-memcpy"] = [hdr, crow(3), crow(5), crow(7)]
    mstart = t
    e["cuda-sync-memset"] = ["Duration (ns),Start (ns),Memory Kind,Bytes (MB),PID,Device ID,Context ID,Stream ID,API Name",
                             "%d,%d,Managed,2.000,%d,1,6,42,cudaMemset_v3020" % (80 * US, mstart + 60 * US, P5),
                             "%d,%d,Pinned,1.000,%d,1,6,42,cudaMemset_v3020" % (60 * US, mstart, P5)]
    b = x.busy()
    rows = ["Device ID,Device,Ops,Span (ns),Busy (ns),Compute (ns),Communication (ns),Copy (ns),H2D (ns),D2H (ns),"
            "D2D (ns),P2P (ns),Memset (ns),Overlap (ns),Idle (ns),Denominator (ns),Busy (%),Compute (%),"
            "Communication (%),Copy (%),Idle (%),Kernel Busy (%),Denominator"]
    for dev, (n, f, l, busy, kbusy) in sorted(b.items()):
        den = l - f
        p = {k: x.part(dev, k) for k in ("compute", "comm", "copy", "h2d", "d2h", "d2d", "p2p", "memset")}
        overlap = p["compute"] + x.part(dev, "copy", "comm") - x.part(dev, "compute", "copy", "comm")
        rows.append("%d,NVIDIA A100-SXM4-80GB (%d),%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,"
                    "%.1f,device span"
                    % (dev, dev, n, den, busy, p["compute"], p["comm"], p["copy"], p["h2d"], p["d2h"], p["d2d"],
                       p["p2p"], p["memset"], overlap, den - busy, den, 100 * busy / den, 100 * p["compute"] / den,
                       100 * p["comm"] / den, 100 * p["copy"] / den, 100 * (den - busy) / den, 100 * kbusy / den))
    e["gpu-busy"] = rows
    e["nccl-wait"] = ["PID,Device ID,NCCL Kernels,NCCL Time (ns),NCCL Busy (ns),Device Busy (ns),NCCL Share (%),Longest (ns)",
                      "%d,0,100,%d,%d,%d,10.0,%d" % (P1, 100 * MS, 100 * MS, 1000 * MS, MS)]
    lo = ["Kernels,Launched,Launch Total (ns),Launch Mean (ns),Kernel Total (ns),Kernel Mean (ns),Queue Mean (ns),"
          "Queue Max (ns),Shorter Than Launch,Storm,Name"]
    for name, st in sorted(x.names.items(), key=lambda kv: (-kv[1]["api"], kv[0])):
        storm = st["kernels"] >= 100 and st["launched"] and st["api"] > st["ktot"]
        nm = '"%s"' % name if "," in name else name
        lo.append("%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s" % (st["kernels"], st["launched"], st["api"], st["api"] // st["launched"],
                                                   st["ktot"], st["ktot"] // st["kernels"], st["delay"] // st["launched"],
                                                   st["dmax"], st["tiny"], "storm" if storm else "", nm))
    e["launch-overhead"] = lo
    e["cuda-graphs"] = ["Graph ID,Launches,Kernels,Kernel Time (ns),Graph Ranges,Graph Range Time (ns)",
                        "77,5,15,%d,0,0" % (1500 * US)]
    with open(expect, "w") as f:
        json.dump(e, f, indent=1, sort_keys=True)


def collapsed(path, expect):
    x = Export(path, graph_trace=True)
    P = 6006
    x.process(P)
    for i in range(10):
        x.kernel(P, 0, 1, 7, T0 + i * MS, MS, "plain_kernel")
    for g in range(3):
        c = x.call(P, P, "cudaGraphLaunch_v10000", T0 + 20 * MS + g * 2 * MS, 10 * US)
        x.graph_range(P, 0, 1, 7, T0 + 20 * MS + g * 2 * MS + 50 * US, MS, c, 9, 3)
    x.finish()
    if expect:
        with open(expect, "w") as f:
            json.dump({"cuda-graphs": ["Graph ID,Launches,Kernels,Kernel Time (ns),Graph Ranges,Graph Range Time (ns)",
                                       "9,3,0,0,3,%d" % (3 * MS)]}, f, indent=1)


def quirks(path):
    x = Export(path)
    A, B = 7007, 8008
    x.process(A)
    x.process(B)
    # A on GPU 0 and GPU 1, B on GPU 0: all three idle in the middle (their empty chunks merge)
    for dev, pid, ctx, stream in ((0, A, 1, 7), (1, A, 2, 8), (0, B, 3, 9)):
        for i in range(300):
            x.kernel(pid, dev, ctx, stream, T0 + i * MS, MS, "k_%d_%d" % (pid, dev))
        for i in range(300):
            x.kernel(pid, dev, ctx, stream, T0 + 2700 * MS + i * MS, MS, "k_%d_%d" % (pid, dev))
        # equal gaps on every (process, device): ties ordered by start
        x.kernel(pid, dev, ctx, stream, T0 + 1000 * MS + dev * MS, 20 * MS, "k_%d_%d" % (pid, dev))
    # overlapping work on one stream pair: over 100 % summed in-use, one gap between them
    for i in range(40):
        x.kernel(A, 0, 1, 10, T0 + 1500 * MS + i * MS, 3 * MS, "overlap")
    # a correlation id both processes use: nsys joins copies to calls on correlationId alone
    c = x.call(A, A, "cudaMemcpy_v3020", T0 + 1200 * MS, 2 * MS, corr=999999)
    x.call(B, B, "cudaMemcpy_v3020", T0 + 1200 * MS, 2 * MS, corr=999999)
    x.copy(A, 0, 1, 7, T0 + 1201 * MS, 500 * US, "cudaMemcpy_v3020", 2_000_000, 2, 2, 0, corr=c)
    # device ids: NULL source (kept), source set and destination NULL (dropped by NULL logic), equal (dropped)
    x.copy(A, 1, 2, 8, T0 + 2000 * MS, 300 * US, "cudaMemcpy_v3020", 1_000_000, 8, 2, 2, None, None)
    x.copy(A, 1, 2, 8, T0 + 2001 * MS, 300 * US, "cudaMemcpy_v3020", 1_000_000, 8, 2, 2, 1, None)
    x.copy(A, 1, 2, 8, T0 + 2002 * MS, 300 * US, "cudaMemcpy_v3020", 1_000_000, 8, 2, 2, 1, 1)
    # unknown memory kinds print as empty cells; bytes on rounding edges
    x.copy(A, 1, 2, 8, T0 + 2003 * MS, 300 * US, "cudaMemcpyAsync_v3020", 500, 1, 0, 9)
    x.copy(A, 1, 2, 8, T0 + 2004 * MS, 300 * US, "cudaMemcpy_v3020", 1500, 3, 0, 2)
    x.copy(A, 1, 2, 8, T0 + 2005 * MS, 300 * US, "cudaMemcpy_v3020", 2500, 1, 0, 2)
    # memsets: pinned, managed, NULL kind, by a lowercase-async name
    x.set(A, 1, 2, 8, T0 + 2010 * MS, 300 * US, "cudaMemset_v3020", 10, 1)
    x.set(A, 1, 2, 8, T0 + 2011 * MS, 300 * US, "cudaMemset2D_v3020", 10, 4)
    x.set(A, 1, 2, 8, T0 + 2012 * MS, 300 * US, "cudaMemset_v3020", 10, None)
    x.set(A, 1, 2, 8, T0 + 2013 * MS, 300 * US, "cudaMemsetAsync_v3020", 10, 4)
    # synchronization calls of equal length in two processes, one by a differently cased name
    for pid in (B, A, B):
        x.call(pid, pid, "cudaStreamSynchronize_v3020", T0 + 2500 * MS + pid, 3 * MS)
    x.call(A, A, "CUDADEVICESYNCHRONIZE_v3020", T0 + 2600 * MS, 3 * MS)
    # C on GPU 1, two contexts: a copy and a kernel end at the same ns, then 750 ms idle. SQLite sorts the ends
    # of the union (kernels before copies) and the gap takes the context of the one at its position: the
    # copy's, where the trace's start order puts the kernel second
    C = 9009
    x.process(C)
    x.copy(C, 1, 11, 12, T0 + 100 * MS, 50 * MS, "cudaMemcpyAsync_v3020", 1_000_000, 1, 1, 2)
    x.kernel(C, 1, 12, 13, T0 + 120 * MS, 30 * MS, "k_tie")
    x.kernel(C, 1, 12, 13, T0 + 900 * MS, MS, "k_tie")
    # ... and on GPU 0 a copy and a kernel of two contexts are the last to end, together
    x.kernel(C, 0, 13, 16, T0 + 100 * MS, MS, "k_tie")
    x.copy(C, 0, 14, 15, T0 + 800 * MS, 100 * MS, "cudaMemcpyAsync_v3020", 1_000_000, 1, 1, 2)
    x.kernel(C, 0, 13, 16, T0 + 850 * MS, 50 * MS, "k_tie")
    # CUDA profiling overhead on A: inside the range of both of its devices
    x.profiler_overhead(A, A, "CUDA profiling data flush overhead", T0 + 800 * MS, T0 + 900 * MS)
    x.profiler_overhead(A, A, "CUDA profiling stop overhead", T0 + 2990 * MS, T0 + 3000 * MS)
    x.finish()


def older(path, expect):
    x = Export(path)
    P = 4242
    x.process(P)
    # present, even empty, it adds a view to the union of gpustats.py's GPU operation views
    x.db.execute("CREATE TABLE VULKAN_WORKLOAD (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER "
                 "NOT NULL, globalTid INTEGER, correlationId INTEGER, endCorrelationId INTEGER, nameId INTEGER NOT "
                 "NULL, gpu INTEGER, contextId INTEGER, color INTEGER, textId INTEGER)")
    idle = [300, 100, 400, 150, 900, 260, 500, 350, 800, 970, 790, 320]
    t, ops, copies = T0, [], []
    for i, g in enumerate(idle + [0]):
        short, versioned = ("cudaMemcpy", "cudaMemcpy_v3020") if i % 3 == 0 else ("cudaLaunchKernel",
                                                                                    "cudaLaunchKernel_v7000")
        x.corr += 1
        for k, name in enumerate((short, versioned)):  # the runtime row first, as in the real export
            x.runtime.append((t - 40 * US + k * US, t - 5 * US, 67 if k == 0 else 0, x.gtid(P, P), x.corr,
                              x.sid(name), 0, None))
        dur = 2 * MS + i * 10 * US
        if i % 3 == 0:
            x.copy(P, 0, 1, 7, t, dur, short, 262_144_000, 2, 2, 0, corr=x.corr)
            copies.append((dur, t))
        else:
            x.kernel(P, 0, 1, 7, t, dur, "saxpy", corr=x.corr, launch=False)
        ops.append((t, t + dur))
        t += dur + g * US
    x.finish()
    if not expect:
        return
    gaps = [(b[0] - a[1], a[1]) for a, b in zip(ops, ops[1:])]  # in time order

    def starv(rows):
        return ["Row#,Duration (ns),Start (ns),PID,Device ID,Context ID"] + [
            "%d,%d,%d,%d,0,1" % (i + 1, d, s, P) for i, (d, s) in enumerate(sorted(rows, key=lambda r: (-r[0], r[1])))]
    e = {"cuda-sync-memcpy": ["Duration (ns),Start (ns),Src Kind,Dst Kind,Bytes (MB),PID,Device ID,Context ID,"
                              "Stream ID,API Name"] +
         ["%d,%d,Device,Pageable,262.144,%d,0,1,7,%s" % (d, s, P, n) for d, s in sorted(copies, reverse=True)
          for n in ("cudaMemcpy", "cudaMemcpy_v3020")],
         "gpu-starv": starv(gaps[:5]),
         "gpu-starv without VULKAN_WORKLOAD": starv(sorted(gaps, key=lambda r: (-r[0], r[1]))[:5])}
    with open(expect, "w") as f:
        json.dump(e, f, indent=1)


def bench(path, n):
    x = Export(path)
    rnd = random.Random(11)
    pids = (31337, 31338)
    for p in pids:
        x.process(p, (p + 1, p + 2, p + 3))
    names = ["void gemm_kernel<%d>(float const*, float*, int)" % i for i in range(200)]
    names += ["ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"] * 4
    names += ["tiny_elementwise_kernel<%d>" % i for i in range(20)]
    t = {(p, d, s): T0 for p in pids for d in (0, 1) for s in range(4)}
    cpu = {p: T0 for p in pids}
    for i in range(n):
        p = pids[i % 2]
        d = (i // 2) % 2
        s = (i // 4) % 4
        key = (p, d, s)
        cpu[p] += rnd.randint(2 * US, 8 * US)
        if i % 200000 == 199999:
            cpu[p] += 700 * MS  # an idle gap nsys's gpu-starv reports
        name = names[rnd.randrange(len(names))]
        dur = 1500 if name.startswith("tiny") else int(rnd.expovariate(1 / 20000)) + 1000
        start = max(cpu[p] + 6 * US, t[key])
        x.kernel(p, d, 1 + d, 7 + s, start, dur, name, api=rnd.randint(3 * US, 9 * US), lead=start - cpu[p],
                 tid=p + s % 3)
        t[key] = start + dur
        if i % 1000 == 0:
            cpu[p] += 20 * US
            x.copy(p, d, 1 + d, 7 + s, max(cpu[p], t[key]), 40 * US, "cudaMemcpyAsync_v3020", 1 << 20, 1, i % 2, 2)
            t[key] = max(cpu[p], t[key]) + 40 * US
        if i % 5000 == 0:
            x.call(p, p, "cudaStreamSynchronize_v3020", cpu[p], 100 * US)
            cpu[p] += 100 * US
        if len(x.kernels) >= 200000:
            flush(x)
    x.finish()


def flush(x):
    ex = x.db.executemany
    ex("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", x.runtime)
    ex("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%s)" % ",".join("?" * 29), x.kernels)
    x.runtime, x.kernels, x.ops = [], [], []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant", choices=["planted", "collapsed", "quirks", "older", "bench"])
    ap.add_argument("out")
    ap.add_argument("--expect")
    ap.add_argument("--kernels", type=int, default=1_000_000)
    a = ap.parse_args()
    if a.variant == "planted":
        planted(a.out, a.expect)
    elif a.variant == "collapsed":
        collapsed(a.out, a.expect)
    elif a.variant == "quirks":
        quirks(a.out)
    elif a.variant == "older":
        older(a.out, a.expect)
    else:
        bench(a.out, a.kernels)


if __name__ == "__main__":
    main()
