#!/usr/bin/env python3
"""Checks `gpuflame steps --json` against SQL over the export, computed here without gpuflame's code.

usage: steps_check.py EXPORT.sqlite STEPS.json REGEX [LIKE_PATTERN...]

The steps are the NVTX_EVENTS ranges (text inline, else StringIds through textId) whose text matches REGEX
(Python, whole text), ordered by (process, start); on each thread only those at the outermost nesting among
the matches are kept (a match inside another match of the same thread is left out). A step's GPU work: the
rows of CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and _MEMSET joined to CUPTI_ACTIVITY_KIND_RUNTIME on
correlationId and process (globalPid = globalTid with its low 24 bits cleared), whose runtime call starts in
[step start, step end) and whose process is the marker's. Per device (deviceId): compute = the union of the
intervals of the kernels whose name (demangledName, else shortName) is LIKE none of the patterns (SQLite's
LIKE), communication = of the others, copy = of the copies, memset = of the memsets, span = last end - first
start, idle = span - the union of everything. Also the kernel count, the distinct launch calls and the five
kernels (by name) with the most time in the step, then by name. A step's
time: its CPU range (end - start), or the union of everything on its busiest device when that is longer
(gpu_bound). The summary of a one-process document, from those times: the steps but the warm-up ones (the
first, and those named like `Warm-up`; all when every step is), their median, the outliers (further from it than both 3 x 1.4826 x the median
absolute deviation and 0.1 x the median; policy steps' defaults), the slowest, the GPU-bound count and the drift
(first and last thirds' medians in step order, and the share of all their pairs in which the later is slower, counted
pair by pair). Every
number must equal the document's to the ns. Prints one line per step checked; exits 1 on a difference.

Between steps: the gap after a step is the next step of its process's start - its end (at least 0; none after
the last). In it: the NVTX ranges of the step's thread (globalTid) that lie inside [end, next start) and inside no
other such range (of two with the same start and end, the lower rowid), by raw text (inputs whose gap ranges
carry no suffix that policy nvtx.group drops), and the GPU work whose call starts in it on the process, as for a
step. The summary's `between` (one process): over the counted steps that have a next step, the gaps, the loop
(the sum of next start - start), the gaps' total, median and longest (the first of equal ones), how far the
steps' own GPU work (its last end) ran into them, the shares, the five ranges with the most time and the GPU
work launched in them (kernels, copies, memsets, distinct calls, busy and compute summed per device per gap).
"""
import statistics
import json
import re
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


def main():
    path, doc_path, rx = sys.argv[1], sys.argv[2], re.compile(sys.argv[3])
    likes = sys.argv[4:]
    db = sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)
    tabs = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    strings = dict(db.execute("SELECT id, value FROM StringIds"))
    ranges, every = [], []
    for start, end, text, tid_id, gtid, rowid in db.execute(
            "SELECT start, end, text, textId, globalTid, rowid FROM NVTX_EVENTS WHERE end IS NOT NULL"):
        t = text if text is not None else strings.get(tid_id)
        if t is not None:
            every.append((gtid, start, end, rowid, t))
        if t is not None and rx.fullmatch(t):
            ranges.append((gtid >> 24, gtid, start, end, t))
    # on each thread, drop a match that lies inside another match
    kept = []
    for r in ranges:
        inside = any(o is not r and o[1] == r[1] and o[2] <= r[2] and r[3] <= o[3] and (o[2], -o[3]) < (r[2], -r[3])
                     for o in ranges)
        if not inside:
            kept.append(r)
    kept.sort(key=lambda r: (r[0], r[2], -r[3]))
    # GPU work with its launch call (same correlation id and process)
    calls = {}
    for start, gtid, corr, rowid in db.execute(
            "SELECT start, globalTid, correlationId, rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
        calls[(gtid >> 24, corr)] = (start, rowid)
    ops = []
    def comm_of(name):
        if not likes or name is None:
            return False
        return db.execute("SELECT " + " OR ".join("? LIKE ?" for _ in likes),
                          [x for p in likes for x in (name, p)]).fetchone()[0] == 1
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tabs:
        for s, e, dev, corr, gpid, dn, sn in db.execute(
                "SELECT start, end, deviceId, correlationId, globalPid, demangledName, shortName "
                "FROM CUPTI_ACTIVITY_KIND_KERNEL"):
            name = strings.get(dn) if dn is not None else strings.get(sn)
            ops.append((s, e, dev, corr, gpid >> 24, "comm" if comm_of(name) else "compute", name))
    for tab, kind in (("CUPTI_ACTIVITY_KIND_MEMCPY", "copy"), ("CUPTI_ACTIVITY_KIND_MEMSET", "memset")):
        if tab in tabs:
            for s, e, dev, corr, gpid in db.execute(
                    "SELECT start, end, deviceId, correlationId, globalPid FROM %s" % tab):
                ops.append((s, e, dev, corr, gpid >> 24, kind, None))
    doc = json.load(open(doc_path))
    steps = doc["steps"]
    bad = 0
    times = []
    if len(steps) != len(kept):
        print("steps: %d in the document, %d by SQL" % (len(steps), len(kept)))
        sys.exit(1)
    def work(pid, start, end):
        """the GPU work whose call starts in [start, end) on process pid: (ops, distinct calls, by kernel name)"""
        mine, launches, by_name = [], set(), {}
        for s, e, dev, corr, opid, kind, name in ops:
            c = calls.get((opid, corr))
            if c is None or opid != pid or not (start <= c[0] < end):
                continue
            mine.append((s, e, dev, kind))
            launches.add(c[1])
            if name is not None:
                n, tot = by_name.get(name, (0, 0))
                by_name[name] = (n + 1, tot + e - s)
        return mine, launches, by_name

    gaps = []
    for k, (pid, gtid, start, end, text) in enumerate(kept):
        st = steps[k]
        mine, launches, by_name = work(pid, start, end)
        want = {"start_ns": start, "end_ns": end, "name": text, "pid": gtid >> 24 & 0xFFFFFF,
                "kernels": sum(1 for m in mine if m[3] in ("compute", "comm")), "launches": len(launches)}
        devs = {}
        busiest = max((union([(m[0], m[1]) for m in mine if m[2] == dev]) for dev in {m[2] for m in mine}), default=0)
        want["time_ns"], want["gpu_bound"] = max(end - start, busiest), busiest > end - start
        # the step's top kernels: the most GPU time first, then by name (policy steps.top: 5)
        want["top_kernels"] = [{"name": n, "count": c, "total_ns": t}
                               for n, (c, t) in sorted(by_name.items(), key=lambda x: (-x[1][1], x[0]))[:5]]
        warm = k == 0 or re.search("[Ww]arm-?[Uu]p", text)
        for dev in sorted({m[2] for m in mine}):
            d = [m for m in mine if m[2] == dev]
            span = max(m[1] for m in d) - min(m[0] for m in d)
            devs[dev] = {"device": dev, "span_ns": span,
                         "compute_ns": union([(m[0], m[1]) for m in d if m[3] == "compute"]),
                         "communication_ns": union([(m[0], m[1]) for m in d if m[3] == "comm"]),
                         "copy_ns": union([(m[0], m[1]) for m in d if m[3] == "copy"]),
                         "memset_ns": union([(m[0], m[1]) for m in d if m[3] == "memset"]),
                         "idle_ns": span - union([(m[0], m[1]) for m in d])}
        parts = {part: sum(w[part + "_ns"] for w in devs.values()) for part in DRIFT_PARTS}
        times.append((k, want["time_ns"], want["gpu_bound"], warm, parts))
        diffs = []
        for key, v in want.items():
            if st.get(key) != v:
                diffs.append("%s: gpuflame %r, SQL %r" % (key, st.get(key), v))
        got = {d["device"]: d for d in st["devices"]}
        if sorted(got) != sorted(devs):
            diffs.append("devices: gpuflame %r, SQL %r" % (sorted(got), sorted(devs)))
        for dev, w in devs.items():
            for key, v in w.items():
                if dev in got and got[dev].get(key) != v:
                    diffs.append("device %s %s: gpuflame %r, SQL %r" % (dev, key, got[dev].get(key), v))
        nxt = kept[k + 1] if k + 1 < len(kept) and kept[k + 1][0] == pid else None
        gap = max(0, nxt[2] - end) if nxt else None
        if st.get("gap_ns") != gap:
            diffs.append("gap_ns: gpuflame %r, SQL %r" % (st.get("gap_ns"), gap))
        if nxt:
            gaps.append(dict(gap_of(every, work, pid, gtid, start, end, nxt[2], k, mine), warm=bool(warm)))
        if diffs:
            bad += 1
            print("step %d (%s): %s" % (k, text, "; ".join(diffs)))
        else:
            print("step %d (%s): ok (%d devices, %d kernels)" % (k, text, len(devs), want["kernels"]))
    if len({r[0] for r in kept}) == 1 and not bad:
        bad += check_summary(doc["summary"], [x for x in times if not x[3]] or times)
        bad += check_between(doc["summary"].get("between"), [g for g in gaps if not g["warm"]] or
                             (gaps if all(x[3] for x in times) else []))
    sys.exit(1 if bad else 0)


def gap_of(every, work, pid, gtid, start, end, nstart, k, step_ops):
    """the gap after step k (ends at end, the next starts at nstart): its numbers as `between` sums them"""
    gap = max(0, nstart - end)
    inside = sorted((r for r in every if r[0] == gtid and end <= r[1] < nstart and r[2] <= nstart),
                    key=lambda r: (r[1], -r[2], r[3]))
    outer, reach = [], None
    for r in inside:
        if reach is None or r[2] > reach:
            outer.append(r)
            reach = r[2]
    mine, launches, _ = work(pid, end, nstart) if gap > 0 else ([], set(), {})
    busy = compute = 0
    for dev in {m[2] for m in mine}:
        busy += union([(m[0], m[1]) for m in mine if m[2] == dev])
        compute += union([(m[0], m[1]) for m in mine if m[2] == dev and m[3] == "compute"])
    last = max((m[1] for m in step_ops), default=None)
    return {"index": k, "gap": gap, "period": nstart - start,
            "tail": min(gap, max(0, last - end)) if last is not None else 0,
            "ranges": [(r[4], r[2] - r[1]) for r in outer],
            "kernels": sum(1 for m in mine if m[3] in ("compute", "comm")),
            "copies": sum(1 for m in mine if m[3] == "copy"), "memsets": sum(1 for m in mine if m[3] == "memset"),
            "launches": len(launches), "busy": busy, "compute": compute}


def check_between(got, gaps):
    if not gaps:
        ok = got is None
        print("between: %s" % ("none, as by SQL" if ok else "gpuflame %r, SQL none" % (got,)))
        return 0 if ok else 1
    names = {}
    for g in gaps:
        for name, dur in g["ranges"]:
            c, t = names.get(name, (0, 0))
            names[name] = (c + 1, t + dur)
    total, loop, tail = (sum(g[x] for g in gaps) for x in ("gap", "period", "tail"))
    longest = max(gaps, key=lambda g: (g["gap"], -g["index"]))
    want = {"gaps": len(gaps), "loop_ns": loop, "total_ns": total, "tail_ns": tail,
            "median_ns": statistics.median([g["gap"] for g in gaps]), "max_ns": longest["gap"],
            "longest_after": longest["index"], "share": total / loop, "outside_share": (total - tail) / loop,
            "mostly_between": (total - tail) / loop >= 0.5,
            "ranges": [{"name": n, "count": c, "total_ns": t}
                       for n, (c, t) in sorted(names.items(), key=lambda x: (-x[1][1], x[0]))[:5]]}
    for x in ("kernels", "copies", "memsets", "launches"):
        want[x] = sum(g[x] for g in gaps)
    want["busy_ns"], want["compute_ns"] = sum(g["busy"] for g in gaps), sum(g["compute"] for g in gaps)
    got = got or {}
    close = lambda a, b: abs(a - b) < 1e-9 if isinstance(b, float) else a == b
    diffs = ["between %s: gpuflame %r, SQL %r" % (key, got.get(key), v) for key, v in want.items()
             if not (close(got.get(key), v) or (key == "median_ns" and abs(got.get(key, 0) - v) < 1))]
    print("; ".join(diffs) if diffs else "between equal to SQL (%d gaps, %.1f %% of the loop, %d range names)" %
          (len(gaps), 100 * want["share"], len(names)))
    return 1 if diffs else 0


DRIFT_PARTS = ("compute", "communication", "copy", "memset", "idle")


def drift(counted):
    """The drift (policy steps' defaults: 9 steps, 0.1, 0.75) by every (first-third, last-third) pair; each part's
    medians (summed over the step's devices), the largest change first."""
    if len(counted) < 9:
        return None
    ordered = sorted(counted, key=lambda x: x[0])
    t = [x[1] for x in ordered]
    k = len(t) // 3
    first, last = t[:k], t[len(t) - k:]
    parts = []
    for part in DRIFT_PARTS:
        a = statistics.median([x[4][part] for x in ordered[:k]])
        b = statistics.median([x[4][part] for x in ordered[len(t) - k:]])
        parts.append({"part": part, "first_median_ns": a, "last_median_ns": b, "change_ns": b - a})
    parts.sort(key=lambda x: (-x["change_ns"], x["part"]))
    m1, m3 = statistics.median(first), statistics.median(last)
    slower = sum((b > a) + 0.5 * (b == a) for a in first for b in last) / (k * k)
    share = (m3 - m1) / m1
    direction = None
    if abs(share) >= 0.1 and m3 > m1 and slower >= 0.75:
        direction = "slower"
    if abs(share) >= 0.1 and m3 < m1 and slower <= 0.25:
        direction = "faster"
    return {"steps_per_third": k, "first_median_ns": m1, "last_median_ns": m3, "change_ns": m3 - m1,
            "share": share, "later_slower": slower, "direction": direction, "parts": parts}


def same_drift(got, want):
    if got is None or want is None:
        return got == want
    close = lambda a, b: abs(a - b) < 1e-9 * max(1, abs(b)) if isinstance(b, float) else a == b
    return all(close(got.get(key), want[key]) for key in want if key != "parts") and \
        len(got.get("parts", [])) == len(want["parts"]) and \
        all(close(g.get(key), w[key]) for g, w in zip(got["parts"], want["parts"]) for key in w)


def check_summary(got, counted):
    t = [x[1] for x in counted]
    with_parts = counted
    counted = [x[:3] for x in counted]
    med = statistics.median(t)
    noise = 1.4826 * statistics.median([abs(v - med) for v in t])
    want = {"median_ns": med, "outliers": [k for k, v, _ in counted if abs(v - med) > 3 * noise and
                                           abs(v - med) > 0.1 * med],
            "slowest": max(counted, key=lambda x: (x[1], -x[0]))[0], "max_ns": max(t),
            "gpu_bound": sum(1 for x in counted if x[2]), "counted": len(counted), "drift": drift(with_parts)}
    diffs = ["summary %s: gpuflame %r, SQL %r" % (key, got.get(key), v) for key, v in want.items()
             if not (got.get(key) == v or (key == "median_ns" and abs(got.get(key, 0) - v) < 1) or
                     (key == "drift" and same_drift(got.get(key), v)))]
    print("; ".join(diffs) if diffs else "summary equal to SQL (median %.3f ms, %d outliers, %d GPU-bound, drift %s)" %
          (med / 1e6, len(want["outliers"]), want["gpu_bound"], want["drift"] and want["drift"]["direction"]))
    return 1 if diffs else 0


main()
