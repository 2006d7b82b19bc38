#!/usr/bin/env python3
"""Checks a --stacks timeline page against make_callchains.py's expectations; prints ok/not ok lines."""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import json  # noqa: E402
import page_data  # noqa: E402

page, expected_path, tag = sys.argv[1:4]
d = page_data.load(page)
exp = json.load(open(expected_path))
failed = 0


def check(name, cond, why=""):
    global failed
    print(("ok - " if cond else "not ok - ") + tag + ": " + name + ("" if cond else ": " + why))
    failed += 0 if cond else 1


kind_kernel = d["kinds"].index("kernel")
kernels = [e for e in d["events"] if e[6] == kind_kernel]
by_key = {}
for e in kernels:
    by_key[(e[0] + d["t0"], e[3])] = e
bad, missing_ok, with_stack = [], 0, 0
for k in exp["kernels"]:
    e = by_key.get((k["start"], k["corr"]))
    if e is None:
        bad.append("kernel corr %d at %d not on the page" % (k["corr"], k["start"]))
        continue
    if k["frames"] is None:
        if e[5] != -1:
            bad.append("kernel corr %d should have no stack" % k["corr"])
        else:
            missing_ok += 1
    else:
        got = d["stacks"][e[5]] if e[5] >= 0 else None
        if got != k["frames"]:
            bad.append("kernel corr %d: stack %r != %r" % (k["corr"], got and got[:4], k["frames"][:4]))
        else:
            with_stack += 1
check("every kernel's stack equals the expected frames in order (%d with, %d without)" % (with_stack, missing_ok),
      not bad and with_stack > 0 and missing_ok > 0, "; ".join(bad[:3]))
# the stacks of CUDA calls (the page's stacks also hold OS runtime calls' and CPU samples', issue 25)
cuda_stacks = {e[5] for e in d["events"] if e[5] >= 0 and d["kinds"][e[6]] not in ("osrt", "cpu_sample", "cpu_running")}
check("identical callchains are stored once (%d stacks)" % len(cuda_stacks),
      len(cuda_stacks) == exp["distinct_stacks"] and len(set(map(tuple, d["stacks"]))) == len(d["stacks"]),
      "got %d, expected %d" % (len(cuda_stacks), exp["distinct_stacks"]))
lf = d["launchFlame"]
check("launchFlame present", lf is not None)
if lf:
    total = sum(w for _, w in lf["stacks"])
    check("launchFlame total = summed kernel time of backtraced launches + API-only launches",
          lf["total"] == total == exp["kernel_total"] + exp["api_only_total"],
          "total %d, sum %d, expected %d + %d" % (lf["total"], total, exp["kernel_total"], exp["api_only_total"]))
    names = set(d["names"])
    leaf_ok = all(lf["frames"][path[-1]] in names for path, _ in lf["stacks"])
    root_ok = all(lf["frames"][path[0]] == "_start (trainer)" for path, _ in lf["stacks"])
    check("launchFlame paths are root first (_start) with the kernel/API name as the leaf", leaf_ok and root_ok)
    knames = {d["names"][e[4]] for e in kernels}
    kernel_leaves = sum(w for path, w in lf["stacks"] if lf["frames"][path[-1]] in knames)
    check("GPU-weighted part equals the backtraced kernels' time", kernel_leaves == exp["kernel_total"],
          "%d != %d" % (kernel_leaves, exp["kernel_total"]))
check("no callchain warning when backtraces exist", not any("backtrace" in w for w in d["warnings"]), str(d["warnings"]))
sys.exit(1 if failed else 0)
