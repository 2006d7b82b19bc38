#!/usr/bin/env bash
# gf-test: slow
# The adhoc GPU path end to end with the fake nsys (tests/fake/nsys) and the Studio stand-in: a start
# command with enable_nsys + nsys_timeline is captured by the agent in the background, uploaded with
# the timeline page as flamegraph_html and perf_events nsys-cuda,nsys-timeline, and reported
# completed; the flamegraph variant; perf in parallel with nsys; an nsys failure reported failed;
# `stop` killing nsys and its children within 5 s; and an oversize timeline re-trimmed to fit.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/studio.sh"

if ! have_fixture gprofiler/GPU_TRACE_CSV.csv; then skip "adhoc round trip" "fixtures absent"; t_done; fi
TOKEN="adh-$(date +%s%N)-secret"
export GPUFLAME_TOKEN=$TOKEN NSYS_PATH=$FAKE_NSYS
# the timeline template: the real one lives in templates/ once the UI branch is merged; until then
# the trace tests' stand-in template with the same slots (tests/trace/templates/timeline.html)
[ -e "$TOP/templates/timeline.html" ] || export GPUFLAME_PATH=$TOP/tests/trace
AGENT_PID=
trap '[ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null; studio_stop' EXIT
studio_start "$TMP/srv" --token "$TOKEN" --service gpu-svc

printf 'sleep 0.5\nsleep 30\nid -u\n' >"$TMP/allowed"
cat >"$TMP/fleet.lua" <<LUA
return { extends = "default",
  -- the views from the fake's recorded nsys stats CSVs (the profile bodies below are checked against them)
  capture = { views_from = "stats" },
  agent = { stop_grace = 1, remote_workloads = { allow_file = "$TMP/allowed" } },
  deliver = { retry = { count = 3, base = 0.1, cap = 0.5 } },
  backends = { perf = { path = "$TOP/tests/fake/perf" } } }
LUA
start_agent() {
  local name=$1; shift
  "$GF" --policy "$TMP/fleet.lua" "$@" agent --server "$STUDIO_URL" --service gpu-svc --interval 0.3 \
    --state-dir "$TMP/state" --hostname gpu-host >"$TMP/$name.log" 2>&1 &
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
wait_for() {
  local until=$(( $(date +%s) + $1 ))
  while [ "$(date +%s)" -le "$until" ]; do [ "$(studio_q "$2")" = True ] && return 0; sleep 0.2; done
  return 1
}
completion_of() { studio_q "([r['body'] for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == '$1'] or [{}])[-1].get('$2')"; }
reported() { wait_for "${2:-30}" "any(r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == '$1' for r in recs)"; }
queue() { studio_ctl command "{\"command_id\": \"$1\", \"profiling_command\": {\"command_type\": \"${3:-start}\", \"combined_config\": $2}}"; }
capdir() { ls -d "$TMP/state/captures/"*"-$1"; }

start_agent a1
# --- timeline ---------------------------------------------------------------------------------------
queue tl1 '{"command_type": "start", "continuous": false, "duration": 2, "enable_nsys": true, "nsys_workload": "sleep 0.5", "nsys_timeline": true, "nsys_timeline_stacks": false}'
check "tl1 reported" reported tl1
check_eq "tl1 completed" "completed" "$(completion_of tl1 status)"
check_eq "tl1 uploaded one profile" 1 "$(studio_q 'len(profiles())')"
tl_html="$(capdir tl1)/timeline.html"
check "the capture directory has the timeline page" [ -s "$tl_html" ]
check_eq "flamegraph_html holds the timeline HTML the capture made" "True" \
  "$(studio_q 'profiles()[-1]["body"]["_header"]["flamegraph_html"] == open("'"$tl_html"'").read()')"
check_eq "perf_events nsys-cuda,nsys-timeline" "nsys-cuda,nsys-timeline" \
  "$(studio_q 'profiles()[-1]["body"]["_header"]["metadata"]["run_arguments"]["perf_events"]')"
check_eq "perf_mode is not disabled" "none" "$(studio_q 'profiles()[-1]["body"]["_header"]["metadata"]["run_arguments"]["perf_mode"]')"
check_eq "the profile window is the capture's" "True" \
  "$(studio_q 'profiles()[-1]["body"]["start_time"] < profiles()[-1]["body"]["end_time"]')"
check_contains "the remote workload is logged" "$(cat "$TMP/a1.log")" "running remote workload (allowed by local policy): sleep 0.5"

# --- flamegraph ---------------------------------------------------------------------------------------
queue fg1 '{"command_type": "start", "duration": 2, "enable_nsys": true, "nsys_workload": "sleep 0.5"}'
check "fg1 reported" reported fg1
check_eq "fg1 completed" "completed" "$(completion_of fg1 status)"
fg_dir=$(capdir fg1)
check_eq "flamegraph_html holds the flamegraph page" "True" \
  "$(studio_q 'profiles()[-1]["body"]["_header"]["flamegraph_html"] == open("'"$fg_dir/flamegraph.html"'").read()')"
check_eq "perf_events nsys-cuda" "nsys-cuda" "$(studio_q 'profiles()[-1]["body"]["_header"]["metadata"]["run_arguments"]["perf_events"]')"
check_eq "the GPU folded stacks are the profile body" "gpu;nsys;cuda_kernel;burn(float *, int, int) 28918" \
  "$(studio_q '"|".join(profiles()[-1]["body"]["profile"].split("\n")[1:])')"
check_eq "gpid carried from the first upload" "4711" "$(studio_q 'profiles()[-1]["body"]["gpid"]')"

# --- the workload runs unprivileged when the policy says so (nsys keeps root) ---------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
  stop_agent
  printf 'return { agent = { remote_workloads = { run_as = "nobody" } } }\n' >"$TMP/runas.lua"
  start_agent a1b --policy "$TMP/runas.lua"
  queue ra1 '{"command_type": "start", "duration": 2, "enable_nsys": true, "nsys_workload": "id -u"}'
  check "ra1 reported" reported ra1
  check_eq "ra1 completed" "completed" "$(completion_of ra1 status)"
  check_eq "the workload ran as nobody (its own output in the nsys log)" "$(id -u nobody)" \
    "$(grep -x '[0-9]*' "$(capdir ra1)/nsys-profile.log" | head -1)"
  check_contains "the privilege drop is logged with the workload" "$(cat "$TMP/a1b.log")" "--reuid nobody"
  stop_agent
  start_agent a1c
else
  skip "workload as an unprivileged user" "needs root, setpriv and the user nobody"
fi

# --- an nsys failure is reported failed, with the reason -------------------------------------------------
stop_agent
FAKE_NSYS_FAIL=profile:exit start_agent a2
queue bad1 '{"command_type": "start", "duration": 2, "enable_nsys": true, "nsys_workload": "sleep 0.5"}'
check "bad1 reported" reported bad1
check_eq "nsys failure reported failed" "failed" "$(completion_of bad1 status)"
check_contains "with the capture's reason" "$(completion_of bad1 error_message)" "nsys capture exit 4 (capture failed)"
stop_agent

# --- nsys fails to start once (its launcher's sem_open failure): the agent's capture tries again ------------
FAKE_NSYS_FAIL=profile:launcher-fail FAKE_NSYS_FAIL_TIMES=1 FAKE_NSYS_COUNTER=$TMP/retry.count start_agent a2r
queue retry1 '{"command_type": "start", "duration": 2, "enable_nsys": true, "nsys_workload": "sleep 0.5"}'
check "retry1 reported" reported retry1
check_eq "an nsys that failed to start once: the capture completed" "completed" "$(completion_of retry1 status)"
check_eq "... nsys failed once (the fake's count)" 1 "$(wc -l <"$TMP/retry.count")"
check_contains "... the capture's log keeps what nsys said" "$(cat "$(capdir retry1)/nsys-profile.log")" \
  "--- try 1: nsys failed to start ---"
stop_agent
FAKE_NSYS_FAIL=profile:launcher-fail start_agent a2s
queue retry2 '{"command_type": "start", "duration": 2, "enable_nsys": true, "nsys_workload": "sleep 0.5"}'
check "retry2 reported" reported retry2 60
check_eq "an nsys that never starts: reported failed" "failed" "$(completion_of retry2 status)"
check_contains "... saying so" "$(completion_of retry2 error_message)" "nsys failed to start (3 tries)"
stop_agent

# --- perf in parallel with nsys ---------------------------------------------------------------------------
cat >"$TMP/perf-on.lua" <<'LUA'
return { backends = { perf = { enabled = true } } }
LUA
start_agent a3 --policy "$TMP/perf-on.lua"
queue pp1 '{"command_type": "start", "duration": 2, "enable_nsys": true, "nsys_workload": "sleep 0.5"}'
check "pp1 reported" reported pp1
check_eq "pp1 completed" "completed" "$(completion_of pp1 status)"
check_eq "CPU stacks from perf are the profile body" "python3;__libc_start_main;main;launch_burn;cudaLaunchKernel 2" \
  "$(studio_q 'profiles()[-1]["body"]["profile"].split("\n")[1]')"
check_eq "the GPU page is still the flamegraph_html" "True" \
  "$(studio_q 'profiles()[-1]["body"]["_header"]["flamegraph_html"] == open("'"$(capdir pp1)/flamegraph.html"'").read()')"
check "both backends ran in the same capture directory" [ -s "$(capdir pp1)/cpu.folded" -a -s "$(capdir pp1)/gpu.folded" ]

# --- stop during a capture kills nsys and its children within 5 s ---------------------------------------
queue long1 '{"command_type": "start", "duration": 60, "enable_nsys": true, "nsys_workload": "sleep 30"}'
tree() { # every descendant pid of the agent, with its command
  python3 - "$AGENT_PID" <<'PY'
import os, sys
kids = {}
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            st = open(f"/proc/{p}/stat").read()
            ppid = int(st.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(p))
        except OSError:
            pass
out, todo = [], [int(sys.argv[1])]
while todo:
    for c in kids.get(todo.pop(), []):
        try:
            cmd = open(f"/proc/{c}/cmdline").read().replace("\0", " ").strip()
        except OSError:
            continue
        out.append(f"{c}:{cmd}")
        todo.append(c)
print("\n".join(out))
PY
}
for i in $(seq 1 100); do tree | grep -q ':sleep 30' && break; sleep 0.1; done
before=$(tree)
check_contains "nsys is running under the agent" "$before" "nsys profile"
check_contains "the workload is running under nsys" "$before" ":sleep 30"
pids=$(echo "$before" | cut -d: -f1 | tr '\n' ' ')
queue stop1 '{"command_type": "stop"}' stop
t0=$(date +%s.%N); gone=
for i in $(seq 1 100); do
  alive=0; for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ $alive = 0 ] && { gone=$(date +%s.%N); break; }
  sleep 0.1
done
check "every process of the capture tree is gone" [ -n "$gone" ]
took=$(python3 -c "print(round(${gone:-99} - $t0, 2))")
check "gone within 5 s of queueing stop (took ${took} s; heartbeat 0.3 s)" python3 -c "import sys; sys.exit(0 if $took < 5 else 1)"
check "stop and the cancelled capture reported" wait_for 10 \
  "sum(1 for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] in ('long1', 'stop1')) == 2"
check_eq "stop completed" "completed" "$(completion_of stop1 status)"
check_eq "cancelled capture failed" "failed" "$(completion_of long1 status)"
stop_agent
check_eq "agent exits 0 on SIGTERM" 0 "$agent_rc"

# --- stop while nsys will not stop (SIGTERM ignored, the raw capture not yet named): the agent's SIGKILL after
# agent.stop_grace ends the capture process before it cleans up, so the agent removes nsys's raw capture itself,
# found by the mark it gave the capture (it is in the environment nsys records); nothing is left in nsys's
# temp dir (CI run 24 of 2026-12-04 found one such file in /tmp after the real nsys's agent stop test) ---
mkdir -p "$TMP/nsystmp"
cat >"$TMP/grace.lua" <<LUA
return { extends = "$TMP/fleet.lua", agent = { stop_grace = 0.3 } }
LUA
export TMPDIR=$TMP/nsystmp FAKE_NSYS_FAIL=profile:stuck-term
start_agent a9 --policy "$TMP/grace.lua"
unset TMPDIR FAKE_NSYS_FAIL
queue raw1 '{"command_type": "start", "duration": 60, "enable_nsys": true, "nsys_workload": "sleep 30"}'
for i in $(seq 1 100); do ls "$TMP/nsystmp" | grep -q '^nsys-report-.*qdstrm$' && break; sleep 0.1; done
check_eq "nsys wrote its raw capture into its temp dir" 1 "$(ls "$TMP/nsystmp" | grep -c '^nsys-report-.*qdstrm$')"
check_contains "... carrying the agent's mark" "$(tr '\0' '\n' <"$TMP"/nsystmp/nsys-report-*.qdstrm)" "GPUFLAME_CAPTURE_MARK="
queue rawstop '{"command_type": "stop"}' stop
check "stop and the cancelled capture reported" wait_for 15 \
  "sum(1 for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] in ('raw1', 'rawstop')) == 2"
check_eq "cancelled capture failed" "failed" "$(completion_of raw1 status)"
check_eq "nothing of nsys's is left in its temp dir" "" "$(ls "$TMP/nsystmp")"
check_contains "the agent says what it removed" "$(cat "$TMP/a9.log")" "removed nsys's temporary $TMP/nsystmp/nsys-report-"
stop_agent
check_eq "agent exits 0 on SIGTERM" 0 "$agent_rc"

# --- an oversize timeline is re-trimmed until it fits ---------------------------------------------------
sq=$FIX/real/parallel-sheet-simulator/tile_8x8.sqlite
if [ -e "$sq" ]; then
  FAKE_NSYS_SQLITE=$sq run_gf -q capture --timeline --stacks --duration 1 --out "$TMP/bigcap" -- sleep 0.2
  check_eq "a 4871-event timeline capture" 0 "$rc"
  full=$(gzip -c "$TMP/bigcap/timeline.html" | wc -c)
  # the limit: what a 1000-event page of the same export compresses to, plus 2 KB (packed pages are
  # small; the template alone is about half of a 4871-event page)
  run_gf -q timeline "$sq" --stacks --max-events 1000 -o "$TMP/ref1000.html"
  limit=$(( $(gzip -c "$TMP/ref1000.html" | wc -c) + 2000 ))
  check "the limit is below the full page ($limit < $full bytes compressed)" [ "$limit" -lt "$full" ]
  cat >"$TMP/limit.lua" <<LUA
return { extends = "default", upload = { max_compressed_bytes = $limit, retrim_events = { 3000, 1000, 300 } } }
LUA
  run_gf --policy "$TMP/limit.lua" upload --server "$STUDIO_URL" --service gpu-svc --state-dir "$TMP/state" "$TMP/bigcap"
  check_eq "oversize timeline upload: exit 0" 0 "$rc"
  check_contains "the re-trim is logged" "$err" "timeline re-trimmed to"
  # the page renders "showing <shown> of <total> events (longest kept)" from its embedded data
  check_eq "the uploaded page is a re-trimmed timeline (shown < total 7040 in its data: 4871 CUDA and NVTX events, the CPU side's 2169)" "True" \
    "$(studio_q '(lambda h: __import__("re").search(r"\"total\":7040\b", h) is not None and int(__import__("re").search(r"\"shown\":(\d+)", h).group(1)) <= 3000)(profiles()[-1]["body"]["_header"]["flamegraph_html"])')"
  check_eq "still tagged as a timeline" "nsys-cuda,nsys-timeline" \
    "$(studio_q 'profiles()[-1]["body"]["_header"]["metadata"]["run_arguments"]["perf_events"]')"
  check_eq "within the limit" "True" "$(studio_q "len(raw(profiles()[-1])) <= $limit")"
else
  skip "oversize timeline re-trim" "fixtures absent"
fi

check_eq "the token is in no file under the test's temp dir" "" "$(grep -rl --binary-files=text -- "$TOKEN" "$TMP" 2>/dev/null)"
t_done
