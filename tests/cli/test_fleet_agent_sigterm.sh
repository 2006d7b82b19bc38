#!/usr/bin/env bash
# SIGTERM at many offsets from the agent's exec (0–200 ms, and 500/900 ms): every stop is clean — exit 0 once gpuflame
# has installed its handlers (start-up included: policy loading, state, health check), never the 130 of
# an interrupted run, never a hang. A signal that lands before main() has run (the exec window) ends the
# process by SIGTERM with nothing started and nothing written: that is counted, and the test needs the
# handler path to be exercised at most offsets.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/studio.sh"
TOKEN="sig-$(date +%s%N)-secret"
export GPUFLAME_TOKEN=$TOKEN
trap 'studio_stop' EXIT
studio_start "$TMP/srv" --token "$TOKEN" --service sig
# where a process that did not stop is: its state, kernel wait, syscall, children, stack and log (printed as
# comments, so that a failure names the place)
where_is() {
  local pid=$1 f
  echo "# pid $pid did not stop: $(grep -E '^(State|SigPnd|ShdPnd|SigCgt)' "/proc/$pid/status" 2>/dev/null | tr '\n\t' '  ')"
  echo "# wchan $(cat "/proc/$pid/wchan" 2>/dev/null); syscall $(cat "/proc/$pid/syscall" 2>/dev/null)"
  echo "# children: $(pgrep -P "$pid" -a 2>/dev/null | tr '\n' ';')"
  for f in /proc/$pid/task/*/stack; do [ -r "$f" ] && sed 's/^/# stack: /' "$f" 2>/dev/null | head -12; done
  if command -v gdb >/dev/null; then timeout 20 gdb -p "$pid" -batch -ex 'thread apply all bt' 2>/dev/null | grep '^#' | sed 's/^/# gdb: /' | head -30; fi
  sed 's/^/# log: /' "$2" | tail -20
}
GF_COMM=$(basename "$GF" | cut -c1-15) # /proc/PID/comm: the executable's name, 15 bytes at most
clean=0 prehandler=0 bad=0 details=
for ms in 0 1 2 3 5 8 10 15 20 30 40 50 60 80 100 120 150 200 500 900; do
  st=$TMP/state-$ms
  "$GF" agent --server "$STUDIO_URL" --service sig --interval 0.2 --state-dir "$st" --hostname h \
    >"$TMP/a$ms.log" 2>&1 &
  pid=$!
  # the offset counts from gpuflame's exec: a signal sent before it lands in this shell's forked child, where
  # bash's own handler (bash catches SIGTERM while an EXIT trap is set) takes it and the exec then loses it
  for ((i = 0; i < 200000; i++)); do
    read -r comm <"/proc/$pid/comm" 2>/dev/null || break
    [ "$comm" = "$GF_COMM" ] && break
  done
  sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
  kill -TERM "$pid" 2>/dev/null
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    where_is "$pid" "$TMP/a$ms.log"
    kill -9 "$pid"; details+=" ${ms}ms:hang"; bad=$((bad + 1)); wait "$pid"; continue
  fi
  wait "$pid"; rc=$?
  if [ "$rc" = 0 ]; then
    clean=$((clean + 1))
  elif [ "$ms" -ge 500 ]; then # started long ago, even on a loaded machine: only a clean stop will do
    bad=$((bad + 1)); details+=" ${ms}ms:exit$rc"
  elif [ "$rc" = 143 ] && [ ! -s "$TMP/a$ms.log" ]; then
    prehandler=$((prehandler + 1))
  else
    bad=$((bad + 1)); details+=" ${ms}ms:exit$rc:$(head -c 200 "$TMP/a$ms.log" | tr '\n' ' ')"
  fi
done
echo "# clean exit 0: $clean, ended before main() ran: $prehandler, other: $bad"
check_eq "SIGTERM at 20 offsets in 0–900 ms: no interrupted exit, no hang, clean after 500 ms${details:+ ($details)}" 0 "$bad"
check_contains "a stop after start-up is logged as such" "$(cat "$TMP/a900.log")" "stopped"
check "a stop with nothing to record writes no state (no fsync on the way out)" test ! -e "$TMP/state-900/state.json"
t_done
