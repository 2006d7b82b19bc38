#!/usr/bin/env python3
"""Deterministic bench inputs.
  gen_inputs.py kern-csv OUT N      N-row cuda_gpu_kern_sum-style CSV (unique quoted templated names)
  gen_inputs.py folded OUT N        N unique stacks of depth 5..40 (shared prefixes, like real call trees)
  gen_inputs.py folded-after IN OUT  an AFTER for `gpuflame diff IN OUT`: IN's stacks with 10% of the weights
                                     scaled x0.5..x2, 5% of the stacks dropped and as many new ones added
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


def folded_after(inp, out):
    rnd = random.Random(3)
    with open(inp) as f, open(out, "w") as o:
        n = 0
        for line in f:
            stack, w = line.rstrip("\n").rsplit(" ", 1)
            r = rnd.random()
            if r < 0.05:
                # dropped; a new stack in its place (a different leaf)
                o.write("%s;new_kernel_%d %s\n" % (stack, n, w))
            elif r < 0.15:
                o.write("%s %d\n" % (stack, max(1, int(int(w) * rnd.uniform(0.5, 2.0)))))
            else:
                o.write(line)
            n += 1


if __name__ == "__main__":
    if sys.argv[1] == "folded-after":
        folded_after(sys.argv[2], sys.argv[3])
    else:
        kind, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
        {"kern-csv": kern_csv, "folded": folded}[kind](out, n)
