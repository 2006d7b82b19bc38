#!/usr/bin/env python3
"""The NVTX GPU projection of a chrome-trace export equals an nvtx_gpu_proj_trace CSV (gpuflame's or the
real nsys's `stats --format csv`): one "cat": "nvtx_gpu_proj" X event per row, args.range_id = RangeId,
name = Name (args "raw name" where policy nvtx.group renamed it), ts/dur = Projected Start/Duration (µs with ns
decimals), on a track of a GPU process.
Usage: check_proj.py CHROME.json PROJ.csv TAG. Prints ok/not ok lines; exits 1 on a failure."""
import csv
import json
import sys

path, proj_csv, tag = sys.argv[1:4]
failed = 0


def check(name, cond, why=""):
    global failed
    print(("ok - " if cond else "not ok - ") + tag + ": " + name + ("" if cond else ": " + why))
    failed += 0 if cond else 1


def ns(us):  # "123.456" µs → 123456 ns, exactly (the writer prints ns / 1000 with three decimals)
    return int(round(float(us) * 1000))


def norm(name):  # nsys 2022.4 writes default-domain names without the ':' newer ones (and gpuflame) carry
    return name[1:] if name.startswith(":") else name


doc = json.load(open(path))
ev = doc["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
got = {}
for e in ev:
    if e.get("cat") == "nvtx_gpu_proj" and e["ph"] == "X":
        # a name grouped by policy nvtx.group (issue 40) keeps the range's own name in args "raw name"
        got[e["args"]["range_id"]] = (norm(e["args"].get("raw name", e["name"])), ns(e["ts"]), ns(e["dur"]), e["pid"])
lines = [ln for ln in open(proj_csv, encoding="utf-8") if ln.strip()]
start = next((i for i, ln in enumerate(lines) if ln.startswith("Name,")), None)
want = {}
if start is not None:
    for r in csv.DictReader(lines[start:]):
        want[int(r["RangeId"])] = (norm(r["Name"]), int(r["Projected Start (ns)"]), int(r["Projected Duration (ns)"]))
check("the report has projected ranges", len(want) > 0, "no rows in " + proj_csv)
check("one nvtx_gpu_proj event per report row (%d)" % len(want), len(got) == len(want),
      "%d events, %d rows" % (len(got), len(want)))
bad = [k for k in want if k not in got or got[k][:3] != want[k]]
check("name, start and duration equal per RangeId", not bad,
      "; ".join("%s: report %s, export %s" % (k, want[k], got.get(k, (None,))[:3]) for k in bad[:5]))
extra = [k for k in got if k not in want]
check("no event without its report row", not extra, "range ids %s" % extra[:5])
under = [k for k, g in got.items() if not str(procs.get(g[3], "")).startswith("GPU")]
check("every projection is under a GPU device's process", not under, "range ids %s" % under[:5])
sys.exit(1 if failed else 0)
