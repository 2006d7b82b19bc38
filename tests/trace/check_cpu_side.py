"""The CPU side of a timeline (issue 25) against SQL on the export: prints one `name|expected|got` line per
check for tests/cli/test_timeline_cpu.sh. Expected values come from the export alone (sqlite3, the queries
nsys's own reports use: osrt_sum counts OSRT_API rows of eventClass 27, names LEFT JOINed from StringIds; the
rows of eventClass 31 and 32, zero-length marks where a thread's OS runtime tracing starts and finishes, are
events too, named `OSRT start` and `OSRT finish`: issue 41);
got values from gpuflame's Chrome trace and timeline page.

usage: check_cpu_side.py EXPORT CHROME_JSON PAGE_HTML"""
import collections
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page_data  # noqa: E402


def has(c, table):
    return c.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0] > 0


def main(db, chrome, page):
    c = sqlite3.connect("file:%s?mode=ro&immutable=1" % db, uri=True)
    out = []

    def check(name, exp, got):
        out.append("%s|%s|%s" % (name, exp, got))

    ev = json.load(open(chrome))["traceEvents"]
    osrt = [e for e in ev if e.get("cat") == "osrt"]
    samples = [e for e in ev if e.get("cat") == "cpu_sample"]
    # OS runtime calls: per name, the number of calls and their total ns (osrt_sum's Num Calls, Total Time)
    exp = {}
    if has(c, "OSRT_API"):
        for name, num, total in c.execute(
                "SELECT CASE o.eventClass WHEN 27 THEN ifnull(ids.value, '?') WHEN 31 THEN 'OSRT start' "
                "WHEN 32 THEN 'OSRT finish' ELSE 'OSRT event class ' || o.eventClass END, count(*), "
                "sum(o.end - o.start) FROM OSRT_API o LEFT JOIN StringIds ids ON ids.id = o.nameId GROUP BY 1"):
            exp[name] = (num, total)
    got = collections.defaultdict(lambda: [0, 0])
    for e in osrt:
        g = got[e["name"]]
        g[0] += 1
        g[1] += round(e["dur"] * 1000)
    check("chrome: osrt events (X) = OSRT_API rows", sum(v[0] for v in exp.values()), len(osrt))
    check("chrome: osrt calls and total ns per name = osrt_sum's (and the start/finish marks)", sorted((k, v[0], v[1]) for k, v in exp.items()),
          sorted((k, v[0], v[1]) for k, v in got.items()))
    check("chrome: every osrt event is a complete event", len(osrt), sum(e["ph"] == "X" for e in osrt))
    # each call on its thread's track: (pid, tid) of its globalTid
    thr = collections.Counter()
    if has(c, "OSRT_API"):
        for pid, tid, n in c.execute("SELECT (globalTid >> 24) & 16777215, globalTid & 16777215, count(*) FROM OSRT_API "
                                     "GROUP BY 1, 2"):
            thr[(pid, tid)] = n
    check("chrome: osrt calls per thread track (pid, tid of globalTid)", sorted(thr.items()),
          sorted(collections.Counter((e["pid"], e["tid"]) for e in osrt).items()))
    # CPU samples: one instant event per COMPOSITE_EVENTS row, its stack = its SAMPLING_CALLCHAINS rows
    n = c.execute("SELECT count(*) FROM COMPOSITE_EVENTS").fetchone()[0] if has(c, "COMPOSITE_EVENTS") else 0
    check("chrome: cpu_sample events (i) = COMPOSITE_EVENTS rows", n, len(samples))
    frames = c.execute("SELECT count(*) FROM SAMPLING_CALLCHAINS s JOIN COMPOSITE_EVENTS e ON e.id = s.id"
                       ).fetchone()[0] if has(c, "SAMPLING_CALLCHAINS") else 0
    check("chrome: frames of all sample stacks = SAMPLING_CALLCHAINS rows", frames,
          sum(len(e["args"]["stack"]) for e in samples))
    check("chrome: every sample is a thread-scoped instant event", len(samples),
          sum(e["ph"] == "i" and e.get("s") == "t" for e in samples))
    t = c.execute("SELECT min(start), max(start) FROM COMPOSITE_EVENTS").fetchone() if n else (None, None)
    got_t = (min(e["ts"] for e in samples), max(e["ts"] for e in samples)) if samples else (None, None)
    check("chrome: first and last sample times (ns, as exported)", t,
          tuple(round(x * 1000) for x in got_t) if samples else got_t)
    # the page: the same counts by kind
    d = page_data.load(page)
    kinds = d["kinds"]
    cnt = collections.Counter(kinds[r[6]] for r in d["events"])
    check("page: osrt events = OSRT_API rows", sum(v[0] for v in exp.values()), cnt.get("osrt", 0))
    check("page: cpu_sample events = COMPOSITE_EVENTS rows", n, cnt.get("cpu_sample", 0))
    lanes = d["lanes"]
    bad = [r for r in d["events"] if kinds[r[6]] == "cpu_sample" and lanes[r[2]].get("sub") != "samples"]
    check("page: every sample is on a samples sub-lane", 0, len(bad))
    bad = [r for r in d["events"] if kinds[r[6]] == "osrt" and (lanes[r[2]]["kind"] != "cpu" or lanes[r[2]].get("sub"))]
    check("page: every OS runtime call is on its thread's calls lane", 0, len(bad))
    sched = has(c, "SCHED_EVENTS") and c.execute("SELECT count(*) FROM SCHED_EVENTS").fetchone()[0] > 0
    run = [r for r in d["events"] if kinds[r[6]] == "cpu_running"]
    check("page: running intervals where the export has SCHED_EVENTS", True, (len(run) > 0) == bool(sched))
    # running: sched-in → next sched-out of the same thread (SQL window), for the threads with a running lane
    shown = {(l["pid"], l["tid"]) for l in lanes if l.get("sub") == "running"}
    total = 0
    if sched:
        for pid, tid, s, e in c.execute(
                "SELECT (globalTid >> 24) & 16777215, globalTid & 16777215, start, nxt FROM (SELECT globalTid, "
                "start, isSchedIn, lead(isSchedIn) OVER w AS nin, lead(start) OVER w AS nxt FROM SCHED_EVENTS "
                "WINDOW w AS (PARTITION BY globalTid ORDER BY start)) WHERE isSchedIn != 0 AND nin = 0"):
            if (pid, tid) in shown:
                total += e - s
    check("page: running time per shown thread = SCHED_EVENTS sched-in to sched-out", total, sum(r[1] for r in run))
    print("\n".join(out))


if __name__ == "__main__":
    main(*sys.argv[1:4])
