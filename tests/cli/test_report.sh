#!/usr/bin/env bash
# gpuflame report (Markdown, -o, --html) and gpuflame compare on analyses of the roboflow fixtures.
. "$(dirname "$0")/../lib/t.sh"

RF=real/roboflow-inference
if ! have_fixture "$RF/nvtx_pushpop_trace.csv"; then skip "report" "fixtures absent"; t_done; fi
RF=$FIX/$RF
EDIT="$GF run $TOP/tests/lib/nvtx_csv.lua"
V2025="NVIDIA Nsight Systems version 2025.1.3"
mkrun() {
  rm -rf "$1"; mkdir -p "$1/stats"
  cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$1/manifest.yaml"
  cp "$RF/nvtx_pushpop_trace.csv" "$1/stats/nsys_nvtx_pushpop_trace.csv"
  cp "$RF/nvtx_gpu_proj_trace.csv" "$1/stats/nsys_nvtx_gpu_proj_trace.csv"
}
A=$TMP/a; mkrun "$A"
"$GF" -q analyze --run-dir "$A" --no-export --nsys-version "$V2025" >/dev/null

run_gf report --run-dir "$A"
check_eq "report: exit 0" 0 "$rc"
for want in "| Profile | smoke-tensor |" "| Run ID | jarvis-smoke |" "| Git commit | abc123 |" "| Device | cuda:0 |" \
  "| Nsight Systems | $V2025 |" "| Warm-up passes | 1 (outside the capture) |" "| Iterations (manifest) | 2 |" \
  "| Records | 2 (eager loading) |" "| Synchronization policy | synchronize_each_iteration=false |" \
  "| Analysis | $A/analysis.json (schema_version 1) |" \
  "| Host inclusive (CPU time of the \`iteration N\` range) | 2 | 570.0 µs | 285.0 µs | 285.0 µs | 138.1 µs | 432.0 µs | 207.8 µs | 73% |" \
  "| GPU projected (first to last GPU op launched in the iteration) | 2 | 291.3 µs | 145.7 µs | 145.7 µs | 99.7 µs | 191.6 µs | 65.0 µs | 45% |" \
  "| 0 | 432.0 µs | 110.6 µs | 191.6 µs | 4 |" \
  "First-iteration effect (host-inclusive): iteration 0 took 432.0 µs, 3.1× the median of the other 1 iteration (138.1 µs)" \
  "Large variance in host-inclusive iteration time" \
  "| \`profile-target\` | 1 | 700.8 µs | 700.8 µs | 0 ns | 130.8 µs |" \
  "| \`smoke reduction\` | PushPop | 4 | 16.2 µs | 4.0 µs | 96 ns | 4 | 131.7 µs |" \
  "never add rows" "not a sum of kernel times"; do
  check_contains "report shows: ${want:0:60}" "$out" "$want"
done
check_not_contains "report never says GPU latency" "$out" "latency"
# top ranges ordered by total: smoke reduction (16.2 µs) before smoke multiply (7.9 µs) in the GPU table
gpu_order=$(printf '%s\n' "$out" | grep -E '^\| `smoke' | grep PushPop | cut -d'|' -f2 | tr -d ' `' | tr '\n' ,)
check_eq "GPU table sorted by projected total" "smokereduction,smokemultiply," "$gpu_order"

run_gf report --run-dir "$A" -o "$TMP/r.md"
check_eq "report -o: message" "Wrote report: $TMP/r.md" "$out"
check_contains "report -o: file written" "$(cat "$TMP/r.md")" "# NVTX analysis: smoke-tensor / jarvis-smoke"
run_gf report "$A/analysis.json" --top 1
check_eq "report ANALYSIS.json --top 1: one host range row" 1 "$(printf '%s\n' "$out" | grep -c '^| `smoke\|^| `profile' | head -1 | awk '{print ($1==2)?1:0}')"

C=$TMP/cpu; mkrun "$C"; : >"$C/stats/nsys_nvtx_gpu_proj_trace.csv"
"$GF" -q analyze --run-dir "$C" --no-export --nsys-version "$V2025" >/dev/null
run_gf report --run-dir "$C"
check_contains "CPU-only: missing data called out" "$out" "**Missing data:** No GPU projection data"
check_contains "CPU-only: warnings listed" "$out" "**Warning:** Missing GPU projections for iterations: [0, 1]."
check_contains "CPU-only: GPU row shows no values" "$out" "| GPU projected (first to last GPU op launched in the iteration) | 0 | — |"
check_contains "CPU-only: missing per iteration" "$out" "| 0 | 432.0 µs | 110.6 µs | missing | — |"

run_gf report --run-dir "$TMP/none"
check_eq "report without analysis: exit 6" 6 "$rc"
mkdir -p "$TMP/empty"
run_gf report --run-dir "$TMP/empty"
check_eq "report on a run without analysis.json: exit 5" 5 "$rc"
check_contains "report: says to run analyze" "$err" "run \`gpuflame analyze --run-dir $TMP/empty\` first"

run_gf report --run-dir "$A" --html
check_eq "report --html: exit 0" 0 "$rc"
check_eq "report --html: default path" "Wrote report: $A/report.html" "$out"
html=$(cat "$A/report.html")
check_not_contains "html: no http:// URL" "$html" "http://"
check_not_contains "html: no https:// URL" "$html" "https://"
check_contains "html: analysis data embedded" "$html" '"host_total_ns": 700839'

# --- compare -----------------------------------------------------------------------------------------
run_gf compare "$A" "$A/analysis.json"
check_eq "compare: exit 0" 0 "$rc"
check_contains "compare identical context: says so" "$out" \
  "No differences in target, inputs, device, synchronization policy, capture range or Nsight Systems version."
check_contains "compare: one run per side" "$out" "**One run per side cannot establish a regression.**"
check_contains "compare: zero delta" "$out" "| Host inclusive | 285.0 µs | 285.0 µs | +0 ns | +0.0% |"

B=$TMP/b; mkrun "$B"
sed -i 's/device: cuda:0/device: cuda:1/; s/synchronize_each_iteration: false/synchronize_each_iteration: true/; s/iterations: 2,/iterations: 2, seed: 7,/' "$B/manifest.yaml"
printf 'target: {kind: tensor}\ndata_source: {kind: dummy}\n' >>"$B/manifest.yaml"
$EDIT "$B/stats/nsys_nvtx_pushpop_trace.csv" set 7 "Duration (ns)" 238050
"$GF" -q analyze --run-dir "$B" --no-export --nsys-version "NVIDIA Nsight Systems version 2026.1.3.425-261338342291v0" >/dev/null
run_gf compare "$A" "$B"
for want in '- **target** differs: A `null`, B `{"kind":"tensor"}`' '- **inputs: data_source** differs' \
  '- **inputs: workload** differs' '- **device** differs: A `cuda:0`, B `cuda:1`' \
  '- **synchronization policy** differs: A `{"synchronize_each_iteration":false}`, B `{"synchronize_each_iteration":true}`' \
  '- **Nsight Systems version** differs: A `NVIDIA Nsight Systems version 2025.1.3`, B `NVIDIA Nsight Systems version 2026.1.3.425-261338342291v0`' \
  "| Host inclusive | 285.0 µs | 335.0 µs | +50.0 µs | +17.5% | sd 207.8 µs, 138.1 µs–432.0 µs | sd 137.1 µs, 238.1 µs–432.0 µs |"; do
  check_contains "compare shows: ${want:0:50}" "$out" "$want"
done
diffs_line=$(printf '%s\n' "$out" | grep -n "What differs" | cut -d: -f1)
deltas_line=$(printf '%s\n' "$out" | grep -n "Median deltas" | cut -d: -f1)
check "compare: context differences come before the deltas" [ "$diffs_line" -lt "$deltas_line" ]
run_gf compare "$A"
check_eq "compare with one run: usage" 2 "$rc"
t_done
