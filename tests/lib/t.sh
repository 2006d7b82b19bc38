# Helpers for CLI tests (bash). Source it: . "$(dirname "$0")/../lib/t.sh"
# Every check prints `ok - name` or `not ok - name: why`; t_done exits non-zero if any failed.
set -u
GF=${GPUFLAME_BIN:?GPUFLAME_BIN not set (run through tests/run or make test)}
TOP=${GF_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
FIX=${GPUFLAME_FIXTURES:-$TOP/../shared/fixtures}
TMP=${GF_TMP:-$(mktemp -d)}
FAKE_NSYS=$TOP/tests/fake/nsys
_t_failed=0

ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1: $2"; _t_failed=$((_t_failed + 1)); }
skip() { echo "skip - $1: $2"; }

# check NAME CONDITION-COMMAND...
check() { local n=$1; shift; if "$@"; then ok "$n"; else not_ok "$n" "failed: $*"; fi; }
# check_eq NAME EXPECTED ACTUAL
check_eq() { if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected [$2] got [$3]"; fi; }
# check_contains NAME HAYSTACK NEEDLE
check_contains() { if [[ "$2" == *"$3"* ]]; then ok "$1"; else not_ok "$1" "[$3] not in [${2:0:400}]"; fi; }
check_not_contains() { if [[ "$2" != *"$3"* ]]; then ok "$1"; else not_ok "$1" "[$3] unexpectedly in output"; fi; }
# run_gf's stdout and stderr go through files of this shell ($BASHPID: a background subshell has its own),
# read back by $(<FILE), which bash does without a process: the suite calls gpuflame thousands of times
# in each pass, and mktemp, cat and rm around each call cost as much CPU as a small gpuflame run.
_T_IO=$TMP/.t_io
mkdir -p "$_T_IO"
# run_gf: runs gpuflame, sets $out (stdout), $err (stderr), $rc
run_gf() { local o=$_T_IO/o.$BASHPID e=$_T_IO/e.$BASHPID; "$GF" "$@" >"$o" 2>"$e"; rc=$?; out=$(<"$o"); err=$(<"$e"); }
# run_gf_env VAR=value... -- ARGS: like run_gf with extra environment for gpuflame only
run_gf_env() { local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local o=$_T_IO/o.$BASHPID e=$_T_IO/e.$BASHPID; env "${envs[@]}" "$GF" "$@" >"$o" 2>"$e"; rc=$?; out=$(<"$o"); err=$(<"$e"); }
# have_fixture PATH (relative to fixtures) — prints skip lines itself when absent
have_fixture() { [ -e "$FIX/$1" ]; }
t_done() { [ "$_t_failed" -eq 0 ]; exit $?; }
# run_findings_csv ARGS...: `gpuflame ARGS -o BASE` for a `findings -f csv` (one BASE_RULE.csv per rule, the
# verdicts on stderr), then $out rebuilt as one "# RULE: VERDICT" line + CSV + blank line per rule
# (tests/lib/findings_stream.py); $err and $rc as run_gf.
run_findings_csv() { local base; base=$(mktemp -d "$TMP/fcsv.XXXXXX")
  run_gf "$@" -o "$base/f"; out=$(python3 "$TOP/tests/lib/findings_stream.py" "$base/f" <<<"$err"); }
