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
# memo_check CMD ARG...: runs a checker that is a pure function of its arguments and of the files and
# directories they name (python3 tests/trace/check_sqlite.py PAGE EXPORT TAG: SQL over the export against
# gpuflame's output), or replays its stdout, stderr and status 0 from an earlier run of the same check over
# the same bytes in this run of the suite ($GF_CHECK_MEMO, set by tests/run). The sanitizer pass's outputs
# equal the plain pass's byte for byte, so it checks them by that identity instead of running the Python
# again; a different byte anywhere (or a failed first check) runs the checker. A checker must not start
# gpuflame, read the environment, or write what a later check reads. In a directory, `*.log` files
# (nsys's messages) are compared with the directory's own path taken out.
memo_check() {
  local memo=${GF_CHECK_MEMO:-} key a rc
  [ -n "$memo" ] && [ -d "$memo" ] || { "$@"; return; }
  key=$({
    for a in "$@"; do
      if [ -f "$a" ]; then printf 'f %s\n' "$(sha256sum <"$a")"
      elif [ -d "$a" ]; then
        (cd "$a" && find . -type f | LC_ALL=C sort | while read -r f; do
          case $f in *.log) printf 'l %s %s\n' "$f" "$(sed "s|$a|@DIR@|g" "$f" | sha256sum)" ;;
                     *) printf 'd %s %s\n' "$f" "$(sha256sum <"$f")" ;; esac
        done)
      else printf 'a %s\n' "$a"; fi
    done
    # a Python checker's sibling modules (page_data.py, nvtx_tree.py) are part of it
    [ "$1" = python3 ] && cat "$(dirname "$2")"/*.py
  } | sha256sum | cut -c1-64)
  if [ -f "$memo/$key.rc" ]; then
    echo "# memo_check: ${2##*/}: the same bytes were checked earlier in this run; its result:"
    cat "$memo/$key.out"; cat "$memo/$key.err" >&2; return 0
  fi
  local o=$memo/$key.out.$BASHPID e=$memo/$key.err.$BASHPID # (a redirection of a command is expanded in its child)
  "$@" >"$o" 2>"$e"; rc=$?
  cat "$o"; cat "$e" >&2
  if [ "$rc" = 0 ]; then
    mv "$o" "$memo/$key.out"; mv "$e" "$memo/$key.err"; echo 0 >"$memo/$key.rc"
  else
    rm -f "$o" "$e"
  fi
  return "$rc"
}
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
