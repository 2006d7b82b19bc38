#!/usr/bin/env bash
# gpuflame analyze: the spec's worked example byte for byte (docs/spec/NVTX_ANALYSIS.md §13), end to end with
# the fake nsys (tests/fake/nsys) replaying the fixture CSVs, --no-export on a copied stats/ directory, and every §12 error
# with its exact text, exit code and no analysis.json left behind (the errors that need no edited report
# are in tests/cases/analyze.cases).
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
# (the manifest, trace, nsys and usage errors that need no edited report: tests/cases/analyze.cases)
R=$TMP/err; mkrun "$R"; : >"$R/trace.nsys-rep"
# an nsys that reports only on stdout
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "NVIDIA Nsight Systems version 2025.1.3"; exit 0; }\necho "  only on stdout  "; exit 3\n' >"$TMP/nsys-stdout"
chmod +x "$TMP/nsys-stdout"
run_gf -q analyze --run-dir "$R" --nsys "$TMP/nsys-stdout"
error_case "nsys stats failed: stdout when stderr is empty" 1 "\`nsys stats\` failed with exit code 3 using $V2025: only on stdout"
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

t_done
