#!/usr/bin/env bash
# gpuflame analyze --from-export / policy analyze.source = "export" (issue 12): gpuflame writes
# stats/nsys_nvtx_pushpop_trace.csv and stats/nsys_nvtx_gpu_proj_trace.csv (and, schema 2, the two CUDA
# reports) itself from the run's trace.sqlite. On an export rebuilt from the spec's recorded 2025.1 CSVs
# (tests/gen/recorded_exports.py) the analysis is the spec's worked example byte for byte, plus
# provenance.source = "export"; the default path (nsys stats) keeps the golden bytes without the key.
. "$(dirname "$0")/../lib/t.sh"

RF=real/roboflow-inference
if ! have_fixture "$RF/nvtx_pushpop_trace.csv"; then skip "analyze from export" "fixtures absent"; t_done; fi
RF=$FIX/$RF
GOLD=$TOP/tests/data/nvtx_roboflow_analysis.json
V2025="NVIDIA Nsight Systems version 2025.1.3"
python3 "$TOP/tests/gen/recorded_exports.py" "$FIX" "$TMP/rec"

# the golden document with provenance.source = "export" (keys are sorted: after "reports")
with_source() { sed 's|^    "trace_path": |    "source": "export",\n    "trace_path": |' "$GOLD"; }
mkrun() { # DIR [sqlite]
  rm -rf "$1"; mkdir -p "$1"
  cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$1/manifest.yaml"
  [ -n "${2:-}" ] && cp "$2" "$1/trace.sqlite"
  return 0
}

R=$TMP/run; mkrun "$R" "$TMP/rec/nvtx.sqlite"
run_gf -q analyze --run-dir "$R" --from-export --nsys-version "$V2025"
check_eq "--from-export on trace.sqlite (no report, no nsys): exit 0" 0 "$rc"
check_eq "--from-export: no warnings" "" "$err"
check_eq "--from-export: the spec's worked example + provenance.source" "$(with_source)" "$(cat "$R/analysis.json")"
for r in nvtx_pushpop_trace nvtx_gpu_proj_trace; do
  check "--from-export: stats/nsys_$r.csv is the recorded 2025.1 CSV byte for byte" \
    cmp -s "$RF/$r.csv" "$R/stats/nsys_$r.csv"
done

printf 'return { analyze = { source = "export" } }\n' >"$TMP/export.lua"
mkrun "$R" "$TMP/rec/nvtx.sqlite"
run_gf --policy "$TMP/export.lua" analyze --run-dir "$R" --nsys-version "$V2025"
check_eq "policy analyze.source = export: exit 0" 0 "$rc"
check_eq "policy analyze.source = export: same document" "$(with_source)" "$(cat "$R/analysis.json")"
printf 'return { analyze = { source = "sqlite" } }\n' >"$TMP/bad.lua"
run_gf --policy "$TMP/bad.lua" analyze --run-dir "$R" --nsys-version "$V2025"
check_eq "policy analyze.source = sqlite: rejected (exit 1, as any invalid policy)" 1 "$rc"
check_contains "policy analyze.source = sqlite: names the field" "$err" "analyze.source"

# stale CSVs from an earlier run are replaced, not read
mkrun "$R" "$TMP/rec/nvtx.sqlite"; mkdir -p "$R/stats"; echo garbage >"$R/stats/nsys_nvtx_gpu_proj_trace.csv"
run_gf analyze --run-dir "$R" --from-export --nsys-version "$V2025"
check_eq "--from-export replaces an earlier CSV" "$(with_source)" "$(cat "$R/analysis.json")"

# a report and no export: one nsys export (fake nsys), no nsys stats; then the export is reused
mkrun "$R"; : >"$R/trace.nsys-rep"
FAKE_NSYS_VERSION=2025.1.3 FAKE_NSYS_LOG=$TMP/nsys.log FAKE_NSYS_SQLITE=$TMP/rec/nvtx.sqlite \
  run_gf -q analyze --run-dir "$R" --from-export --nsys "$FAKE_NSYS"
check_eq "report only: exit 0" 0 "$rc"
check_eq "report only: same document (version from the fake nsys)" "$(with_source)" "$(cat "$R/analysis.json")"
check "report only: trace.sqlite written beside the report" test -s "$R/trace.sqlite"
check_eq "report only: one nsys export" 1 "$(grep -c '"export"' "$TMP/nsys.log")"
check_eq "report only: no nsys stats" 0 "$(grep -c '"stats"' "$TMP/nsys.log")"
FAKE_NSYS_VERSION=2025.1.3 FAKE_NSYS_LOG=$TMP/nsys.log run_gf -q analyze --run-dir "$R" --from-export --nsys "$FAKE_NSYS"
check_eq "second run: the export is reused (still one nsys export)" 1 "$(grep -c '"export"' "$TMP/nsys.log")"
touch -d '+2 seconds' "$R/trace.nsys-rep"
FAKE_NSYS_VERSION=2025.1.3 FAKE_NSYS_LOG=$TMP/nsys.log FAKE_NSYS_SQLITE=$TMP/rec/nvtx.sqlite \
  run_gf -q analyze --run-dir "$R" --from-export --nsys "$FAKE_NSYS"
check_eq "report newer than its export: exported again" 2 "$(grep -c '"export"' "$TMP/nsys.log")"

# nsys 2022.4 exported it: the names are gpuflame's (current era), not read as 2022.4's
mkrun "$R" "$TMP/rec/nvtx.sqlite"
run_gf analyze --run-dir "$R" --from-export --nsys-version "NVIDIA Nsight Systems version 2022.4.2.1-df9881f"
check_eq "an nsys 2022.4 version: exit 0" 0 "$rc"
sections() { python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(json.dumps([d[k] for k in ("host_ranges", "gpu_projected_ranges", "iterations")], sort_keys=True))' "$1"; }
check_eq "an nsys 2022.4 version: the same ranges, projections and iterations (current-era names)" \
  "$(sections "$GOLD")" "$(sections "$R/analysis.json")"

# errors
mkrun "$R"
run_gf analyze --run-dir "$R" --from-export --nsys-version "$V2025"
check_eq "neither trace.nsys-rep nor trace.sqlite: exit 6" 6 "$rc"
check_eq "neither: the spec's message" "gpuflame: Nsight trace does not exist: $R/trace.nsys-rep" "$err"
run_gf analyze --run-dir "$R" --from-export --no-export
check_eq "--from-export with --no-export: exit 2" 2 "$rc"
mkrun "$R"; : >"$R/trace.nsys-rep"
run_gf --policy "$TOP/tests/data/no_host_nsys.lua" analyze --run-dir "$R" --from-export --nsys "$TMP/no-such-nsys"
check_eq "a report to export and no nsys: exit 3" 3 "$rc"
mkrun "$R" "$TMP/rec/cuda.sqlite"
run_gf analyze --run-dir "$R" --from-export --nsys-version "$V2025"
check_eq "an export without NVTX: exit 5 or 6 as with nsys's 0-byte CSV" 1 "$(( rc == 5 || rc == 6 ))"
check "an export without NVTX: no analysis.json" [ ! -e "$R/analysis.json" ]

# schema 2: the four reports, byte columns (csv:mem=B, as the nsys path asks)
mkrun "$R" "$TMP/rec/both.sqlite"
run_gf analyze --run-dir "$R" --from-export --nsys-version "$V2025" --schema-version 2
check_eq "schema 2 from the export: exit 0" 0 "$rc"
check "schema 2: cuda_gpu_trace has (B) columns" grep -q '^Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (B),DymSMem (B),Bytes (B)' "$R/stats/nsys_cuda_gpu_trace.csv"
check "schema 2: cuda_gpu_kern_sum holds the recorded kernel row" grep -qxF "$(sed -n '2s/^100.0,/[0-9.]*,/p' "$RF/cuda_gpu_kern_sum.csv" | sed 's/^\[0-9.\]\*,//')" <(cut -d, -f2- "$R/stats/nsys_cuda_gpu_kern_sum.csv")
mkdir -p "$TMP/s2/stats"; cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$TMP/s2/manifest.yaml"
for r in nvtx_pushpop_trace nvtx_gpu_proj_trace cuda_gpu_kern_sum cuda_gpu_trace; do cp "$RF/$r.csv" "$TMP/s2/stats/nsys_$r.csv"; done
"$GF" analyze --run-dir "$TMP/s2" --no-export --nsys-version "$V2025" --schema-version 2 >/dev/null 2>&1
# the export holds both captures: the NVTX capture's 8 smoke kernels join the recorded one
work() { python3 -c 'import json,sys
w = json.load(open(sys.argv[1]))["capture_gpu_work"]
print(json.dumps([w["memory_transfers"], [k for k in w["kernels"] if k["name"] != "smoke_kernel()"]], sort_keys=True))' "$1"; }
check_eq "schema 2: the recorded kernel and transfers as from the recorded CSVs" "$(work "$TMP/s2/analysis.json")" \
  "$(work "$R/analysis.json")"
t_done
