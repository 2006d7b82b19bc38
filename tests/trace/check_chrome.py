#!/usr/bin/env python3
"""Validates a chrome-trace export: JSON, tracks, X events not overlapping improperly (partial overlaps;
NVTX tracks may nest), flow pairs matching correlation ids. Prints ok/not ok lines."""
import collections
import json
import sys

path, tag = sys.argv[1:3]
expect_flows = len(sys.argv) > 3 and sys.argv[3] == "flows"
failed = 0


def check(name, cond, why=""):
    global failed
    print(("ok - " if cond else "not ok - ") + tag + ": " + name + ("" if cond else ": " + why))
    failed += 0 if cond else 1


try:
    doc = json.load(open(path))
    check("valid JSON with traceEvents", isinstance(doc.get("traceEvents"), list))
except Exception as e:  # noqa: BLE001
    check("valid JSON", False, str(e))
    sys.exit(1)
ev = doc["traceEvents"]
names = {}
for e in ev:
    if e["ph"] == "M" and e["name"] == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
xs = [e for e in ev if e["ph"] == "X"]
check("every X event is on a named track", all((e["pid"], e["tid"]) in names for e in xs))
check("ts/dur are numbers", all(isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)) for e in xs))
tracks = collections.defaultdict(list)
for e in xs:
    tracks[(e["pid"], e["tid"])].append(e)
bad = []
for key, lst in tracks.items():
    nvtx = names[key].startswith("NVTX")
    lst.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack = []  # (end, category) of enclosing slices (ns, integer maths)
    for e in lst:
        s, d = round(e["ts"] * 1000), round(e["dur"] * 1000)
        while stack and stack[-1][0] <= s:
            stack.pop()
        if stack:
            # OS runtime calls nest inside the CUDA calls of their thread's track (issue 25)
            nests = nvtx or e.get("cat") == "osrt" or stack[-1][1] == "osrt"
            if not nests or s + d > stack[-1][0]:
                bad.append("%s: %s at %s overlaps" % (names[key], e["name"], e["ts"]))
        stack.append((s + d, e.get("cat")))
check("X events on one track do not overlap (nesting only on NVTX tracks and of OS runtime calls)", not bad,
      "; ".join(bad[:3]))
starts = collections.Counter(e["id"] for e in ev if e["ph"] == "s")
finishes = collections.Counter(e["id"] for e in ev if e["ph"] == "f")
check("flow starts and finishes pair up by id", starts == finishes)
flows_ok = all(e.get("cat") == "ac2g" and e["args"]["correlation"] == e["id"] for e in ev if e["ph"] in "sf")
check("flows are ac2g with args.correlation = id", flows_ok and all(e.get("bp") == "e" for e in ev if e["ph"] == "f"))
corr_x = {e["args"].get("correlation") for e in xs if "args" in e}
check("every flow id is a correlation id of an X event", all(i in corr_x for i in starts))
if expect_flows:
    check("launch -> kernel flows present", sum(starts.values()) > 0)
sys.exit(1 if failed else 0)
