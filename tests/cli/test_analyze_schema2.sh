#!/usr/bin/env bash
# gpuflame analyze --schema-version 2 (docs/spec/NVTX_ANALYSIS.md §15): capture_gpu_work from cuda_gpu_kern_sum
# and cuda_gpu_trace (the roboflow L4 capture), CPU-only captures, memset/kernel rows, the four-report nsys
# argv; schema 1 never has the key (a missing memory kind and --schema-version 3: tests/cases/analyze.cases).
. "$(dirname "$0")/../lib/t.sh"

RF=real/roboflow-inference
if ! have_fixture "$RF/cuda_gpu_trace.csv"; then skip "schema 2" "fixtures absent"; t_done; fi
RF=$FIX/$RF
GOLD=$TOP/tests/data/nvtx_roboflow_analysis.json
V2025="NVIDIA Nsight Systems version 2025.1.3"
EDIT="$GF run $TOP/tests/lib/nvtx_csv.lua"
R=$TMP/run
mkrun() {
  rm -rf "$R"; mkdir -p "$R/stats"
  cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$R/manifest.yaml"
  for r in nvtx_pushpop_trace nvtx_gpu_proj_trace cuda_gpu_kern_sum cuda_gpu_trace; do
    cp "$RF/$r.csv" "$R/stats/nsys_$r.csv"
  done
}
KERNEL='void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctorOnSelf_add<unsigned char>, std::array<char *, (unsigned long)2>>(int, T2, T3)'
WORK=$(cat <<EOF2
  "capture_gpu_work": {
    "kernels": [
      {
        "cumulative_duration_ns": 6464,
        "instances": 1,
        "name": "$KERNEL"
      }
    ],
    "memory_transfers": [
      {
        "cumulative_duration_ns": 44031,
        "destination_memory_kind": "Pageable",
        "instances": 1,
        "source_memory_kind": "Device",
        "total_bytes": 1048576
      },
      {
        "cumulative_duration_ns": 41280,
        "destination_memory_kind": "Device",
        "instances": 1,
        "source_memory_kind": "Pinned",
        "total_bytes": 1048576
      }
    ]
  },
EOF2
)
# the schema 2 document = the schema 1 golden + capture_gpu_work + two report paths + schema_version 2
expected() {
  { echo "{"; printf '%s\n' "$1"; sed -n '2,$p' "$GOLD"; } | sed \
    -e 's|    "reports": {|    "reports": {\n      "cuda_gpu_kern_sum": "stats/nsys_cuda_gpu_kern_sum.csv",\n      "cuda_gpu_trace": "stats/nsys_cuda_gpu_trace.csv",|' \
    -e 's|  "schema_version": 1,|  "schema_version": 2,|'
}

mkrun
run_gf analyze --run-dir "$R" --no-export --nsys-version "$V2025" --schema-version 2
check_eq "schema 2: exit 0" 0 "$rc"
check_eq "schema 2: the fixture's kernel and transfers, rest unchanged" "$(expected "$WORK")" "$(cat "$R/analysis.json")"
run_gf report --run-dir "$R"
check_contains "report shows capture-wide kernels" "$out" "| 1 | 6.5 µs |"
check_contains "report shows transfers" "$out" "| Pinned → Device | 1 | 1048576 B | 41.3 µs |"
run_gf analyze --run-dir "$R" --no-export --nsys-version "$V2025"
check "schema 1 (default): no capture_gpu_work key, byte-identical golden" cmp -s "$GOLD" "$R/analysis.json"

mkrun; rm "$R/stats/nsys_cuda_gpu_kern_sum.csv"; : >"$R/stats/nsys_cuda_gpu_trace.csv"
run_gf analyze --run-dir "$R" --no-export --nsys-version "$V2025" --schema-version 2
EMPTY='  "capture_gpu_work": {
    "kernels": [],
    "memory_transfers": []
  },'
check_eq "CPU-only capture: both lists empty, the rest preserved" "$(expected "$EMPTY")" "$(cat "$R/analysis.json")"

mkrun
printf '1,5,9,,,,,,,,,,64,1.0,,,NVIDIA L4 (0),1,,7,[CUDA memset]\n2,5,9,,,,,,,,,,64,1.0,Device,Device,NVIDIA L4 (0),1,,7,[CUDA memcpy Device-to-Device]\n' \
  >>"$R/stats/nsys_cuda_gpu_trace.csv"
printf '50.0,100,2,50.0,50.0,50,50,0.0,"%s"\n' "$KERNEL" >>"$R/stats/nsys_cuda_gpu_kern_sum.csv"
run_gf analyze --run-dir "$R" --no-export --nsys-version "$V2025" --schema-version 2
json=$(cat "$R/analysis.json")
check_contains "kernel rows merged by name (instances and time summed)" "$json" \
  "\"cumulative_duration_ns\": 6564,
        \"instances\": 3,"
check_contains "memset dropped; Device→Device transfer grouped" "$json" '"destination_memory_kind": "Device",
        "instances": 1,
        "source_memory_kind": "Device",
        "total_bytes": 64'
check_not_contains "memset dropped" "$json" "memset"

# end to end: nsys gets four reports with byte units
mkrun; rm -f "$R"/stats/*.csv; : >"$R/trace.nsys-rep"
FAKE_NSYS_VERSION=2025.1.3 FAKE_NSYS_LOG=$TMP/nsys.log \
  FAKE_NSYS_STATS_MAP="cuda_gpu_kern_sum=$RF/cuda_gpu_kern_sum.csv,cuda_gpu_trace=$RF/cuda_gpu_trace.csv" \
  run_gf -q analyze --run-dir "$R" --nsys "$FAKE_NSYS" --schema-version 2
check_eq "e2e schema 2: exit 0" 0 "$rc"
check_eq "e2e schema 2: same document" "$(expected "$WORK")" "$(cat "$R/analysis.json")"
check_contains "e2e schema 2: four reports, --format csv:mem=B" "$(grep '"stats"' "$TMP/nsys.log")" \
  '"--report", "nvtx_pushpop_trace", "--report", "nvtx_gpu_proj_trace", "--report", "cuda_gpu_kern_sum", "--report", "cuda_gpu_trace", "--format", "csv:mem=B"'
t_done
