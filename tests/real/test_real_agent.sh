#!/usr/bin/env bash
# gf-test: lane=nsys-profile slow
# Real-nsys tier, fleet agent: a capture the Studio asked for runs the real nsys; a `stop` command and a
# SIGTERM to the agent mid-capture end nsys, its agent daemon and the workload — nothing survives.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/studio.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: agent"
BIN=$TMP/bin; mkdir -p "$BIN"
for n in agstop agterm; do
  cc -O1 -o "$BIN/gfreal_$n" "$TOP/tests/real/workloads/nvtx_harness.c" -lpthread -l:libnvToolsExt.so.1 || {
    skip "real nsys: agent" "cannot build the NVTX workload (libnvtoolsext1 missing?)"; t_done; }
done
survivors() { ps -eo pid=,args= | grep -E "gfreal_$1|profile-gfreal_$1" | grep -v -E 'grep|ps -eo' || true; }
TOKEN="real-$(date +%s%N)-secret"
export GPUFLAME_TOKEN=$TOKEN NSYS_PATH=$REAL_NSYS
AGENT_PID=
trap '[ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null; studio_stop' EXIT
studio_start "$TMP/srv" --token "$TOKEN" --service real-svc
printf '%s\n' "$BIN/gfreal_agstop 1 1 600" "$BIN/gfreal_agterm 1 1 600" >"$TMP/allowed"
cat >"$TMP/fleet.lua" <<LUA
return { extends = "$TOP/tests/real/policy.lua",
  agent = { stop_grace = 2, remote_workloads = { allow_file = "$TMP/allowed" } },
  deliver = { retry = { count = 2, base = 0.1, cap = 0.2 } } }
LUA
start_agent() {
  "$GF" --policy "$TMP/fleet.lua" agent --server "$STUDIO_URL" --service real-svc --interval 0.3 \
    --state-dir "$TMP/state" --hostname real-host >"$TMP/$1.log" 2>&1 &
  AGENT_PID=$!
  local i; for i in $(seq 1 100); do grep -q "agent: host" "$TMP/$1.log" 2>/dev/null && break; sleep 0.1; done
}
queue() { studio_ctl command "{\"command_id\": \"$1\", \"profiling_command\": {\"command_type\": \"${3:-start}\", \"combined_config\": $2}}"; }
completion_of() { studio_q "([r['body'] for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == '$1'] or [{}])[-1].get('$2')"; }
# until_running NAME: the workload runs under nsys and nsys's agent daemon is up (bounded, 30 s)
until_running() {
  local i; for i in $(seq 1 150); do
    pgrep -f "gfreal_$1 1 1 600" >/dev/null && pgrep -f "profile-gfreal_$1" >/dev/null && return 0; sleep 0.2
  done; return 1
}
gone_within() { # gone_within NAME SECONDS
  local i; for i in $(seq 1 $(( $2 * 5 ))); do [ -z "$(survivors "$1")" ] && return 0; sleep 0.2; done; return 1
}

start_agent a1
queue s1 "{\"command_type\": \"start\", \"duration\": 60, \"enable_nsys\": true, \"nsys_workload\": \"$BIN/gfreal_agstop 1 1 600\"}"
check "agent capture: the workload runs under the real nsys" until_running agstop
queue s1stop '{"command_type": "stop"}' stop
check "stop: nsys, its agent daemon and the workload are gone within 10 s" gone_within agstop 10
for i in $(seq 1 50); do [ "$(completion_of s1 status)" != None ] && break; sleep 0.2; done
check_eq "stop: the cancelled capture is reported failed" failed "$(completion_of s1 status)"

queue s2 "{\"command_type\": \"start\", \"duration\": 60, \"enable_nsys\": true, \"nsys_workload\": \"$BIN/gfreal_agterm 1 1 600\"}"
check "second capture: the workload runs under the real nsys" until_running agterm
kill -TERM "$AGENT_PID"
for i in $(seq 1 100); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.2; done
check "SIGTERM to the agent: it exits" bash -c "! kill -0 $AGENT_PID 2>/dev/null"
wait "$AGENT_PID" 2>/dev/null; AGENT_PID=
check "SIGTERM to the agent: nothing of nsys or the workload survives" gone_within agterm 5
echo "# survivors (should be none): $(survivors agstop) $(survivors agterm)"
t_done
