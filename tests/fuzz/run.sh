#!/usr/bin/env bash
# make fuzz: builds each tests/fuzz/fuzz_*.c with libFuzzer against build-fuzz/lib/libgpuflame.a and
# runs it for SECONDS (FUZZ_CPU=1: until it has used SECONDS of CPU time) on a corpus seeded from the
# real fixtures and tests/fuzz/regressions/<name>/.
# A crash fails the run; its input is copied to tests/fuzz/regressions/<name>/ so that `make test`
# replays it from then on (commit it with the fix).
# Usage: tests/fuzz/run.sh SECONDS [TARGET...]   (FUZZ_JOBS targets at a time, default one per core)
#        tests/fuzz/run.sh --build [TARGET...]    only builds the targets (CI builds them while other
#                                                 stages run); a target built since its sources changed
#                                                 is not built again
set -u
build_only=0
[ "${1:-}" = --build ] && { build_only=1; shift; }
secs=${1:-60}; [ "$build_only" = 1 ] || shift || true
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
fix=${GPUFLAME_FIXTURES:-$top/../shared/fixtures}
out=build-fuzz
pkgs="lua5.4 sqlite3 libcurl libcjson yaml-0.1"
cflags="-O1 -g -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer -std=c11 -D_GNU_SOURCE -Icore -Icore/host -Icore/bind -I$out/gen -Itests/fuzz $(pkg-config --cflags $pkgs)"
libs="$out/lib/libgpuflame.a $(pkg-config --libs $pkgs) -lcsv -ldeflate -lz -lm"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do n=${f##*/fuzz_}; targets+=("${n%.c}"); done
fi
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
logs=$out/logs; mkdir -p "$logs"
# fuzz_one TARGET: builds, seeds and runs one target; its lines go to $logs/TARGET.out, its status to .rc
# build_one TARGET: the target's binary, unless it is newer than its source, the headers and the library
build_one() { local t=$1 bin="$out/fuzz_$1" f
  if [ -x "$bin" ]; then
    for f in "tests/fuzz/fuzz_$t.c" tests/fuzz/*.h "$out/lib/libgpuflame.a"; do
      [ "$f" -nt "$bin" ] && { clang $cflags -o "$bin" "tests/fuzz/fuzz_$t.c" $libs; return; }
    done
    return 0
  fi
  clang $cflags -o "$bin" "tests/fuzz/fuzz_$t.c" $libs
}
if [ "$build_only" = 1 ]; then
  for t in "${targets[@]}"; do build_one "$t" || { echo "fuzz $t: build failed" >&2; exit 1; }; done
  exit 0
fi
# stop_at_cpu PID SECONDS HANGFILE: asks the fuzzer to stop (SIGUSR1: libFuzzer ends the run as it does at
# -max_total_time, with its final stats and status 0) once it has used SECONDS of CPU time, user + system,
# its own and that of the processes it waited for: LeakSanitizer's leak checks run in processes the fuzzer
# clones (fuzz_mcp's Lua heap made them 53 of its 83 CPU-s in one CI run), and they are the target's cost too.
# A stop is taken between inputs, so a fuzzer that uses FUZZ_HANG_CPU (10) more CPU-seconds after it is one
# input that does not end: the watcher writes HANGFILE and sends SIGABRT, on which libFuzzer saves the input
# and prints where it was. A hang is judged by CPU time, as the budget is: libFuzzer's own -timeout counts
# wall-clock time, and a niced target starved by the test files once waited over 10 s inside one input that
# takes under a millisecond (CI, fuzz:model: 2,082 executions a second against 81,514 on an idle machine).
stop_at_cpu() { local pid=$1 hz st used stopped=0
  hz=$(getconf CLK_TCK)
  while read -r -a st <"/proc/$pid/stat" 2>/dev/null; do
    # field 3 the state (Z: it ended, not yet waited for), 14-17 utime, stime, cutime, cstime; the name
    # (field 2) of a fuzz target has no spaces
    [ "${st[2]}" = Z ] && return
    used=$(( st[13] + st[14] + st[15] + st[16] ))
    if [ "$stopped" = 0 ] && [ "$used" -ge $(( $2 * hz )) ]; then
      kill -USR1 "$pid" 2>/dev/null; stopped=1
    elif [ "$stopped" = 1 ] && [ "$used" -ge $(( ($2 + ${FUZZ_HANG_CPU:-10}) * hz )) ]; then
      echo "$used" >"$3"; kill -ABRT "$pid" 2>/dev/null; return
    fi
    sleep 1
  done
}
fuzz_one() { local t=$1 bin="$out/fuzz_$1" corpus="$out/corpus/$1" log="$out/fuzz_$1.log" rc execs
  {
  build_one "$t" || { echo "fuzz $t: build failed"; echo 1 >"$logs/$t.rc"; return; }
  mkdir -p "$corpus" "$out/crashes"
  tests/fuzz/seeds.sh "$t" "$corpus" "$fix"
  local seed=() dict=()
  # CI sets FUZZ_SEED so its smoke run is reproducible; local runs explore with random seeds.
  [ -n "${FUZZ_SEED:-}" ] && seed=(-seed="$FUZZ_SEED")
  [ -f "tests/fuzz/dict/$t.dict" ] && dict=(-dict="tests/fuzz/dict/$t.dict")
  echo "fuzz $t: ${secs} s$([ "${FUZZ_CPU:-0}" = 1 ] && echo " of CPU"), corpus $(ls "$corpus" | wc -l) files"
  local limit=$secs
  # a CPU budget: the wall-clock limit only bounds a starved run (a niced target in CI waits for idle CPU
  # while the test files run: 740 s for 30 CPU-seconds was seen on a loaded machine)
  # and the watcher judges a hang by CPU time (stop_at_cpu); libFuzzer's wall-clock timeout is then only
  # the backstop for an input blocked without using CPU
  local unit_timeout=10 hangfile="$logs/$t.hang"
  [ "${FUZZ_CPU:-0}" = 1 ] && { limit=$((secs * 100)); unit_timeout=300; }
  rm -f "$hangfile"
  "$bin" "$corpus" "${dict[@]}" "${seed[@]}" -max_total_time="$limit" -timeout="$unit_timeout" -rss_limit_mb=2048 \
    -max_len=1048576 -artifact_prefix="$out/crashes/$t-" -print_final_stats=1 >"$log" 2>&1 &
  local pid=$!
  [ "${FUZZ_CPU:-0}" = 1 ] && stop_at_cpu "$pid" "$secs" "$hangfile"
  wait "$pid"
  rc=$?
  if [ -f "$hangfile" ]; then
    echo "fuzz $t: one input was still running ${FUZZ_HANG_CPU:-10} CPU-seconds after the budget was spent (a hang);" \
      "stopped with SIGABRT, which saves it"
    rm -f "$hangfile"
    [ "$rc" = 0 ] && rc=1
  fi
  # the input file of a target stopped mid-input (tests/fuzz/fuzz_file.h: /dev/shm, else /tmp)
  rm -f /dev/shm/gf-fuzz-"$pid"* /tmp/gf-fuzz-"$pid"*
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  if [ "$rc" = 0 ] && [ "${FUZZ_CPU:-0}" = 1 ] && ! grep -q 'exiting as requested' "$log"; then
    # it ran out of wall-clock time before its CPU budget: less fuzzing than asked for, so not a pass
    echo "fuzz $t: stopped at the wall-clock cap of $limit s before using $secs s of CPU (the machine was too busy)"
    rc=1
  fi
  echo "fuzz $t: exit $rc, ${execs:-?} executions"
  if [ $rc -ne 0 ]; then
    tail -n 30 "$log"
    mkdir -p "tests/fuzz/regressions/$t"
    for c in "$out/crashes/$t-"*; do [ -f "$c" ] && cp "$c" "tests/fuzz/regressions/$t/" && echo "saved regression input tests/fuzz/regressions/$t/${c##*/}"; done
  fi
  echo "$rc" >"$logs/$t.rc"
  } >"$logs/$t.out" 2>&1
}
# the targets side by side, FUZZ_JOBS at a time (default: one per core); each one's lines printed whole
running=0
for t in "${targets[@]}"; do
  rm -f "$logs/$t.rc" "$logs/$t.out"
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
failed=0
for t in "${targets[@]}"; do
  cat "$logs/$t.out" 2>/dev/null
  [ "$(cat "$logs/$t.rc" 2>/dev/null)" = 0 ] || failed=1
done
exit $failed
