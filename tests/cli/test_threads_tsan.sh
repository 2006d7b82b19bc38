#!/usr/bin/env bash
# gf-test: no-gpuflame (it runs the ThreadSanitizer build, not the pass's binary: the SAN=1 pass would repeat it)
# The code that runs on several threads (policy limits.threads: the SQLite import's row reader, the timeline's
# NVTX projection beside the rules, its columns compressed in parallel, the flamegraph's stacks beside its
# panel's rules (its NVTX names grouped beside their partners) and a page's fold sorted in two halves,
# findings' gaps and launches beside its other rules, the steps' key of the NVTX ranges summed in two halves)
# under ThreadSanitizer: `make tsan` builds build-tsan/bin/gpuflame (CI does). Each command runs with limits.threads = 4, so the threads are there on a
# machine of any size; TSan must report no race, and the output must equal the plain build's with
# limits.threads = 1 (everything on the calling thread). Skipped by name when the TSan build is absent.
. "$(dirname "$0")/../lib/t.sh"
TSAN_GF=${GF_TSAN_BIN:-$TOP/build-tsan/bin/gpuflame}
if [ ! -x "$TSAN_GF" ]; then skip "ThreadSanitizer runs" "no $TSAN_GF (make tsan builds it)"; t_done; fi
# halt_on_error: the first race ends the run with exit 66, so a race can never pass as a clean exit
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"

printf 'return { extends = "default", limits = { threads = 4 } }\n' >"$TMP/t4.lua"
printf 'return { extends = "default", limits = { threads = 1 } }\n' >"$TMP/t1.lua"
python3 "$TOP/tests/gen/big_export.py" "$TMP/gen.sqlite" --ranges 30000 >/dev/null
inputs=("$TMP/gen.sqlite")
for f in real/nvfuser/report1.sqlite real/cs336-jsun012/result.sqlite real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite; do
  have_fixture "$f" && inputs+=("$FIX/$f")
done

# tsan_same NAME OUT_OF_TSAN OUT_OF_PLAIN ARGS...: ARGS by both builds ({out} is each one's output path)
tsan_same() {
  local name=$1 a=$2 b=$3 args=() x; shift 3
  for x in "$@"; do args+=("${x//\{out\}/$a}"); done
  "$TSAN_GF" --policy "$TMP/t4.lua" "${args[@]}" >"$a.stdout" 2>"$a.err"; local trc=$?
  args=(); for x in "$@"; do args+=("${x//\{out\}/$b}"); done
  "$GF" --policy "$TMP/t1.lua" "${args[@]}" >"$b.stdout" 2>"$b.err"; local prc=$?
  if grep -q "ThreadSanitizer" "$a.err"; then
    not_ok "$name: ThreadSanitizer reported" "$(grep -m1 -A12 "WARNING: ThreadSanitizer" "$a.err")"
    return
  fi
  check_eq "$name: the same exit at 4 threads (TSan) and 1" "$prc" "$trc"
  check "$name: the same output at 4 threads (TSan) and 1" same_files "$a" "$b"
}
# tsan_page NAME A B ARGS...: tsan_same for a command whose stdout names its output file (the flamegraph):
# the page, not stdout, must be the same
tsan_page() { NO_STDOUT=1 tsan_same "$@"; }
# same_files A B: every file A* but A.err has its twin B* with the same bytes (stats -o BASE writes BASE_REPORT.*)
same_files() {
  local f n=0
  for f in "$1"*; do
    [ "$f" = "$1.err" ] && continue
    [ -n "${NO_STDOUT:-}" ] && [ "$f" = "$1.stdout" ] && { n=$((n + 1)); continue; }
    cmp -s "$f" "$2${f#"$1"}" || return 1
    n=$((n + 1))
  done
  [ "$n" -ge 2 ] # the output and stdout at least
}

for i in "${!inputs[@]}"; do
  db=${inputs[$i]}; n=$(basename "$(dirname "$db")")/$(basename "$db")
  tsan_same "timeline $n" "$TMP/tl$i.a.html" "$TMP/tl$i.b.html" -q timeline "$db" -o "{out}"
  tsan_same "findings $n" "$TMP/fd$i.a.json" "$TMP/fd$i.b.json" -q findings -f json "$db" -o "{out}"
  tsan_same "stats nvtx_gpu_proj_trace $n" "$TMP/pj$i.a" "$TMP/pj$i.b" -q stats -r nvtx_gpu_proj_trace "$db" -f json -o "{out}"
  tsan_page "flamegraph with its panel $n" "$TMP/fg$i.a.html" "$TMP/fg$i.b.html" -q flamegraph "$db" -o "{out}"
done
# the flamegraph's stacks folded on their thread beside the rules (frames under 1 % of > 100 stacks)
printf 'return { extends = "default", limits = { threads = 4 }, flamegraph = { fold_share = 0.01, fold_min_stacks = 100 } }\n' >"$TMP/t4.lua"
printf 'return { extends = "default", limits = { threads = 1 }, flamegraph = { fold_share = 0.01, fold_min_stacks = 100 } }\n' >"$TMP/t1.lua"
tsan_page "folded flamegraph with its panel gen.sqlite" "$TMP/ff.a.html" "$TMP/ff.b.html" -q flamegraph "$TMP/gen.sqlite" -o "{out}"
printf 'return { extends = "default", limits = { threads = 4 } }\n' >"$TMP/t4.lua"
printf 'return { extends = "default", limits = { threads = 1 } }\n' >"$TMP/t1.lua"
# NVTX names grouped by policy: set on the trace by the caller while the stacks' thread finds the launches'
# partners, then read by that thread's frames
for t in 4 1; do
  printf 'return { extends = "default", limits = { threads = %d }, nvtx = { group = { ["50-test"] = { { "^aten::(%%a)%%a*", "op %%1" } } } } }\n' \
    "$t" >"$TMP/t$t.lua"
done
tsan_page "flamegraph with its panel, NVTX names grouped gen.sqlite" "$TMP/fgg.a.html" "$TMP/fgg.b.html" -q flamegraph "$TMP/gen.sqlite" -o "{out}"
check_contains "... the page has the grouped frames" "$(cat "$TMP/fgg.a.html")" 'op s'
"$TSAN_GF" --policy "$TMP/t4.lua" -q run "$TOP/tests/lib/groups_late.lua" "$TMP/gen.sqlite" 0.2 "$TMP/gl.job" \
  "$TMP/gl.serial" >/dev/null 2>"$TMP/gl.err"
check_eq "NVTX groups set late: exit 0 with TSan" 0 "$?"
check "NVTX groups set late: no ThreadSanitizer report" bash -c "! grep -q ThreadSanitizer '$TMP/gl.err'"
check "NVTX groups set late: the job's stacks are the serial ones" cmp -s "$TMP/gl.job" "$TMP/gl.serial"
printf 'return { extends = "default", limits = { threads = 4 } }\n' >"$TMP/t4.lua"
printf 'return { extends = "default", limits = { threads = 1 } }\n' >"$TMP/t1.lua"
# a page's fold sorted in two halves on two threads (more stacks than one thread sorts alone)
"$TSAN_GF" -q run "$TOP/tests/lib/fold_split.lua" 4 "$TMP/fs.a" >"$TMP/fs.a.stdout" 2>"$TMP/fs.a.err"; trc=$?
"$GF" -q run "$TOP/tests/lib/fold_split.lua" 1 "$TMP/fs.b" >"$TMP/fs.b.stdout" 2>"$TMP/fs.b.err"; prc=$?
check "fold sorted on two threads: no ThreadSanitizer report" bash -c "! grep -q ThreadSanitizer '$TMP/fs.a.err'"
check_eq "fold sorted on two threads: exit 0 with TSan and on one thread" "0 0" "$trc $prc"
check "fold sorted on two threads: the same folded stacks and statistics as on one" \
  bash -c "cmp -s '$TMP/fs.a' '$TMP/fs.b' && cmp -s '$TMP/fs.a.stdout' '$TMP/fs.b.stdout' && [ -s '$TMP/fs.a' ]"

# a damaged export: the reader thread meets the error; the same message, no race
head -c $(( $(stat -c %s "$TMP/gen.sqlite") * 3 / 5 )) "$TMP/gen.sqlite" >"$TMP/cut.sqlite"
"$TSAN_GF" --policy "$TMP/t4.lua" -q timeline "$TMP/cut.sqlite" -o "$TMP/cut.a.html" >/dev/null 2>"$TMP/cut.a.err"; trc=$?
"$GF" --policy "$TMP/t1.lua" -q timeline "$TMP/cut.sqlite" -o "$TMP/cut.b.html" >/dev/null 2>"$TMP/cut.b.err"; prc=$?
check "damaged export: no ThreadSanitizer report" bash -c "! grep -q ThreadSanitizer '$TMP/cut.a.err'"
check_eq "damaged export: the same exit at 4 threads (TSan) and 1" "$prc" "$trc"
check_eq "damaged export: the same message" "$(cat "$TMP/cut.b.err")" "$(cat "$TMP/cut.a.err")"
check "damaged export: no page written" test ! -e "$TMP/cut.a.html"
t_done
