#!/usr/bin/env bash
# gpuflame analyze: the spec's worked example byte for byte (NVTX_ANALYSIS_SPEC.md §13), end to end with
# the fake nsys (tests/fake/nsys) replaying the fixture CSVs, --no-export on a copied stats/ directory, and every §12 error
# with its exact text, exit code and no analysis.json left behind.
. "$(dirname "$0")/../lib/t.sh"

RF=real/roboflow-inference
if ! have_fixture "$RF/nvtx_pushpop_trace.csv"; then skip "analyze" "fixtures absent"; t_done; fi
RF=$FIX/$RF
GOLD=$TOP/tests/data/nvtx_roboflow_analysis.json
EDIT="$GF run $TOP/tests/lib/nvtx_csv.lua"
V2025="NVIDIA Nsight Systems version 2025.1.3"

# mkrun DIR: a run directory with the spec's minimal manifest and copies of the fixture CSVs in stats/
mkrun() {
  rm -rf "$1"; mkdir -p "$1/stats"
  cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$1/manifest.yaml"
  cp "$RF/nvtx_pushpop_trace.csv" "$1/stats/nsys_nvtx_pushpop_trace.csv"
  cp "$RF/nvtx_gpu_proj_trace.csv" "$1/stats/nsys_nvtx_gpu_proj_trace.csv"
}
# error_case NAME EXPECTED_CODE EXPECTED_MESSAGE (after run_gf): exact one-line message, code, no output
error_case() {
  check_eq "$1: exit code" "$2" "$rc"
  check_eq "$1: message" "gpuflame: $3" "$err"
  check "$1: no analysis.json" [ ! -e "$R/analysis.json" ]
}

# --- the worked example ---------------------------------------------------------------------------
R=$TMP/run; mkrun "$R"
run_gf analyze --run-dir "$R" --no-export --nsys-version "$V2025"
check_eq "worked example: exit 0" 0 "$rc"
check_eq "worked example: prints the path" "Wrote analysis: $R/analysis.json" "$out"
check_eq "worked example: no warnings on stderr" "" "$err"
check "worked example: analysis.json byte-identical to the spec's §13 output" cmp -s "$GOLD" "$R/analysis.json"
cp "$R/analysis.json" "$TMP/first.json"
run_gf analyze --run-dir "$R/" --no-export --nsys-version "$V2025"
check "identical input gives identical bytes (trailing slash on --run-dir too)" cmp -s "$TMP/first.json" "$R/analysis.json"
(cd "$TMP" && "$GF" analyze --run-dir ./run --no-export --nsys-version "$V2025" >/dev/null 2>&1)
check "relative --run-dir: provenance stays relative" cmp -s "$GOLD" "$R/analysis.json"

# --no-export without a version: the version is unknown and warned about
run_gf analyze --run-dir "$R" --no-export
check_eq "--no-export: exit 0" 0 "$rc"
check_eq "--no-export: version warning on stderr" \
  "gpuflame: warning: Could not determine the Nsight Systems version; report parsing is validated against Nsight Systems 2025.1." "$err"
check_contains "--no-export: nsys_version unknown" "$(cat "$R/analysis.json")" '"nsys_version": "unknown"'

# --- end to end with the fake nsys (tests/fake/nsys replays the roboflow CSVs) --------------------------
E=$TMP/e2e; mkrun "$E"; rm -f "$E"/stats/*.csv; : >"$E/trace.nsys-rep"
R=$E
FAKE_NSYS_VERSION=2025.1.3 FAKE_NSYS_LOG=$TMP/nsys.log run_gf -q analyze --run-dir "$E" --nsys "$FAKE_NSYS"
check_eq "e2e: exit 0" 0 "$rc"
check_eq "e2e: no warnings (version 2025.1.3)" "" "$err"
check "e2e: analysis.json byte-identical to the spec's output" cmp -s "$GOLD" "$E/analysis.json"
check "e2e: stats/ CSVs created" [ -s "$E/stats/nsys_nvtx_pushpop_trace.csv" ] && [ -s "$E/stats/nsys_nvtx_gpu_proj_trace.csv" ]
stats_argv=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    a = json.loads(l)["argv"]
    if "stats" in a: print("\n".join(a[a.index("stats"):]))' "$TMP/nsys.log")
expected_argv=$(printf '%s\n' stats --report nvtx_pushpop_trace --report nvtx_gpu_proj_trace --format csv \
  --output "$E/stats/nsys" --force-overwrite=true --force-export=true "$E/trace.nsys-rep")
check_eq "e2e: nsys stats argv (trace path, stats/ output base)" "$expected_argv" "$stats_argv"

FAKE_NSYS_VERSION=2026.2.0.123-261338342291v0 run_gf -q analyze --run-dir "$E" --nsys "$FAKE_NSYS"
check_eq "e2e 2026.2: exactly the version warning" \
  "gpuflame: warning: NVIDIA Nsight Systems version 2026.2.0.123-261338342291v0 has not been validated; report parsing is validated against Nsight Systems 2025.1." "$err"
check_contains "e2e 2026.2: version recorded verbatim" "$(cat "$E/analysis.json")" \
  '"nsys_version": "NVIDIA Nsight Systems version 2026.2.0.123-261338342291v0"'
FAKE_NSYS_STATS_MAP="nvtx_gpu_proj_trace=$TOP/tests/data/nvtx_empty.csv" run_gf -q analyze --run-dir "$E" --nsys "$FAKE_NSYS"
check_eq "e2e CPU-only capture (0-byte GPU report from nsys): exit 0" 0 "$rc"
check_contains "e2e CPU-only capture: null GPU summary" "$(cat "$E/analysis.json")" '"gpu_projected": null'

# --- §12 errors ------------------------------------------------------------------------------------
R=$TMP/err; mkrun "$R"; : >"$R/trace.nsys-rep"
rm "$R/manifest.yaml"
run_gf analyze --run-dir "$R" --no-export
error_case "manifest missing" 6 "Profiling manifest does not exist: $R/manifest.yaml"
printf 'profile_name: [unclosed\ncapture_range: x\n' >"$R/manifest.yaml"
run_gf analyze --run-dir "$R" --no-export
error_case "manifest invalid YAML" 6 "Profiling manifest is invalid YAML: $R/manifest.yaml"
printf -- '- a\n- b\n' >"$R/manifest.yaml"
run_gf analyze --run-dir "$R" --no-export
error_case "manifest not a mapping" 6 "Profiling manifest must contain a mapping: $R/manifest.yaml"
: >"$R/manifest.yaml"
run_gf analyze --run-dir "$R" --no-export
error_case "empty manifest is not a mapping" 6 "Profiling manifest must contain a mapping: $R/manifest.yaml"
printf 'profile_name: x\n' >"$R/manifest.yaml"
run_gf analyze --run-dir "$R" --no-export
error_case "capture_range missing" 6 "Manifest must define a string capture_range."
printf 'capture_range: 123\n' >"$R/manifest.yaml"
run_gf analyze --run-dir "$R" --no-export
error_case "capture_range not a string" 6 "Manifest must define a string capture_range."

mkrun "$R"
run_gf analyze --run-dir "$R" --nsys "$FAKE_NSYS"
error_case "trace missing" 6 "Nsight trace does not exist: $R/trace.nsys-rep"
: >"$R/trace.nsys-rep"
# PATH holds no nsys (a real one in /usr/bin is left out of it), and the policy looks only there.
emptybin="$TMP/emptybin"; mkdir -p "$emptybin"
printf 'return { extends = "default", discover = { order = { "path" } } }\n' >"$TMP/nonsys.lua"
run_gf_env PATH="$emptybin" -- --policy "$TMP/nonsys.lua" analyze --run-dir "$R"
error_case "nsys missing (exit 3)" 3 "Nsight Systems executable not found: 'nsys'. Install Nsight Systems and ensure \`nsys\` is on PATH."
export FAKE_NSYS_VERSION=2025.1.3
FAKE_NSYS_FAIL="stats:exit" run_gf -q analyze --run-dir "$R" --nsys "$FAKE_NSYS"
error_case "nsys stats failed: exit code, version and nsys' stderr" 1 \
  "\`nsys stats\` failed with exit code 1 using $V2025: fake nsys: stats nvtx_pushpop_trace failed (FAKE_NSYS_FAIL)
fake nsys: stats nvtx_gpu_proj_trace failed (FAKE_NSYS_FAIL)"
FAKE_NSYS_FAIL="stats:stale-sqlite" run_gf -q analyze --run-dir "$R" --nsys "$FAKE_NSYS"
check_eq "nsys refuses the trace: exit 1" 1 "$rc"
check_contains "nsys refuses the trace: nsys' own text kept" "$err" \
  "failed with exit code 1 using $V2025: WARNING: Existing SQLite export found"
# an nsys that reports only on stdout
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "NVIDIA Nsight Systems version 2025.1.3"; exit 0; }\necho "  only on stdout  "; exit 3\n' >"$TMP/nsys-stdout"
chmod +x "$TMP/nsys-stdout"
run_gf -q analyze --run-dir "$R" --nsys "$TMP/nsys-stdout"
error_case "nsys stats failed: stdout when stderr is empty" 1 "\`nsys stats\` failed with exit code 3 using $V2025: only on stdout"
mkrun "$R"; : >"$R/trace.nsys-rep"   # stale CSVs from an earlier export must not be read
FAKE_NSYS_FAIL="stats:skipped" run_gf analyze --run-dir "$R" --nsys "$FAKE_NSYS"
check_eq "missing NVTX data: exit 5" 5 "$rc"
check_contains "missing NVTX data: nsys' SKIPPED line is shown" "$err" \
  "gpuflame: warning: nsys: SKIPPED: $R/trace.sqlite does not contain"
check_eq "missing NVTX data: message" \
  "gpuflame: \`nsys stats\` did not create expected report files: $R/stats/nsys_nvtx_pushpop_trace.csv, $R/stats/nsys_nvtx_gpu_proj_trace.csv" \
  "$(printf '%s\n' "$err" | tail -n 1)"
check "missing NVTX data: no analysis.json" [ ! -e "$R/analysis.json" ]

mkrun "$R"; rm "$R/stats/nsys_nvtx_gpu_proj_trace.csv"
P=$R/stats/nsys_nvtx_gpu_proj_trace.csv
run_gf analyze --run-dir "$R" --no-export
error_case "unreadable CSV" 6 "Could not read Nsight report $P: [Errno 2] No such file or directory: '$P'"

mkrun "$R"; H=$R/stats/nsys_nvtx_pushpop_trace.csv; P=$R/stats/nsys_nvtx_gpu_proj_trace.csv
$EDIT "$H" dropcol "DurChild (ns)" ParentId
run_gf analyze --run-dir "$R" --no-export
error_case "host report: changed columns" 6 "Nsight report $H is missing required columns: DurChild (ns), ParentId"
mkrun "$R"; $EDIT "$P" dropcol NumGPUOps
run_gf analyze --run-dir "$R" --no-export
error_case "GPU report: changed columns" 6 "Nsight report $P is missing required columns: NumGPUOps"
mkrun "$R"; $EDIT "$H" set 5 PID 12a
run_gf analyze --run-dir "$R" --no-export
error_case "bad integer" 6 "Invalid integer in $H column 'PID': '12a'"
mkrun "$R"; $EDIT "$P" set 4 "Projected Duration (ns)" "4.5"
run_gf analyze --run-dir "$R" --no-export
error_case "bad integer (GPU report)" 6 "Invalid integer in $P column 'Projected Duration (ns)': '4.5'"
mkrun "$R"; : >"$H"
run_gf analyze --run-dir "$R" --no-export
error_case "empty host report (0 bytes)" 5 "Nsight report contains no rows: $H"
mkrun "$R"; $EDIT "$H" headeronly
run_gf analyze --run-dir "$R" --no-export
error_case "empty host report (header only)" 5 "Nsight report contains no rows: $H"
mkrun "$R"; $EDIT "$H" rename 1 ":other"
run_gf analyze --run-dir "$R" --no-export
error_case "no capture range" 6 "Expected exactly one top-level host capture range named 'profile-target', but found 0."
mkrun "$R"; $EDIT "$H" dup 1 99
run_gf analyze --run-dir "$R" --no-export
error_case "two capture ranges" 6 "Expected exactly one top-level host capture range named 'profile-target', but found 2."
mkrun "$R"; $EDIT "$H" rename 7 ":iteration 0"
run_gf analyze --run-dir "$R" --no-export
error_case "duplicate host iteration" 6 "Duplicate host range for iteration 0."
mkrun "$R"; $EDIT "$P" dup 2
run_gf analyze --run-dir "$R" --no-export
error_case "duplicate GPU projection" 6 "Duplicate GPU projection for iteration 0."
mkrun "$R"; $EDIT "$H" set 3 ParentId 4; $EDIT "$H" set 4 ParentId 3
run_gf analyze --run-dir "$R" --no-export
error_case "cycle" 6 "Cycle in NVTX range hierarchy at (2124, 2124, 3)."
mkrun "$R"; $EDIT "$H" set 5 ParentId 5
run_gf analyze --run-dir "$R" --no-export
error_case "self-parent cycle" 6 "Cycle in NVTX range hierarchy at (2124, 2124, 5)."

# --- differential: a generated multi-thread run against the Python reference of the spec -------------
G=$TMP/gen
python3 "$TOP/bench/gen_nvtx.py" "$G" 3000 4 12 >/dev/null
run_gf -q analyze --run-dir "$G" --no-export --nsys-version "$V2025"
python3 "$TOP/bench/nvtx_reference.py" "$G" "$V2025" "$TMP/ref.json"
check "generated 3,000 ranges / 4 threads: byte-identical to bench/nvtx_reference.py" cmp -s "$TMP/ref.json" "$G/analysis.json"

run_gf analyze --run-dir "$TMP/does-not-exist" --no-export
check_eq "missing run directory: exit 6" 6 "$rc"
check_contains "missing run directory: named" "$err" "$TMP/does-not-exist"
run_gf analyze
check_eq "no --run-dir: usage (exit 2)" 2 "$rc"
t_done
