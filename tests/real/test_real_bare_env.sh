#!/usr/bin/env bash
# gf-test: lane=nsys-profile slow
# Real-nsys tier, where fleets run (issue 38): under a bare environment (`env -i` with only PATH: no HOME,
# no XDG_RUNTIME_DIR, as root under systemd or in a container), with the real nsys and a CPU-only NVTX job
# (tests/real/workloads/live_nvtx.c: NVTX ranges, no CUDA):
#   a plain `capture --timeline -- JOB` draws the timeline (exit 0) with every NVTX range of its export (SQL);
#   `launch`, `sessions` and a `capture --session … --timeline` window exit 0, the window's page holding the
#   export's NVTX ranges; the job's status passes through `launch`;
#   afterwards nothing new named nsys-report* or *.qdstrm is in /tmp and no nsys process of this file's
#   job or sessions remains.
# As root the registry is /run/gpuflame/sessions (docs/LIVE.md, "Where state lives"); the session names are
# this file's own. The fake-nsys twin, with the unprivileged user and the refusals: tests/cli/test_bare_env.sh.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: bare environment"
if ! [ -e /usr/lib/x86_64-linux-gnu/libnvToolsExt.so.1 ] && ! ldconfig -p 2>/dev/null | grep -q libnvToolsExt.so.1; then
  skip "real nsys: bare environment" "libnvToolsExt.so.1 missing (Debian: libnvtoolsext1; .ci/deps.sh nsys)"; exit 0
fi
BIN=$TMP/bin; mkdir -p "$BIN"
JOB=$BIN/gfbare_job$$
cc -O1 -o "$JOB" "$TOP/tests/real/workloads/live_nvtx.c" -l:libnvToolsExt.so.1 || { not_ok "build workload" "cc failed"; t_done; }
NSYS_DIR=$(dirname "$REAL_NSYS")
BARE_PATH=$NSYS_DIR:/usr/local/bin:/usr/bin:/bin
S=gfbare$$
bare() { env -i PATH="$BARE_PATH" "$GF" "$@" >"$TMP/o" 2>"$TMP/e"; rc=$?; out=$(<"$TMP/o"); err=$(<"$TMP/e"); }
leftovers() { ls -d /tmp/nsys-report* /tmp/*.qdstrm 2>/dev/null | sort -u; }
survivors() { ps -eo pid=,args= | grep -E "gfbare_job$$|$S" | grep -v -E 'grep|ps -eo' || true; }
gone_within() { local i; for i in $(seq 1 $(( $1 * 5 ))); do [ -z "$(survivors)" ] && return 0; sleep 0.2; done; return 1; }
names() { python3 -c 'import json,sys; print(" ".join(s["name"] + ":" + s["state"] for s in json.load(sys.stdin)["sessions"]))' <<<"$out" 2>/dev/null; }
# page_nvtx PAGE / export_nvtx DB: the NVTX range names of a timeline page, and of an export by SQL
page_nvtx() { python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import page_data
d = page_data.load(sys.argv[2]); k = d["kinds"].index("nvtx") if "nvtx" in d["kinds"] else -1
print("\n".join(sorted(d["names"][e[4]] for e in d["events"] if e[6] == k)))' "$TOP/tests/trace" "$1" 2>&1; }
export_nvtx() { sqlite3 "$1" "SELECT coalesce(e.text, s.value) FROM NVTX_EVENTS e LEFT JOIN StringIds s ON e.textId = s.id
  WHERE e.end IS NOT NULL ORDER BY 1" | LC_ALL=C sort; }
LPID=
trap '[ -n "$LPID" ] && kill -9 "$LPID" 2>/dev/null' EXIT
BEFORE=$(leftovers)

# --- a plain capture --timeline of the NVTX-only job ------------------------------------------------------
# the tier's policy (no CPU context-switch tracing: with it nsys 2022.4's `profile` hangs here after
# "Generating ...qdstrm", tests/real/policy.lua); the timeline's source stays the default, "csv"
try=1
while :; do
  bare --policy "$TOP/tests/real/policy.lua" capture --timeline --duration 20 --out "$TMP/c1" -- "$JOB" "$TMP/c1.log" "$TMP/none" 2 0
  [ "$rc" != 0 ] && [ "$try" = 1 ] && nsys_startup_failed "$err" || break
  echo "# nsys failed to start (nsys 2022.4 under load); once more"; rm -rf "$TMP/c1"; try=2
done
check_eq "bare capture --timeline of a CPU-only NVTX job: exit 0" 0 "$rc"
[ "$rc" = 0 ] || echo "# $err" | tail -5
check "bare capture --timeline: timeline.html written" test -s "$TMP/c1/timeline.html"
check_not_contains "bare capture --timeline: no flamegraph fallback" "$err" "falling back"
if [ -s "$TMP/c1/capture.sqlite" ]; then
  n=$(export_nvtx "$TMP/c1/capture.sqlite" | grep -c .)
  check "bare capture --timeline: the export holds the job's NVTX ranges ($n)" test "$n" -gt 0
  check_eq "bare capture --timeline: the page's NVTX ranges are the export's (SQL)" \
    "$(export_nvtx "$TMP/c1/capture.sqlite")" "$(page_nvtx "$TMP/c1/timeline.html" | LC_ALL=C sort)"
else
  not_ok "bare capture --timeline: the SQLite export" "no $TMP/c1/capture.sqlite"
fi
check "bare capture: no nsys process of the job remains" gone_within 30

# --- launch, sessions, a --timeline window ----------------------------------------------------------------
# the tier's policy here too, as tests/real/test_real_live.sh has it: with the default policy nsys 2022.4's
# `stop` of this window hung in every CI run on this VM (8 of 8, both passes; docs/LIVE.md "A hung `nsys
# stop`"), so the window's exit 0 was never reached; that hang is nsys's, bounded and named (the branch below,
# tests/cli/test_live_bounds.sh)
# nsys 2022.4 fails to start now and then under load (sem_open, tests/real/lib.sh nsys_startup_failed): no
# gpuflame behaviour is tested then, so such a launch is tried once more
for try in 1 2; do
  env -i PATH="$BARE_PATH" "$GF" --policy "$TOP/tests/real/policy.lua" launch --session "$S" -- "$JOB" "$TMP/l.log" "$TMP/l.stop" 120 7 >"$TMP/l.out" 2>"$TMP/l.err" &
  LPID=$!
  for i in $(seq 1 300); do bare sessions --json; [[ " $(names) " == *" $S:waiting "* ]] && break
    kill -0 "$LPID" 2>/dev/null || break; sleep 0.2; done
  [[ " $(names) " == *" $S:waiting "* ]] && break
  kill -0 "$LPID" 2>/dev/null || wait "$LPID"
  nsys_startup_failed "$(cat "$TMP/l.err")" && [ "$try" = 1 ] || break
  echo "# launch: nsys failed to start (nsys 2022.4 under load); once more"
done
check_contains "bare launch: sessions lists it, waiting" " $(names) " " $S:waiting "
check_contains "bare sessions: root's registry is /run/gpuflame/sessions" "$out" '"registry": "/run/gpuflame/sessions"'
[[ " $(names) " == *" $S:waiting "* ]] || echo "# launch said: $(tail -c 600 "$TMP/l.err")"
bare --policy "$TOP/tests/real/policy.lua" capture --session "$S" --duration 2 --timeline --out "$TMP/w1"
if [ "$rc" = 4 ] && [[ "$err" == *"\`nsys stop\` hung"* ]]; then
  # nsys 2022.4's own stop hangs now and then until the job ends (issue 38; both passes of one CI run): then
  # what is checked is that gpuflame bounded it, named it and left nothing (the checks below and at the end)
  check_contains "bare window: nsys stop hung, bounded and named with what was kept" "$err" "Kept: $TMP/w1"
  skip "bare window --timeline of the CPU-only job: exit 0" "nsys stop hung (nsys 2022.4's own hang, bounded by gpuflame)"
else
  check_eq "bare window --timeline of the CPU-only job: exit 0" 0 "$rc"
  [ "$rc" = 0 ] || echo "# $err" | tail -5
  check "bare window: timeline.html written" test -s "$TMP/w1/timeline.html"
fi
if [ -s "$TMP/w1/capture.sqlite" ]; then
  check_eq "bare window: the page's NVTX ranges are the export's (SQL)" \
    "$(export_nvtx "$TMP/w1/capture.sqlite")" "$(page_nvtx "$TMP/w1/timeline.html" | LC_ALL=C sort)"
fi
touch "$TMP/l.stop"
wait "$LPID"; lrc=$?; LPID=
check_eq "bare launch: exits with the job's status" 7 "$lrc"
bare sessions --json
check_not_contains "bare sessions: the ended session is gone" " $(names) " " $S:"
check "bare launch: no nsys process of the session remains" gone_within 30
[ -z "$(survivors)" ] || echo "# left: $(survivors)"
check_eq "nothing new named nsys-report* or *.qdstrm in /tmp" "" "$(comm -13 <(echo "$BEFORE") <(leftovers))"
t_done
