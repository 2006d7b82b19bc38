#!/usr/bin/env bash
# NVTX analysis: a generated pushpop + projection pair with 1,000,000 ranges across 8 threads and 1,000
# iterations, `gpuflame analyze --no-export` vs the Python reference of the spec (bench/nvtx_reference.py)
# measured in the same run; both must write the same bytes. Run: make bench BENCH=nvtx
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
# cpu VAR CMD...: user+sys seconds of one run (the build machine is shared; wall time is noisy)
cpu() {
  local __v=$1 tf; shift; tf=$(mktemp)
  /usr/bin/time -f '%U %S' -o "$tf" "$@" >/dev/null 2>&1
  printf -v "$__v" '%s' "$(awk '{ printf "%.2f", $1 + $2 }' "$tf")"; rm -f "$tf"
}
best_of g 3 "$GF" -q analyze --run-dir "$RUN" --no-export --nsys-version "$V"
cpu gc "$GF" -q analyze --run-dir "$RUN" --no-export --nsys-version "$V"
tf=$(mktemp)
/usr/bin/time -f '%e %M %U %S' -o "$tf" python3 "$GF_TOP/bench/nvtx_reference.py" "$RUN" "$V" "$B/ref.json"
read -r rw rk ru rs <"$tf"; rm -f "$tf"
rc=$(awk -v u="$ru" -v s="$rs" 'BEGIN { printf "%.2f", u + s }')
same=$(cmp -s "$B/ref.json" "$RUN/analysis.json" && echo "analysis.json identical to the reference" || echo "OUTPUT DIFFERS")
cpuratio=$(awk -v a="$rc" -v b="$gc" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')
echo "RESULT|analyze --no-export, $RANGES ranges, 8 thr, 1000 it|${g% *}|${g#* }|$rw|$same; CPU s $gc vs $rc (${cpuratio}x); ref RSS $(awk -v k="$rk" 'BEGIN { printf "%.1f", k / 1024 }') MB"
