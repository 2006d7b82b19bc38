#!/usr/bin/env bash
# gf-test: lane=nsys-profile slow
# Real-nsys tier, the deployments of docs/deploy with a live session (issue 38). No systemd as PID 1 and no
# kubelet here, so each file is READ (tests/real/deploy_ns.py) and the agent started as they would start it,
# in a mount namespace of its own (unshare -m): the unit's ExecStart, User=, Environment=, the environment
# systemd gives a service, LoadCredential= (the token), StateDirectory=, PrivateTmp= (a fresh /tmp and
# /var/tmp), ProtectHome=; the DaemonSet's command, env (Secret, fieldRefs), hostPID, and the container's
# filesystem (its own /tmp, /run, /dev/shm, with only its volumeMounts of the host bound in). What differs
# from the files, and why: `--policy P` before `agent` (remote sessions are off by default: P allows this
# file's session), `--interval 1`, the DaemonSet's `--server` (the Studio stand-in, tests/studio_server.py),
# /usr/local/bin/gpuflame (the built binary) and /etc/gpuflame (the test's files) through overlays.
# The job runs outside, as a fleet job would start: root, from a Slurm-prolog-like bare environment
# (`env -i PATH=…`, no XDG_RUNTIME_DIR: registry /run/gpuflame/sessions), under `gpuflame launch --session`.
# Checked for each: the Studio's session command (`nsys_session`) is completed; a job of an unprivileged user
# (uid 65534, its own registry) is not captured by the unit's root agent, which says no session matches;
# then, so that the test catches what breaks these deployments, the same with the unit's PrivateTmp=true
# and with the pod lacking its /tmp/nvidia mount: the window fails (nsys's session manager lives in
# /tmp/nvidia: "Agent launcher failed"). `systemd-analyze verify` checks the unit's syntax when present.
# The state directory /var/lib/gpuflame must be the same path for the agent and the job's nsys (nsys writes
# the window's report where the agent asks, in the job's mount namespace): it is created here when absent
# and removed afterwards; a host where it already exists (a real install) skips the file.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/studio.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: deploy files with a live session"
if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
  skip "real nsys: deploy files with a live session" "needs root and mount namespaces (unshare -m)"; exit 0
fi
if ! [ -e /usr/lib/x86_64-linux-gnu/libnvToolsExt.so.1 ] && ! ldconfig -p 2>/dev/null | grep -q libnvToolsExt.so.1; then
  skip "real nsys: deploy files with a live session" "libnvToolsExt.so.1 missing (libnvtoolsext1)"; exit 0
fi
case "$(readlink -f "$GF")" in /tmp/* | /var/tmp/*)
  # the unit's PrivateTmp= and the pod's own /tmp are played by a fresh /tmp in the agent's mount namespace
  skip "real nsys: deploy files with a live session" \
    "gpuflame is under /tmp ($GF): the agent's private /tmp hides it (check out elsewhere)"; exit 0 ;;
esac
if [ -e /var/lib/gpuflame ]; then
  skip "real nsys: deploy files with a live session" "/var/lib/gpuflame exists (an installed agent's): not touched"; exit 0
fi
UNIT=$TOP/docs/deploy/gpuflame-agent.service
DS=$TOP/docs/deploy/daemonset.yaml
BIN=$TMP/bin; mkdir -p "$BIN"
JOB=$BIN/gfdeploy_job$$
cc -O1 -o "$JOB" "$TOP/tests/real/workloads/live_nvtx.c" -l:libnvToolsExt.so.1 || { not_ok "build workload" "cc failed"; t_done; }
BARE_PATH=$(dirname "$REAL_NSYS"):/usr/local/bin:/usr/bin:/bin
S=gfdep$$
survivors() { ps -eo pid=,args= | grep -E "gfdeploy_job$$|$S" | grep -v -E 'grep|ps -eo' || true; }
gone_within() { local i; for i in $(seq 1 $(( $1 * 5 ))); do [ -z "$(survivors)" ] && return 0; sleep 0.2; done; return 1; }
leftovers() { ls -d /tmp/nsys-report* /tmp/*.qdstrm 2>/dev/null | sort -u; }
LPID= AG= UPID= UW=
cleanup() { [ -n "$AG" ] && kill -9 "$AG" 2>/dev/null; [ -n "$LPID" ] && kill -9 "$LPID" 2>/dev/null; studio_stop 2>/dev/null
  [ -n "$UPID" ] && kill -9 "$UPID" 2>/dev/null; rm -rf /var/lib/gpuflame ${UW:+"$UW"}; }
trap cleanup EXIT
BEFORE=$(leftovers)

# --- the unit's syntax -------------------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
  # the binary it names is the built one (verify checks that ExecStart= is executable)
  sed "s#/usr/local/bin/gpuflame#$GF#g" "$UNIT" >"$TMP/gpuflame-agent.service"
  v=$(cd "$TMP" && systemd-analyze verify --man=no ./gpuflame-agent.service 2>&1); vrc=$?
  check_eq "systemd-analyze verify: the unit is clean (exit 0, no message)" "0 " "$vrc $v"
else
  skip "systemd-analyze verify" "systemd-analyze missing"
fi

# --- the job: root, bare environment, a live session --------------------------------------------------------
try=1
while :; do
  env -i PATH="$BARE_PATH" "$GF" launch --session "$S" -- "$JOB" "$TMP/l.log" "$TMP/l.stop" 600 0 >"$TMP/l.out" 2>"$TMP/l.err" &
  LPID=$!
  for i in $(seq 1 300); do env -i PATH="$BARE_PATH" "$GF" sessions 2>/dev/null | grep -q "^$S " && break
    kill -0 "$LPID" 2>/dev/null || break; sleep 0.2; done
  env -i PATH="$BARE_PATH" "$GF" sessions 2>/dev/null | grep -q "^$S " && break
  kill -0 "$LPID" 2>/dev/null || wait "$LPID"
  [ "$try" = 1 ] && nsys_startup_failed "$(cat "$TMP/l.err")" || break
  echo "# launch: nsys failed to start (nsys 2022.4 under load); once more"; try=2
done
check "the job's session is registered in /run/gpuflame/sessions" test -e "/run/gpuflame/sessions/$S.json"

# --- the agent as each file starts it --------------------------------------------------------------------
TOKEN="deploy-$(date +%s%N)"
studio_start "$TMP/srv" --token "$TOKEN"
mkdir -p "$TMP/etc/gpuflame"
printf 'server = %s\nservice = deploy-svc\n' "$STUDIO_URL" >"$TMP/etc/gpuflame/agent.conf"
printf '%s\n' "$TOKEN" >"$TMP/etc/gpuflame/token"; chmod 600 "$TMP/etc/gpuflame/token"
cat >"$TMP/etc/gpuflame/live.lua" <<LUA
return { extends = "$TOP/tests/real/policy.lua",
  agent = { remote_sessions = { allow_names = { "$S", "${S}u" } } },
  deliver = { retry = { count = 2, base = 0.1, cap = 0.2 } } }
LUA
queue() { studio_ctl command "{\"command_id\": \"$1\", \"profiling_command\": {\"command_type\": \"start\", \"combined_config\": $2}}"; }
completion_of() { studio_q "([r['body'] for r in recs if r['path'] == '/api/metrics/command_completion' and r['body']['command_id'] == '$1'] or [{}])[-1].get('$2')"; }
until_completed() { local i; for i in $(seq 1 $(( $2 * 5 ))); do [ "$(completion_of "$1" status)" != None ] && return 0
  kill -0 "$AG" 2>/dev/null || return 1; sleep 0.2; done; return 1; }
# agent KIND FILE ID [SESSION]: the agent as FILE starts it, in its own mount namespace; a window of SESSION
# ($S) asked for as command ID; waits for its completion (bounded), stops the agent. Sets $st and $why (error).
agent() {
  local kind=$1 file=$2 id=$3 w=$TMP/$3 ns=() sess=${4:-$S}
  mkdir -p "$w"; cp -a "$TMP/etc" "$w/etc"
  python3 "$TOP/tests/real/deploy_ns.py" "$kind" "$file" "$w" \
    "{\"gf\": \"$GF\", \"url\": \"$STUDIO_URL\", \"token\": \"$TOKEN\", \"interval\": 1, \"policy\": \"/etc/gpuflame/live.lua\"}" \
    >"$w/start.sh" || { not_ok "$id: deploy_ns.py reads $file" "$(tail -3 "$w/start.sh")"; st=; return; }
  # StateDirectory= (unit) or the state hostPath (pod): created as systemd or the kubelet would
  install -d -m 0700 /var/lib/gpuflame
  [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("host_pid", True))' "$w/plan.json")" = True ] ||
    ns=(--pid --fork --mount-proc)
  queue "$id" "{\"duration\": 2, \"enable_nsys\": true, \"nsys_timeline\": true, \"nsys_session\": \"$sess\"}"
  unshare -m --propagation private "${ns[@]}" bash "$w/start.sh" >"$w/agent.log" 2>&1 &
  AG=$!
  until_completed "$id" 150
  st=$(completion_of "$id" status); why=$(completion_of "$id" error_message)
  kill -TERM "$AG" 2>/dev/null; wait "$AG" 2>/dev/null; AG=
  rm -rf /var/lib/gpuflame
  [ "$st" = completed ] || { echo "# $id: $st: $why"; tail -8 "$w/agent.log" | sed 's/^/#   /'; }
}
# a window whose `nsys stop` hung (nsys 2022.4's own, docs/LIVE.md) tests nothing of the deployment
hung_skip() { [[ "$why" == *"\`nsys stop\` hung"* ]] && skip "$1" "nsys stop hung (nsys 2022.4's own hang, bounded by gpuflame)"; }

agent unit "$UNIT" unit1
hung_skip "unit: the agent captures a window of the job's session" ||
  check_eq "unit: the agent captures a window of the job's session (completed)" completed "$st"
check "unit: the agent ran with the unit's command line" grep -q -- "--token-file /etc/.gf-stage/credentials/gpuflame-agent.service/token" "$TMP/unit1/start.sh"
check_not_contains "unit: the token is not on the agent's command line" "$(grep '^exec' "$TMP/unit1/start.sh" | sed 's/GPUFLAME_TOKEN=[^ ]*//')" "$TOKEN"

agent ds "$DS" ds1
hung_skip "pod: the agent captures a window of the job's session" ||
  check_eq "pod: the agent captures a window of the job's session (completed)" completed "$st"
check_contains "pod: the container sees the host's registry and nsys's session manager (mounts)" \
  "$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["mounts"]))' "$TMP/ds1/plan.json")" "/tmp/nvidia"

# --- an unprivileged user's job: the root agent cannot capture it (docs/DEPLOY.md, "Where state lives") -------
# its registry is the user's own ($TMPDIR/gpuflame-<uid>/sessions), and nsys's sessions are per user
UW=$(mktemp -d /tmp/gfdeploy-user.XXXXXX); chmod 755 "$UW"; mkdir -m 1777 "$UW/tmp"; cp "$JOB" "$UW/job"; chmod 755 "$UW/job"
AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if command -v setpriv >/dev/null && "${AS[@]}" test -x "$UW/job" && "${AS[@]}" test -x "$GF"; then
  env -i PATH="$BARE_PATH" TMPDIR="$UW/tmp" "${AS[@]}" "$GF" launch --session "${S}u" -- "$UW/job" "$UW/tmp/u.log" \
    "$UW/tmp/u.stop" 600 0 >"$TMP/u.out" 2>"$TMP/u.err" &
  UPID=$!
  for i in $(seq 1 300); do [ -e "$UW/tmp/gpuflame-65534/sessions/${S}u.json" ] && break; kill -0 "$UPID" 2>/dev/null || break; sleep 0.2; done
  check "user job: registered in the user's own registry" test -e "$UW/tmp/gpuflame-65534/sessions/${S}u.json"
  agent unit "$UNIT" unit3 "${S}u"
  check_eq "user job: the unit's agent does not capture it" failed "$st"
  check_contains "user job: ... saying that no running session matches" "$why" "no running session matches"
  touch "$UW/tmp/u.stop"; wait "$UPID"; urc=$?; UPID=
  check_eq "user job: ends normally" 0 "$urc"
else
  skip "user job" "setpriv missing, or user 65534 cannot run $GF"
fi

# --- what breaks these deployments: the test sees it -----------------------------------------------------
# the unit with PrivateTmp=true (as it was): the agent's nsys cannot reach the job's session manager
sed 's/^PrivateTmp=.*/PrivateTmp=true/' "$UNIT" >"$TMP/private-tmp.service"
grep -q '^PrivateTmp=true' "$TMP/private-tmp.service" || echo 'PrivateTmp=true' >>"$TMP/private-tmp.service"
agent unit "$TMP/private-tmp.service" unit2
check_eq "unit with PrivateTmp=true: the window fails" failed "$st"
check_contains "unit with PrivateTmp=true: ... as nsys start cannot reach the session" "$why" "nsys start"
# the pod without the host's /tmp/nvidia: the same
python3 - "$DS" "$TMP/no-nvidia.yaml" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
t = re.sub(r"\n *- name: nsys-sessions\n *mountPath: /tmp/nvidia\n", "\n", t)
open(sys.argv[2], "w").write(t)
PY
if grep -q 'mountPath: /tmp/nvidia' "$TMP/no-nvidia.yaml"; then
  not_ok "pod without /tmp/nvidia" "could not remove the mount from a copy of $DS"
else
  agent ds "$TMP/no-nvidia.yaml" ds2
  check_eq "pod without the host's /tmp/nvidia: the window fails" failed "$st"
fi

touch "$TMP/l.stop"
wait "$LPID"; lrc=$?; LPID=
check_eq "the job ends normally" 0 "$lrc"
check "no nsys process of the job remains" gone_within 30
[ -z "$(survivors)" ] || echo "# left: $(survivors)"
check_eq "nothing new named nsys-report* or *.qdstrm in /tmp" "" "$(comm -13 <(echo "$BEFORE") <(leftovers))"
t_done
