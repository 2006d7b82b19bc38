#!/usr/bin/env bash
# seeds.sh TARGET CORPUS_DIR FIXTURES_DIR — fills a fuzz corpus with relevant real inputs (read from the
# fixtures in place and copied into the corpus under build-fuzz/, never into the repository), the
# project's own seed files (tests/fuzz/seeds/<target>/) and saved regression inputs.
set -u
t=$1 corpus=$2 fix=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
add() { for f in "$@"; do [ -f "$f" ] && cp -f "$f" "$corpus/$(echo "${f#"$fix"/}" | tr '/' '_')"; done; return 0; }
# joined FILE_A FILE_B NAME: a two-part input (parts separated by one NUL byte)
joined() { [ -f "$1" ] && [ -f "$2" ] && { cat "$1"; printf '\0'; cat "$2"; } >"$corpus/$3"; return 0; }
case "$t" in
  trace_csv) joined "$fix/gprofiler/API_TRACE_CSV.csv" "$fix/gprofiler/GPU_TRACE_CSV.csv" gprofiler_trace
    add "$fix"/real/roboflow-inference/cuda_gpu_trace.csv ;;
  csv) add "$fix"/gprofiler/*.csv "$fix"/real/roboflow-inference/*.csv "$fix"/real/vernier/*.out ;;
  folded) add "$fix"/gprofiler/*.csv ;;
  difffolded) ;;
  render) ;;
  trace_sqlite|kernels) add "$fix"/real/*/*.sqlite ;;
  nvtx) joined "$fix/real/roboflow-inference/nvtx_pushpop_trace.csv" "$fix/real/roboflow-inference/nvtx_gpu_proj_trace.csv" roboflow_nvtx ;;
  yaml) add "$fix"/real/roboflow-inference/*.yaml ;;
  version) add "$fix"/real/vernier/*.out ;;
esac
[ -d "$top/tests/fuzz/seeds/$t" ] && cp -f "$top/tests/fuzz/seeds/$t"/* "$corpus/" 2>/dev/null
[ -d "$top/tests/fuzz/regressions/$t" ] && cp -f "$top/tests/fuzz/regressions/$t"/* "$corpus/" 2>/dev/null
exit 0
