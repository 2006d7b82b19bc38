#!/usr/bin/env bash
# rank-skew's busy/idle time must not depend on where a report's clock starts (issue 27): a report whose
# GPU work starts before its session start (negative timestamps in its own clock) gave a busy time short
# by the intervals before 0 when read alone, but the right one once merged with an earlier report (the
# merge shifts it) — and the MPI ranks compute per report. Checked against the union of the export's
# kernel/memcpy/memset intervals computed in Python over SQL.
. "$(dirname "$0")/../lib/t.sh"
# rank 1's session starts 60 ms after rank 0's; the steps start 50 ms after rank 0's: at -10 ms for rank 1
python3 "$TOP/tests/gen/rank_exports.py" job "$TMP/job" --ranks 2 --steps 3 --skew-ns 60000000
sqlbusy() {
  python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
iv = []
for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
    if db.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0]:
        iv += db.execute("SELECT start, end FROM " + t).fetchall()
iv.sort()
busy, cs, ce = 0, None, None
for a, b in iv:
    if ce is None or a > ce:
        if ce is not None:
            busy += ce - cs
        cs, ce = a, b
    elif b > ce:
        ce = b
busy += ce - cs
print("busy=%d idle=%d" % (busy, (max(b for _, b in iv) - min(a for a, _ in iv)) - busy))
PY
}
gfbusy() { python3 -c 'import json, sys; r = json.load(sys.stdin)["ranks"]; print(" ".join("busy=%d idle=%d" % (x["busy_ns"], x["idle_ns"]) for x in r))'; }
for r in 0 1; do
  run_gf -q run rank-skew "$TMP/job/rank$r.sqlite" --json
  check_eq "rank$r.sqlite alone: busy and idle as the export's intervals say (SQL)" "$(sqlbusy "$TMP/job/rank$r.sqlite")" "$(printf '%s' "$out" | gfbusy)"
done
run_gf -q run rank-skew "$TMP/job" --json
check_eq "both merged: the same per-rank numbers" "$(sqlbusy "$TMP/job/rank0.sqlite") $(sqlbusy "$TMP/job/rank1.sqlite")" "$(printf '%s' "$out" | gfbusy)"
t_done
