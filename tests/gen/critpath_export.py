#!/usr/bin/env python3
"""Writes SQLite exports (the real nsys schema, through findings_export.py's Export) whose critical paths are known
by construction (docs/SEMANTICS.md "Critical path"), for tests/cli/test_critical_path.sh. Four steps `step N` per
process (NVTX push/pop ranges on the main thread), 1 ms apart; s is a step's start. Every launch call lasts 5 us.

usage: critpath_export.py VARIANT OUT.sqlite

  host    host-bound: launches of `tiny_kernel` (100 us, 20 us after its call) at s+1, s+4, s+7 ms; the step ends
          at s+10 ms. Path: host code and the three calls; no kernel.
  kernel  kernel-bound: calls at s+100, 110, 120, 130 us launch four `gemm_big` of 2 ms on stream 7, the first 20 us
          after its call, the others back to back; cudaDeviceSynchronize from s+200 us returns 10 us after the last
          ends; the step ends 50 us later. Path: host 150 us, launch 20 us, compute 8 ms, sync 10 us.
  sync    a sync wait: host code to s+1 ms, cudaMemcpyAsync (10 us) starts a 3 ms device-to-host copy 30 us after
          its call; cudaStreamSynchronize from s+1.1 ms returns 15 us after the copy; 2 ms host code to the end.
          Path: host 3 ms, launch 30 us, copy 3 ms, sync 15 us.
  event   two streams joined by an event: `producer` (5 ms, stream 7) launched at s+100 us (20 us), cudaEventRecord at
          s+130 us, cudaStreamWaitEvent at s+140 us, `consumer` (1 ms, stream 8) launched at s+150 us starts 5 us
          after the producer ends; cudaDeviceSynchronize from s+200 us returns 10 us after the consumer; end 50 us
          later. Path: host 150 us, launch 20 us, compute 6 ms (producer, consumer), queue 5 us, sync 10 us.
  ranks   two processes (ranks: pid 300 on device 0, pid 400 on device 1), the same steps: host 100 us, `fwd`
          launched at s+100 us (20 us) for 1 ms on pid 300 and 3 ms on pid 400, then the all-reduce
          `ncclKernel_AllReduce_RING_LL_Sum_float` (call at s+130 us) right after fwd on stream 7; it ends on both
          500 us after pid 400's starts; cudaDeviceSynchronize from s+200 us returns 10 us after it; end 50 us
          later. pid 400 arrives late: path host 150 us, launch 20 us, compute 3 ms (pid 400's fwd),
          communication 500 us, sync 10 us.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("findings_export", os.path.join(HERE, "findings_export.py"))
_fx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fx)
Export, US, MS, T0 = _fx.Export, _fx.US, _fx.MS, _fx.T0
P = 300
NCCL = "ncclKernel_AllReduce_RING_LL_Sum_float"


def launch(x, pid, dev, stream, call, start, dur, name):
    x.kernel(pid, dev, dev + 1, stream, start, dur, name, api=5 * US, lead=start - call)


def host(x, s):
    for at in (1, 4, 7):
        launch(x, P, 0, 7, s + at * MS, s + at * MS + 20 * US, 100 * US, "tiny_kernel")
    return s + 10 * MS


def kernel(x, s):
    k = s + 120 * US
    for j in range(4):
        launch(x, P, 0, 7, s + (100 + 10 * j) * US, k, 2 * MS, "gemm_big")
        k += 2 * MS
    x.call(P, P, "cudaDeviceSynchronize_v3020", s + 200 * US, k + 10 * US - (s + 200 * US))
    return k + 60 * US


def sync(x, s):
    c = s + 1 * MS + 30 * US
    x.copy(P, 0, 1, 7, c, 3 * MS, "cudaMemcpyAsync_v3020", 1 << 20, 2, 0, 1)
    ret = c + 3 * MS + 15 * US
    x.call(P, P, "cudaStreamSynchronize_v3020", s + 1100 * US, ret - (s + 1100 * US))
    return ret + 2 * MS


def event(x, s):
    launch(x, P, 0, 7, s + 100 * US, s + 120 * US, 5 * MS, "producer")
    x.call(P, P, "cudaEventRecord_v3020", s + 130 * US, 5 * US)
    x.call(P, P, "cudaStreamWaitEvent_v3020", s + 140 * US, 5 * US)
    c0 = s + 5120 * US + 5 * US
    launch(x, P, 0, 8, s + 150 * US, c0, 1 * MS, "consumer")
    ret = c0 + 1 * MS + 10 * US
    x.call(P, P, "cudaDeviceSynchronize_v3020", s + 200 * US, ret - (s + 200 * US))
    return ret + 50 * US


def ranks(x, s):
    late = s + 120 * US + 3 * MS
    for pid, dev, fwd in ((300, 0, 1 * MS), (400, 1, 3 * MS)):
        launch(x, pid, dev, 7, s + 100 * US, s + 120 * US, fwd, "fwd")
        a = s + 120 * US + fwd
        launch(x, pid, dev, 7, s + 130 * US, a, late + 500 * US - a, NCCL)
        ret = late + 510 * US
        x.call(pid, pid, "cudaDeviceSynchronize_v3020", s + 200 * US, ret - (s + 200 * US))
    return late + 560 * US


def main():
    variant, out = sys.argv[1], sys.argv[2]
    fn = {"host": host, "kernel": kernel, "sync": sync, "event": event, "ranks": ranks}[variant]
    x = Export(out)
    pids = (300, 400) if variant == "ranks" else (P,)
    for pid in pids:
        x.process(pid)
    s = T0
    for i in range(4):
        e = fn(x, s)
        for pid in pids:
            x.nvtx(pid, pid, "step %d" % i, s, e)
        s = e + 1 * MS
    x.finish()


main()
