#!/usr/bin/env bash
# End to end (issue 12): `analyze` of a real capture of a CPU workload with >= 1M NVTX ranges
# (bench/nvtx_many.c, captured with the real nsys and `gpuflame capture`), by nsys's `nsys stats`
# reports (analyze.source "stats", the default) and by the export path (`analyze --from-export`: one
# `nsys export`, the reports computed by gpuflame), measured in the same run on the same report; the two
# analysis.json must agree (provenance aside). Target: >= 15x faster end to end, RSS < 200 MB.
# BENCH_E2E_ITERATIONS (default 333334: 1,000,003 ranges). Needs a real nsys (skipped without one).
set -eu
top=${GF_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/bench/lib.sh"
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
out=${BENCH_OUT:-$top/bench/out}
nsys=${BENCH_NSYS:-$(command -v nsys || true)}
iters=${BENCH_E2E_ITERATIONS:-333334}
if [ -z "$nsys" ]; then echo "skipped: no real nsys (install: .ci/deps.sh nsys)"; exit 0; fi
lib=$(ls /usr/lib/*/libnvToolsExt.so.1 2>/dev/null | head -1)
if [ -z "$lib" ]; then echo "skipped: no libnvToolsExt.so.1 (Debian libnvtoolsext1)"; exit 0; fi
mkdir -p "$out/e2e"
cc -O2 -o "$out/e2e/nvtx_many" "$top/bench/nvtx_many.c" "$lib"
cap=$out/e2e/cap_$iters
if [ ! -s "$cap/capture.nsys-rep" ]; then
  cat >"$out/e2e/policy.lua" <<LUA
return { extends = "$top/tests/real/policy.lua", capture = { trace = "nvtx", timeout_extra = 600,
  extra_args = { "-e", "NSYS_NVTX_PROFILER_REGISTER_ONLY=0" } } }
LUA
  rm -rf "$cap"
  # exit 5 is expected: a CPU workload has no CUDA activity for the flamegraph; the report is kept
  t0=$(date +%s.%N)
  "$gf" -q --policy "$out/e2e/policy.lua" capture --nsys "$nsys" --out "$cap" -- "$out/e2e/nvtx_many" "$iters" 2>"$out/e2e/capture.err" || true
  [ -s "$cap/capture.nsys-rep" ] || { echo "capture failed: $(tail -3 "$out/e2e/capture.err")" >&2; exit 1; }
  echo "captured $iters iterations with $nsys in $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
fi
mkrun() {
  rm -rf "$1"; mkdir -p "$1"
  cp "$cap/capture.nsys-rep" "$1/trace.nsys-rep"
  sed "s/iterations: 2/iterations: $iters/" "$top/tests/data/nvtx_minimal_manifest.yaml" >"$1/manifest.yaml"
}
mkrun "$out/e2e/run_stats"
measure viastats "$gf" -q analyze --nsys "$nsys" --run-dir "$out/e2e/run_stats"
mkrun "$out/e2e/run_export"
measure viaexport "$gf" -q analyze --nsys "$nsys" --from-export --run-dir "$out/e2e/run_export"
same=$(python3 - "$out/e2e/run_stats/analysis.json" "$out/e2e/run_export/analysis.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("provenance", None)
print("same analysis.json" if a == b else "analysis.json DIFFERS")
PY
)
ranges=$(python3 -c "print(3 * $iters + 1)")
echo "RESULT|analyze, real capture, $ranges NVTX ranges: export path|${viaexport% *}|${viaexport#* }|${viastats% *}|ref = the nsys stats path (${viastats#* } MB); $same"
