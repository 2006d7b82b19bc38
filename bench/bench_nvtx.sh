#!/usr/bin/env bash
# NVTX analysis: a generated pushpop + projection pair with 1,000,000 ranges across 8 threads and 1,000
# iterations, `gpuflame analyze --no-export` vs the Python reference of the spec (bench/nvtx_reference.py)
# measured in the same run; both must write the same bytes. Run: make bench BENCH=nvtx
# (standalone: GPUFLAME_BIN=bin/gpuflame BENCH_OUT=bench/out GF_TOP=$PWD bash bench/bench_nvtx.sh)
set -eu
. "$GF_TOP/bench/lib.sh"
RANGES=${NVTX_BENCH_RANGES:-1000000}
B=$BENCH_OUT/nvtx
RUN=$B/run_$RANGES
GF=$GPUFLAME_BIN
V="NVIDIA Nsight Systems version 2025.1.3"
mkdir -p "$B"
if [ ! -s "$RUN/stats/nsys_nvtx_gpu_proj_trace.csv" ]; then
  python3 "$GF_TOP/bench/gen_nvtx.py" "$RUN" "$RANGES" 8 1000
fi
echo "inputs: $(du -h "$RUN/stats/nsys_nvtx_pushpop_trace.csv" | cut -f1) host CSV ($(($(wc -l <"$RUN/stats/nsys_nvtx_pushpop_trace.csv") - 1)) rows), $(du -h "$RUN/stats/nsys_nvtx_gpu_proj_trace.csv" | cut -f1) GPU CSV ($(($(wc -l <"$RUN/stats/nsys_nvtx_gpu_proj_trace.csv") - 1)) rows)"
best_of g 3 "$GF" -q analyze --run-dir "$RUN" --no-export --nsys-version "$V"
measure r python3 "$GF_TOP/bench/nvtx_reference.py" "$RUN" "$V" "$B/ref.json"
same=$(cmp -s "$B/ref.json" "$RUN/analysis.json" && echo "analysis.json identical to the reference" || echo "OUTPUT DIFFERS")
echo "RESULT|analyze --no-export, $RANGES ranges, 8 thr, 1000 it|${g% *}|${g#* }|${r% *}|$same; ref RSS ${r#* } MB"
