#!/usr/bin/env python3
"""The timeline page of an export carries its NVTX GPU projection and no separate sync lanes: lanes with
"proj": true (under their device: kind gpu, a device name) hold one NVTX event per nvtx_gpu_proj_trace row,
with its name, projected start and duration (ns, page-relative to t0); sync events sit on their stream's lane.
Usage: check_page_proj.py PAGE.html PROJ.csv TAG. Prints ok/not ok lines; exits 1 on a failure."""
import collections
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page_data  # noqa: E402

page, proj_csv, tag = sys.argv[1:4]
failed = 0


def check(name, cond, why=""):
    global failed
    print(("ok - " if cond else "not ok - ") + tag + ": " + name + ("" if cond else ": " + why))
    failed += 0 if cond else 1


d = page_data.load(page)
lanes, names, kinds, t0 = d["lanes"], d["names"], d["kinds"], d["t0"]
proj = {i for i, ln in enumerate(lanes) if ln.get("proj")}
got = collections.Counter()
for e in d["events"]:
    if e[2] in proj:
        got[(names[e[4]].lstrip(":"), e[0] + t0, e[1])] += 1
lines = [ln for ln in open(proj_csv, encoding="utf-8") if ln.strip()]
start = next(i for i, ln in enumerate(lines) if ln.startswith("Name,"))
want = collections.Counter((r["Name"].lstrip(":"), int(r["Projected Start (ns)"]), int(r["Projected Duration (ns)"]))
                           for r in csv.DictReader(lines[start:]))
check("projection lanes present", len(proj) > 0)
check("projection lanes are under a device", all(lanes[i]["kind"] == "gpu" and lanes[i].get("device") for i in proj))
check("one projected event per report row (%d)" % sum(want.values()), got == want,
      "page %d events, report %d rows; first differences %s" % (sum(got.values()), sum(want.values()),
                                                                list((got - want).items())[:2] + list((want - got).items())[:2]))
work = {(ln.get("device"), ln.get("stream")) for ln in lanes if ln["kind"] == "gpu" and not ln.get("sync")}
beside = [ln["label"] for ln in lanes if ln.get("sync") and ln.get("stream", -1) >= 0 and (ln.get("device"), ln["stream"]) in work]
check("no sync lane beside its stream's lane (sync events on the stream's lane)", not beside, str(beside[:3]))
sys.exit(1 if failed else 0)
