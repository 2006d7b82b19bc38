#!/usr/bin/env bash
# nsys's transient start-up failures (issue 38, docs/RELIABILITY.md): the fake nsys plants nsys 2022.4's
# launcher failure (FAKE_NSYS_FAIL=SUB:launcher-fail) the first N times; `capture` and `launch` try again
# per policy capture.start_retries, keep what nsys said each time, and end with "nsys failed to start (N
# tries)" when it never starts. A workload that itself fails is never run again: each workload here
# appends a line to a file of its own each time it runs, and the fake logs each nsys call (FAKE_NSYS_LOG).
# The agent's path (it runs `gpuflame capture`) is in test_fleet_adhoc.sh.
. "$(dirname "$0")/../lib/t.sh"
if ! have_fixture gprofiler/KERN_CSV.csv; then skip "nsys retry" "fixtures absent"; t_done; fi
unset NSYS_PATH FAKE_NSYS_FAIL FAKE_NSYS_VERSION FAKE_NSYS_FAIL_TIMES FAKE_NSYS_COUNTER
# nsys's temp directory of this file's own: what a launcher failure leaves there is checked at the end
export FAKE_NSYS_LOG=$TMP/nsys.log FAKE_NSYS_STATE=$TMP/fake-sessions XDG_RUNTIME_DIR=$TMP/run TMPDIR=$TMP/tmp \
  FAKE_NSYS_LEFT=$TMP/left.txt
mkdir -p "$XDG_RUNTIME_DIR" "$TMPDIR"
printf 'return { extends = "default", capture = { start_backoff = 0.1 } }\n' >"$TMP/fast.lua"
calls() { grep -c "\"$1\"" "$FAKE_NSYS_LOG" 2>/dev/null || true; } # nsys calls of a subcommand so far
runs() { [ -e "$1" ] && wc -l <"$1" | tr -d ' ' || echo 0; }           # how often a workload ran
W=$TMP/work.sh   # work.sh FILE [STATUS [SLEEP [SAY]]]: appends to FILE, sleeps, says SAY on stderr, exits STATUS
printf '#!/bin/sh\necho ran >>"$1"\nsleep "${3:-0}"\n[ -n "$4" ] && echo "$4" >&2\nexit "${2:-0}"\n' >"$W"
chmod +x "$W"

# --- capture: nsys fails to start twice, the third try runs the workload once ------------------------------
: >"$FAKE_NSYS_LOG"
FAKE_NSYS_FAIL=profile:launcher-fail FAKE_NSYS_FAIL_TIMES=2 FAKE_NSYS_COUNTER=$TMP/c1.count \
  run_gf --policy "$TMP/fast.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/c1" -- "$W" "$TMP/c1.ran"
check_eq "capture, 2 start failures: exit 0" 0 "$rc"
check_eq "... nsys profile ran 3 times" 3 "$(calls profile)"
check_eq "... the workload ran once" 1 "$(runs "$TMP/c1.ran")"
check_contains "... each failure is said (try 1 of 3)" "$err" "nsys failed to start (try 1 of 3): Agent launcher failed"
check_contains "... (try 2 of 3)" "$err" "nsys failed to start (try 2 of 3)"
check_eq "... nsys-profile.log keeps what nsys said each time" 2 "$(grep -c 'sem_open: No such file or directory' "$TMP/c1/nsys-profile.log")"
check_contains "... and marks the tries" "$(cat "$TMP/c1/nsys-profile.log")" "--- try 3 ---"
check_contains "... summary.json's warnings too" "$(cat "$TMP/c1/summary.json")" "nsys failed to start (try 2 of 3)"

# --- capture: nsys never starts → exit 4, "nsys failed to start (N tries)" ----------------------------------
: >"$FAKE_NSYS_LOG"
printf 'return { capture = { start_retries = 1 } }\n' >"$TMP/once.lua"
FAKE_NSYS_FAIL=profile:launcher-fail run_gf --policy "$TMP/fast.lua" --policy "$TMP/once.lua" capture \
  --nsys "$FAKE_NSYS" --out "$TMP/c2" -- "$W" "$TMP/c2.ran"
check_eq "capture, nsys never starts: exit 4" 4 "$rc"
check_contains "... the final failure says so, with nsys's words" "$err" \
  "nsys failed to start (2 tries): Agent launcher failed: boost::wrapexcept<QuadDCommon::SystemException> in ProcessWaiter"
check_eq "... 1 + capture.start_retries tries" 2 "$(calls profile)"
check_eq "... the workload never ran" 0 "$(runs "$TMP/c2.ran")"
check_eq "... the log keeps both tries" 2 "$(grep -c '^--- try [12]: nsys failed to start ---' "$TMP/c2/nsys-profile.log")"
check_contains "... summary.json: failed, with the reason" "$(cat "$TMP/c2/summary.json")" "nsys failed to start (2 tries)"

# --- capture: a workload that fails is not run again --------------------------------------------------------
: >"$FAKE_NSYS_LOG"
run_gf --policy "$TMP/fast.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/c3" -- "$W" "$TMP/c3.ran" 3
check_eq "a failing workload (exit 3, nsys wrote its report): one nsys profile" 1 "$(calls profile)"
check_eq "... it ran once" 1 "$(runs "$TMP/c3.ran")"
# the hard case: the workload prints nsys's failure text itself and nsys writes nothing — it was seen
# running (below nsys-launcher), so it is never run again
: >"$FAKE_NSYS_LOG"
FAKE_NSYS_FAIL=profile:missing-output run_gf --policy "$TMP/fast.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/c4" \
  -- "$W" "$TMP/c4.ran" 3 1 "sem_open: No such file or directory"
check_eq "a workload that fails saying sem_open, no report: exit 4" 4 "$rc"
check_contains "... with the workload's status" "$err" "nsys profile exited with status 3"
check_contains "... and why it was not tried again" "$err" \
  "its output holds nsys's start-up failure text (sem_open: No such file or directory), but the workload had started, so it was not tried again"
check_eq "... one nsys profile" 1 "$(calls profile)"
check_eq "... it ran once" 1 "$(runs "$TMP/c4.ran")"

# --- launch: the same rule ----------------------------------------------------------------------------------
: >"$FAKE_NSYS_LOG"
FAKE_NSYS_FAIL=launch:launcher-fail FAKE_NSYS_FAIL_TIMES=2 FAKE_NSYS_COUNTER=$TMP/l1.count \
  run_gf --policy "$TMP/fast.lua" launch --nsys "$FAKE_NSYS" --session rt1 -- "$W" "$TMP/l1.ran" 7 1
check_eq "launch, 2 start failures: the job's exit status" 7 "$rc"
check_eq "... nsys launch ran 3 times" 3 "$(calls launch)"
check_eq "... the job ran once" 1 "$(runs "$TMP/l1.ran")"
check_eq "... what nsys said each time is passed on (as nsys said it)" 2 "$(grep -c '^Agent launcher failed: .*sem_open' <<<"$err")"
check_contains "... and the retry said" "$err" "launch: nsys failed to start (try 2 of 3)"
check_contains "... the session was registered" "$err" "launch: session rt1: workload pid"

: >"$FAKE_NSYS_LOG"
FAKE_NSYS_FAIL=launch:launcher-fail run_gf --policy "$TMP/fast.lua" --policy "$TMP/once.lua" launch \
  --nsys "$FAKE_NSYS" --session rt2 -- "$W" "$TMP/l2.ran"
check_eq "launch, nsys never starts: exit 4" 4 "$rc"
check_contains "... says so" "$err" "launch: nsys failed to start (2 tries): Agent launcher failed"
check_eq "... the job never ran" 0 "$(runs "$TMP/l2.ran")"
run_gf sessions --json
check_not_contains "... no session left registered" "$out" '"rt2"'

: >"$FAKE_NSYS_LOG"
run_gf --policy "$TMP/fast.lua" launch --nsys "$FAKE_NSYS" --session rt3 -- "$W" "$TMP/l3.ran" 3 1 \
  "sem_open: No such file or directory"
check_eq "launch of a job that fails saying sem_open: its status" 3 "$rc"
check_eq "... one nsys launch" 1 "$(calls launch)"
check_eq "... it ran once" 1 "$(runs "$TMP/l3.ran")"
# nsys 2022.4's launcher, failing to start, leaves the status file and semaphore of a child gpuflame never saw
# (tests/fake/nsys leave_launcher_files): gpuflame's retry removes them (gpuflame.nsys_temp drop_unseen)
check "launcher failures: the fake left its files ($(grep -c . "$FAKE_NSYS_LEFT" 2>/dev/null || echo 0))" test -s "$FAKE_NSYS_LEFT"
check_eq "launcher failures: each left file is removed" "" "$(while read -r f; do [ -e "$f" ] && echo "$f"; done <"$FAKE_NSYS_LEFT")"
t_done
