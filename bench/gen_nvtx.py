#!/usr/bin/env python3
"""Generates a synthetic NVTX profiling run directory for bench/bench_nvtx.sh (stdlib only):
manifest.yaml plus stats/nsys_nvtx_pushpop_trace.csv and stats/nsys_nvtx_gpu_proj_trace.csv in the
exact nsys 2025.1 column layout, with RANGES push/pop ranges across THREADS threads of one process.

Thread 0 holds the harness: `profile-target` → `iteration 0..ITERS-1` → preprocessing/inference/
postprocessing subtrees. The other threads run worker loops (decode → jpeg, augment, enqueue). Ranges
with GPU work (thread 0, and `enqueue` on workers) get a projection row, parents summing their children's GPU ops.

usage: gen_nvtx.py RUN_DIR [RANGES] [THREADS] [ITERS]
"""
import json
import os
import sys


class Gen:
    def __init__(self, host, gpu, pid):
        self.host, self.gpu, self.pid = host, gpu, pid
        self.rid = 0
        self.seed = 12345

    def rnd(self, lo, hi):
        self.seed = (self.seed * 6364136223846793005 + 1442695040888963407) & ((1 << 64) - 1)
        return lo + (self.seed >> 33) % (hi - lo + 1)

    def emit(self, tid, node, t0, parent, level, stack, tree):
        """node = (name, gpu?, [children]); writes pre-order rows; returns (end, dur, gpu_ops)."""
        name, has_gpu, kids = node
        self.rid += 1
        rid = self.rid
        stack = stack + ":" + str(rid)
        tree = tree + "--"
        # children first to know the duration; rows are buffered so the parent precedes them
        start = t0
        t = t0 + self.rnd(200, 2000)
        child_rows_h, child_rows_g = [], []
        saved_h, saved_g = self.host, self.gpu
        self.host, self.gpu = child_rows_h, child_rows_g
        dchild, ops = 0, 0
        for k in kids:
            end, d, o = self.emit(tid, k, t, rid, level + 1, stack, tree)
            dchild += d
            ops += o
            t = end + self.rnd(100, 1500)
        self.host, self.gpu = saved_h, saved_g
        if not kids:
            t += self.rnd(1000, 60000)
            ops = self.rnd(1, 3) if has_gpu else 0
        end = t
        dur = end - start
        self.host.append("%d,%d,%d,%d,%d,:%s,%d,%d,%d,%d,%d,%s,%s,%s:%s\n" % (
            start, end, dur, dchild, dur - dchild, name, self.pid, tid, level, len(kids), rid,
            "" if parent is None else parent, stack, tree[2:], name))
        if has_gpu and ops:
            pstart = start + self.rnd(5000, 50000)
            pdur = max(1, dur // self.rnd(2, 5))
            self.gpu.append(":%s,%d,%d,%d,%d,PushPop,%d,%d,%d,%d,%d,%d,%s,%s\n" % (
                name, pstart, pdur, start, dur, self.pid, tid, ops, level, len(kids), rid,
                "" if parent is None else parent, stack))
        self.host.extend(child_rows_h)
        self.gpu.extend(child_rows_g)
        return end, dur, ops


def main():
    out = sys.argv[1]
    ranges = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    iters = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    os.makedirs(os.path.join(out, "stats"), exist_ok=True)
    pid = 4242
    per_thread = ranges // threads
    # thread 0: 1 capture + iters iterations + iters * body
    body = max(4, (per_thread - 1 - iters) // iters)
    layers = body - 4 - 4  # preprocessing(4) + inference(1+layers) + postprocessing(3)
    it_node = [
        ("preprocessing", True, [("resize", True, []), ("normalize", True, []), ("to_device", True, [])]),
        ("inference", True, [("layer %d" % k, True, []) for k in range(layers)]),
        ("postprocessing", True, [("nms", True, []), ("copy_back", True, [])]),
    ]
    g = Gen([], [], pid)
    host, gpu = [], []
    g.host, g.gpu = host, gpu
    cap = ("profile-target", True, [("iteration %d" % i, True, it_node) for i in range(iters)])
    t = 1000000
    g.emit(pid, cap, t, None, 0, "", "")
    worker = ("worker batch", False, [("decode", False, [("jpeg", False, [])]), ("augment", False, []),
                                      ("enqueue", True, [])])
    per_batch = 5
    for th in range(1, threads):
        tid = pid + th
        t = 1000000 + th
        n = per_thread // per_batch
        for _ in range(n):
            end, _, _ = g.emit(tid, worker, t, None, 0, "", "")
            t = end + 500
    # pad to exactly RANGES with single `idle` roots on the last thread
    tid = pid + threads - 1
    while g.rid < ranges:
        end, _, _ = g.emit(tid, ("idle", False, []), t, None, 0, "", "")
        t = end + 500
    with open(os.path.join(out, "stats", "nsys_nvtx_pushpop_trace.csv"), "w") as f:
        f.write("Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,"
                "RangeId,ParentId,RangeStack,NameTree\n")
        f.writelines(host)
    with open(os.path.join(out, "stats", "nsys_nvtx_gpu_proj_trace.csv"), "w") as f:
        f.write("Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),Style,PID,TID,"
                "NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack\n")
        f.writelines(gpu)
    manifest = {"capture_range": "profile-target", "profile_name": "bench-nvtx", "run_id": "bench",
                "device": "cuda:0", "git_commit": "0000000", "record_ids": ["r%d" % i for i in range(4)],
                "workload": {"warmup": 1, "iterations": iters, "record_loading": "eager"},
                "cuda": {"synchronize_each_iteration": False}}
    with open(os.path.join(out, "manifest.yaml"), "w") as f:
        json.dump(manifest, f, sort_keys=True)  # JSON is flow-style YAML; the reference reads it as JSON
        f.write("\n")
    print("%d host ranges, %d GPU rows, %d threads, %d iterations" % (len(host), len(gpu), threads, iters))


if __name__ == "__main__":
    main()
