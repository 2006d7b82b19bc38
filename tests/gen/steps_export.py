#!/usr/bin/env python3
"""Writes SQLite exports (the real nsys schema, through findings_export.py's Export) whose steps are known by
construction (docs/SEMANTICS.md "Steps"), for tests/cli/test_steps.sh.

usage: steps_export.py VARIANT OUT.sqlite

  train     one process (pid 300) on device 0, an `Epoch 0` range around 8 `ProfilerStep#N` ranges (push/pop,
            level 1) of 10 ms each, except ProfilerStep#0 (warm-up, 25 ms) and ProfilerStep#5 (the slow one,
            30 ms); steps start 2 ms apart (a gap between steps). Inside every step, at level 2, 4 ranges
            `aten::mm, seq = N, op_id = N` (emit_nvtx's per-call names), each launching one GEMM of 1 ms on
            stream 7 (launch call 5 us, the kernel 200 us after the call starts); step 5's kernels last 3 ms.
            Then one H2D copy of 500 us and one memset of 100 us per step. The last kernel of each step is
            launched 100 us before the step ends and runs after it: it still belongs to the step. A helper
            thread (tid 301) of the same process launches one 2 ms kernel inside every step (it belongs to
            the step: same process). Another process (pid 400) launches a 5 ms kernel inside step 3's
            window on device 1 (not the step's). One kernel has no launch call in the capture (no step).
  noisy     like train, with ranges named `Batch N` instead of ProfilerStep#N, no Epoch range and no 3 ms
            GEMMs; the steps' lengths 10, 10.2, 9.9, 10.1, 10, 10.3, 9.8, 10 ms (jitter only: no outlier).
  gpubound  8 `step N` ranges (pid 300), 12 ms apart, each launching one 9.5 ms kernel 100 us after it starts
            (the kernel 200 us after its call): a GPU-bound loop. The CPU ranges last 5 ms, except steps 4 and 6
            (10 ms: they waited for the GPU, as nersc-dl's do): each step's time is its 9.5 ms of GPU work, or
            10 ms for steps 4 and 6, so no step is an outlier although the CPU ranges alone would make two.
  drift     like noisy, 12 `step N` ranges: a 20 ms warm-up, then 10, 10.1, 9.9, 10, 10.2, 10.8, 11.2, 11.6, 12,
            12.4, 12.8 ms: the loop slows down (first third's median 10 ms, last third's 12.4 ms, +24 %, every
            later step slower) with no outlier (the MAD rule: 3 x 1.4826 x 0.8 ms > 2 ms from the median).
  speedup   the same lengths after the warm-up in reverse: the loop gets faster.
  loader    8 `step N` ranges of 10 ms (pid 300), the gap after each 20 ms, after step 4 60 ms (the longest).
            Each step launches a 1 ms kernel 1 ms after its start and one that ends 3 ms after the step does
            (its GPU work runs 3 ms into the gap). In each gap, on the main thread: `Data loading` from 1 ms to
            18 ms into the gap, holding `enumerate(DataLoader)` (1 ms shorter each side: not outermost) and
            launching a 500 us H2D copy; `log` from 18.5 to 19.5 ms; `prefetch` from 19.8 ms to 1 ms into the
            next step (not inside the gap). The helper thread (tid 301) runs `worker` over the whole gap (another
            thread: not the steps') and launches a 2 ms kernel 5 ms into it. Counted steps 1-6 have a next step:
            gaps 20, 20, 20, 60, 20, 20 ms (160 ms of a 220 ms loop), the steps' work 3 ms into each (18 ms),
            `Data loading` 6 x 17 ms and `log` 6 x 1 ms in them, and 6 copies, 6 kernels and 12 launch calls.
  slowloader  loader with data loading 10 ms longer in every gap (`Data loading` 1 to 28 ms into it, `log` and
            `prefetch` 10 ms later): the gaps 30, 30, 30, 70, 30, 30 ms (220 of a 280 ms loop), the same GPU work.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("findings_export", os.path.join(HERE, "findings_export.py"))
_fx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fx)
Export, US, MS, T0 = _fx.Export, _fx.US, _fx.MS, _fx.T0

GEMM = "ampere_sgemm_128x64_tn"
P, HELPER, OTHER = 300, 301, 400


def steps(x, name, lengths, epoch, slow=5):
    x.process(P, (HELPER,))
    x.process(OTHER)
    t = T0
    if epoch:
        x.nvtx(P, P, "Epoch 0", T0 - 1 * MS, T0 + sum(lengths) + 2 * MS * len(lengths) + 1 * MS)
    op = 100
    for i, length in enumerate(lengths):
        s, e = t, t + length
        x.nvtx(P, P, name % i, s, e)
        k = 3 * MS if i == slow else 1 * MS
        for j in range(4):
            call = s + 100 * US + j * (length - 200 * US) // 4
            if j == 3:
                call = e - 100 * US
            op += 1
            x.nvtx(P, P, "aten::mm, seq = %d, op_id = %d" % (op, op), call - 10 * US, call + 10 * US)
            x.kernel(P, 0, 1, 7, call + 200 * US, k, GEMM, api=5 * US, lead=200 * US)
        x.copy(P, 0, 1, 8, s + 3 * MS, 500 * US, "cudaMemcpyAsync_v3020", 1 << 20, 1, 0, 2)
        x.set(P, 0, 1, 8, s + 4 * MS, 100 * US, "cudaMemsetAsync_v3020", 4096, 2)
        x.kernel(P, 0, 1, 9, s + 5 * MS, 2 * MS, "helper_kernel", tid=HELPER, lead=1 * MS)
        if i == 3:
            x.kernel(OTHER, 1, 2, 7, s + 2 * MS, 5 * MS, "other_process_kernel", lead=1 * MS)
        t = e + 2 * MS
    x.kernel(P, 0, 1, 7, t + 1 * MS, 1 * MS, "unlaunched_kernel", launch=False, corr=999999)


def gpubound(x):
    x.process(P)
    for i in range(8):
        s = T0 + i * 12 * MS
        x.nvtx(P, P, "step %d" % i, s, s + (10 if i in (4, 6) else 5) * MS)
        x.kernel(P, 0, 1, 7, s + 300 * US, int(9.5 * MS), GEMM, api=5 * US, lead=200 * US)


def loader(x, slower=0):
    x.process(P, (HELPER,))
    t = T0
    for i in range(8):
        s, e = t, t + 10 * MS
        x.nvtx(P, P, "step %d" % i, s, e)
        x.kernel(P, 0, 1, 7, s + 1 * MS, 1 * MS, GEMM, lead=200 * US)
        x.kernel(P, 0, 1, 7, e + 2 * MS, 1 * MS, GEMM, lead=2 * MS + 500 * US)  # its call 500 us before e
        if i == 7:
            break
        g = e + (60 if i == 4 else 20) * MS + slower  # the next step's start
        x.nvtx(P, P, "Data loading", e + 1 * MS, e + 18 * MS + slower)
        x.nvtx(P, P, "enumerate(DataLoader)", e + 2 * MS, e + 17 * MS + slower)
        x.copy(P, 0, 1, 8, e + 10 * MS, 500 * US, "cudaMemcpyAsync_v3020", 1 << 20, 1, 0, 2)
        x.nvtx(P, P, "log", e + 18500 * US + slower, e + 19500 * US + slower)
        x.nvtx(P, P, "prefetch", e + 19800 * US + slower, g + 1 * MS)
        x.nvtx(P, HELPER, "worker", e, g)
        x.kernel(P, 0, 1, 9, e + 5 * MS, 2 * MS, "helper_kernel", tid=HELPER, lead=1 * MS)
        t = g


def main():
    variant, out = sys.argv[1], sys.argv[2]
    x = Export(out)
    if variant == "train":
        steps(x, "ProfilerStep#%d", [25 * MS, 10 * MS, 10 * MS, 10 * MS, 10 * MS, 30 * MS, 10 * MS, 10 * MS], True)
    elif variant == "noisy":
        steps(x, "Batch %d", [int(v * MS) for v in (10, 10.2, 9.9, 10.1, 10, 10.3, 9.8, 10)], False, slow=None)
    elif variant == "gpubound":
        gpubound(x)
    elif variant == "loader":
        loader(x)
    elif variant == "slowloader":
        loader(x, slower=10 * MS)
    elif variant in ("drift", "speedup"):
        ramp = [10, 10.1, 9.9, 10, 10.2, 10.8, 11.2, 11.6, 12, 12.4, 12.8]
        ramp = ramp if variant == "drift" else ramp[::-1]
        steps(x, "step %d", [int(v * MS) for v in [20] + ramp], False, slow=None)
    else:
        sys.exit("unknown variant " + variant)
    x.finish()


main()
