#!/usr/bin/env python3
"""Checks gpuflame's GPU time breakdown against SQL over the export, computed here without gpuflame's code.

usage: breakdown_check.py EXPORT.sqlite DOC.json [LIKE_PATTERN...]

DOC.json is one of
  * `gpuflame findings -r gpu-busy -f json EXPORT`: the gpu-busy rule's rows;
  * a findings document whose finding RULE carries a `breakdown` (BREAKDOWN_RULE=RULE in the environment:
    gpu-starv, launch-overhead, ...): its breakdown.devices;
  * a capture's summary.json: its gpu_time.devices;
run with a policy whose gpu_time.communication is exactly the LIKE patterns given. Per device (deviceId of
the GPU tables), the union of each kind's intervals: kernels whose name (demangledName, else shortName) is
LIKE a pattern are communication, the others compute (SQLite's own LIKE decides); copies by copyKind;
memsets; overlap = compute ∩ (copy ∪ communication); idle = (last end - first start) - union of everything.
Every number must be equal to the ns, and each `<part>_share` of a breakdown must be its ns / span. Prints
one line per device and `ok` or the differences; exits 1 on a difference.
"""
import json
import sqlite3
import sys


def union(iv):
    tot, cs, ce = 0, None, None
    for s, e in sorted(iv):
        if ce is None or s > ce:
            if ce is not None:
                tot += ce - cs
            cs, ce = s, e
        elif e > ce:
            ce = e
    return tot + (ce - cs if ce is not None else 0)


def tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def expected(path, patterns):
    db = sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)
    have = tables(db)
    iv = {}

    def add(dev, kind, s, e):
        iv.setdefault(dev, {}).setdefault(kind, []).append((s, e))

    if "CUPTI_ACTIVITY_KIND_KERNEL" in have:
        like = " OR ".join(["name LIKE ?"] * len(patterns)) or "0"
        q = ("SELECT deviceId, start, end, CASE WHEN %s THEN 1 ELSE 0 END FROM (SELECT k.deviceId, k.start, k.end, "
             "COALESCE(d.value, s.value) AS name FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds d ON "
             "d.id = k.demangledName LEFT JOIN StringIds s ON s.id = k.shortName)" % like)
        for dev, s, e, comm in db.execute(q, patterns):
            add(dev, "comm" if comm else "compute", s, e)
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in have:
        direction = {1: "h2d", 3: "h2d", 11: "h2d", 2: "d2h", 4: "d2h", 12: "d2h", 5: "d2d", 6: "d2d", 7: "d2d",
                     8: "d2d", 13: "d2d", 10: "p2p"}
        for dev, s, e, kind in db.execute("SELECT deviceId, start, end, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"):
            add(dev, "copy", s, e)
            if kind in direction:
                add(dev, direction[kind], s, e)
    if "CUPTI_ACTIVITY_KIND_MEMSET" in have:
        for dev, s, e in db.execute("SELECT deviceId, start, end FROM CUPTI_ACTIVITY_KIND_MEMSET"):
            add(dev, "memset", s, e)
    out = {}
    for dev, k in iv.items():
        # every interval once: the direction lists repeat the copies
        every = k.get("compute", []) + k.get("comm", []) + k.get("copy", []) + k.get("memset", [])
        first, last = min(s for s, _ in every), max(e for _, e in every)
        u = {kind: union(k.get(kind, [])) for kind in ("compute", "comm", "copy", "h2d", "d2h", "d2d", "p2p", "memset")}
        xfer = union(k.get("copy", []) + k.get("comm", []))
        active = union(k.get("compute", []) + k.get("copy", []) + k.get("comm", []))
        busy = union(every)
        out[dev] = {"Span (ns)": last - first, "Busy (ns)": busy, "Compute (ns)": u["compute"],
                    "Communication (ns)": u["comm"], "Copy (ns)": u["copy"], "H2D (ns)": u["h2d"],
                    "D2H (ns)": u["d2h"], "D2D (ns)": u["d2d"], "P2P (ns)": u["p2p"], "Memset (ns)": u["memset"],
                    "Overlap (ns)": u["compute"] + xfer - active, "Idle (ns)": last - first - busy}
    return out


# a breakdown's JSON fields (gpuflame.gpu_time.json) under the gpu-busy rule's column names
FIELDS = {"span_ns": "Span (ns)", "busy_ns": "Busy (ns)", "compute_ns": "Compute (ns)",
          "communication_ns": "Communication (ns)", "copy_ns": "Copy (ns)", "h2d_ns": "H2D (ns)", "d2h_ns": "D2H (ns)",
          "d2d_ns": "D2D (ns)", "p2p_ns": "P2P (ns)", "memset_ns": "Memset (ns)", "overlap_ns": "Overlap (ns)",
          "idle_ns": "Idle (ns)"}


def from_breakdown(devices):
    got, bad = {}, []
    for d in devices:
        got[d["device"]] = {col: d.get(f) for f, col in FIELDS.items()}
        for f in FIELDS:
            if f == "span_ns":
                continue
            share = d.get(f[:-3] + "_share")
            want = d[f] / d["span_ns"] if d["span_ns"] > 0 else 0
            if share is None or abs(share - want) > 1e-12:
                bad.append("device %s: %s_share %s, not %s / span = %r" % (d["device"], f[:-3], share, f, want))
    return got, bad


def main():
    import os
    path, got_path, patterns = sys.argv[1], sys.argv[2], sys.argv[3:]
    doc = json.load(open(got_path))
    bad_shares = []
    if "gpu_time" in doc:  # summary.json
        got, bad_shares = from_breakdown(doc["gpu_time"]["devices"])
    elif os.environ.get("BREAKDOWN_RULE"):
        f = [x for x in doc["findings"] if x["rule"] == os.environ["BREAKDOWN_RULE"]][0]
        got, bad_shares = from_breakdown(f["breakdown"]["devices"])
    else:
        f = [x for x in doc["findings"] if x["rule"] == "gpu-busy"][0]
        got = {r["Device ID"]: r for r in f.get("rows", [])}
    want = expected(path, patterns)
    bad = 0
    for b in bad_shares:
        print(b)
    if sorted(got) != sorted(want):
        print("devices differ: gpuflame %s, SQL %s" % (sorted(got), sorted(want)))
        return 1
    for dev in sorted(want):
        diffs = ["%s gpuflame %s SQL %s" % (c, got[dev].get(c), v) for c, v in want[dev].items() if got[dev].get(c) != v]
        print("device %s: %s" % (dev, "; ".join(diffs) if diffs else "ok " + json.dumps(want[dev], sort_keys=True)))
        bad += bool(diffs)
    return 1 if bad or bad_shares else 0


if __name__ == "__main__":
    sys.exit(main())
