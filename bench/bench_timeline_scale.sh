#!/usr/bin/env bash
# The timeline at capture scale (issue 16): generated exports with the real schema (tests/gen/
# big_export.py: NVTX ranges, kernels and CUDA runtime calls, N/3 each) of BENCH_TL_SIZES events
# (default 100000 1000000 5000000 10000000), rendered with every event kept (policy
# timeline.local_max_events), then opened in headless Chromium (bench/bench_timeline_scale.mjs).
# Reported per size: page bytes, render wall time and peak RSS, time to first frame (the preview's on pages
# of policy timeline.preview_min_events or more) and to the page built from all events, draw time p50/p95
# over a zoom-and-pan sweep of the full span, JS heap after load. Targets (issue 16): 1M: page <= 20 MB,
# first frame <= 1 s, p95 <= 8 ms, heap <= 150 MB; 5M: page <= 100 MB, first frame <= 3 s, p95 <= 16 ms,
# heap <= 600 MB, render RSS <= 400 MB; 10M opens and pans.
set -eu
top=${GF_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/bench/lib.sh"
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
out=${BENCH_OUT:-$top/bench/out}
mkdir -p "$out"
if ! command -v chromium >/dev/null || [ ! -d "$top/tests/node_modules/playwright-core" ]; then
  echo "skipped: chromium or tests/node_modules/playwright-core missing (make test installs them)"; exit 0
fi
for n in ${BENCH_TL_SIZES:-100000 1000000 5000000 10000000}; do
  db=$out/tl_$n.sqlite
  [ -s "$db" ] || python3 "$top/tests/gen/big_export.py" "$db" --ranges $((n / 3))
  measure r "$gf" -q timeline "$db" -o "$out/tl_$n.html"
  mb=$(awk -v b="$(stat -c %s "$out/tl_$n.html")" 'BEGIN { printf "%.1f", b / 1e6 }')
  echo "RESULT|timeline page, $n events: render|${r% *}|${r#* }|-|page $mb MB"
  j=$(node "$top/bench/bench_timeline_scale.mjs" "$out/tl_$n.html")
  echo "$j"
  f() { printf '%s' "$j" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
  echo "RESULT|timeline page, $n events: first frame|$(awk -v m="$(f firstFrameMs)" 'BEGIN { printf "%.2f", m / 1000 }')|-|-|preview $(f preview); all events drawn at $(awk -v m="$(f readyMs)" 'BEGIN { printf "%.2f", m / 1000 }') s; heap $(f heapMB) MB (V8 $(f v8HeapMB) + typed arrays $(f typedMB)), renderer RSS $(f rendererRssMB) MB; draw p50 $(f drawP50) ms, p95 $(f drawP95) ms (thread CPU p50 $(f cpuP50), p95 $(f cpuP95) ms) over $(f frames) frames ($(f lodFrames) from LOD); $(f inPage) of $(f total) events in the page"
done
