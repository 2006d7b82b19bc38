#!/usr/bin/env bash
# gf-test: slow
# Findings on the pages (docs/RULES.md, "On the pages"): the findings panel data that `timeline` and
# `flamegraph` embed ({{json:findings}}) for a real export with known findings (tile_8x8.sqlite: a
# 1.46 ms GPU gap when gpu-starv's gap is 1 ms, one cudaDeviceSynchronize, 18 synchronous memcpys, two
# kernel names); the page's events are the same whether the rules ran (whole import, trimmed after) or
# not (policy findings.pages = false: trimming import); the policy's rules and options; failing and
# hostile rules; capture's timeline through the fake nsys; `report` with findings.json beside the
# analysis, --findings, --no-findings and bad findings files (exit 6 naming the file).
. "$(dirname "$0")/../lib/t.sh"

# q FILE SCRIPT-ID EXPR: EXPR (Python) over the JSON of <script id=SCRIPT-ID> in FILE (d)
q() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script[^>]*id="' + re.escape(sys.argv[2]) + r'"[^>]*>(.*?)</script>', html, re.S)
if not m:
    print("no script element " + sys.argv[2]); sys.exit(0)
d = json.loads(m.group(1))
print(eval(sys.argv[3], {"d": d, "json": json}))
PY
}
# rule R of the findings slot as an expression prefix
F() { echo "[f for f in d['findings'] if f['rule'] == '$1'][0]"; }

P=$TMP/policies
mkdir -p "$P"
printf 'return { findings = { options = { ["gpu-starv"] = { gap = 1 } } } }\n' >"$P/gap1.lua"
printf 'return { findings = { pages = false } }\n' >"$P/nopages.lua"
printf 'return { findings = { rules = { "gpu-starv", "cuda-sync-api" }, options = { ["gpu-starv"] = { gap = 1 } } } }\n' \
  >"$P/two.lua"

SHEET=real/parallel-sheet-simulator/tile_8x8.sqlite
if have_fixture "$SHEET"; then
  DB=$FIX/$SHEET
  T=$TMP/tl.html
  run_gf --policy "$P/gap1.lua" timeline "$DB" -o "$T"
  check_eq "timeline: exit 0" 0 "$rc"
  check_eq "timeline: the policy's rules, in policy order" \
    "cuda-async-memcpy cuda-sync-memcpy cuda-sync-memset cuda-sync-api gpu-starv gpu-low-util launch-overhead cuda-graphs gpu-busy nccl-wait" \
    "$(q "$T" gf-findings "' '.join(f['rule'] for f in d['findings'])")"
  check_eq "timeline: the findings name the export" "tile_8x8.sqlite" "$(q "$T" gf-findings "d['input']")"
  check_eq "timeline: gpu-starv (gap=1 from the policy) warns" "warning" "$(q "$T" gf-findings "$(F gpu-starv)['severity']")"
  check_contains "timeline: gpu-starv verdict as gpuflame findings prints it" "$(q "$T" gf-findings "$(F gpu-starv)['text']")" \
    "1 gap over 1 ms where a GPU is idle, 1.46 ms in all (longest 1.46 ms at 281651834 ns on device 0)"
  check_eq "timeline: the gap's window, device and process" "[{'device': 0, 'end': 283113179, 'pid': 118029, 'row': 1, 'start': 281651834}]" \
    "$(q "$T" gf-findings "$(F gpu-starv)['targets']")"
  check_eq "timeline: the cudaDeviceSynchronize call: window, thread, name" \
    "[{'end': 283990188, 'name': 'cudaDeviceSynchronize_v3020', 'pid': 118029, 'row': 1, 'start': 283874121, 'tid': 118029}]" \
    "$(q "$T" gf-findings "$(F cuda-sync-api)['targets']")"
  check_eq "timeline: 18 memcpy targets, the longest first on device 0 stream 7" \
    "18 {'device': 0, 'end': 386520043, 'name': 'cudaMemcpy_v3020', 'pid': 118029, 'row': 1, 'start': 386409227, 'stream': 7}" \
    "$(q "$T" gf-findings "str(len($(F cuda-sync-memcpy)['targets'])) + ' ' + str($(F cuda-sync-memcpy)['targets'][0])")"
  check_eq "timeline: launch-overhead names the two kernels" \
    "2 True fused_force_kernel(const float *, const float *, const float *, const float *, const float *, const float *, float *, float *, float *, int, int, int, int)" \
    "$(q "$T" gf-findings "str(len($(F launch-overhead)['kernels'])) + ' ' + str($(F launch-overhead)['targets'][0]['kernel']) + ' ' + $(F launch-overhead)['kernels'][0]")"
  check_eq "timeline: skipped rules say why" "skipped tile_8x8.sqlite has no NCCL kernels (kernel names LIKE %nccl%)." \
    "$(q "$T" gf-findings "$(F nccl-wait)['severity'] + ' ' + $(F nccl-wait)['text']")"
  check_eq "timeline: GPU lanes carry the numeric device id the rows use" "[0, 0]" \
    "$(q "$T" gf-data "[l['deviceId'] for l in d['lanes'] if l['kind'] == 'gpu']")"
  check_eq "timeline: the window lies on the page's time axis (t0 before it)" "True" \
    "$(python3 -c "print($(q "$T" gf-data "d['t0']") < 281651834 < $(q "$T" gf-data "d['t0'] + d['span']"))")"

  # a bounded run (--max-events: the trimming import, memory bounded by N, issue 29) has no findings and
  # says why; its events are those of the trimming import
  run_gf --policy "$P/gap1.lua" timeline "$DB" -o "$TMP/tl100.html" --max-events 100
  check_eq "--max-events 100: no findings, a note saying why" "[] True" \
    "$(q "$TMP/tl100.html" gf-findings "str(d['findings']) + ' ' + str('--max-events 100' in d['note'])")"
  check_eq "--max-events 100: 100 longest events plus launch partners of 7040 (4871 CUDA and NVTX events, the CPU side's 2169)" "True 7040" \
    "$(q "$TMP/tl100.html" gf-data "str(100 <= d['shown'] < 200) + ' ' + str(d['total'])")"
  # the page's events of a whole import trimmed (local_max_events) are those of the trimming import
  printf 'return { timeline = { local_max_events = 100 }, findings = { options = { ["gpu-starv"] = { gap = 1 } } } }\n' >"$P/max100.lua"
  run_gf --policy "$P/max100.lua" timeline "$DB" -o "$TMP/tl100-whole.html"
  check_eq "local_max_events 100: the findings still come from every event" \
    "$(q "$T" gf-findings "d")" "$(q "$TMP/tl100-whole.html" gf-findings "d")"
  check_eq "local_max_events 100: the page data is the trimming import's" \
    "$(q "$TMP/tl100.html" gf-data "json.dumps(d, sort_keys=True)")" "$(q "$TMP/tl100-whole.html" gf-data "json.dumps(d, sort_keys=True)")"
  run_gf --policy "$P/nopages.lua" timeline "$DB" -o "$TMP/tl100-nopages.html" --max-events 100
  check_eq "findings.pages = false: no findings (null slot)" "None" "$(q "$TMP/tl100-nopages.html" gf-findings "d")"
  check_eq "findings.pages = false: the page data is the same (trimming import = whole import trimmed)" \
    "$(q "$TMP/tl100-nopages.html" gf-data "json.dumps(d, sort_keys=True)")" "$(q "$TMP/tl100.html" gf-data "json.dumps(d, sort_keys=True)")"
  run_gf --policy "$P/nopages.lua" timeline "$DB" -o "$TMP/tl-nopages.html"
  check_eq "untrimmed page: the same data with and without findings" \
    "$(q "$TMP/tl-nopages.html" gf-data "json.dumps(d, sort_keys=True)")" "$(q "$T" gf-data "json.dumps(d, sort_keys=True)")"

  run_gf --policy "$P/two.lua" timeline "$DB" -o "$TMP/two.html"
  check_eq "policy findings.rules: only those rules, in that order" "gpu-starv cuda-sync-api" \
    "$(q "$TMP/two.html" gf-findings "' '.join(f['rule'] for f in d['findings'])")"
  run_gf timeline "$DB" -o "$TMP/default.html"
  check_eq "default gap (500 ms): no gap on this capture" "ok 0" \
    "$(q "$TMP/default.html" gf-findings "$(F gpu-starv)['severity'] + ' ' + str(len($(F gpu-starv)['targets']))")"

  # flamegraph from the export: the same findings (kernels to highlight); from a CSV: none
  run_gf --policy "$P/gap1.lua" flamegraph "$DB" -o "$TMP/fg.html"
  check_eq "flamegraph: exit 0" 0 "$rc"
  check_eq "flamegraph: the same findings as the timeline" "$(q "$T" gf-findings "d")" "$(q "$TMP/fg.html" fg-findings "d")"
  check_eq "flamegraph: the kernels named are frames of the page" "True" \
    "$(python3 -c "print(set($(q "$TMP/fg.html" fg-findings "$(F launch-overhead)['kernels']")) <= set($(q "$TMP/fg.html" fg-data "d['names']")))")"
  run_gf --policy "$P/nopages.lua" flamegraph "$DB" -o "$TMP/fg-nopages.html"
  check_eq "flamegraph, findings.pages = false: null slot" "None" "$(q "$TMP/fg-nopages.html" fg-findings "d")"
else
  skip "timeline/flamegraph findings on tile_8x8" "fixtures absent"
fi

GP=gprofiler/KERN_CSV.csv
if have_fixture "$GP"; then
  run_gf flamegraph "$FIX/$GP" -o "$TMP/fg-csv.html"
  check_eq "flamegraph from a stats CSV: no trace, no findings panel (null)" "0 None" "$rc $(q "$TMP/fg-csv.html" fg-findings "d")"
  run_gf timeline "$FIX/gprofiler/API_TRACE_CSV.csv" "$FIX/gprofiler/GPU_TRACE_CSV.csv" -o "$TMP/tl-csv.html"
  check_eq "timeline from trace CSVs: findings over them (rules needing other tables skipped)" "0 skipped warning" \
    "$rc $(q "$TMP/tl-csv.html" gf-findings "$(F cuda-sync-memcpy)['severity'] + ' ' + $(F cuda-sync-api)['severity']")"
else
  skip "CSV inputs" "fixtures absent"
fi

# --- rules that fail or carry hostile text, on a generated export ---
G=$TMP/gen
mkdir -p "$G" "$TMP/path/rules"
python3 "$TOP/tests/gen/findings_export.py" planted "$G/planted.sqlite" --expect "$G/planted.json"
check_eq "generate the planted export" 0 "$?"
HOSTILE='</script><img src=x onerror=alert(1)>'
cat >"$TMP/path/rules/evil.lua" <<'EOF'
local h = "</script><img src=x onerror=alert(1)>"
return { name = "evil", description = h, options = {}, run = function()
  return { columns = { "Start (ns)", "Duration (ns)", "Device ID", "Name" }, rows = { { 10500000000, 600000000, 0, h } },
    verdict = h .. "\n second line", severity = "warning", advice = h }
end }
EOF
printf 'return { name = "boom", options = {}, run = function(model) return model.nothing.here end }\n' >"$TMP/path/rules/boom.lua"
printf 'return { findings = { rules = { "gpu-starv", "boom", "evil" } } }\n' >"$P/evil.lua"
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$P/evil.lua" timeline "$G/planted.sqlite" -o "$TMP/evil.html"
check_eq "a failing rule: the page is still written (exit 0)" 0 "$rc"
check_contains "a failing rule: warned on stderr by name" "$err" "findings for the page: rule boom failed"
check_eq "a failing rule: an error entry on the page" "error" "$(q "$TMP/evil.html" gf-findings "$(F boom)['severity']")"
check_eq "gpu-starv on the planted export: its two gaps as targets" "2 10500000000" \
  "$(q "$TMP/evil.html" gf-findings "str(len($(F gpu-starv)['targets'])) + ' ' + str(min(t['start'] for t in $(F gpu-starv)['targets']))")"
check_eq "hostile text: kept as data, on one line" "$HOSTILE  second line|$HOSTILE" \
  "$(q "$TMP/evil.html" gf-findings "$(F evil)['text'] + '|' + $(F evil)['kernels'][0]")"
check_not_contains "hostile text: never raw in the page" "$(cat "$TMP/evil.html")" "<img src=x"
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$P/evil.lua" flamegraph "$G/planted.sqlite" -o "$TMP/evil-fg.html"
check_eq "flamegraph with a failing and a hostile rule: exit 0" 0 "$rc"
check_not_contains "flamegraph: hostile text never raw in the page" "$(cat "$TMP/evil-fg.html")" "<img src=x"
printf 'return { findings = { rules = { "nosuch" } } }\n' >"$P/nosuch.lua"
run_gf --policy "$P/nosuch.lua" timeline "$G/planted.sqlite" -o "$TMP/nosuch.html"
check_eq "a policy naming no such rule: the page is written" 0 "$rc"
check_contains "... with a note saying why there are no findings" "$(q "$TMP/nosuch.html" gf-findings "d['note']")" "no rule 'nosuch'"

# --- a rule that holds the scratch gate (docs/RULES.md) runs after the others on a page, in plan order in
# `findings`; results stay in the order asked for. Each probe says which probes had run when it ran. ---
for r in gated plain; do
  gate=false; [ "$r" = gated ] && gate=true
  cat >"$TMP/path/rules/probe_$r.lua" <<EOF
return { name = "probe_$r", options = {}, scratch_gate = $gate, run = function(model)
  model.probe_seen = (model.probe_seen or "") .. "$r;"
  return { columns = { "x" }, rows = {}, verdict = "ran after: " .. model.probe_seen, severity = "info" }
end }
EOF
done
printf 'return { findings = { rules = { "probe_gated", "probe_plain" } } }\n' >"$P/probes.lua"
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$P/probes.lua" timeline "$G/planted.sqlite" -o "$TMP/probes.html"
check_eq "timeline: the probes' findings in the order asked for, the gated probe run last" \
  "0 probe_gated:ran after: plain;gated; probe_plain:ran after: plain;" \
  "$rc $(q "$TMP/probes.html" gf-findings "' '.join(f['rule'] + ':' + f['text'] for f in d['findings'])")"
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$P/probes.lua" findings -f json "$G/planted.sqlite"
check_eq "findings: the probes run in the order asked for" "ran after: gated; | ran after: gated;plain;" \
  "$(python3 -c 'import json,sys; print(" | ".join(f["verdict"] for f in json.load(sys.stdin)["findings"]))' <<<"$out")"
printf 'return { name = "badgate", options = {}, scratch_gate = "yes", run = function() end }\n' >"$TMP/path/rules/badgate.lua"
run_gf_env GPUFLAME_PATH="$TMP/path" -- findings -r badgate "$G/planted.sqlite"
check_contains "a rule whose scratch_gate is not a boolean: refused by name" "$err" "rule badgate"
check_contains "... saying what it must be" "$err" "\`scratch_gate\` must be a boolean"

# --- capture --stacks (fake nsys): the timeline carries the findings, findings.json has the same verdicts ---
PATH="$TOP/tests/fake:$PATH" FAKE_NSYS_SQLITE="$G/planted.sqlite" run_gf capture --stacks --out "$TMP/cap" -- /bin/true
check_eq "capture --stacks: exit 0" 0 "$rc"
check_eq "capture --stacks: the timeline's findings are findings.json's" \
  "$(python3 -c 'import json,sys; print([(f["rule"], f.get("verdict") or f.get("skipped")) for f in json.load(open(sys.argv[1]))["findings"]])' "$TMP/cap/findings.json")" \
  "$(q "$TMP/cap/timeline.html" gf-findings "[(f['rule'], f['text']) for f in d['findings']]")"

# --- report: findings.json beside the analysis, --findings, --no-findings, bad files ---
RF=real/roboflow-inference
if have_fixture "$RF/nvtx_pushpop_trace.csv"; then
  A=$TMP/run
  mkdir -p "$A/stats"
  cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$A/manifest.yaml"
  cp "$FIX/$RF/nvtx_pushpop_trace.csv" "$A/stats/nsys_nvtx_pushpop_trace.csv"
  cp "$FIX/$RF/nvtx_gpu_proj_trace.csv" "$A/stats/nsys_nvtx_gpu_proj_trace.csv"
  "$GF" -q analyze --run-dir "$A" --no-export --nsys-version "NVIDIA Nsight Systems version 2025.1.3" >/dev/null
  run_gf report --run-dir "$A"
  check_not_contains "report without findings.json: no Rule findings section" "$out" "## Rule findings"
  GPUFLAME_PATH="$TMP/path" "$GF" findings "$G/planted.sqlite" -r gpu-starv -r cuda-sync-api:rows=1 -r evil -f json -o "$TMP/f"
  run_gf report --run-dir "$A" --findings "$TMP/f.json"
  check_eq "report --findings: exit 0" 0 "$rc"
  check_contains "report --findings: the section names the file" "$out" "## Rule findings"$'\n\n'"From \`$TMP/f.json\`"
  check_contains "report --findings: gpu-starv verdict row" "$out" "| \`gpu-starv\` | warning | 2 gaps over 500 ms"
  check_contains "report --findings: gpu-starv rows table" "$out" "| Row# | Duration (ns) | Start (ns) | PID | Device ID | Context ID |"
  check_contains "report --findings: the gap row" "$out" "| 1 | 800000000 | 12100000000 | 1001 | 0 | 1 |"
  check_contains "report --findings: hostile verdict escaped for Markdown tables" "$out" "| \`evil\` | warning | </script><img src=x onerror=alert(1)>  second line |"
  cp "$TMP/f.json" "$A/findings.json"
  run_gf report --run-dir "$A"
  check_contains "report: findings.json beside analysis.json is included" "$out" "From \`$A/findings.json\`"
  run_gf report --run-dir "$A" --no-findings
  check_not_contains "report --no-findings: left out" "$out" "## Rule findings"
  run_gf report --run-dir "$A" --html -o "$TMP/r.html"
  check_eq "report --html with findings: exit 0" 0 "$rc"
  check_eq "report --html: the rules in the page data" "gpu-starv cuda-sync-api evil" \
    "$(python3 - "$TMP/r.html" <<'PY'
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
x = json.loads(re.search(r'<script type="application/json" id="rp-extra">(.*?)</script>', html, re.S).group(1))
print(" ".join(f["rule"] for f in x["rules"]["findings"]))
PY
)"
  check_not_contains "report --html: hostile text never raw" "$(cat "$TMP/r.html")" "<img src=x"
  printf '{"findings": [' >"$A/findings.json"
  run_gf report --run-dir "$A"
  check_eq "bad findings.json beside the analysis: exit 6" 6 "$rc"
  check_contains "... naming the file, where, and the way out" "$err" "$A/findings.json:1:14: invalid JSON (found beside the analysis; --no-findings leaves it out)"
  run_gf report --run-dir "$A" --no-findings
  check_eq "... --no-findings: exit 0" 0 "$rc"
  printf '{"findings": [{"rule": "x"}]}\n' >"$TMP/nodoc.json"
  run_gf report --run-dir "$A" --findings "$TMP/nodoc.json"
  check_eq "--findings not a findings document: exit 6" 6 "$rc"
  check_contains "... naming the file and the entry" "$err" "$TMP/nodoc.json: not a findings document"
  check_contains "... and what is missing" "$err" "findings[1] (x) has neither a verdict and severity, nor skipped, nor error"
  printf '[1, 2]\n' >"$TMP/list.json"
  run_gf report --run-dir "$A" --findings "$TMP/list.json"
  check_eq "--findings a JSON list: exit 6" "6" "$rc"
  check_contains "... the top level must be an object" "$err" "$TMP/list.json: not a findings document"
  printf '{"findings": [{"rule": "r", "verdict": "v", "severity": "ok", "rows": [{"a": [1]}]}]}\n' >"$TMP/nested.json"
  run_gf report --run-dir "$A" --findings "$TMP/nested.json"
  check_eq "--findings with a nested cell: exit 6" "6" "$rc"
  run_gf report --run-dir "$A" --findings "$TMP/none.json"
  check_eq "--findings missing file: exit 6" 6 "$rc"
  check_contains "... naming it" "$err" "$TMP/none.json: no such findings file"
  run_gf report --run-dir "$A" --findings "$TMP/f.json" --no-findings
  check_eq "--findings with --no-findings: usage error" 2 "$rc"
else
  skip "report with findings" "fixtures absent"
fi

t_done
