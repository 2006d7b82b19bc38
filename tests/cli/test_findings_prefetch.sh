#!/usr/bin/env bash
# gpu-starv's gaps and launch-overhead's launches on a second thread while the other rules run (the
# findings command, policy limits.threads >= 2; core/trace_rules_job.c, gpuflame.findings analyze's
# prefetch): every output is byte-identical to the serial run's (threads = 1) and in the plan's order, for
# the default rules, windows (start/end, nvtx) and rules given twice; the trace is held while the thread
# reads it (a rule that tries to change it fails as a rule); a rule error that unwinds past the job (an
# interrupt) joins the thread and the command fails cleanly.
. "$(dirname "$0")/../lib/t.sh"

G=$TMP/gen
mkdir -p "$G" "$TMP/path/rules"
python3 "$TOP/tests/gen/findings_export.py" planted "$G/p.sqlite" --expect "$G/p.json" >/dev/null
check_eq "generate the planted export" 0 "$?"
python3 "$TOP/tests/gen/big_export.py" "$G/s.sqlite" --ranges 20000 >/dev/null
check_eq "generate an export (20,000 NVTX ranges)" 0 "$?"
for t in 1 2; do printf 'return { limits = { threads = %d } }\n' "$t" >"$TMP/t$t.lua"; done

# same NAME ARGS...: `findings ARGS` at threads 1 and 2: the same exit, stdout and stderr (but the -v line)
same() {
  local name=$1; shift
  run_gf --policy "$TMP/t1.lua" findings "$@"; local rc1=$rc out1=$out err1=$err
  run_gf --policy "$TMP/t2.lua" -v findings "$@"
  check_eq "$name: exit 0 at threads = 1" 0 "$rc1"
  check_eq "$name: the same exit at threads = 2" "$rc1" "$rc"
  check_contains "$name: at threads = 2 the gaps and launches ran on the second thread" "$err" \
    "piece(s) of the rules' work on a second thread beside the other rules"
  check_eq "$name: the same output at threads = 1 and 2" "$out1" "$out"
  check_eq "$name: the same verdicts" "$err1" "$(grep -v '^gpuflame: debug:' <<<"$err")"
}
same "planted, every rule, JSON" -f json "$G/p.sqlite"
same "planted, every rule, text" "$G/p.sqlite"
check_eq "... the rules in policy order" \
  "cuda-async-memcpy cuda-sync-memcpy cuda-sync-memset cuda-sync-api gpu-starv gpu-low-util launch-overhead cuda-graphs gpu-busy nccl-wait" \
  "$(python3 -c 'import json,sys; print(" ".join(f["rule"] for f in json.load(open(sys.argv[1]))["findings"]))' \
     <(run_gf --policy "$TMP/t2.lua" findings -f json "$G/p.sqlite"; echo "$out"))"
check_eq "planted: gpu-starv's rows are the planted ones" "$(python3 -c '
import json,sys; print("\n".join(json.load(open(sys.argv[1]))["gpu-starv"][1:]))' "$G/p.json")" \
  "$(run_gf --policy "$TMP/t2.lua" findings -f csv -r gpu-starv "$G/p.sqlite"; tail -n +2 <<<"$out")"
same "generated, windows and a rule given twice" -f json -r gpu-starv:gap=0:rows=7 \
  -r cuda-sync-api -r gpu-starv:gap=0:start=1000000000:end=3000000000 -r launch-overhead:rows=3:min_kernels=1 \
  -r gpu-low-util -r launch-overhead:start=1000000000:end=3000000000 "$G/s.sqlite"
same "generated, an NVTX window" -f csv -r gpu-starv:gap=0:rows=5:nvtx=step\ 0 "$G/s.sqlite"

run_gf --policy "$TMP/t2.lua" -v findings -r cuda-sync-api "$G/s.sqlite"
check_not_contains "without gpu-starv and launch-overhead no second thread" "$err" "second thread"
run_gf --policy "$TMP/t1.lua" -v findings -f json "$G/p.sqlite"
check_not_contains "threads = 1: no second thread" "$err" "second thread"

# a rule that tries to change the trace while the thread reads it: refused, the rule fails, the others run
cat >"$TMP/path/rules/trimmer.lua" <<'LUA'
return { name = "trimmer", options = {}, run = function(model)
  model.trace:trim(1)
  return { columns = { "x" }, rows = {} }
end }
LUA
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$TMP/t2.lua" findings -f json -r trimmer -r gpu-starv "$G/p.sqlite"
check_eq "a rule changing the trace while the gaps are computed: exit 1 (a rule failed)" 1 "$rc"
check_contains "... the rule fails with the trace busy" "$err" "trace is busy: the rules' work on the second thread"
check_eq "... gpu-starv's rows are still the planted ones" \
  "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["gpu-starv"]) - 1)' "$G/p.json")" \
  "$(python3 -c 'import json,sys; print([len(f["rows"]) for f in json.load(sys.stdin)["findings"] if f["rule"] == "gpu-starv"][0])' <<<"$out")"

# a prefetch hook that fails: the rule still runs, in order, and meets the problem itself
cat >"$TMP/path/rules/badfetch.lua" <<'LUA'
return { name = "badfetch", options = {}, prefetch = function() error("planted prefetch failure") end,
  run = function() return { columns = { "x" }, rows = { { 1 } } } end }
LUA
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$TMP/t2.lua" -v findings -f csv -r badfetch "$G/p.sqlite"
check_eq "a failing prefetch hook: the rule still runs (exit 0)" 0 "$rc"
check_eq "... its rows" "$(printf 'x\n1')" "$out"
check_contains "... the failure is said under -v" "$err" "rule badfetch: prefetch: "

# a rule error that unwinds past the job (an interrupt is not caught per rule): the thread is joined, the
# command exits 130 with its message and writes nothing
cat >"$TMP/path/rules/stop.lua" <<'LUA'
local errors = require("gpuflame.errors")
return { name = "stop", options = {}, run = function()
  errors.raise(errors.INTERRUPTED, "planted interrupt in a rule")
end }
LUA
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$TMP/t2.lua" findings -f json -r gpu-starv -r stop \
  -o "$TMP/stopped" "$G/s.sqlite"
check_eq "an interrupt in a rule while the gaps are computed: exit 130" 130 "$rc"
check_contains "... its message" "$err" "planted interrupt in a rule"
check "... nothing written" test ! -e "$TMP/stopped.json"
t_done
