#!/usr/bin/env bash
# Timeline page in headless Chromium: first paint and per-frame cost while panning (20,000 events).
# Runnable alone (`bench/bench_timeline_browser.sh [PAGE.html...]`) or from `make bench` via bench/run
# (`make bench BENCH=timeline_browser`), which tabulates its RESULT lines.
# Without arguments it measures (1) the generated page with exactly 20,000 events (tests/gen/timeline_data.py
# large) and (2) when $GPUFLAME_BIN (default bin/gpuflame) exists, the page that binary writes from the same
# 49,300-event trace as nsys stats CSVs (20,000 longest + the launches of kept kernels).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -gt 0 ]; then exec node "$top/bench/bench_timeline_browser.mjs" "$@"; fi
tmp=$(mktemp -d /tmp/gf-bench-tl.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
python3 "$top/tests/gen/timeline_data.py" large --html "$tmp/generated-20000.html" --template "$top/templates/timeline.html"
pages=("$tmp/generated-20000.html")
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
if [ -x "$gf" ]; then
  python3 "$top/tests/gen/timeline_data.py" large --csv "$tmp/csv"
  # GPUFLAME_PATH: the template on disk is the one measured, even before the binary is rebuilt
  GPUFLAME_PATH="$top/lua:$top" "$gf" -q timeline "$tmp/csv/cuda_api_trace.csv" "$tmp/csv/cuda_gpu_trace.csv" \
    --max-events 20000 -o "$tmp/gpuflame-csv.html"
  pages+=("$tmp/gpuflame-csv.html")
fi
node "$top/bench/bench_timeline_browser.mjs" "${pages[@]}"
