#!/usr/bin/env bash
# Capture pipeline end to end with the fake nsys: flags and environment given to nsys profile, stats
# fallbacks decided in Lua, artifacts and summary.json, no workload, --timeline hand-over, SIGINT → 130
# (failure modes: test_capture_failures.sh).
. "$(dirname "$0")/../lib/t.sh"
# these cases test the `nsys stats` path of the views (the default is one export: capture.views_from)
STATS_POL=$TMP/stats_path.lua
printf 'return { extends = "default", capture = { views_from = "stats" } }\n' >"$STATS_POL"

if ! have_fixture gprofiler/KERN_CSV.csv; then skip "capture tests" "fixtures absent"; exit 0; fi
export FAKE_NSYS_LOG=$TMP/nsys.log
unset NSYS_PATH FAKE_NSYS_FAIL FAKE_NSYS_VERSION
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# 1. happy path, environment cleaning
: >"$FAKE_NSYS_LOG"
LD_LIBRARY_PATH=/tmp/_MEIab12:/usr/lib/x86_64-linux-gnu LD_PRELOAD_ORIG=/opt/keep.so LD_PRELOAD=/tmp/_MEIab12/x.so \
  run_gf --policy "$STATS_POL" capture --nsys "$FAKE_NSYS" --out "$TMP/c1" -- sh -c 'echo workload-ran'
check_eq "capture: exit 0" 0 "$rc"
for f in capture.nsys-rep kern_cuda_gpu_kern_sum.csv gpu.folded flamegraph.html summary.json; do
  check "capture: $f written" test -s "$TMP/c1/$f"
done
check_eq "gpu.folded: the reference line and nothing else (no '# {json}' line)" "gpu;nsys;cuda_kernel;burn(float *, int, int) 28918" "$(cat "$TMP/c1/gpu.folded")"
check_contains "gpu.folded.json: the metadata sidecar" "$(cat "$TMP/c1/gpu.folded.json")" '"report":"cuda_gpu_kern_sum"'
check_contains "summary.json lists the sidecar" "$(cat "$TMP/c1/summary.json")" "gpu.folded.json"
prof=$(grep '"profile"' "$FAKE_NSYS_LOG" | head -1)
check_contains "profile argv from policy" "$prof" '"profile", "-o", "'"$TMP"'/c1/capture", "--force-overwrite=true", "-t", "cuda,nvtx", "-s", "none", "sh", "-c"'
check_contains "workload env: LD_LIBRARY_PATH stripped of /_MEI" "$prof" '"LD_LIBRARY_PATH": "/usr/lib/x86_64-linux-gnu"'
check_contains "workload env: LD_PRELOAD restored from _ORIG" "$prof" '"LD_PRELOAD": "/opt/keep.so"'
check_contains "workload env: _ORIG removed" "$prof" '"LD_PRELOAD_ORIG": null'
stats=$(grep '"stats"' "$FAKE_NSYS_LOG" | head -1)
check_contains "stats argv" "$stats" '"stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "--force-export=true", "--force-overwrite=true", "-o", "'"$TMP"'/c1/kern"'
check_contains "stats does not get the cleaned env" "$stats" '"LD_LIBRARY_PATH": "/tmp/_MEIab12:/usr/lib/x86_64-linux-gnu"'
S=$TMP/c1/summary.json
check_eq "summary: status ok" ok "$(json "$S" 'd["status"]')"
check_eq "summary: nsys version" 2025.1.3.140 "$(json "$S" 'd["nsys"]["version"]')"
check_eq "summary: commands with exit codes" "profile:0 stats cuda_gpu_kern_sum:0" "$(json "$S" '" ".join("%s:%s" % (c["step"], c["exit_code"]) for c in d["commands"])')"
check_eq "summary: reports tried" "cuda_gpu_kern_sum:True" "$(json "$S" '" ".join("%s:%s" % (t["report"], t["ok"]) for t in d["reports_tried"])')"
check_eq "summary: artifacts" "$TMP/c1/flamegraph.html" "$(json "$S" 'd["artifacts"]["html"]')"
check_not_contains "summary: no environment" "$(cat "$S")" "_MEIab12"
check_contains "stdout lists the artifacts" "$out" "html      $TMP/c1/flamegraph.html"

# 2. forced SKIPPED on the first report falls back to cuda_api_sum
FAKE_NSYS_FAIL=stats@cuda_gpu_kern_sum:skipped run_gf --policy "$STATS_POL" -q capture --nsys "$FAKE_NSYS" --out "$TMP/c2" -- true
check_eq "SKIPPED fallback: exit 0" 0 "$rc"
check_eq "SKIPPED fallback: api lines" "$(printf 'gpu;nsys;cuda_api;cudaMalloc 131012\ngpu;nsys;cuda_api;cudaDeviceSynchronize 28943')" "$(grep -v '^#' "$TMP/c2/gpu.folded")"
check_contains "SKIPPED fallback: why recorded" "$(json "$TMP/c2/summary.json" 'd["reports_tried"][0]["why"]')" "SKIPPED"
check_eq "-q: silent on success" "" "$err"

# 2b. FAKE_NSYS_STATS_MAP points a report at another recorded CSV
if have_fixture real/roboflow-inference/cuda_gpu_kern_sum.csv; then
  FAKE_NSYS_STATS_MAP=cuda_gpu_kern_sum=real/roboflow-inference/cuda_gpu_kern_sum.csv \
    run_gf --policy "$STATS_POL" -q capture --nsys "$FAKE_NSYS" --out "$TMP/c2b" -- true
  check_contains "stats map: the mapped CSV feeds the flamegraph" "$(cat "$TMP/c2b/gpu.folded")" "vectorized_elementwise_kernel"
fi

# 5. no workload: duration-bounded sleep session with a warning
: >"$FAKE_NSYS_LOG"
run_gf --policy "$STATS_POL" capture --nsys "$FAKE_NSYS" --out "$TMP/c5" --duration 1.7
check_contains "no workload: warning" "$err" "No workload given; capturing a duration-bounded sleep session of 1 s"
check_contains "no workload: --duration D sleep D" "$(cat "$FAKE_NSYS_LOG")" '"-s", "none", "--duration", "1", "sleep", "1"]'
check_contains "no workload: warning in summary" "$(cat "$TMP/c5/summary.json")" "duration-bounded sleep session"

# 9. --timeline hands over to gpuflame.views.timeline (or says clearly that it is absent)
run_gf --policy "$STATS_POL" capture --nsys "$FAKE_NSYS" --out "$TMP/c9" --timeline -- true
if [ -e "$TOP/lua/gpuflame/views/timeline.lua" ]; then
  check_eq "--timeline: exit 0 with the timeline view" 0 "$rc"
else
  check_eq "--timeline without the view: exit 1" 1 "$rc"
  check_contains "--timeline without the view: clear message" "$err" "the timeline view is not available in this build"
fi

# 10. SIGINT stops nsys and the workload group, exit 130, says what was kept
"$GF" capture --nsys "$FAKE_NSYS" --out "$TMP/c10" -- sleep 31792 >"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 1 50); do pgrep -f "^sleep 3179[2]" >/dev/null && break; sleep 0.2; done
kill -INT "$pid"
wait "$pid"
rc=$?
check_eq "SIGINT: exit 130" 130 "$rc"
check_contains "SIGINT: says what was kept" "$(cat "$TMP/int.err")" "Kept: $TMP/c10 ("
sleep 0.3
check "SIGINT: workload group gone" bash -c '! pgrep -f "^sleep 3179[2]" >/dev/null'
check_eq "SIGINT: summary status" interrupted "$(json "$TMP/c10/summary.json" 'd["status"]')"
t_done
