#!/usr/bin/env python3
"""Deterministic bench inputs.
  gen_inputs.py kern-csv OUT N      N-row cuda_gpu_kern_sum-style CSV (unique quoted templated names)
  gen_inputs.py folded OUT N        N unique stacks of depth 5..40 (shared prefixes, like real call trees)
"""
import random
import sys


def kern_csv(out, n):
    rnd = random.Random(1)
    with open(out, "w") as f:
        f.write("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n")
        for i in range(n):
            tot = rnd.randint(1000, 900_000_000)
            inst = rnd.randint(1, 5000)
            avg = tot / inst
            f.write('%.1f,%d,%d,%.1f,%.1f,%d,%d,%.1f,"void at::native::kernel_%d<float, %d>(float*, int, int)"\n'
                    % (rnd.random(), tot, inst, avg, avg, int(avg * 0.9), int(avg * 1.1), avg * 0.05, i, i % 7))


def folded(out, n):
    rnd = random.Random(2)
    pool = ["torch::autograd::Engine::thread_main", "THPFunction_apply", "_PyEval_EvalFrameDefault",
            "at::native::gemm", "cublasSgemm_v2", "ncclAllReduce", "at::native::add_kernel", "main"]
    pool += ["module_%d::function_%d(int, float*)" % (i // 40, i) for i in range(4000)]
    seen = set()
    with open(out, "w") as f:
        while len(seen) < n:
            depth = rnd.randint(5, 40)
            # shared prefixes: the first frames come from a small set
            frames = [pool[rnd.randint(0, 7)] for _ in range(min(3, depth))]
            frames += [pool[rnd.randint(0, len(pool) - 1)] for _ in range(depth - len(frames))]
            key = ";".join(frames)
            if key in seen:
                continue
            seen.add(key)
            f.write("%s %d\n" % (key, rnd.randint(1, 100000)))


if __name__ == "__main__":
    kind, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"kern-csv": kern_csv, "folded": folded}[kind](out, n)
