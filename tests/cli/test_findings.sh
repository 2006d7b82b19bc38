#!/usr/bin/env bash
# gf-test: slow
# `gpuflame findings` without nsys: generated exports with the real schema (tests/gen/findings_export.py)
# whose findings are planted at known places — GPU gaps (one exactly at the threshold, one split by
# CUDA profiling overhead), low-utilisation chunks, synchronization calls, pageable async copies,
# synchronous memcpy/memset, a storm of tiny kernels, graph launches (node-level and whole-graph
# traces), NCCL kernels — must be found exactly (every row of every rule, as CSV); the -r syntax,
# policy, formats and files; a rule dropped into GPUFLAME_PATH runs without rebuilding; a rule that
# fails (error, syntax error, runaway loop) is reported by name while the others run.
. "$(dirname "$0")/../lib/t.sh"

G=$TMP/gen
mkdir -p "$G"
python3 "$TOP/tests/gen/findings_export.py" planted "$G/planted.sqlite" --expect "$G/planted.json" &&
  python3 "$TOP/tests/gen/findings_export.py" collapsed "$G/collapsed.sqlite" --expect "$G/collapsed.json"
check_eq "generate the exports" 0 "$?"

# block RULE: the CSV block of RULE in $out (gpuflame findings -f csv), without its "# RULE:" line
block() { printf '%s\n' "$out" | awk -v r="# $1:" 'index($0, r) == 1 {on = 1; next} /^# / {on = 0} on && NF {print}'; }
status() { printf '%s\n' "$out" | grep -m1 "^# $1: " | cut -d' ' -f3-; }
expected() { python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2"; }

# --- every rule on the planted export: exactly the planted rows ---
run_findings_csv findings -f csv "$G/planted.sqlite"
check_eq "planted: exit 0" 0 "$rc"
for r in gpu-starv gpu-low-util cuda-sync-api cuda-async-memcpy cuda-sync-memcpy cuda-sync-memset launch-overhead \
  cuda-graphs gpu-busy nccl-wait; do
  check_eq "planted: $r rows" "$(expected "$G/planted.json" "$r")" "$(block "$r")"
done
order=$(printf '%s\n' "$out" | sed -n 's/^# \([a-z0-9-]*\): .*/\1/p' | tr '\n' ' ')
check_eq "default rules in policy order" "cuda-async-memcpy cuda-sync-memcpy cuda-sync-memset cuda-sync-api gpu-starv gpu-low-util launch-overhead cuda-graphs gpu-busy nccl-wait " "$order"
check_contains "gpu-starv verdict" "$(status gpu-starv)" "2 gaps over 500 ms"
check_contains "launch-overhead states its diagnosis" "$(status launch-overhead)" "Neither launch-bound nor queue-bound (median queue delay"
check_contains "launch-overhead: the storm is still marked in its row" "$(block launch-overhead)" ",storm,tiny_kernel"
check_contains "cuda-graphs: per-kernel views see the graph kernels" "$(status cuda-graphs)" "5 graph launch calls ran 15 kernels"
check_contains "gpu-busy names the parts of each device's span" "$(status gpu-busy)" "GPU time of each device's span (merged intervals; docs/SEMANTICS.md): device 0: compute"
check_contains "nccl-wait share" "$(status nccl-wait)" "10.0% of GPU busy time (process 1001, device 0"

# --- whole-graph traces: per-kernel views are collapsed ---
run_findings_csv findings -f csv -r cuda-graphs "$G/collapsed.sqlite"
check_eq "collapsed: cuda-graphs rows" "$(expected "$G/collapsed.json" cuda-graphs)" "$(block cuda-graphs)"
check_contains "collapsed: says per-kernel views are collapsed" "$(status cuda-graphs)" "per-kernel views are collapsed"
check_contains "collapsed: names the capture option" "$(status cuda-graphs)" "--cuda-graph-trace=node"
run_gf findings -f json -r cuda-graphs "$G/collapsed.sqlite"
sev=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["findings"][0]["severity"])')
check_eq "collapsed: severity warning" warning "$sev"

# --- an nsys 2022.2 --cudabacktrace export (real/pipit's shape): each runtime call is in the table twice,
# as cudaMemcpy and cudaMemcpy_v3020 with one correlation id; nsys's rules print StringIds.value, so both
# rows appear under their own names. An (empty) VULKAN_WORKLOAD table makes gpu-starv's view LIMIT keep
# the first gaps in time before sorting; without it the rows are the longest gaps. Expected rows: the
# generator's own arithmetic over the gaps it wrote (checked against nsys analyze by test_findings_nsys).
python3 "$TOP/tests/gen/findings_export.py" older "$G/older.sqlite" --expect "$G/older.json"
check_eq "generate the older export" 0 "$?"
run_findings_csv findings -f csv -r cuda-sync-memcpy:rows=-1 -r gpu-starv:gap=0:rows=5 "$G/older.sqlite"
check_eq "older: cuda-sync-memcpy lists both recorded names" "$(expected "$G/older.json" cuda-sync-memcpy)" \
  "$(block cuda-sync-memcpy)"
check_eq "older: gpu-starv with VULKAN_WORKLOAD: the first 5 gaps, longest first" \
  "$(expected "$G/older.json" gpu-starv)" "$(block gpu-starv)"
cp "$G/older.sqlite" "$G/older_novk.sqlite"
if command -v sqlite3 >/dev/null; then
  sqlite3 "$G/older_novk.sqlite" 'DROP TABLE VULKAN_WORKLOAD'
  run_findings_csv findings -f csv -r gpu-starv:gap=0:rows=5 "$G/older_novk.sqlite"
  check_eq "older: gpu-starv without VULKAN_WORKLOAD: the 5 longest gaps" \
    "$(expected "$G/older.json" "gpu-starv without VULKAN_WORKLOAD")" "$(block gpu-starv)"
else
  skip "older: gpu-starv without VULKAN_WORKLOAD" "no sqlite3 CLI"
fi

# --- -r syntax, options, windows ---
run_findings_csv findings -f csv -r gpu-starv:gap=700,cuda-sync-api:rows=1 "$G/planted.sqlite"
check_eq "-r list: gpu-starv gap=700" "Row#,Duration (ns),Start (ns),PID,Device ID,Context ID
1,800000000,12100000000,1001,0,1" "$(block gpu-starv)"
check_eq "-r list: cuda-sync-api rows=1" "Duration (ns),Start (ns),PID,TID,API Name
2000000,11700000000,1001,1001,cudaDeviceSynchronize_v3020" "$(block cuda-sync-api)"
run_findings_csv findings -f csv -r gpu-starv:start=10400000000:end=11200000000 "$G/planted.sqlite"
check_eq "time window: the gap inside it" "Row#,Duration (ns),Start (ns),PID,Device ID,Context ID
1,600000000,10500000000,1001,0,1" "$(block gpu-starv)"
run_findings_csv findings -f csv -r gpu-starv:gap=0:nvtx=nosuch -r gpu-starv:start=5:end=3 "$G/planted.sqlite"
check_contains "nvtx range not found: skipped as nsys does" "$out" "SKIPPED: NVTX range 'nosuch' could not be found."
check_contains "inverted window: skipped as nsys does" "$out" "SKIPPED: The start time cannot be greater than the end time."
run_findings_csv findings -f csv -r "cuda-sync-api:nvtx=phase two" "$G/planted.sqlite"
check_eq "nvtx range: the calls inside it" "Duration (ns),Start (ns),PID,TID,API Name
2000000,11700000000,1001,1001,cudaDeviceSynchronize_v3020
1000000,11600000000,1001,1001,cudaStreamSynchronize_v3020
1000000,11800000000,1001,1002,cudaStreamSynchronize_ptsz_v7000" "$(block cuda-sync-api)"
run_gf findings -r nosuch-rule "$G/planted.sqlite"
check_eq "unknown rule: exit 2" 2 "$rc"
check_contains "unknown rule: named" "$err" "no rule 'nosuch-rule'"
run_gf findings -r gpu-starv:bogus=1 "$G/planted.sqlite"
check_eq "unknown option: exit 2" 2 "$rc"
check_contains "unknown option: named with the rule's options" "$err" "rule gpu-starv: unknown option 'bogus'"
run_gf findings -r gpu-starv:gap=abc "$G/planted.sqlite"
check_eq "bad option value: exit 2" 2 "$rc"
check_contains "bad option value: says what it must be" "$err" "option gap must be an integer"
run_gf findings -r gpu-starv:gap "$G/planted.sqlite"
check_eq "option without value: exit 2" 2 "$rc"
run_findings_csv findings -f csv -r gpu-low-util:chunks=0 -r gpu-busy "$G/planted.sqlite"
check_eq "chunks=0: the rule fails, exit 1" 1 "$rc"
check_contains "chunks=0: reported by name" "$err" "rule gpu-low-util failed: chunks must be between 1 and 1000"
check_contains "chunks=0: the next rule still ran" "$(block gpu-busy)" "device span"

# --- policy: the rules that run and their thresholds ---
cat >"$TMP/pol.lua" <<'EOF'
return { findings = { rules = { "gpu-starv", "gpu-busy" }, options = { ["gpu-starv"] = { gap = 700 },
  ["gpu-busy"] = { denominator = "capture" } } } }
EOF
run_findings_csv --policy "$TMP/pol.lua" findings -f csv "$G/planted.sqlite"
order=$(printf '%s\n' "$out" | sed -n 's/^# \([a-z0-9-]*\): .*/\1/p' | tr '\n' ' ')
check_eq "policy findings.rules" "gpu-starv gpu-busy " "$order"
check_eq "policy options: gap 700" "Row#,Duration (ns),Start (ns),PID,Device ID,Context ID
1,800000000,12100000000,1001,0,1" "$(block gpu-starv)"
check_contains "policy options: capture denominator" "$(block gpu-busy)" "capture span"
run_findings_csv --policy "$TMP/pol.lua" findings -f csv -r gpu-starv:gap=500 "$G/planted.sqlite"
check_eq "-r wins over the policy" 3 "$(block gpu-starv | wc -l)"
printf 'return { findings = { options = { ["gpu-starv"] = { gap = "x" } } } }\n' >"$TMP/bad.lua"
run_gf --policy "$TMP/bad.lua" findings "$G/planted.sqlite"
check_eq "policy option of the wrong type: exit 2" 2 "$rc"
check_contains "policy option of the wrong type: named" "$err" "policy findings.options"
printf 'return { findings = { rules = "gpu-starv" } }\n' >"$TMP/bad2.lua"
run_gf --policy "$TMP/bad2.lua" findings "$G/planted.sqlite"
check "policy findings.rules not a list: rejected" [ "$rc" -ne 0 ]
check_contains "policy findings.rules not a list: named" "$err" "findings.rules"

# --- formats and files ---
run_gf findings -f json "$G/planted.sqlite"
res=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = {x["rule"]: x for x in d["findings"]}
s = f["gpu-starv"]
ok = (len(d["findings"]) == 10 and s["columns"][1] == "Duration (ns)" and s["rows"][0]["Duration (ns)"] == 800000000
      and s["severity"] == "warning" and f["cuda-sync-memcpy"]["rows"][0]["Bytes (MB)"] == 4.0
      and f["nccl-wait"]["rows"][0]["NCCL Share (%)"] == 10.0 and f["gpu-starv"]["options"]["gap"] == 500)
print("ok" if ok else json.dumps(f["gpu-starv"])[:300])')
check_eq "json: one object per rule, rows keyed by column" ok "$res"
run_gf findings -f md -r gpu-starv "$G/planted.sqlite"
check_contains "md: a section per rule" "$out" "## gpu-starv"
check_contains "md: a table" "$out" "| Row# | Duration (ns) | Start (ns) | PID | Device ID | Context ID |"
run_gf findings -r gpu-starv "$G/planted.sqlite"
check_contains "text: rule, severity and verdict" "$out" "gpu-starv [warning] 2 gaps over 500 ms"
mkdir -p "$TMP/out"
run_gf findings -f csv -o "$TMP/out/f" -r gpu-starv -r cuda-sync-api:rows=1 "$G/planted.sqlite"
check_eq "-o csv: exit 0" 0 "$rc"
check_eq "-o csv: one file per rule (nsys's BASE_RULE names)" "f_cuda-sync-api_rows=1.csv f_gpu-starv.csv" \
  "$(cd "$TMP/out" && ls | tr '\n' ' ' | sed 's/ $//')"
check_eq "-o csv: the rows" "$(expected "$G/planted.json" gpu-starv)" "$(cat "$TMP/out/f_gpu-starv.csv")"
# -f csv is pure CSV (issue 24 item 7): header + rows, all of one width, read by a strict reader (python's csv
# module as pandas.read_csv reads it: the first row is the header); the verdict on stderr
strict_csv() { python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
if not rows: print("empty"); sys.exit()
bad = [i + 1 for i, r in enumerate(rows) if len(r) != len(rows[0])]
print("line %d has another width" % bad[0] if bad else "comment line" if rows[0][0].startswith("#") else "ok %d" % (len(rows) - 1))' "$1"; }
for r in gpu-starv gpu-busy launch-overhead; do
  "$GF" findings -f csv -r "$r" "$G/planted.sqlite" >"$TMP/one.csv" 2>"$TMP/one.err"
  check_eq "-f csv -r $r on stdout: header + rows only (strict reader)" "ok $(expected "$G/planted.json" "$r" | tail -n +2 | wc -l)" \
    "$(strict_csv "$TMP/one.csv")"
  check_contains "-f csv -r $r: the verdict on stderr" "$(cat "$TMP/one.err")" "gpuflame: [$r] "
done
for f in "$TMP"/out/f_*.csv; do check_eq "-o csv: $(basename "$f") is header + rows only" "ok" "$(strict_csv "$f" | cut -d' ' -f1)"; done
run_gf findings -f csv -r gpu-starv -r gpu-busy "$G/planted.sqlite"
check_eq "-f csv of two rules on stdout: exit 2 (one CSV is one rule)" 2 "$rc"
check_contains "-f csv of two rules on stdout: says to use -o BASE" "$err" "needs -o BASE"
run_gf findings -f json -o "$TMP/out/all" "$G/planted.sqlite"
check "-o json: BASE.json written" [ -s "$TMP/out/all.json" ]

# --- rules on the search path ---
R=$TMP/path/rules
mkdir -p "$R"
cat >"$R/idle-devices.lua" <<'EOF'
-- a user's rule: devices busy less than `pct` percent of their span
local kit = require("gpuflame.rulekit")
return {
  name = "idle-devices",
  description = "devices that are mostly idle",
  options = { pct = 50 },
  run = function(model, opts)
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local rows = {}
    for _, d in ipairs(model:busy(win)) do
      local p = kit.pct(d.busy, d.last - d.first)
      if p < opts.pct then rows[#rows + 1] = { d.device, p } end
    end
    return { columns = { "Device ID", { name = "Busy (%)", format = "%.2f" } }, rows = rows,
      verdict = #rows .. " idle device(s)" }
  end,
}
EOF
cat >"$R/boom.lua" <<'EOF'
return { name = "boom", options = {}, run = function(model) return model.nothing.here end }
EOF
cat >"$R/syntax.lua" <<'EOF'
return { name = "syntax", run = function( end }
EOF
cat >"$R/spin.lua" <<'EOF'
return { name = "spin", run = function() while true do end end }
EOF
cat >"$R/bad-result.lua" <<'EOF'
return { name = "bad-result", run = function() return { rows = 3 } end }
EOF
cat >"$R/bad-stake.lua" <<'EOF'
return { name = "bad-stake", run = function() return { columns = { "x" }, rows = { { 1 } }, stake_ns = "a lot" } end }
EOF
GPUFLAME_PATH="$TMP/path" run_findings_csv findings -f csv -r idle-devices "$G/planted.sqlite"
check_eq "GPUFLAME_PATH rule: runs without rebuilding" "Device ID,Busy (%)
1,40.86" "$(block idle-devices)"
GPUFLAME_PATH="$TMP/path" run_findings_csv findings -f csv -r idle-devices:pct=95 "$G/planted.sqlite"
check_eq "GPUFLAME_PATH rule: its own option" 3 "$(block idle-devices | wc -l)"
run_gf_env GPUFLAME_PATH="$TMP/path" -- findings --list
check_contains "--list shows the user's rule" "$out" "idle-devices"
check_contains "--list names where it came from" "$out" "$R/idle-devices.lua"
check_contains "--list shows a bundled rule" "$out" "gpu-starv"
check_contains "--list marks a broken rule" "$out" "syntax"
printf 'return { findings = { rule_budget = 1 } }\n' >"$TMP/budget.lua"
GPUFLAME_PATH="$TMP/path" run_findings_csv --policy "$TMP/budget.lua" findings -f csv -r boom -r syntax -r spin \
  -r bad-result -r bad-stake -r cuda-sync-api:rows=1 "$G/planted.sqlite"
check_eq "failing rules: exit 1" 1 "$rc"
check_contains "runtime error: reported by name" "$err" "rule boom failed"
check_contains "runtime error: the rule's file and line" "$(status boom)" "boom.lua:1:"
check_contains "syntax error: reported by name" "$err" "rule syntax failed"
check_contains "runaway rule: stopped by the budget" "$err" "rule spin failed"
check_contains "runaway rule: says why" "$(status spin)" "time budget"
check_contains "bad result: reported by name" "$(status bad-result)" "ERROR: the result needs columns"
check_contains "a stake that is not ns: reported by name (capture orders its top findings by it)" \
  "$(status bad-stake)" "ERROR: stake_ns must be a non-negative integer"
check_eq "failing rules: the others still run" "Duration (ns),Start (ns),PID,TID,API Name
2000000,11700000000,1001,1001,cudaDeviceSynchronize_v3020" "$(block cuda-sync-api)"
mkdir -p "$TMP/shadow/rules"
printf 'return { name = "gpu-busy", run = function() return { columns = {"x"}, rows = {{42}}, verdict = "mine" } end }\n' \
  >"$TMP/shadow/rules/gpu-busy.lua"
GPUFLAME_PATH="$TMP/shadow" run_findings_csv findings -f csv -r gpu-busy "$G/planted.sqlite"
check_eq "a rule on the search path shadows the bundled one" "mine" "$(status gpu-busy)"

# --- inputs without the data a rule needs ---
python3 - "$TMP/empty.sqlite" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)")
db.execute("CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT)")
db.commit()
EOF
run_findings_csv findings -f csv "$TMP/empty.sqlite"
check_eq "an export without CUDA data: exit 0" 0 "$rc"
check_contains "no runtime table: nsys's message" "$(status cuda-sync-api)" \
  "SKIPPED: empty.sqlite could not be analyzed because it does not contain the required CUDA data. Does the application use CUDA runtime APIs?"
check_contains "no GPU work: nsys's message" "$(status gpu-starv)" \
  "SKIPPED: empty.sqlite could not be analyzed because it does not contain the required data. Does the application launch GPU operations?"
printf 'not an export\n' >"$TMP/junk.sqlite"
run_gf findings "$TMP/junk.sqlite"
check_eq "not an export: exit 6" 6 "$rc"
run_gf findings
check_eq "no input: exit 2" 2 "$rc"

# --- capture writes findings.json (policy findings.capture), through the fake nsys ---
FAKE=$TOP/tests/fake
summary() { python3 -c "import json,sys; d=json.load(open('$1/summary.json')); print(eval(sys.argv[1]))" "$2"; }
PATH="$FAKE:$PATH" FAKE_NSYS_SQLITE="$G/planted.sqlite" run_gf capture --stacks --out "$TMP/cap1" -- /bin/true
check_eq "capture --stacks: exit 0" 0 "$rc"
check "capture --stacks: findings.json written" test -s "$TMP/cap1/findings.json"
check_eq "capture --stacks: findings.json in summary.json" "$TMP/cap1/findings.json" \
  "$(summary "$TMP/cap1" 'd["artifacts"]["findings"]')"
check_eq "capture --stacks: the policy's rules in findings.json" 10 \
  "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$TMP/cap1/findings.json")"
check_contains "capture --stacks: prints the top findings" "$err" "finding gpu-low-util [warning]: 6 regions below 50% GPU"
check_eq "capture --stacks: the warnings with the most time at stake (docs/RULES.md stake_ns; tests/cli/test_findings_top.sh)" \
  "gpu-low-util gpu-starv gpu-busy" "$(sed -n 's/^gpuflame: finding \([a-z-]*\) .*/\1/p' <<<"$err" | tr '\n' ' ' | sed 's/ $//')"
check_eq "capture --stacks: three of them (findings.capture_top)" 3 "$(grep -c '^gpuflame: finding ' <<<"$err")"
printf 'return { extends = "default", capture = { views_from = "stats" } }\n' >"$TMP/stats_path.lua"
PATH="$FAKE:$PATH" FAKE_NSYS_SQLITE="$G/planted.sqlite" run_gf --policy "$TMP/stats_path.lua" capture --out "$TMP/cap2" -- /bin/true
check "capture without an export: no findings.json (findings.capture = exported)" test ! -e "$TMP/cap2/findings.json"
printf 'return { findings = { capture = "always", rules = { "gpu-starv", "boom" } } }\n' >"$TMP/always.lua"
PATH="$FAKE:$PATH" FAKE_NSYS_SQLITE="$G/planted.sqlite" run_gf_env GPUFLAME_PATH="$TMP/path" -- \
  --policy "$TMP/always.lua" capture --out "$TMP/cap3" -- /bin/true
check_eq "findings.capture = always: exit 0 even with a failing rule" 0 "$rc"
check "findings.capture = always: exported and analysed" test -s "$TMP/cap3/findings.json"
check_contains "findings.capture = always: the failing rule is a capture warning" \
  "$(summary "$TMP/cap3" 'd["warnings"]')" "findings: rule boom failed"

t_done
