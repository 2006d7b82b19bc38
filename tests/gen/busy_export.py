#!/usr/bin/env python3
"""Writes SQLite exports (the real nsys schema, through findings_export.py's Export) whose GPU time
breakdown and launch diagnosis are known by construction (docs/SEMANTICS.md), for tests/cli/test_gpu_time.sh.

usage: busy_export.py VARIANT OUT.sqlite

  copybound    two GPUs (context 1 = device 0, context 2 = device 1), the shape of a training slice whose
               host-to-device copies fill the span: per device 60 GEMM kernels of 125 us back to back on
               stream 7 while 8 copies of 12 ms run on stream 8 (the kernels overlap the first copy), two
               NCCL kernels, a D2H, a D2D and a P2P copy, a memset, and one idle gap of 5 ms. Launch calls
               block (1.3 ms) and the kernels wait long behind earlier work: queue-bound.
  launchbound  one stream: 500 kernels of 3 us, each launched by a 10 us call issued back to back by one
               thread; each kernel starts 2 us after its call returns, so the stream idles 9 us between
               kernels, about one launch call: launch-bound.
  queuebound   one stream: 500 kernels of 125 us back to back; the CPU issues their 15 us launch calls every
               20 us from the start, far ahead of the GPU: queue delays grow to tens of ms on a busy device.
  neither      one stream: 200 kernels of 100 us, 1 ms apart; each launched by a 5 us call 10 us before it
               starts: short queue delay, the stream idles 1 ms before each kernel (200x a launch call: the
               host is busy elsewhere, launches are not the cause), the device is busy 9 %.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("findings_export", os.path.join(HERE, "findings_export.py"))
_fx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fx)
Export, US, MS, T0 = _fx.Export, _fx.US, _fx.MS, _fx.T0

GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"


def copybound(x):
    P = 4242
    x.process(P)
    for dev, ctx in ((0, 1), (1, 2)):
        base = T0 + dev * 7 * US  # the two devices not quite aligned
        t = base
        for i in range(8):  # H2D copies of 12 ms back to back on stream 8
            x.copy(P, dev, ctx, 8, t, 12 * MS, "cudaMemcpyAsync_v3020", 64 << 20, 1, 0, 2)
            t += 12 * MS
        copies_end = t
        k = base + 1 * MS  # kernels overlap the first copy
        for i in range(60):
            x.kernel(P, dev, ctx, 7, k, 125 * US, GEMM, api=1300 * US, lead=(i + 1) * 2 * MS)
            k += 125 * US
        x.kernel(P, dev, ctx, 9, copies_end + 1 * MS, 400 * US, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
                 api=20 * US, lead=3 * MS)
        x.kernel(P, dev, ctx, 9, copies_end + 1 * MS + 200 * US, 300 * US, "ncclKernel_AllGather_RING_LL_Sum_int8_t",
                 api=20 * US, lead=3 * MS)  # overlaps the first NCCL kernel on another stream
        t = copies_end + 2 * MS
        x.copy(P, dev, ctx, 8, t, 700 * US, "cudaMemcpyAsync_v3020", 1 << 20, 2, 2, 0)          # D2H
        x.copy(P, dev, ctx, 8, t + 700 * US, 300 * US, "cudaMemcpyAsync_v3020", 1 << 20, 8, 2, 2)  # D2D
        x.copy(P, dev, ctx, 10, t + 500 * US, 400 * US, "cudaMemcpyPeerAsync_v4000", 1 << 20, 10, 2, 2,
               src_dev=dev, dst_dev=1 - dev)                                                   # P2P, overlaps D2H/D2D
        x.set(P, dev, ctx, 8, t + 1 * MS, 50 * US, "cudaMemsetAsync_v3020", 4096, 2)
        # idle 5 ms, then one last kernel
        x.kernel(P, dev, ctx, 7, t + 1 * MS + 50 * US + 5 * MS, 125 * US, GEMM, api=1300 * US, lead=2 * MS)


def launchbound(x):
    P = 100
    x.process(P)
    call_start = T0
    for i in range(500):
        # call [c, c+10us); kernel starts 2 us after it returns: lead = 12 us
        x.kernel(P, 0, 1, 7, call_start + 12 * US, 3 * US, "elementwise_add_kernel", api=10 * US, lead=12 * US)
        call_start += 12 * US


def queuebound(x):
    P = 200
    x.process(P)
    for i in range(500):
        start = T0 + 1 * MS + i * 125 * US
        call = T0 + i * 20 * US
        x.kernel(P, 0, 1, 7, start, 125 * US, GEMM, api=15 * US, lead=start - call)


def neither(x):
    P = 300
    x.process(P)
    for i in range(200):
        start = T0 + i * 1100 * US
        x.kernel(P, 0, 1, 7, start, 100 * US, "reduce_kernel", api=5 * US, lead=10 * US)


def main():
    variant, out = sys.argv[1], sys.argv[2]
    fn = {"copybound": copybound, "launchbound": launchbound, "queuebound": queuebound, "neither": neither}[variant]
    x = Export(out)
    fn(x)
    x.finish()


if __name__ == "__main__":
    main()
