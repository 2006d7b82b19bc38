#!/usr/bin/env python3
"""Python sqlite3 reference of the reference approach (docs/spec/STUDIO.md §6.7-6.8): dicts keyed by
correlationId (corr → callchainId → frames), events as dicts, the 20,000 longest kept, the launch-stack
aggregate, compact JSON into the page.
usage: ref_timeline_sqlite.py EXPORT.sqlite TEMPLATE OUT.html"""
import json
import sqlite3
import sys

path, tmpl, outp = sys.argv[1:4]
db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
strings = dict(db.execute("SELECT id, value FROM StringIds"))
corr_cc = {}
for corr, cc in db.execute("SELECT correlationId, callchainId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE callchainId IS NOT NULL"):
    corr_cc[corr] = cc
chains = {}
for cid, sym, mod in db.execute("SELECT id, symbol, module FROM CUDA_CALLCHAINS ORDER BY id, stackDepth"):
    s = strings.get(sym, "?")
    m = strings.get(mod)
    chains.setdefault(cid, []).append("%s (%s)" % (s, m.rsplit("/", 1)[-1]) if m else s)
stack_idx, stacks, cc_stack = {}, [], {}
for cid, fr in chains.items():
    key = tuple(fr)
    if key not in stack_idx:
        stack_idx[key] = len(stacks)
        stacks.append(fr)
    cc_stack[cid] = stack_idx[key]
events = []
for st, en, gt, corr, nid in db.execute("SELECT start, end, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
    events.append({"start": st, "dur": en - st, "name": strings.get(nid, "?"), "corr": corr,
                   "lane": "CPU pid %d tid %d" % ((gt >> 24) & 0xFFFFFF, gt & 0xFFFFFF),
                   "stack": cc_stack.get(corr_cc.get(corr), -1)})
for st, en, dev, strm, corr, nid in db.execute("""SELECT start, end, deviceId, streamId, correlationId, demangledName
                                                 FROM CUPTI_ACTIVITY_KIND_KERNEL"""):
    events.append({"start": st, "dur": en - st, "name": strings.get(nid, "?"), "corr": corr,
                   "lane": "GPU %d stream %d" % (dev, strm), "stack": cc_stack.get(corr_cc.get(corr), -1), "gpu": 1})
flame = {}
for e in events:
    if e.get("gpu") and e["stack"] >= 0:
        key = (e["stack"], e["name"])
        flame[key] = flame.get(key, 0) + e["dur"]
total = len(events)
if total > 20000:
    events.sort(key=lambda e: e["dur"], reverse=True)
    events = events[:20000]
t0 = min(e["start"] for e in events)
span = max(1, max(e["start"] + e["dur"] for e in events) - t0)
events.sort(key=lambda e: e["start"])
lanes = sorted({e["lane"] for e in events})
li = {l: i for i, l in enumerate(lanes)}
names, ni, rows = [], {}, []
for e in events:
    if e["name"] not in ni:
        ni[e["name"]] = len(names)
        names.append(e["name"])
    rows.append([e["start"] - t0, e["dur"], li[e["lane"]], e["corr"], ni[e["name"]], e["stack"]])
frames, fi, fstacks = [], {}, []
for (s, leaf), w in flame.items():
    path = []
    for f in list(reversed(stacks[s])) + [leaf]:
        if f not in fi:
            fi[f] = len(frames)
            frames.append(f)
        path.append(fi[f])
    fstacks.append([path, w])
data = json.dumps({"lanes": lanes, "names": names, "events": rows, "stacks": stacks, "span": span, "total": total,
                   "shown": len(rows), "launchFlame": {"frames": frames, "stacks": fstacks}},
                  separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
with open(outp, "w") as f:
    f.write(open(tmpl).read().replace("{{title}}", "nsys CPU/GPU timeline").replace("{{json:data}}", data))
