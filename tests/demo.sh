#!/usr/bin/env bash
# make demo: builds a SAMPLE nsys SQLite export with the project's own generator (tests/gen/sample_export.py,
# real nsys schema, synthetic kernels, labelled as a sample in META_DATA_EXPORT) and renders it into out/.
set -euo pipefail
BIN=${1:?usage: tests/demo.sh PATH/TO/gpuflame}
top=$(cd "$(dirname "$0")/.." && pwd)
out=${GF_DEMO_OUT:-$top/out}
mkdir -p "$out"
command -v python3 >/dev/null || { echo "demo: python3 is needed for the sample generator (.ci/deps.sh build)" >&2; exit 1; }
python3 "$top/tests/gen/sample_export.py" "$out/sample-export.sqlite"
"$BIN" -q flamegraph "$out/sample-export.sqlite" -o "$out/flamegraph.html" \
  --title "GPU time by kernel (sample export)" --colors gpu >/dev/null
"$BIN" -q export --format folded "$out/sample-export.sqlite" -o "$out/gpu.folded"
"$BIN" -q export --format speedscope "$out/sample-export.sqlite" -o "$out/gpu.speedscope.json"
echo "sample export:   $out/sample-export.sqlite (synthetic, see META_DATA_EXPORT)"
echo "flamegraph:      $out/flamegraph.html"
echo "folded stacks:   $out/gpu.folded"
echo "speedscope:      $out/gpu.speedscope.json"
# the timeline view, when this build has it
if "$BIN" timeline --help >/dev/null 2>&1; then
  "$BIN" -q timeline "$out/sample-export.sqlite" -o "$out/timeline.html" >/dev/null
  echo "timeline:        $out/timeline.html"
fi
