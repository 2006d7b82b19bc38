#!/usr/bin/env python3
"""Checks one live capture window against what the workload ran (tests/real/test_real_live.sh).

Usage: live_window_check.py SUMMARY_JSON EXPORT_SQLITE WORKLOAD_LOG TOL_S
The workload (workloads/live_nvtx.c) names each NVTX range "tick <wall-clock ns at its start>" and logs
every one. The window is open for sure between summary.window.actual_start (nsys start returned) and
stop_called, and not before start_called nor after stopped. The export must hold exactly the logged ticks
of one contiguous stretch that covers the sure part and stays inside the possible part, TOL_S either side.
Prints "ok <n ticks> <first> <last>" or "FAIL <why>"; exit 1 on failure."""
import datetime
import json
import sqlite3
import sys


def epoch(iso):
    return datetime.datetime.fromisoformat(iso).timestamp()


def main():
    summary, export, logpath, tol = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    w = json.load(open(summary))["window"]
    start_called, started = epoch(w["start_called"]), epoch(w["actual_start"])
    stop_called, stopped = epoch(w["stop_called"]), epoch(w["stopped"])
    db = sqlite3.connect(export)
    has_strings = db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'StringIds'").fetchone()[0]
    q = ("SELECT coalesce(e.text, s.value) FROM NVTX_EVENTS e LEFT JOIN StringIds s ON e.textId = s.id"
         if has_strings else "SELECT text FROM NVTX_EVENTS")
    got = sorted(int(r[0].split()[1]) for r in db.execute(q) if r[0] and r[0].startswith("tick "))
    logged = sorted(int(l.split()[1]) for l in open(logpath) if l.startswith("tick "))
    if not got:
        print("FAIL no tick ranges in the export")
        return 1
    lo, hi = got[0] / 1e9, got[-1] / 1e9
    want = [t for t in logged if got[0] <= t <= got[-1]]
    if got != want:
        missing = sorted(set(want) - set(got))[:3]
        extra = sorted(set(got) - set(want))[:3]
        print(f"FAIL not one contiguous stretch of what ran: missing {missing}, not logged {extra}")
        return 1
    if lo < start_called - tol or hi > stopped + tol:
        print(f"FAIL ranges outside the window: first {lo - start_called:+.3f} s from start_called, "
              f"last {hi - stopped:+.3f} s from stopped")
        return 1
    # the last range starting before stop_called may start up to one tick period (20 ms) earlier
    if lo > started + tol or hi < stop_called - tol - 0.02:
        print(f"FAIL the window misses ranges: first {lo - started:+.3f} s from actual_start, "
              f"last {hi - stop_called:+.3f} s from stop_called")
        return 1
    print(f"ok {len(got)} {got[0]} {got[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
