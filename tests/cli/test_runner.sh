#!/usr/bin/env bash
# gf-test: no-gpuflame
# tests/run itself, on a planted tree: two passes (--pass) share one queue, the second's names carry its
# label, a SAN=1 pass leaves out browser files and files marked no-gpuflame, one file's passes never run
# at once (nor two files of one lane), --fuzz adds a job per fuzz target (niced, in places of their own
# beside the -j files), the sanitizer pass leaves out the files tests/san_cover.txt names (not GF_SAN_ALL=1,
# not a gcov pass, whose files each write their counts to a directory of their own), a failing file fails the run,
# and a missing environment file is a usage error (exit 2).
. "$(dirname "$0")/../lib/t.sh"

T=$TMP/tree
mkdir -p "$T/tests/cli" "$T/tests/browser" "$T/tests/fuzz" "$T/b1/tests" "$T/b2/tests" "$TMP/shared"
cp "$TOP/tests/run" "$T/tests/run"
# the longest first: both passes of test_a would start together, both files of lane one too
printf 'tests/cli/test_a.sh 100 1\nsan:tests/cli/test_a.sh 99 1\ntests/cli/test_l1.sh 98 1\ntests/cli/test_l2.sh 97 1\n' >"$T/tests/durations.txt"
# a file that holds a directory as a lock for a second: a second holder at the same time fails
cat >"$T/tests/cli/test_a.sh" <<'SH'
#!/usr/bin/env bash
lock=$RUNNER_SHARED/file_a
mkdir "$lock" 2>/dev/null || { echo "not ok - a: another pass of this file is running"; exit 1; }
sleep 1; rmdir "$lock"
echo "ok - a ran with GPUFLAME_BIN=$GPUFLAME_BIN SAN=${SAN:-}"
SH
for n in l1 l2; do
  cat >"$T/tests/cli/test_$n.sh" <<SH
#!/usr/bin/env bash
# gf-test: lane=one
lock=\$RUNNER_SHARED/lane_one
mkdir "\$lock" 2>/dev/null || { echo "not ok - $n: another file of lane one is running"; exit 1; }
sleep 1; rmdir "\$lock"
echo "ok - $n"
SH
done
printf '#!/usr/bin/env bash\n# gf-test: no-gpuflame\necho "ok - tool"\n' >"$T/tests/cli/test_tool.sh"
printf 'console.log("ok - page");\n' >"$T/tests/browser/test_page.mjs"
printf '#!/bin/sh\necho "ok - unit in $0"\n' >"$T/b1/tests/test_u"; cp "$T/b1/tests/test_u" "$T/b2/tests/test_u"
chmod +x "$T/b1/tests/test_u" "$T/b2/tests/test_u"
: >"$T/tests/fuzz/fuzz_alpha.c"; : >"$T/tests/fuzz/fuzz_beta.c"
# a fuzz target: one at a time (GF_FUZZ_JOBS=1), and it says its niceness
cat >"$T/tests/fuzz/smoke.sh" <<'SH'
#!/usr/bin/env bash
mkdir "$RUNNER_SHARED/fuzz_pool" 2>/dev/null || { echo "not ok - fuzz $1: another fuzz target is running"; exit 1; }
touch "$RUNNER_SHARED/fuzz_started"; sleep 1; rmdir "$RUNNER_SHARED/fuzz_pool"
echo "ok - fuzz $1 for $2 s at nice $(nice)"
SH
printf "GPUFLAME_BIN='/plain/gpuflame'\nGF_BUILD='%s'\nSAN=''\n" "$T/b1" >"$T/b1/test.env"
printf "GPUFLAME_BIN='/san/gpuflame'\nGF_BUILD='%s'\nSAN='1'\n" "$T/b2" >"$T/b2/test.env"
export RUNNER_SHARED=$TMP/shared

out=$(cd "$T" && CI= GF_TEST_JOBS=4 GF_FUZZ_JOBS=1 tests/run --pass "=$T/b1/test.env" --pass "san=$T/b2/test.env" --fuzz 3 2>&1)
rc=$?
check_eq "two passes and the fuzz smoke: exit 0" 0 "$rc"
check_eq "two passes and the fuzz smoke: the closing line" "11 passed, 0 failed, 1 skipped" "$(tail -n 1 <<<"$out")"
check_contains "the plain pass's file, unlabelled" "$out" "tests/cli/test_a.sh "
check_contains "the second pass's file, labelled" "$out" "san:tests/cli/test_a.sh "
check_contains "the second pass's unit test, labelled, from its build" "$out" "san:b2/tests/test_u "
check_contains "SAN=1 leaves out a browser file" "$out" "not run in this pass: san:tests/browser/test_page.mjs (browser)"
check_contains "SAN=1 leaves out a file that starts no gpuflame" "$out" "not run in this pass: san:tests/cli/test_tool.sh (starts no gpuflame)"
logs=$(sed -n 's/^logs: \([^ ]*\) .*/\1/p' <<<"$out")
check_contains "the plain pass runs in its environment" "$(cat "$logs/tests_cli_test_a.sh.log" 2>&1)" "ok - a ran with GPUFLAME_BIN=/plain/gpuflame SAN="
check_contains "the second pass runs in its environment" "$(cat "$logs/san_tests_cli_test_a.sh.log" 2>&1)" "ok - a ran with GPUFLAME_BIN=/san/gpuflame SAN=1"
check_contains "a fuzz target is a job" "$out" "fuzz:alpha "
check_contains "every fuzz target is a job" "$out" "fuzz:beta "
check_contains "a fuzz target runs at nice 19" "$(cat "$logs/fuzz_alpha.log" 2>&1)" "ok - fuzz alpha for 3 s at nice 19"

# the fuzz targets have places of their own: with -j 1, a file still runs beside one
cat >"$T/tests/cli/test_w.sh" <<'SH'
#!/usr/bin/env bash
for _ in $(seq 50); do [ -e "$RUNNER_SHARED/fuzz_started" ] && { echo "ok - w ran beside a fuzz target"; exit 0; }; sleep 0.1; done
echo "not ok - w: no fuzz target ran beside this file"
SH
rm -f "$RUNNER_SHARED/fuzz_started"
out=$(cd "$T" && CI= GF_TEST_JOBS=1 GF_FUZZ_JOBS=1 tests/run --pass "=$T/b1/test.env" --fuzz 3 test_w 2>&1)
check_eq "-j 1 and a fuzz target: the file runs beside it, not after" "3 passed, 0 failed, 0 skipped" "$(tail -n 1 <<<"$out")"

# tests/san_cover.txt (make san-cover): the sanitizer pass leaves its files out, the plain pass runs them
printf '#!/usr/bin/env bash\necho "ok - c GCOV_PREFIX=${GCOV_PREFIX:-}"\n' >"$T/tests/cli/test_c.sh"
printf '# a comment\ntests/cli/test_c.sh\ntests/test_u\n' >"$T/tests/san_cover.txt"
out=$(cd "$T" && CI= tests/run --pass "=$T/b1/test.env" --pass "san=$T/b2/test.env" test_c test_u 2>&1)
check_eq "san_cover.txt: the plain pass runs its files, the sanitizer pass not" "2 passed, 0 failed, 0 skipped" "$(tail -n 1 <<<"$out")"
check_contains "san_cover.txt: a script left out by name" "$out" \
  "not run in this pass: san:tests/cli/test_c.sh (its C coverage is within the other files', tests/san_cover.txt)"
check_contains "san_cover.txt: a unit test of the build left out by name" "$out" "not run in this pass: san:$T/b2/tests/test_u (its C"
out=$(cd "$T" && CI= GF_SAN_ALL=1 tests/run --pass "=$T/b1/test.env" --pass "san=$T/b2/test.env" test_c test_u 2>&1)
check_eq "GF_SAN_ALL=1: the sanitizer pass runs them too" "4 passed, 0 failed, 0 skipped" "$(tail -n 1 <<<"$out")"
mkdir -p "$T/b3/tests"
printf "GPUFLAME_BIN='/cov/gpuflame'\nGF_BUILD='%s'\nSAN=''\nGF_COVERAGE='1'\n" "$T/b3" >"$T/b3/test.env"
out=$(cd "$T" && CI= tests/run --pass "cov=$T/b3/test.env" test_c test_tool 2>&1)
check_eq "a gcov pass runs the files san_cover.txt names" "1 passed, 0 failed, 0 skipped" "$(tail -n 1 <<<"$out")"
check_contains "a gcov pass leaves out what the sanitizer pass does" "$out" "not run in this pass: cov:tests/cli/test_tool.sh (starts no gpuflame)"
logs=$(sed -n 's/^logs: \([^ ]*\) .*/\1/p' <<<"$out")
check_contains "a gcov pass: each file's counts in a directory of its own" "$(cat "$logs/cov_tests_cli_test_c.sh.log" 2>&1)" \
  "ok - c GCOV_PREFIX=$T/b3/gcda/cov_tests_cli_test_c.sh.log"
rm -f "$T/tests/san_cover.txt"

printf '#!/usr/bin/env bash\necho "not ok - b: planted failure"\nexit 1\n' >"$T/tests/cli/test_b.sh"
out=$(cd "$T" && tests/run --pass "=$T/b1/test.env" test_b 2>&1)
rc=$?
check "a failing file fails the run (exit $rc)" [ "$rc" -ne 0 ]
check_eq "a failing file: the closing line" "0 passed, 1 failed, 0 skipped" "$(tail -n 1 <<<"$out")"
out=$(cd "$T" && tests/run --pass "x=$T/nope.env" 2>&1)
rc=$?
check_eq "a missing environment file: exit 2" 2 "$rc"
check_contains "a missing environment file: named" "$out" "$T/nope.env"
t_done
