#!/usr/bin/env bash
# Inputs that belong together (issue 24, item 4): one capture given twice (a copy, the same file by two
# paths) counts once with a note; captures that cannot be one job (session starts further apart than policy
# ranks.max_start_gap_s; different hosts with ranks.single_node) are refused with exit 6 naming both files,
# by every multi-report command, unless --allow-unrelated; every merged output states its clock alignment.
# Exports: tests/gen/rank_exports.py (synthetic); the answers come from SQL over the exports, not gpuflame.
. "$(dirname "$0")/../lib/t.sh"
GEN=$TOP/tests/gen/rank_exports.py
python3 "$GEN" job "$TMP/job" --ranks 3 --steps 2 >/dev/null
J=$TMP/job

# shifted SRC DST NS [HOST]: a copy of SRC whose session starts NS later (another capture), on HOST
shifted() {
  cp "$1" "$2"
  sqlite3 "$2" "UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = utcEpochNs + $3;"
  [ -z "${4:-}" ] || sqlite3 "$2" "UPDATE TARGET_INFO_SYSTEM_ENV SET value = '$4' WHERE name = 'Hostname';"
}
# oracle FILE...: "captures=N ranks=M t0=ISO": distinct (session start, host) pairs, the GPU processes
# of each distinct capture, and the earliest session start, from the exports alone
oracle() {
  python3 - "$@" <<'PY'
import datetime, sqlite3, sys
caps = {}
for f in sys.argv[1:]:
    db = sqlite3.connect("file:%s?mode=ro" % f, uri=True)
    start = db.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0]
    host = db.execute("SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'").fetchone()[0]
    caps.setdefault((start, host), db.execute(
        "SELECT count(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0])
t0 = min(s for s, _ in caps)
iso = datetime.datetime.fromtimestamp(t0 // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
print("captures=%d ranks=%d t0=%s.%09dZ" % (len(caps), sum(caps.values()), iso, t0 % 10**9))
PY
}
skew() { # rank-skew --json ARGS → "ranks=N labels=... notes=N clock=..."
  run_gf run rank-skew --json "$@"
  [ "$rc" = 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("ranks=%d labels=%s notes=%d" % (len(d["ranks"]), ",".join(r["label"] for r in d["ranks"]), len(d["notes"])))
print("clock=%s" % d["clock_alignment"])
for n in d["notes"]: print("note=%s" % n)'
}

# --- one capture given twice: counted once, with a note ---
cp "$J/rank0.sqlite" "$TMP/rank0-copy.sqlite"
want=$(oracle "$J"/rank*.sqlite "$TMP/rank0-copy.sqlite")
check_eq "oracle: 4 files, 3 captures, 3 ranks" "captures=3 ranks=3" "${want% t0=*}"
res=$(skew "$J" "$TMP/rank0-copy.sqlite")
check_contains "a copy among the reports: rank-skew lists each capture's ranks once" "$res" \
  "ranks=3 labels=rank 0,rank 1,rank 2 notes=1"
check_contains "a copy: the note names both files" "$res" \
  "note=$J/rank0.sqlite and $TMP/rank0-copy.sqlite are one capture (session start"
res=$(skew "$J/rank1.sqlite" "$TMP/job/../job/rank1.sqlite")
check_contains "the same file by two paths: one rank" "$res" "ranks=1 labels=rank 1 notes=1"
check_contains "one capture left: says its clock is its own" "$res" "clock=one capture (rank1.sqlite): its own clock"
run_gf stats -r cuda_gpu_kern_sum "$J/rank2.sqlite" "$TMP/rank0-copy.sqlite" "$J/rank0.sqlite" -o "$TMP/st/s"
check_eq "stats: a copy among the inputs: exit 0" 0 "$rc"
check_eq "stats: one set of CSVs per capture" "s_rank0-copy_cuda_gpu_kern_sum.csv s_rank2_cuda_gpu_kern_sum.csv" \
  "$(ls "$TMP/st" | tr '\n' ' ' | sed 's/ $//')"
check_contains "stats: the note on stderr" "$err" "$TMP/rank0-copy.sqlite and $J/rank0.sqlite are one capture"

# --- aligned clocks stated in every merged output ---
res=$(skew "$J")
check_contains "rank-skew --json: clock_alignment names the earliest session start (SQL)" "$res" \
  "clock=clocks aligned on each capture's session start (TARGET_INFO_SESSION_START_TIME.utcEpochNs): t = 0 is ${want#* t0=}, the start of rank0.sqlite"
run_gf run rank-skew "$J"
check_contains "rank-skew text: the clock alignment on top" "$(printf '%s' "$out" | head -1)" "clocks aligned on each capture's session start"

# --- unrelated captures: refused by every multi-report command, unless --allow-unrelated ---
DAY=86400000000000
shifted "$J/rank1.sqlite" "$TMP/far.sqlite" $((33 * DAY)) nodeZ
for c in "run rank-skew --json" "timeline -o $TMP/u.html" "flamegraph --by-rank -o $TMP/u-fg.html" \
         "export -f chrome-trace -o $TMP/u.json" "stats -r cuda_gpu_kern_sum -o $TMP/u-st/s"; do
  # shellcheck disable=SC2086
  run_gf $c "$J/rank0.sqlite" "$TMP/far.sqlite"
  check_eq "${c%% -*}: captures 33 days apart: exit 6" 6 "$rc"
  check_contains "${c%% -*}: names both files and why" "$err" \
    "$J/rank0.sqlite and $TMP/far.sqlite cannot be one job: their captures started 33.0 days apart"
  check_contains "${c%% -*}: says how to merge anyway" "$err" "give --allow-unrelated to merge them anyway"
done
check "refused: nothing written" test ! -e "$TMP/u.html" -a ! -e "$TMP/u-fg.html" -a ! -e "$TMP/u.json" -a ! -d "$TMP/u-st"
res=$(skew --allow-unrelated "$J/rank0.sqlite" "$TMP/far.sqlite")
check_contains "--allow-unrelated: merged, both ranks" "$res" "ranks=2"
check_contains "--allow-unrelated: the alignment says so" "$res" "unrelated captures merged (--allow-unrelated)"
run_gf timeline --allow-unrelated "$J/rank0.sqlite" "$TMP/far.sqlite" -o "$TMP/u.html"
check_eq "timeline --allow-unrelated: exit 0" 0 "$rc"
got=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[2]); import page_data
print(page_data.load(sys.argv[1]).get("clockAlignment"))' "$TMP/u.html" "$TOP/tests/trace")
check_contains "timeline page data: clockAlignment" "$got" "clocks aligned on each capture's session start"
run_gf export -f chrome-trace --allow-unrelated "$J/rank0.sqlite" "$TMP/far.sqlite" -o "$TMP/u.json"
got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["otherData"].get("clockAlignment"))' "$TMP/u.json")
check_contains "chrome trace: otherData.clockAlignment" "$got" "unrelated captures merged (--allow-unrelated)"
run_gf flamegraph --by-rank --allow-unrelated "$J/rank0.sqlite" "$TMP/far.sqlite" -o "$TMP/u-fg.html"
check_contains "flamegraph --by-rank: the page's subtitle states the alignment" "$(cat "$TMP/u-fg.html")" \
  "rank0.sqlite · clocks aligned on each capture"

# --- the bound, to the ns (policy ranks.max_start_gap_s) ---
HOUR=3600000000000
shifted "$J/rank0.sqlite" "$TMP/edge.sqlite" "$HOUR"
shifted "$J/rank0.sqlite" "$TMP/over.sqlite" $((HOUR + 1))
gap() { sqlite3 "$1" "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME" | { read -r b; echo $((b - $(sqlite3 "$J/rank0.sqlite" "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"))); }; }
check_eq "planted: edge.sqlite starts 1 h after rank0 (SQL)" "$HOUR" "$(gap "$TMP/edge.sqlite")"
check "planted: over.sqlite starts more than 1 h after rank0 (SQL)" test "$(gap "$TMP/over.sqlite")" -gt "$HOUR"
run_gf run rank-skew --json "$J/rank0.sqlite" "$TMP/edge.sqlite"
check_eq "start gap within ranks.max_start_gap_s: accepted" 0 "$rc"
run_gf run rank-skew --json "$J/rank0.sqlite" "$TMP/over.sqlite"
check_eq "start gap 1 ns over ranks.max_start_gap_s: refused" 6 "$rc"
printf 'return { ranks = { max_start_gap_s = 7200 } }\n' > "$TMP/wide.lua"
run_gf --policy "$TMP/wide.lua" run rank-skew --json "$J/rank0.sqlite" "$TMP/over.sqlite"
check_eq "policy ranks.max_start_gap_s = 7200: accepted" 0 "$rc"

# --- different hosts: a multi-node job by default, refused for a single-node view ---
check_eq "planted: rank0 and rank2 on different hosts (SQL)" "node0 node1" \
  "$(for r in 0 2; do sqlite3 "$J/rank$r.sqlite" "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'"; done | tr '\n' ' ' | sed 's/ $//')"
run_gf run rank-skew --json "$J/rank0.sqlite" "$J/rank2.sqlite"
check_eq "different hosts, default policy: one multi-node job" 0 "$rc"
printf 'return { ranks = { single_node = true } }\n' > "$TMP/one.lua"
run_gf --policy "$TMP/one.lua" run rank-skew --json "$J/rank0.sqlite" "$J/rank2.sqlite"
check_eq "ranks.single_node: different hosts refused" 6 "$rc"
check_contains "ranks.single_node: names both files and the hosts" "$err" \
  "$J/rank0.sqlite and $J/rank2.sqlite cannot be one single-node job: captured on different hosts (node0 and node1"
run_gf --policy "$TMP/one.lua" run rank-skew --json "$J/rank0.sqlite" "$J/rank1.sqlite"
check_eq "ranks.single_node: one host accepted" 0 "$rc"
t_done
