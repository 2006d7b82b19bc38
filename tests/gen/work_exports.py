#!/usr/bin/env python3
"""Writes a SAMPLE nsys SQLite export (not a real capture) of one run of a small stencil program, for
`gpuflame diff`'s process keys and comparability (issue 41), in the schema of tests/gen/rank_exports.py:
one process (main thread named NAME, META_DATA_CAPTURE with its command and one argument), STEPS NVTX
ranges "step i" on its main thread, and in each step one Host-to-Device copy of BYTES bytes, then the
kernel "stencil_kernel(float*)" with GRID blocks of 256 threads lasting GRID * NS_PER_BLOCK ns, then
"reduce_kernel(float*)" (1 block, 5 us), then a 64-byte Device-to-Host copy.

  work_exports.py OUT.sqlite [--pid P] [--name NAME] [--arg ARG] [--bytes B] [--grid G] [--steps S]
                  [--ns-per-block N]

So what differs between two generated runs is known by construction: the pid, the argument, the bytes
copied, the grid and the kernel times.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rank_exports  # noqa: E402  (Export: the tables, processes, launches)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--pid", type=int, default=4100)
    ap.add_argument("--name", default="stencil")
    ap.add_argument("--arg", default="--size=128")
    ap.add_argument("--bytes", type=int, default=128 * 1024)
    ap.add_argument("--grid", type=int, default=126)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--ns-per-block", type=int, default=400)
    a = ap.parse_args()
    e = rank_exports.Export(a.out, rank_exports.BASE_EPOCH, "nodeA", ["NVIDIA A100-SXM4-80GB"])
    db = e.db
    for i, (n, l) in enumerate([("CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"), ("CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"),
                                ("CUDA_MEMCPY_KIND_DTOH", "Device-to-Host")]):
        db.execute("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", (i, n, l))
    e.process(a.pid, a.name, None, 0)
    db.execute("INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:ARGUMENT_0', ?)", (a.arg,))
    gtid = (a.pid << 24) | a.pid
    copy_call = e.sid("cudaMemcpy_v3020")
    t = 1_000_000

    def launch(name_id, start, end):
        e.corr += 1
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                   (start - 5000, start - 2000, gtid, e.corr, name_id))
        return e.corr

    def kernel(name, start, dur, grid, block):
        corr = launch(e.launch, start, start + dur)
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, NULL, 7, ?, ?, ?, ?, NULL, 1, 0, "
                   "32, ?, 1, 1, ?, 1, 1, 0, 0, 0, 0, ?, 0, NULL, 1)",
                   (start, start + dur, corr, a.pid << 24, e.sid(name), e.sid(name), grid, block, corr))

    def copy(kind, start, nbytes):
        dur = 1000 + nbytes // 10
        corr = launch(copy_call, start, start + dur)
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, NULL, 7, ?, ?, ?, ?, NULL, 0, 2, "
                   "0, 1, 0, 1, NULL, NULL, NULL)", (start, start + dur, corr, a.pid << 24, nbytes, kind))
        return dur

    for step in range(a.steps):
        s0 = t
        t += 10_000
        t += copy(1, t, a.bytes) + 5000
        d = a.grid * a.ns_per_block
        kernel("stencil_kernel(float*)", t, d, a.grid, 256)
        t += d + 5000
        kernel("reduce_kernel(float*)", t, 5000, 1, 256)
        t += 10_000
        t += copy(2, t, 64) + 5000
        db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) "
                   "VALUES (?, ?, 59, ?, ?, 0)", (s0, t, "step %d" % step, gtid))
        t += 20_000
    e.close()


if __name__ == "__main__":
    main()
