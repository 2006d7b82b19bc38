#!/usr/bin/env python3
"""Compares a timeline page made from an nsys SQLite export with independent SQL on the same file:
per-kind event counts (COUNT(*)) and CorrID links of every kernel whose launch is present."""
import sqlite3
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import page_data  # noqa: E402

page, db_path, tag = sys.argv[1:4]
d = page_data.load(page)
db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
failed = 0


def check(name, cond, why=""):
    global failed
    print(("ok - " if cond else "not ok - ") + tag + ": " + name + ("" if cond else ": " + why))
    failed += 0 if cond else 1


def has(table):
    return db.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0] > 0


def count(table, where=""):
    return db.execute("SELECT count(*) FROM %s %s" % (table, where)).fetchone()[0] if has(table) else 0


expected = {
    "cuda_api": count("CUPTI_ACTIVITY_KIND_RUNTIME"),
    "kernel": count("CUPTI_ACTIVITY_KIND_KERNEL"),
    "memcpy": count("CUPTI_ACTIVITY_KIND_MEMCPY"),
    "memset": count("CUPTI_ACTIVITY_KIND_MEMSET"),
    "sync": count("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"),
    "nvtx": count("NVTX_EVENTS", "WHERE eventType IN (59, 60, 70, 71, 34)"),  # ranges and marks (issue 41)
    # the CPU side (issue 25): osrt_sum's rows, one sample per COMPOSITE_EVENTS row, and a running interval
    # per sched-in directly followed by a sched-out, for the threads the page has a lane of
    "osrt": count("OSRT_API", ""),  # every row: the calls (eventClass 27) and the start/finish marks (31, 32)
    "cpu_sample": count("COMPOSITE_EVENTS"),
    "cpu_running": 0,
}
if has("SCHED_EVENTS"):
    shown = {(l["pid"], l["tid"]) for l in d["lanes"] if l["kind"] == "cpu"}
    expected["cpu_running"] = sum((p, t) in shown for p, t in db.execute(
        "SELECT (globalTid >> 24) & 16777215, globalTid & 16777215 FROM (SELECT globalTid, isSchedIn, lead(isSchedIn) "
        "OVER (PARTITION BY globalTid ORDER BY start) AS nin FROM SCHED_EVENTS) WHERE isSchedIn != 0 AND nin = 0"))
got = {k: 0 for k in d["kinds"]}
for e in d["events"]:  # the NVTX ranges projected onto the GPU (lanes "proj") are the export's ranges again
    if not d["lanes"][e[2]].get("proj"):
        got[d["kinds"][e[6]]] += 1
check("event counts per kind equal COUNT(*) (%s)" % ", ".join("%s %d" % kv for kv in expected.items() if kv[1]),
      got == expected and d["total"] == sum(expected.values()), "page %r, SQL %r" % (got, expected))

if has("CUPTI_ACTIVITY_KIND_KERNEL") and has("CUPTI_ACTIVITY_KIND_RUNTIME"):
    rows = db.execute("""SELECT k.start, k.correlationId, (k.globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL k
                         WHERE EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId
                         AND (r.globalTid >> 24) & 16777215 = (k.globalPid >> 24) & 16777215)""").fetchall()
    kk, ka = d["kinds"].index("kernel"), d["kinds"].index("cuda_api")
    kernels = {(e[0] + d["t0"], e[3]) for e in d["events"] if e[6] == kk}
    api = {(d["lanes"][e[2]].get("pid"), e[3]) for e in d["events"] if e[6] == ka and d["lanes"][e[2]]["kind"] == "cpu"}
    bad = [r for r in rows if (r[0], r[1]) not in kernels or (r[2], r[1]) not in api]
    check("all %d kernels whose launch is present are linked by CorrID to a launch on their process" % len(rows),
          not bad and len(rows) > 0, "unlinked: %r" % bad[:3])
lanes = d["lanes"]
order = ["cpu", "gpu", "nvtx"]
check("lanes in order CPU, GPU, NVTX; cpuLanes counts the CPU lanes",
      [order.index(l["kind"]) for l in lanes] == sorted(order.index(l["kind"]) for l in lanes)
      and d["cpuLanes"] == sum(1 for l in lanes if l["kind"] == "cpu"))
check("events sorted by start", all(d["events"][i][0] <= d["events"][i + 1][0] for i in range(len(d["events"]) - 1)))
sys.exit(1 if failed else 0)
