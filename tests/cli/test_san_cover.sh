#!/usr/bin/env bash
# gf-test: no-gpuflame
# tests/san_cover.py (make san-cover) on a planted tree whose answer is known: four "test files" reach
# functions a, b, c of core/x.c in known sets at known sanitizer-pass costs; the cheapest set that reaches
# every line and branch any of them reaches is {t1, t3}, so t2 and t4 are the files left out. A file that
# reaches nothing of core/ is left out, and so is a file kept first that the files kept after it cover; no
# counts at all is an error that names the directory.
. "$(dirname "$0")/../lib/t.sh"

if ! command -v gcc >/dev/null || ! command -v gcov >/dev/null; then
  skip "san_cover" "no gcc/gcov to make the planted counts"; t_done
fi
T=$TMP/tree
mkdir -p "$T/tests" "$T/core" "$T/build-cov/obj" "$T/harness"
cp "$TOP/tests/san_cover.py" "$T/tests/"
cat >"$T/core/x.c" <<'C'
int a(int v) { int r = v; if (v > 0) r += 1; return r * 2; }
int b(int v) { int r = v; if (v > 1) r += 2; return r * 3; }
int c(int v) { int r = v; if (v > 2) r += 3; return r * 4; }
C
(cd "$T" && gcc -O0 --coverage -c core/x.c -o build-cov/obj/x.o) || { not_ok "planted build" "gcc failed"; t_done; }
# plant NAME:CALLS...: per NAME a program that calls the functions CALLS lists (none: reaches nothing of
# core/), with v = 5 (the same branch in every one), run with its counts where tests/run's gcov pass puts
# test_NAME.sh's
plant() { local spec n calls f
  for spec in "$@"; do
    n=${spec%%:*} calls=${spec#*:}
    { echo "int a(int); int b(int); int c(int);"; echo "int main(void) { int s = 0;"
      for f in ${calls//,/ }; do echo "  s += $f(5);"; done; echo "  return s == -1; }"; } >"$T/harness/$n.c"
    gcc -O0 "$T/harness/$n.c" "$T/build-cov/obj/x.o" --coverage -o "$T/harness/$n"
    GCOV_PREFIX="$T/build-cov/gcda/cov_tests_cli_test_$n.sh.log" "$T/harness/$n"
  done
}
plant t1:a t2:a,b t3:b,c t4:c t0:
printf 'san:tests/cli/test_t1.sh 3 1\nsan:tests/cli/test_t2.sh 20 10\nsan:tests/cli/test_t3.sh 4 1.5\nsan:tests/cli/test_t4.sh 5 2\nsan:tests/cli/test_t0.sh 5 3\ntests/cli/test_t2.sh 1 1\n' \
  >"$T/tests/durations.txt"

err=$(cd "$T" && python3 tests/san_cover.py build-cov 2>&1)
check_eq "san_cover: exit 0" 0 "$?"
check_eq "san_cover: left out t0 (reaches nothing of core/), t2 and t4 (t1 and t3 reach all they reach)" \
  "tests/cli/test_t0.sh tests/cli/test_t2.sh tests/cli/test_t4.sh" "$(grep -v '^#' "$T/tests/san_cover.txt" | tr '\n' ' ' | sed 's/ $//')"
check_contains "san_cover: the summary says 2 files keep it all, and what the others cost" "$err" \
  "5 files reach 3 lines and 3 branches of core/; 2 keep them all; 3 left out (15 of 18 CPU-s)"
check_contains "san_cover: the list's header says how much it reached" "$(cat "$T/tests/san_cover.txt")" "from a gcov run of 5 files: 3 lines and 3 branches of core/ reached"

# t3 reaching c's other branch too makes it no cheaper, but a t4 that reaches what nothing else does is kept
cat >"$T/harness/t4.c" <<'C'
int c(int);
int main(void) { return c(5) + c(0) == -1; }
C
gcc -O0 "$T/harness/t4.c" "$T/build-cov/obj/x.o" --coverage -o "$T/harness/t4"
rm -rf "$T/build-cov/gcda/cov_tests_cli_test_t4.sh.log"
GCOV_PREFIX="$T/build-cov/gcda/cov_tests_cli_test_t4.sh.log" "$T/harness/t4"
(cd "$T" && python3 tests/san_cover.py build-cov 2>/dev/null)
check_eq "san_cover: a file with a branch of its own is kept" "tests/cli/test_t0.sh tests/cli/test_t2.sh" \
  "$(grep -v '^#' "$T/tests/san_cover.txt" | tr '\n' ' ' | sed 's/ $//')"

# a file the greedy pass keeps first (the cheapest per line: u1 reaches b alone) and that the files kept after it
# cover is dropped again: u2 and u3 reach a, b and c
rm -rf "$T/build-cov/gcda"
plant u1:b u2:a,b u3:b,c
printf 'san:tests/cli/test_u1.sh 1 0.3\nsan:tests/cli/test_u2.sh 2 1\nsan:tests/cli/test_u3.sh 2 1\n' >"$T/tests/durations.txt"
(cd "$T" && python3 tests/san_cover.py build-cov 2>/dev/null)
check_eq "san_cover: the first file kept, covered by those kept after it, is left out" "tests/cli/test_u1.sh" \
  "$(grep -v '^#' "$T/tests/san_cover.txt" | tr '\n' ' ' | sed 's/ $//')"

rm -rf "$T/build-cov/gcda"
out=$(cd "$T" && python3 tests/san_cover.py build-cov 2>&1)
check "no counts: an error (exit $?)" [ "$?" -ne 0 ]
check_contains "no counts: names the directory and what makes it" "$out" "no $T/build-cov/gcda: run make san-cover"
t_done
