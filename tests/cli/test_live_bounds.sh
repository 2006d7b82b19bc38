#!/usr/bin/env bash
# gf-test: slow
# Live windows with the fake nsys (issue 38, docs/LIVE.md "Bounds of the nsys calls"): a window whose `nsys
# stop` hangs is ended at its bound (live.stop_timeout + live.stop_timeout_per_s × the window), names the
# call and how long it ran, leaves no nsys process and nothing of nsys in the temp directory (the fake
# writes the window's raw capture there, as the real nsys does in /tmp), or moves it into --out
# (live.keep_failed_raw); a hung `nsys start` the same; the agent reports such a window failed with the
# reason. The windows and retries of the real nsys: tests/real/test_real_live.sh.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/studio.sh"
if ! have_fixture real/test-cuda/report1.sqlite; then skip "live bounds" "fixtures absent"; t_done; fi
unset FAKE_NSYS_FAIL FAKE_NSYS_VERSION
export NSYS_PATH=$FAKE_NSYS FAKE_NSYS_STATE=$TMP/fake-sessions XDG_RUNTIME_DIR=$TMP/run TMPDIR=$TMP/tmp
mkdir -p "$XDG_RUNTIME_DIR" "$TMPDIR"
printf 'return { extends = "default", live = { start_timeout = 2, stop_timeout = 2, stop_timeout_per_s = 1 },
  capture = { kill_grace = 1 } }\n' >"$TMP/b.lua"
S=gfb$$
LPIDS=()
AGENT_PID=
# the jobs end with their `launch` (SIGTERM is passed on), waited for before the runner removes $TMP
trap 'for p in "${LPIDS[@]}"; do kill "$p" 2>/dev/null; done; [ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null
  studio_stop 2>/dev/null; for p in "${LPIDS[@]}"; do wait "$p" 2>/dev/null; done' EXIT
listed() { "$GF" sessions --json | python3 -c 'import json,sys; print(" ".join(s["name"] for s in json.load(sys.stdin)["sessions"]))'; }
launch() { # launch NAME: a job under `gpuflame launch` in the background, until it is listed
  "$GF" launch --session "$1" -- sleep 300 >"$TMP/$1.out" 2>"$TMP/$1.err" &
  LPIDS+=($!)
  local i; for i in $(seq 1 150); do [[ " $(listed) " == *" $1 "* ]] && return 0; sleep 0.2; done; return 1
}
nsys_of() { pgrep -f -- "nsys $1 --session=$2" || true; }   # the fake nsys's processes of one call
raw_left() { ls "$TMPDIR" | grep -c 'nsys-report-.*\.qdstrm' || true; }
# ran_for NAME TEXT CALL BOUND: TEXT says `nsys CALL` hung and how long it ran, BOUND to BOUND + 5 s (the message
# gives the time measured: the bound, then the moments the call's processes take to end, more under load)
ran_for() {
  local n=
  [[ "$2" =~ \`nsys\ $3\`\ hung:\ it\ had\ not\ returned\ after\ ([0-9]+)\ s ]] && n=${BASH_REMATCH[1]}
  check "$1 (${n:-no number} s)" test -n "$n" -a "${n:-0}" -ge "$4" -a "${n:-0}" -le $(($4 + 5))
}
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

check "a session under the fake nsys" launch "${S}a"
run_gf --policy "$TMP/b.lua" capture --session "${S}a" --duration 1 --out "$TMP/ok"
check_eq "a window: exit 0" 0 "$rc"
check_eq "... nothing of nsys left in the temp directory" 0 "$(raw_left)"

FAKE_NSYS_FAIL=stop:hang run_gf --policy "$TMP/b.lua" capture --session "${S}a" --duration 1 --out "$TMP/hung"
check_eq "nsys stop hangs: exit 4" 4 "$rc"
check_contains "... the call named" "$err" "session ${S}a: \`nsys stop\` hung: it had not returned after "
check_contains "... with its bound" "$err" \
  " s (policy live.stop_timeout 2 s + live.stop_timeout_per_s 1 s × the 1 s window); it was ended with every process it started"
ran_for "... how long it ran: its 3 s bound, then the moments its processes took to end" "$err" stop 3
check_contains "... what was kept" "$err" "Kept: $TMP/hung"
check_contains "... and what was removed" "$err" "removed nsys's temporary $TMPDIR/nsys-report-"
check_eq "... no nsys stop process is left" "" "$(nsys_of stop "${S}a")"
check_eq "... nothing of nsys left in the temp directory" 0 "$(raw_left)"
check_eq "... summary.json: failed" failed "$(json "$TMP/hung/summary.json" 'd["status"]')"
check_contains "... with the reason" "$(json "$TMP/hung/summary.json" 'd["error"]')" "\`nsys stop\` hung"
check_eq "... the stop is recorded as timed out" timeout "$(json "$TMP/hung/summary.json" '[c["status"] for c in d["commands"] if c["step"] == "stop"][-1]')"
check_contains "... the job still runs" " $(listed) " " ${S}a "
check_contains "... the message says the session cannot be captured again" "$err" "restart the \`launch\` to capture this job again"
# nsys 2022.4.2 refuses later windows of that session (measured, docs/LIVE.md "A hung `nsys stop`")
run_gf --policy "$TMP/b.lua" capture --session "${S}a" --duration 1 --out "$TMP/after-hung"
check_eq "a window after the hung stop: exit 4" 4 "$rc"
check_contains "... with nsys's words and what to do" "$err" \
  "session ${S}a: nsys start exited 1: Configuring is not allowed in this state. (nsys 2022.4 keeps a session whose \`nsys stop\` hung stuck and refuses its later windows: restart the \`launch\` to capture this job again"

check "a second session" launch "${S}b"
printf 'return { live = { keep_failed_raw = true } }\n' >"$TMP/keep.lua"
FAKE_NSYS_FAIL=stop:hang run_gf --policy "$TMP/b.lua" --policy "$TMP/keep.lua" capture --session "${S}b" --duration 1 \
  --out "$TMP/kept"
check_eq "live.keep_failed_raw: exit 4" 4 "$rc"
check_contains "... the raw capture moved into --out" "$err" "moved nsys's temporary $TMPDIR/nsys-report-"
check_eq "... it is there" 1 "$(ls "$TMP/kept" | grep -c 'nsys-report-.*\.qdstrm')"
check_eq "... and not in the temp directory" 0 "$(raw_left)"

check "a third session" launch "${S}c"
FAKE_NSYS_FAIL=start:hang run_gf --policy "$TMP/b.lua" capture --session "${S}c" --duration 1 --out "$TMP/starthung"
check_eq "nsys start hangs: exit 4" 4 "$rc"
check_contains "... the call named" "$err" "session ${S}c: \`nsys start\` hung: it had not returned after "
check_contains "... with its bound" "$err" " s (policy live.start_timeout = 2 s)"
ran_for "... how long it ran: its 2 s bound, then the moments its processes took to end" "$err" start 2
check_eq "... no nsys start process is left" "" "$(nsys_of start "${S}c")"

# --- a plain capture whose nsys profile never ends: what nsys named in its temp directory goes too ---------
printf 'return { capture = { timeout_extra = 1 } }\n' >"$TMP/short.lua"
FAKE_NSYS_FAIL=profile:stuck run_gf --policy "$TMP/b.lua" --policy "$TMP/short.lua" capture --nsys "$FAKE_NSYS" \
  --duration 1 --out "$TMP/stuck" -- sleep 1
check_eq "nsys profile stuck after writing its raw capture: exit 4" 4 "$rc"
check_contains "... past its bound" "$err" "nsys profile did not finish within 2 s"
check_contains "... the raw capture nsys named is removed" "$err" "removed nsys's temporary $TMPDIR/nsys-report-"
check_eq "... nothing of nsys left in the temp directory" 0 "$(raw_left)"

# --- the agent reports such a window failed, with the reason ----------------------------------------------
check "a fourth session" launch "${S}d"
TOKEN="lb-$(date +%s%N)-secret"
export GPUFLAME_TOKEN=$TOKEN
studio_start "$TMP/srv" --token "$TOKEN" --service live-svc
cat >"$TMP/fleet.lua" <<LUA
return { extends = "$TMP/b.lua", agent = { stop_grace = 1, remote_sessions = { allow_names = { "${S}d" } } } }
LUA
FAKE_NSYS_FAIL=stop:hang "$GF" --policy "$TMP/fleet.lua" agent --server "$STUDIO_URL" --service live-svc \
  --interval 0.3 --state-dir "$TMP/state" --hostname live-host >"$TMP/agent.log" 2>&1 &
AGENT_PID=$!
studio_ctl command "{\"command_id\": \"w1\", \"profiling_command\": {\"command_type\": \"start\", \"combined_config\": {\"duration\": 1, \"enable_nsys\": true, \"nsys_session\": \"${S}d\"}}}"
completion_of() { studio_q "([r['body'] for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == '$1'] or [{}])[-1].get('$2')"; }
for i in $(seq 1 300); do [ "$(completion_of w1 status)" != None ] && break; sleep 0.2; done
check_eq "agent: the window whose stop hung is reported failed" failed "$(completion_of w1 status)"
ran_for "... with the reason, how long the stop ran" "$(completion_of w1 error_message)" stop 3
check_eq "... nothing of nsys left in the temp directory" 0 "$(raw_left)"
kill -TERM "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null; AGENT_PID=
t_done
