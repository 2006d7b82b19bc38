#!/usr/bin/env bash
# gf-test: no-gpuflame
# tests/fuzz/run.sh's CPU budget (FUZZ_CPU=1, the CI smoke) on planted targets: an input that waits 12 s
# of wall-clock time without using CPU (what a niced target starved by the test files does) is not a
# failure, and an input that never ends is, found by its CPU time: it is stopped, said to be a hang, and
# saved as a regression input.
. "$(dirname "$0")/../lib/t.sh"

if ! command -v clang >/dev/null 2>&1; then skip "the fuzz watcher" "no clang (.ci/deps.sh build installs it)"; t_done; fi
T=$TMP/tree
mkdir -p "$T/tests/fuzz" "$T/build-fuzz/lib"
cp "$TOP/tests/fuzz/run.sh" "$T/tests/fuzz/run.sh"
# one seed a target: the input that waits or spins comes first
cat >"$T/tests/fuzz/seeds.sh" <<'SH'
#!/usr/bin/env bash
mkdir -p "$2"; printf 'W' >"$2/wait"; printf 'H' >"$2/hang"
SH
chmod +x "$T/tests/fuzz/seeds.sh"
ar rc "$T/build-fuzz/lib/libgpuflame.a"
cat >"$T/tests/fuzz/fuzz_starved.c" <<'C'
#include <stddef.h>
#include <stdint.h>
#include <time.h>
/* 12 s of wall-clock time, slept again after each signal (libFuzzer's alarm wakes a plain sleep) */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int waited;
    struct timespec now, end;
    if (!size || data[0] != 'W' || waited)
        return 0;
    waited = 1;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += 12;
    do {
        struct timespec nap = {0, 100000000};
        nanosleep(&nap, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
    return 0;
}
C
cat >"$T/tests/fuzz/fuzz_spin.c" <<'C'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    volatile unsigned long n = 0;
    if (size && data[0] == 'H')
        for (;;) n++;
    return 0;
}
C
if ! (cd "$T" && tests/fuzz/run.sh --build starved spin) >"$TMP/build.log" 2>&1; then
  skip "the fuzz watcher" "clang cannot build a libFuzzer target here: $(tail -n 2 "$TMP/build.log" | tr '\n' ' ')"
  t_done
fi

out=$(cd "$T" && FUZZ_CPU=1 FUZZ_SEED=1 FUZZ_HANG_CPU=2 tests/fuzz/run.sh 1 starved 2>&1); rc=$?
check_eq "an input that waits 12 s without using CPU: not a failure" 0 "$rc"
check_contains "it ran to its CPU budget" "$out" "fuzz starved: exit 0"
check_not_contains "no timeout was reported" "$(cat "$T/build-fuzz/fuzz_starved.log")" "libFuzzer: timeout"
check "no regression input was saved for it" test ! -e "$T/tests/fuzz/regressions/starved"

out=$(cd "$T" && FUZZ_CPU=1 FUZZ_SEED=1 FUZZ_HANG_CPU=2 timeout 120 tests/fuzz/run.sh 1 spin 2>&1); rc=$?
check "an input that never ends: a failure" test "$rc" = 1
check_contains "it is said to be a hang" "$out" "fuzz spin: one input was still running 2 CPU-seconds after the budget was spent (a hang)"
saved=$(ls "$T/tests/fuzz/regressions/spin/" 2>/dev/null | head -n 1)
check "its input was saved as a regression input" test -n "$saved"
check_eq "the saved input is the one that spins" "H" "$(head -c 1 "$T/tests/fuzz/regressions/spin/$saved" 2>/dev/null)"
check "the watcher's mark is gone" test ! -e "$T/build-fuzz/logs/spin.hang"
t_done
