#!/usr/bin/env python3
"""Python reference of the reference timeline pipeline (docs/spec/STUDIO.md §6.7): parse cuda_gpu_trace +
cuda_api_trace with the csv module (columns by lowercase substring), events as dicts, merge, sort by
duration, keep the 20,000 longest, re-sort by start, lanes and names, compact JSON into the page.
usage: ref_timeline.py GPU.csv API.csv TEMPLATE OUT.html"""
import csv
import json
import sys


def col(header, *keys):
    low = [h.strip().lower() for h in header]
    for k in keys:
        for i, h in enumerate(low):
            if k in h:
                return i
    return None


def read(path, gpu):
    out = []
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        s, d = col(header, "start (ns)", "start"), col(header, "duration (ns)", "duration")
        low = [h.strip().lower() for h in header]
        n = next((low.index(x) for x in ("name", "kernel name", "kernel") if x in low), None)
        c = col(header, "corrid")
        if gpu:
            dev, strm = col(header, "device"), col(header, "strm")
        else:
            pid, tid = col(header, "pid"), col(header, "tid")
        for row in r:
            try:
                st, du = int(row[s]), max(0, int(row[d]))
            except (ValueError, IndexError):
                continue
            corr = int(row[c]) if c is not None and row[c].strip() else None
            if gpu:
                lane = "GPU %s stream %s" % (row[dev] or "?", row[strm] or "?")
            else:
                lane = "CPU pid %s tid %s" % (row[pid] or "?", row[tid] or "?")
            out.append({"start": st, "dur": du, "name": row[n], "corr": corr, "lane": lane})
    return out


gpu, api, tmpl, outp = sys.argv[1:5]
events = [dict(e, kind="gpu") for e in read(gpu, True)] + [dict(e, kind="api") for e in read(api, False)]
total = len(events)
if total > 20000:
    events.sort(key=lambda e: e["dur"], reverse=True)
    events = events[:20000]
t0 = min(e["start"] for e in events)
span = max(1, max(e["start"] + e["dur"] for e in events) - t0)
events.sort(key=lambda e: e["start"])
lanes = sorted({e["lane"] for e in events if e["lane"].startswith("CPU")}) + \
    sorted({e["lane"] for e in events if not e["lane"].startswith("CPU")})
li = {l: i for i, l in enumerate(lanes)}
names, ni = [], {}
rows = []
for e in events:
    if e["name"] not in ni:
        ni[e["name"]] = len(names)
        names.append(e["name"])
    rows.append([e["start"] - t0, e["dur"], li[e["lane"]], e["corr"] if e["corr"] is not None else -1, ni[e["name"]], -1])
data = json.dumps({"lanes": lanes, "cpuLanes": sum(1 for l in lanes if l.startswith("CPU")), "names": names,
                   "events": rows, "stacks": [], "span": span, "total": total, "shown": len(rows)},
                  separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
page = open(tmpl).read().replace("{{title}}", "nsys CPU/GPU timeline").replace("{{json:data}}", data)
with open(outp, "w") as f:
    f.write(page)
