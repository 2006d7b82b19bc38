#!/usr/bin/env bash
# gf-test: slow
# SIGKILL the agent at every point of a command's life, restart it, and check that the command is
# reported exactly once, a finished capture uploaded exactly once, and no process left behind (issue 28).
# The agent is stopped at each point deterministically by its test hook GPUFLAME_TEST_AGENT_PAUSE=
# POINT:COMMAND (it writes <state>/paused-at-POINT and waits), then killed there with SIGKILL:
#   accepted   in `received`, nothing started            → failed, "before the capture started"
#   spawned    capture child started, pid not yet saved  → found in /proc by its directory, adopted
#   started    capture running (held by the fake nsys)   → adopted: waited for, uploaded, completed
#   started    capture finishes while no agent runs      → uploaded by the next agent, completed
#   started    capture killed too (died half-way)        → failed, "agent restarted during capture"
#   finished   capture done, not spooled (lost k003)     → uploaded once, completed
#   spooled    in the spool, not uploaded                → uploaded once, completed
#   delivered  uploaded, outcome not read, not reported  → completed, not uploaded again
#   reporting  report queued, not sent                   → reported once
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/studio.sh"

if ! have_fixture real/test-cuda/report1.sqlite; then skip "agent kill points" "fixtures absent"; t_done; fi
TOKEN="kil-$(date +%s%N)-secret"
export GPUFLAME_TOKEN=$TOKEN NSYS_PATH=$FAKE_NSYS
AGENT_PID=
trap '[ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null; studio_stop' EXIT
studio_start "$TMP/srv" --token "$TOKEN" --service svc --max-seconds 900
echo "sleep 0.3" >"$TMP/allowed"
cat >"$TMP/fleet.lua" <<LUA
return { extends = "default",
  agent = { stop_grace = 1, remote_workloads = { allow_file = "$TMP/allowed" } },
  deliver = { retry = { count = 3, base = 0.1, cap = 0.5 } } }
LUA
STATE=$TMP/state

start_agent() { # start_agent LOGNAME [VAR=value...]
  local name=$1; shift
  env "$@" "$GF" --policy "$TMP/fleet.lua" agent --server "$STUDIO_URL" --service svc --interval 0.2 \
    --state-dir "$STATE" --hostname kill-host >"$TMP/$name.log" 2>&1 &
  AGENT_PID=$!
  local i; for i in $(seq 1 100); do grep -q "agent: host" "$TMP/$name.log" 2>/dev/null && break; sleep 0.1; done
}
kill_agent() { kill -9 "$AGENT_PID" 2>/dev/null; wait "$AGENT_PID" 2>/dev/null; AGENT_PID=; }
stop_agent() {
  kill -TERM "$AGENT_PID" 2>/dev/null
  local i; for i in $(seq 1 150); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$AGENT_PID" 2>/dev/null && kill -9 "$AGENT_PID"
  wait "$AGENT_PID"; agent_rc=$?; AGENT_PID=
}
wait_for() {
  local until=$(( $(date +%s) + $1 ))
  while [ "$(date +%s)" -le "$until" ]; do [ "$(studio_q "$2")" = True ] && return 0; sleep 0.2; done
  return 1
}
wait_file() { local i; for i in $(seq 1 "$((${2:-30} * 10))"); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }
queue() { studio_ctl command "{\"command_id\": \"$1\", \"profiling_command\": {\"command_type\": \"start\", \"combined_config\": {\"command_type\": \"start\", \"duration\": 1, \"enable_nsys\": true, \"nsys_workload\": \"sleep 0.3\"}}}"; }
reports() { studio_q "sum(1 for r in recs if r['path'] == '/api/metrics/command_completion' and r['status'] == 200 and r['body']['command_id'] == '$1')"; }
status_of() { studio_q "([r['body'] for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == '$1'] or [{}])[-1].get('$2')"; }
uploads() { studio_q 'len(profiles())'; }
# log_after FILE TEXT: FILE's text once it holds TEXT (or after 15 s): waited for, not slept on
log_after() { for _ in $(seq 1 150); do grep -qF -- "$2" "$1" 2>/dev/null && break; sleep 0.1; done; cat "$1"; }
# processes whose command line names the state directory (captures, nsys, workloads), the agent aside
leftovers() {
  python3 - "$STATE" "${AGENT_PID:-0}" <<'PY'
import os, sys
out = []
for p in os.listdir("/proc"):
    if not p.isdigit() or int(p) == int(sys.argv[2]):
        continue
    try:
        cmd = open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ").decode(errors="replace")
        st = open("/proc/%s/stat" % p).read()
    except OSError:
        continue
    if sys.argv[1] + "/captures" in cmd and st[st.rindex(")") + 2] != "Z":
        out.append(p + " " + cmd[:80])
print(";".join(out))
PY
}
capture_pids() { leftovers | tr ';' '\n' | awk 'NF {print $1}'; }

# pause_kill NAME POINT CMD [VAR=value...]: the agent runs until the hook stops it at POINT for CMD,
# then it is SIGKILLed there
pause_kill() {
  local name=$1 point=$2 cmd=$3; shift 3
  rm -f "$STATE/paused-at-$point"
  start_agent "$name" GPUFLAME_TEST_AGENT_PAUSE="$point:$cmd" "$@"
  queue "$cmd"
  if wait_file "$STATE/paused-at-$point" 40; then ok "$cmd: the agent reached $point"; else not_ok "$cmd: the agent reached $point" "$(tail -3 "$TMP/$name.log")"; fi
  kill_agent
}
# settle CMD STATUS UPLOADS-BEFORE UPLOADS-EXPECTED: after the restart the command is reported once
# with STATUS, and the uploads grew by exactly UPLOADS-EXPECTED
settle() {
  local cmd=$1 want=$2 u0=$3 du=$4
  check "$cmd reported after the restart" wait_for 40 "any(r['path'] == '/api/metrics/command_completion' and r['status'] == 200 and r['body']['command_id'] == '$cmd' for r in recs)"
  check "$cmd: its upload arrives" wait_for 20 "len(profiles()) >= $((u0 + du))"
  sleep 1.5 # a duplicate report or upload would show by now (heartbeat 0.2 s)
  check_eq "$cmd reported exactly once" 1 "$(reports "$cmd")"
  check_eq "$cmd reported $want" "$want" "$(status_of "$cmd" status)"
  check_eq "$cmd: uploads +$du" "$du" "$(( $(uploads) - u0 ))"
  check_eq "$cmd: no capture process left" "" "$(leftovers)"
  stop_agent
  check_eq "$cmd: the restarted agent stops cleanly" 0 "$agent_rc"
}

# --- accepted, nothing started ----------------------------------------------------------------------
u0=$(uploads)
pause_kill a1 accepted k1
check_contains "k1 is in the journal as accepted" "$(cat "$STATE/state.json")" '"phase":"accepted"'
start_agent a1r
settle k1 failed "$u0" 0
check_contains "k1 says why" "$(status_of k1 error_message)" "agent restarted before the capture started"

# --- spawned: the capture child runs, its pid not yet written ---------------------------------------
u0=$(uploads)
pause_kill a2 spawned k2 FAKE_NSYS_PROFILE_SLEEP=3
check "k2's capture still runs after the agent died" [ -n "$(leftovers)" ]
start_agent a2r
check_contains "k2: the restarted agent adopts the capture it found" "$(log_after "$TMP/a2r.log" "command k2 is still running")" "command k2 is still running"
settle k2 completed "$u0" 1

# --- started: capture running, adopted by the restarted agent ----------------------------------------
u0=$(uploads)
pause_kill a3 started k3 FAKE_NSYS_PROFILE_SLEEP=3
pids=$(capture_pids)
check "k3's capture still runs after the agent died" [ -n "$pids" ]
start_agent a3r
check_contains "k3: adopted" "$(log_after "$TMP/a3r.log" "command k3 is still running")" "command k3 is still running"
settle k3 completed "$u0" 1

# --- started: the capture finishes while no agent runs ------------------------------------------------
u0=$(uploads)
pause_kill a4 started k4 FAKE_NSYS_PROFILE_SLEEP=1
for i in $(seq 1 300); do [ -z "$(leftovers)" ] && break; sleep 0.1; done
check "k4's capture finished on its own" test -s "$(ls -d "$STATE/captures/"*-k4)/summary.json"
start_agent a4r
settle k4 completed "$u0" 1

# --- started: the capture dies half-way (killed with everything it started) --------------------------
u0=$(uploads)
pause_kill a5 started k5 FAKE_NSYS_PROFILE_SLEEP=20
pids=$(capture_pids)
check "k5's capture runs" [ -n "$pids" ]
[ -n "$pids" ] && kill -9 $pids 2>/dev/null
for i in $(seq 1 50); do [ -z "$(leftovers)" ] && break; sleep 0.1; done
start_agent a5r
settle k5 failed "$u0" 0
check_contains "k5 says why" "$(status_of k5 error_message)" "agent restarted during capture"
check "k5's partial capture directory is kept" test -d "$(ls -d "$STATE/captures/"*-k5)"

# --- started: the capture process dies and its nsys (a process group of its own) outlives it ------------
u0=$(uploads)
pause_kill a5o started k5o FAKE_NSYS_PROFILE_SLEEP=20
nsys_pid=
for i in $(seq 1 100); do
  nsys_pid=$(leftovers | tr ';' '\n' | awk '/nsys profile/ {print $1; exit}')
  [ -n "$nsys_pid" ] && break
  sleep 0.1
done
check "k5o: its nsys runs" [ -n "$nsys_pid" ]
for p in $(capture_pids); do [ "$p" != "$nsys_pid" ] && kill -9 "$p" 2>/dev/null; done
sleep 0.3
check "k5o: the capture process is gone, its nsys still runs" [ "$(capture_pids | tr '\n' ' ')" = "$nsys_pid " ]
start_agent a5or
settle k5o failed "$u0" 0
check_contains "k5o: the restarted agent ended what the capture left" "$(cat "$TMP/a5or.log")" "ending them"

# --- finished: capture done, not spooled yet (how k003 was lost in the soak) --------------------------
u0=$(uploads)
pause_kill a6 finished k6
check_eq "k6: nothing spooled yet" 0 "$(ls "$STATE/spool" 2>/dev/null | grep -c '\.item$')"
start_agent a6r
settle k6 completed "$u0" 1

# --- spooled, not uploaded ----------------------------------------------------------------------------
u0=$(uploads)
pause_kill a7 spooled k7
check_eq "k7: one item in the spool" 1 "$(ls "$STATE/spool" | grep -c '\.item$')"
start_agent a7r
settle k7 completed "$u0" 1

# --- uploaded, outcome not read, not reported ---------------------------------------------------------
u0=$(uploads)
pause_kill a8 delivered k8
check_eq "k8 was uploaded before the kill" 1 "$(( $(uploads) - u0 ))"
check_eq "k8 not reported before the kill" 0 "$(reports k8)"
start_agent a8r
settle k8 completed "$u0" 1

# --- reported in the state, report not sent -----------------------------------------------------------
u0=$(uploads)
pause_kill a9 reporting k9
check_eq "k9 not reported before the kill" 0 "$(reports k9)"
start_agent a9r
settle k9 completed "$u0" 1

# --- the end: nothing unfinished, nothing left --------------------------------------------------------
check_eq "no unfinished command in the journal" "[]" "$(python3 -c "import json,sys; print(json.load(open('$STATE/state.json'))['jobs'])")"
check_eq "spool empty" 0 "$(ls "$STATE/spool" | grep -c '\.item$')"
check_eq "no process left behind" "" "$(leftovers)"
t_done
