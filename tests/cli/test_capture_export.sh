#!/usr/bin/env bash
# capture with policy capture.views_from = "export" (issue 12): one `nsys export`, no `nsys stats`; the
# views' CSVs (the flamegraph's kern/api sum, the CSV timeline's GPU/API traces) are written by gpuflame
# from the export, the same bytes as `gpuflame stats` writes. Fake nsys (FAKE_NSYS_SQLITE is its export).
. "$(dirname "$0")/../lib/t.sh"

if ! have_fixture real/test-cuda/report1.sqlite; then skip "capture views_from export" "fixtures absent"; exit 0; fi
export FAKE_NSYS_LOG=$TMP/nsys.log
unset NSYS_PATH FAKE_NSYS_FAIL FAKE_NSYS_VERSION
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
printf 'return { capture = { views_from = "export" } }\n' >"$TMP/export.lua"
X=$FIX/real/test-cuda/report1.sqlite

: >"$FAKE_NSYS_LOG"
FAKE_NSYS_SQLITE=$X run_gf --policy "$TMP/export.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/c1" -- true
check_eq "views_from export: exit 0" 0 "$rc"
for f in capture.nsys-rep capture.sqlite kern_cuda_gpu_kern_sum.csv gpu.folded flamegraph.html summary.json; do
  check "views_from export: $f written" test -s "$TMP/c1/$f"
done
check_eq "views_from export: one nsys export" 1 "$(grep -c '"export"' "$FAKE_NSYS_LOG")"
check_eq "views_from export: no nsys stats" 0 "$(grep -c '"stats"' "$FAKE_NSYS_LOG")"
"$GF" stats -r cuda_gpu_kern_sum -o "$TMP/ref" "$X" 2>/dev/null
check "views_from export: the kern sum CSV is gpuflame stats' bytes" cmp -s "$TMP/ref_cuda_gpu_kern_sum.csv" "$TMP/c1/kern_cuda_gpu_kern_sum.csv"
check_contains "views_from export: the flamegraph has the export's kernel" "$(cat "$TMP/c1/gpu.folded")" "add_parallel(const float *, const float *, float *, int)"
S=$TMP/c1/summary.json
check_eq "summary: commands" "profile:0 export sqlite:0" "$(json "$S" '" ".join("%s:%s" % (c["step"], c["exit_code"]) for c in d["commands"])')"
check_eq "summary: reports tried" "cuda_gpu_kern_sum:True" "$(json "$S" '" ".join("%s:%s" % (t["report"], t["ok"]) for t in d["reports_tried"])')"

# no kernels in the export: SKIPPED as nsys says it, the policy's fallback report is used
if have_fixture real/cuda-learning/report1.sqlite; then
  FAKE_NSYS_SQLITE=$FIX/real/cuda-learning/report1.sqlite run_gf -q --policy "$TMP/export.lua" capture \
    --nsys "$FAKE_NSYS" --out "$TMP/c2" -- true
  check_eq "no kernels: exit 0 (falls back)" 0 "$rc"
  check_eq "no kernels: kern sum SKIPPED, api sum used" \
    "cuda_gpu_kern_sum:False:SKIPPED (no CUDA kernel data) cuda_api_sum:True:None" \
    "$(json "$TMP/c2/summary.json" '" ".join("%s:%s:%s" % (t["report"], t["ok"], t["why"]) for t in d["reports_tried"])')"
  check "no kernels: no 0-byte kern CSV left" test ! -e "$TMP/c2/kern_cuda_gpu_kern_sum.csv"
fi

# the CSV timeline: GPU and API traces from the same single export
: >"$FAKE_NSYS_LOG"
printf 'return { capture = { views_from = "export" }, timeline = { source = "csv" } }\n' >"$TMP/tl.lua"
TT=$TOP/tests/trace
FAKE_NSYS_SQLITE=$X run_gf -q --lua-path "$TT" --policy "$TMP/tl.lua" capture --timeline --nsys "$FAKE_NSYS" --out "$TMP/c3" -- true
check_eq "timeline from export CSVs: exit 0" 0 "$rc"
check "timeline from export CSVs: timeline.html" test -s "$TMP/c3/timeline.html"
check "timeline from export CSVs: gpu_trace CSV" test -s "$TMP/c3/gpu_trace_cuda_gpu_trace.csv"
check_eq "timeline from export CSVs: one nsys export, no nsys stats" "1 0" \
  "$(grep -c '"export"' "$FAKE_NSYS_LOG") $(grep -c '"stats"' "$FAKE_NSYS_LOG")"

# a failed export is reported like a failed nsys stats (exit 5 naming what was tried)
FAKE_NSYS_FAIL=export:exit FAKE_NSYS_SQLITE=$X run_gf -q --policy "$TMP/export.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/c4" -- true
check_eq "failed export: exit 5" 5 "$rc"
check_contains "failed export: says so" "$err" "nsys export --type sqlite failed"
t_done
