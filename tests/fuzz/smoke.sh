#!/usr/bin/env bash
# One target of the fuzz smoke as a test file of tests/run (--fuzz SECONDS): waits until `make fuzz-build`
# has finished (CI builds the targets beside the first test files and holds build-fuzz/.build.lock while
# it does), runs the target until it has used SECONDS of CPU time (tests/fuzz/run.sh with FUZZ_CPU=1: the
# seeded corpus and a fixed seed, a crash saved as a regression input) and says `ok` or `not ok` with its
# number of executions. A CPU budget, not a wall-clock one: the target runs niced beside the test files
# and does the same work however much of the CPU they leave it.
# Usage: tests/fuzz/smoke.sh TARGET SECONDS
set -u
t=$1 secs=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
mkdir -p build-fuzz
exec 9>>build-fuzz/.build.lock
flock -s 9
exec 9>&-
if [ ! -x "build-fuzz/fuzz_$t" ]; then
  echo "not ok - fuzz $t: build-fuzz/fuzz_$t was not built (make fuzz-build failed or did not run)"
  exit 1
fi
out=$(FUZZ_CPU=1 FUZZ_SEED=${FUZZ_SEED:-1} tests/fuzz/run.sh "$secs" "$t" 2>&1)
rc=$?
execs=$(printf '%s\n' "$out" | sed -n "s/^fuzz $t: exit [0-9]*, \([0-9?]*\) executions/\1/p" | tail -n 1)
if [ "$rc" = 0 ]; then
  echo "ok - fuzz $t: ${secs} CPU-seconds, ${execs:-?} executions, no crash"
else
  printf '%s\n' "$out"
  echo "not ok - fuzz $t: exit $rc after ${execs:-?} executions (the input is saved under tests/fuzz/regressions/$t/)"
fi
