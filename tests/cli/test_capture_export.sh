#!/usr/bin/env bash
# capture with policy capture.views_from = "export" (issue 12): one `nsys export`, no `nsys stats`; the
# views' CSVs (the flamegraph's kern/api sum, the CSV timeline's GPU/API traces) are written by gpuflame
# from the export, the same bytes as `gpuflame stats` writes. Fake nsys (FAKE_NSYS_SQLITE is its export).
# The flamegraph of such a capture is the hierarchical one of its export (issue 25: process; NVTX path;
# launch call; kernel; integer ns), and summary.json carries each device's time breakdown (issue 24): both
# checked against SQL over the export, not against gpuflame's own code.
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

# --- the capture's flamegraph and summary.json from its export (issues 24 and 25), against SQL -------
J=real/cs336-jsun012/result.sqlite
if have_fixture "$J"; then
  JX=$FIX/$J
  printf 'return { capture = { views_from = "export" }, gpu_time = { communication = { "%%nccl%%" } } }\n' >"$TMP/comm.lua"
  FAKE_NSYS_SQLITE=$JX run_gf -q --policy "$TMP/comm.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/h1" -- true
  check_eq "hierarchical: exit 0" 0 "$rc"
  check_eq "hierarchical: the sidecar says ns and the policy's levels" "ns 1 process,nvtx,api,kernel" \
    "$(json "$TMP/h1/gpu.folded.json" '"%s %s %s" % (d["countname"], d["unit_ns"], d["levels"])')"
  # every GPU operation once, weighted by its duration in ns: per kernel name and in all, as SQL sums them
  res=$(python3 - "$JX" "$TMP/h1/gpu.folded" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro&immutable=1" % sys.argv[1], uri=True)
want = dict(db.execute("SELECT COALESCE(d.value, s.value), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                       "LEFT JOIN StringIds d ON d.id = k.demangledName LEFT JOIN StringIds s ON s.id = k.shortName "
                       "GROUP BY 1"))
total = sum(db.execute("SELECT COALESCE(SUM(end - start), 0) FROM %s" % t).fetchone()[0]
            for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"))
got, all_, deep = {}, 0, 0
for line in open(sys.argv[2]):
    stack, w = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    all_ += int(w)
    deep += len(frames) >= 4  # process; NVTX range(s); launch call; kernel
    if not frames[-1].startswith("[CUDA mem"):
        got[frames[-1]] = got.get(frames[-1], 0) + int(w)
print("kernels %s total %s nvtx %s" % (got == want, all_ == total, deep > 0))
PY
)
  check_eq "hierarchical: kernel leaves in ns equal SQL per name, the total equals every op's duration" \
    "kernels True total True nvtx True" "$res"
  check_contains "hierarchical: process, NVTX path, launch call, kernel" "$(cat "$TMP/h1/gpu.folded")" \
    "python [55072];Run Benchmark;Warm-up;Warm-up Step 1;Forward;cudaLaunchKernel;"
  "$GF" -q --policy "$TMP/comm.lua" collapse "$JX" >"$TMP/h1.collapse" 2>/dev/null
  check_eq "hierarchical: the same stacks as \`collapse\` of the export" "$(sort "$TMP/h1.collapse")" "$(sort "$TMP/h1/gpu.folded")"
  check_eq "summary: the flamegraph's unit and levels" "export 1 process,nvtx,api,kernel" \
    "$(json "$TMP/h1/summary.json" '"%s %s %s" % (d["flamegraph"]["report"], d["flamegraph"]["unit_ns"], d["flamegraph"]["levels"])')"
  check_eq "summary: the kern sum CSV is still written" "cuda_gpu_kern_sum:True" \
    "$(json "$TMP/h1/summary.json" '" ".join("%s:%s" % (t["report"], t["ok"]) for t in d["reports_tried"])')"
  res=$(python3 "$TOP/tests/real/breakdown_check.py" "$JX" "$TMP/h1/summary.json" "%nccl%" 2>&1)
  brc=$?
  check_eq "summary: gpu_time per device equals SQL over the export (ns and shares)" 0 "$brc"
  [ "$brc" -ne 0 ] && echo "# $res"
  check_eq "summary: gpu_time names the definitions and its device" "docs/SEMANTICS.md ['%nccl%'] 0 None" \
    "$(json "$TMP/h1/summary.json" '"%s %s %s %s" % (d["gpu_time"]["definitions"], d["gpu_time"]["communication"], d["gpu_time"]["devices"][0]["device"], d["gpu_time"]["devices"][0]["rank"])')"
  # the page's findings panel names the parts, with the shares SQL gives
  res=$(python3 - "$JX" "$TMP/h1/flamegraph.html" "$TOP/tests/real" <<'PY'
import html, json, re, sys
sys.path.insert(0, sys.argv[3])
from breakdown_check import expected
w = expected(sys.argv[1], ["%nccl%"])[0]
pc = lambda k: "%.1f%%" % (100.0 * w[k] / w["Span (ns)"])
want = "GPU 0 busy %s (compute %s, H2D copy %s, D2D copy %s, memset %s), idle %s of %.3f ms" % (
    pc("Busy (ns)"), pc("Compute (ns)"), pc("H2D (ns)"), pc("D2D (ns)"), pc("Memset (ns)"), pc("Idle (ns)"),
    w["Span (ns)"] / 1e6)
page = open(sys.argv[2]).read()
doc = json.loads(re.search(r'<script type="application/json" id="fg-findings">(.*?)</script>', page, re.S).group(1))
lines = {f["rule"]: f.get("busy") for f in doc["findings"]}
print(all(lines[r] == [want] for r in ("gpu-busy", "gpu-low-util", "gpu-starv", "launch-overhead")),
      doc["definitions"]["doc"], want)
PY
)
  check_contains "page: the findings panel names the parts as SQL gives them (gpu-busy, gpu-low-util, gpu-starv, launch-overhead)" \
    "$res" "True docs/SEMANTICS.md GPU 0 busy 72.5% (compute 69.9%, H2D copy 2.4%, D2D copy 0.2%, memset 0.1%), idle 27.5% of 2480.759 ms"
  # a timeline capture from the export: the breakdown of the whole trace (before the page keeps its longest
  # events), and without page findings from the export read again
  printf 'return { capture = { views_from = "export" }, gpu_time = { communication = { "%%nccl%%" } },
    timeline = { source = "sqlite", local_max_events = 500 } }\n' >"$TMP/tls.lua"
  printf 'return { capture = { views_from = "export" }, gpu_time = { communication = { "%%nccl%%" } },
    timeline = { source = "sqlite", local_max_events = 500 }, findings = { pages = false } }\n' >"$TMP/tlnp.lua"
  for pol in tls tlnp; do
    FAKE_NSYS_SQLITE=$JX run_gf -q --policy "$TMP/$pol.lua" capture --timeline --nsys "$FAKE_NSYS" --out "$TMP/$pol" -- true
    python3 "$TOP/tests/real/breakdown_check.py" "$JX" "$TMP/$pol/summary.json" "%nccl%" >"$TMP/$pol.check" 2>&1
    check_eq "timeline capture ($pol): exit 0, gpu_time of the whole export equals SQL" "0 0" "$rc $?"
  done
  # a capture whose views come from nsys stats alone has no intervals: gpu_time is null, the flat form stays
  printf 'return { capture = { views_from = "stats" } }\n' >"$TMP/stats.lua"
  FAKE_NSYS_SQLITE=$JX run_gf -q --policy "$TMP/stats.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/h2" -- true
  check_eq "stats only: gpu_time null, the flat µs form" "None 1000 gpu;nsys;cuda_kernel;burn(float *, int, int) 28918" \
    "$(json "$TMP/h2/summary.json" '"%s %s" % (d["gpu_time"], d["flamegraph"]["unit_ns"])') $(cat "$TMP/h2/gpu.folded")"
else
  skip "hierarchical capture" "no fixture $J"
fi
t_done
