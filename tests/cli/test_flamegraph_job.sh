#!/usr/bin/env bash
# The flamegraph's stacks (and the page's fold) on a second thread while the findings panel's rules run
# (core/trace_flame_job.c, policy limits.threads >= 2): the page is byte-identical to the serial one's
# (threads = 1), folded or not; without the panel nothing changes; the trace is held while the thread reads
# it (a rule that tries to change it fails as a rule, the page is still written); a rule error that unwinds
# past the job (an interrupt) joins the thread and the command fails cleanly with the error's exit code. The
# NVTX names grouped by policy while the thread finds the launches' partners give the serial page too.
. "$(dirname "$0")/../lib/t.sh"

G=$TMP/gen
mkdir -p "$G" "$TMP/path/rules"
python3 "$TOP/tests/gen/big_export.py" "$G/s.sqlite" --ranges 20000 >/dev/null
check_eq "generate an export (20,000 NVTX ranges)" 0 "$?"
for t in 1 2; do
  printf 'return { limits = { threads = %d } }\n' "$t" >"$TMP/t$t.lua"
  # the page folds its frames under 1 % (more than 100 stacks)
  printf 'return { limits = { threads = %d }, flamegraph = { fold_share = 0.01, fold_min_stacks = 100 } }\n' \
    "$t" >"$TMP/f$t.lua"
done

run_gf --policy "$TMP/t1.lua" -q flamegraph "$G/s.sqlite" -o "$TMP/t1.html"
check_eq "threads = 1: the page with its panel" 0 "$rc"
run_gf --policy "$TMP/t2.lua" -v flamegraph "$G/s.sqlite" -o "$TMP/t2.html"
check_eq "threads = 2: the page with its panel" 0 "$rc"
check_contains "threads = 2: the stacks were built on the second thread" "$err" \
  "stacks built on a second thread beside the findings rules"
check "threads = 1 and 2: byte-identical pages" cmp -s "$TMP/t1.html" "$TMP/t2.html"
check_contains "the page has its findings panel" "$(cat "$TMP/t2.html")" '"rule":'

run_gf --policy "$TMP/f1.lua" -q flamegraph "$G/s.sqlite" -o "$TMP/f1.html"
run_gf --policy "$TMP/f2.lua" -v flamegraph "$G/s.sqlite" -o "$TMP/f2.html"
check_eq "a folded page at threads = 2" 0 "$rc"
check_contains "... folded on the second thread" "$err" "(and folded there)"
check_contains "... the page says it folded" "$(cat "$TMP/f2.html")" 'folded into \"[folded: frames under 1 % each]\" frames'
check "... threads = 1 and 2: byte-identical folded pages" cmp -s "$TMP/f1.html" "$TMP/f2.html"

printf 'return { limits = { threads = 2 }, findings = { pages = false } }\n' >"$TMP/np2.lua"
run_gf --policy "$TMP/np2.lua" -v flamegraph "$G/s.sqlite" -o "$TMP/np2.html"
check_eq "without the panel at threads = 2" 0 "$rc"
check_not_contains "... no second thread for the stacks (nothing runs beside them)" "$err" "second thread beside"

# NVTX names grouped by policy while the thread finds the launches' partners (nvtx_group.map, job:set_groups):
# the page has the grouped frames, the same as at threads = 1; a rule set that fails stops the command with
# its error at either count, the thread joined (no page, no hang)
for t in 1 2; do
  printf 'return { limits = { threads = %d }, nvtx = { group = { ["50-test"] = { { "^aten::(%%a)%%a*", "op %%1" } } } } }\n' \
    "$t" >"$TMP/g$t.lua"
  printf 'return { limits = { threads = %d }, nvtx = { group = { ["50-bad"] = { { "^aten", "%%9" } } } } }\n' "$t" >"$TMP/b$t.lua"
done
run_gf --policy "$TMP/g1.lua" -q flamegraph "$G/s.sqlite" -o "$TMP/g1.html"
check_eq "grouped NVTX names, threads = 1" 0 "$rc"
run_gf --policy "$TMP/g2.lua" -v flamegraph "$G/s.sqlite" -o "$TMP/g2.html"
check_eq "grouped NVTX names, threads = 2" 0 "$rc"
check_contains "... the stacks on the second thread" "$err" "stacks built on a second thread beside the findings rules"
check_contains "... the page has the grouped frames" "$(cat "$TMP/g2.html")" 'op s'
check "... threads = 1 and 2: byte-identical pages" cmp -s "$TMP/g1.html" "$TMP/g2.html"
# the groups set late (0.3 s after the job started): the thread waited for them (tests/lib/groups_late.lua)
run_gf --policy "$TMP/g2.lua" -q run "$TOP/tests/lib/groups_late.lua" "$G/s.sqlite" 0.3 "$TMP/late.job" "$TMP/late.serial"
check_eq "NVTX groups set 0.3 s late" 0 "$rc"
check_contains "... the job's stacks have the grouped frames" "$(cat "$TMP/late.job")" ';op s;'
check "... the same stacks as the serial build's of the grouped trace" cmp -s "$TMP/late.job" "$TMP/late.serial"
run_gf --policy "$TMP/b1.lua" -q flamegraph "$G/s.sqlite" -o "$TMP/b1.html"
rc1=$rc err1=$err
timeout -s KILL 60 "$GF" --policy "$TMP/b2.lua" -q flamegraph "$G/s.sqlite" -o "$TMP/b2.html" 2>"$TMP/b2.err"
rc=$? err=$(<"$TMP/b2.err")
check "a failing NVTX rule set: an error exit" [ "$rc1" -ne 0 ]
check_eq "... the same exit at threads = 2, within a minute" "$rc1" "$rc"
check_contains "... names the rule" "$err" "nvtx.group.50-bad[1]"
check_eq "... the same message" "$err1" "$err"
check "... no page" test ! -e "$TMP/b2.html"

# a rule that tries to change the trace while the thread reads it: refused, the rule fails, the page is written
cat >"$TMP/path/rules/trimmer.lua" <<'LUA'
return { name = "trimmer", options = {}, run = function(model)
  model.trace:trim(1)
  return { columns = { "x" }, rows = {} }
end }
LUA
printf 'return { limits = { threads = 2 }, findings = { rules = { "trimmer", "gpu-starv" } } }\n' >"$TMP/trimmer.lua"
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$TMP/trimmer.lua" -q flamegraph "$G/s.sqlite" -o "$TMP/trimmer.html"
check_eq "a rule changing the trace while the stacks are built: the page is still written" 0 "$rc"
check_contains "... the rule fails with the trace busy" "$err" "trace is busy: the flamegraph's stack build is still running"

# a rule error that unwinds past the job (an interrupt is not caught per rule): the thread is joined
# (<close>), the command exits 130 with its message and writes no page
cat >"$TMP/path/rules/stop.lua" <<'LUA'
local errors = require("gpuflame.errors")
return { name = "stop", options = {}, run = function()
  errors.raise(errors.INTERRUPTED, "planted interrupt in a rule")
end }
LUA
printf 'return { limits = { threads = 2 }, findings = { rules = { "stop" } } }\n' >"$TMP/stop.lua"
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$TMP/stop.lua" -v flamegraph "$G/s.sqlite" -o "$TMP/stop.html"
check_eq "a rule error past the job: exit 130" 130 "$rc"
check_contains "... names the error" "$err" "planted interrupt in a rule"
check "... no page" test ! -e "$TMP/stop.html"
check_not_contains "... no sanitizer report" "$err" "WARNING: ThreadSanitizer"
t_done
