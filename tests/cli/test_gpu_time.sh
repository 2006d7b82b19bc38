#!/usr/bin/env bash
# The time breakdown of a device and the launch diagnosis (docs/SEMANTICS.md), checked without gpuflame's
# code: every part of `findings -r gpu-busy -f json` equals SQL over the export (tests/real/breakdown_check.py:
# its own LIKE, its own union of intervals), to the ns, on every real export in the fixtures and on planted
# exports (tests/gen/busy_export.py) whose numbers are also known by construction; the launch-overhead
# diagnosis of planted launch-bound, queue-bound and neither exports; the `breakdown` field of the findings
# that speak of busy/idle (the panels name its parts) equals the same SQL; launch-overhead's verdict names the
# parts instead of a bare busy %; gpu-idle and rank-skew name the parts;
# `report` prints a findings number as it reads back (99.4, not 99.400000000000006).
. "$(dirname "$0")/../lib/t.sh"

GEN=$TOP/tests/gen/busy_export.py
CHECK=$TOP/tests/real/breakdown_check.py
P=$TMP/policies
mkdir -p "$P"
chmod 755 "$P"
printf 'return { gpu_time = { communication = { "%%nccl%%" } } }\n' >"$P/comm.lua"

# j FILE EXPR: EXPR (Python) over the JSON document in FILE (d; f(rule) = that rule's finding)
j() {
  python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def f(rule):
    return [x for x in d["findings"] if x["rule"] == rule][0]
print(eval(sys.argv[2], {"d": d, "f": f}))
PY
}

# --- planted: the copy-bound training slice on two GPUs ---
DB=$TMP/copybound.sqlite
python3 "$GEN" copybound "$DB"
"$GF" -q --policy "$P/comm.lua" findings -r gpu-busy -r launch-overhead -f json "$DB" >"$TMP/cb.json"
res=$(python3 "$CHECK" "$DB" "$TMP/cb.json" "%nccl%")
check_eq "copybound: every part equals SQL over the export, per device" "0" "$?"
check_eq "copybound: two devices checked" 2 "$(grep -c ': ok ' <<<"$res")"
# known by construction: 8 copies of 12 ms, 61 GEMMs of 125 us of which 60 run under the first copy, two
# NCCL kernels [0, 400) and [200, 500) us, D2H 700 us, D2D 300 us, P2P 400 us, memset 50 us, 6.5 ms idle
check_eq "copybound: device 0 as planted" \
  "{'Span (ns)': 104175000, 'Compute (ns)': 7625000, 'Communication (ns)': 500000, 'Copy (ns)': 97000000, 'H2D (ns)': 96000000, 'D2H (ns)': 700000, 'D2D (ns)': 300000, 'P2P (ns)': 400000, 'Memset (ns)': 50000, 'Overlap (ns)': 7500000, 'Idle (ns)': 6500000}" \
  "$(j "$TMP/cb.json" "{k: f('gpu-busy')['rows'][0][k] for k in ['Span (ns)', 'Compute (ns)', 'Communication (ns)', 'Copy (ns)', 'H2D (ns)', 'D2H (ns)', 'D2D (ns)', 'P2P (ns)', 'Memset (ns)', 'Overlap (ns)', 'Idle (ns)']}")"
check_eq "copybound: busy 93.8 % but a warning (kernels fill 7.8 %)" "warning" "$(j "$TMP/cb.json" "f('gpu-busy')['severity']")"
v=$(j "$TMP/cb.json" "f('gpu-busy')['verdict']")
check_contains "copybound: the verdict names the parts" "$v" "device 1: compute 7.3%, communication 0.5%, copy 93.1% (H2D 92.2%, D2H 0.7%, D2D 0.3%, P2P 0.4%), memset 0.0%, overlap 7.2%, idle 6.2% of 104.175 ms"
check_eq "copybound: blocking launch calls behind copies are queue-bound, not launch storms" "queue-bound" \
  "$(j "$TMP/cb.json" "f('launch-overhead')['diagnosis']")"

# --- the launch diagnosis: planted cases whose answer is known by construction ---
for c in launchbound:launch-bound queuebound:queue-bound neither:none; do
  v=${c%%:*} want=${c#*:}
  python3 "$GEN" "$v" "$TMP/$v.sqlite"
  "$GF" -q --policy "$P/comm.lua" findings -r gpu-busy -r launch-overhead -f json "$TMP/$v.sqlite" >"$TMP/$v.json"
  check_eq "$v: diagnosis $want" "$want" "$(j "$TMP/$v.json" "f('launch-overhead')['diagnosis']")"
  python3 "$CHECK" "$TMP/$v.sqlite" "$TMP/$v.json" "%nccl%" >/dev/null
  check_eq "$v: the breakdown equals SQL" 0 "$?"
done
res=$(BREAKDOWN_RULE=launch-overhead python3 "$CHECK" "$TMP/launchbound.sqlite" "$TMP/launchbound.json" "%nccl%" 2>&1)
check_eq "launchbound: launch-overhead's breakdown field equals SQL" 0 "$?"
check_not_contains "launch-overhead: no bare busy %" "$(j "$TMP/cb.json" "f('launch-overhead')['verdict']")" "devices busy"
check_contains "launch-overhead: the busy time named by its parts, per device" "$(j "$TMP/cb.json" "f('launch-overhead')['verdict']")" \
  "GPU 0 busy 93.8% (compute 7.3%, communication 0.5%, H2D copy 92.2%, D2H copy 0.7%, D2D copy 0.3%, P2P copy 0.4%, memset 0.0%, overlap 7.2%), idle 6.2% of 104.175 ms; GPU 1 busy"
run_gf --policy "$P/comm.lua" findings -r gpu-starv "$DB"
check_contains "findings (text): gpu-starv's devices by their parts under the verdict" "$out" \
  "$(printf 'idle for more than 500ms.\n    GPU 0 busy 93.8%% (compute 7.3%%, communication 0.5%%, H2D copy 92.2%%, D2H copy 0.7%%, D2D copy 0.3%%, P2P copy 0.4%%, memset 0.0%%, overlap 7.2%%), idle 6.2%% of 104.175 ms\n    GPU 1 busy')"
run_gf --policy "$P/comm.lua" findings -f md -r gpu-starv "$DB"
check_contains "findings (Markdown): ... and in Markdown, linked to the definitions" "$out" "idle 6.2% of 104.175 ms (docs/SEMANTICS.md)"
check_contains "launchbound: the deciding numbers in the verdict" "$(j "$TMP/launchbound.json" "f('launch-overhead')['verdict']")" \
  "median queue delay 2.0 µs, mean launch call 10.0 µs, streams waiting on launches 75.0% of their time (mean wait 9.0 µs)"
check_eq "launchbound: warning, advice for launch overhead" "warning True" \
  "$(j "$TMP/launchbound.json" "f('launch-overhead')['severity'] + ' ' + str('CUDA graph' in f('launch-overhead')['advice'])")"
check_eq "queuebound: info, advice says the GPU is the bottleneck" "info True" \
  "$(j "$TMP/queuebound.json" "f('launch-overhead')['severity'] + ' ' + str('GPU is the bottleneck' in f('launch-overhead')['advice'])")"
check_eq "neither: no advice" "None" "$(j "$TMP/neither.json" "f('launch-overhead').get('advice')")"
python3 "$GEN" launchbound "$TMP/few.sqlite"
"$GF" -q findings -r launch-overhead:min_kernels=501 -f json "$TMP/few.sqlite" >"$TMP/few.json"
check_eq "too few launched kernels (min_kernels): none, and says why" "none True" \
  "$(j "$TMP/few.json" "f('launch-overhead')['diagnosis'] + ' ' + str('too few launched kernels' in f('launch-overhead')['verdict'])")"
check_eq "queuebound: decided by a median queue delay of 27.1 ms on a 100 % busy device" "27130000 15000 100" \
  "$(j "$TMP/queuebound.json" "' '.join(str(f('launch-overhead')['decided_by'][k]) for k in ['median_queue_delay_ns', 'mean_launch_ns', 'busy_pct'])")"

# --- real exports: every part equals SQL, to the ns ---
n=0
for db in "$FIX"/real/*/*.sqlite; do
  [ -e "$db" ] || continue
  name=${db#"$FIX"/}
  "$GF" -q --policy "$P/comm.lua" findings -r gpu-busy -r gpu-starv -f json "$db" >"$TMP/real.json" 2>"$TMP/real.err"
  rc=$?
  if [ "$rc" -ne 0 ]; then not_ok "$name: gpu-busy" "exit $rc: $(head -c 300 "$TMP/real.err")"; continue; fi
  res=$(python3 "$CHECK" "$db" "$TMP/real.json" "%nccl%" 2>&1)
  brc=$?
  check_eq "$name: the breakdown equals SQL per device" 0 "$brc"
  [ "$brc" -ne 0 ] && echo "# $res"
  # the breakdown a finding carries for the panels (gpu-busy's and gpu-starv's): ns and shares equal SQL
  for rule in gpu-busy gpu-starv; do
    if [ "$(j "$TMP/real.json" "'skipped' in f('$rule')")" = True ]; then continue; fi
    res=$(BREAKDOWN_RULE=$rule python3 "$CHECK" "$db" "$TMP/real.json" "%nccl%" 2>&1)
    brc=$?
    check_eq "$name: $rule's breakdown field equals SQL per device (ns, shares of the span)" 0 "$brc"
    [ "$brc" -ne 0 ] && echo "# $res"
  done
  n=$((n + 1))
done
if [ "$n" -eq 0 ]; then skip "real exports" "no fixtures under $FIX/real"; fi
OMP=real/sc23-openmp-tutorial/report3.sqlite
if have_fixture "$OMP"; then
  "$GF" -q findings -r gpu-busy -f json "$FIX/$OMP" >"$TMP/omp.json"
  check_eq "$OMP: 99.7 % busy with copies, 3.9 % compute: a warning" "warning 99.7 3.9" \
    "$(j "$TMP/omp.json" "f('gpu-busy')['severity'] + ' ' + str(f('gpu-busy')['rows'][0]['Busy (%)']) + ' ' + str(f('gpu-busy')['rows'][0]['Compute (%)'])")"
fi

# --- gpu-idle and rank-skew name the parts ---
run_gf --policy "$P/comm.lua" run gpu-idle "$DB"
check_contains "gpu-idle: each device's breakdown first" "$out" "device 0: compute 7.3%, communication 0.5%, copy 93.1%"
run_gf --policy "$P/comm.lua" run gpu-idle --json "$DB"
check_eq "gpu-idle --json: devices with the parts in ns" "[96000000, 96000000]" \
  "$(python3 -c 'import json,sys; print([d["h2d_ns"] for d in json.loads(sys.argv[1])["devices"]])' "$out")"
run_gf --policy "$P/comm.lua" run rank-skew --json "$DB"
check_eq "rank-skew --json: the rank's devices with their parts" "[(0, 7625000, 500000, 97000000, 6500000), (1, 7625000, 500000, 97000000, 6500000)]" \
  "$(python3 -c 'import json,sys; print([(g["device"], g["compute_ns"], g["communication_ns"], g["copy_ns"], g["idle_ns"]) for r in json.loads(sys.argv[1])["ranks"] for g in r["devices"]])' "$out")"
python3 "$TOP/tests/gen/rank_exports.py" multi "$TMP/multi.sqlite"
run_gf run rank-skew "$TMP/multi.sqlite"
check_contains "rank-skew: the straggler's compute in ms, like the table" "$out" "(compute 1.000 ms, 100.0% above the median of the other ranks 0.500 ms"
check_not_contains "rank-skew: no raw ns in the text" "$out" " ns"

# --- report: numbers of a findings document as they read back ---
RF=real/roboflow-inference
if have_fixture "$RF/nvtx_pushpop_trace.csv"; then
  A=$TMP/run
  mkdir -p "$A/stats"
  cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$A/manifest.yaml"
  cp "$FIX/$RF/nvtx_pushpop_trace.csv" "$A/stats/nsys_nvtx_pushpop_trace.csv"
  cp "$FIX/$RF/nvtx_gpu_proj_trace.csv" "$A/stats/nsys_nvtx_gpu_proj_trace.csv"
  "$GF" -q analyze --run-dir "$A" --no-export --nsys-version "NVIDIA Nsight Systems version 2025.1.3" >/dev/null
  cat >"$TMP/f.json" <<'EOF'
{"input": "x.sqlite", "findings": [{"rule": "gpu-busy", "verdict": "v", "severity": "info",
  "columns": ["Device ID", "Busy (%)"], "rows": [{"Device ID": 0, "Busy (%)": 99.4}]}]}
EOF
  run_gf report --run-dir "$A" --findings "$TMP/f.json"
  check_contains "report: 99.4 as it reads back" "$out" "| 0 | 99.4 |"
  check_not_contains "report: not 99.400000000000006" "$out" "99.400000000000006"
  # a finding that speaks of idle (nsys's gpu-starv) is shown with the devices' time by its parts
  "$GF" -q --policy "$P/comm.lua" findings -r gpu-starv -f json "$DB" >"$TMP/starv.json"
  run_gf report --run-dir "$A" --findings "$TMP/starv.json"
  check_contains "report: gpu-starv's verdict names the parts (Markdown)" "$out" \
    "GPU 0 busy 93.8% (compute 7.3%, communication 0.5%, H2D copy 92.2%, D2H copy 0.7%, D2D copy 0.3%, P2P copy 0.4%, memset 0.0%, overlap 7.2%), idle 6.2% of 104.175 ms; GPU 1 busy"
  run_gf report --run-dir "$A" --findings "$TMP/starv.json" --html
  check_contains "report: and on the page" "$(cat "$A/report.html")" "GPU 1 busy 93.8% (compute 7.3%"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["findings"][0]["breakdown"]["devices"][0]["h2d_ns"] = "x"; json.dump(d, open(sys.argv[1], "w"))' "$TMP/starv.json"
  run_gf report --run-dir "$A" --findings "$TMP/starv.json"
  check_eq "report: a damaged breakdown is bad input, named" "6" "$rc"
  check_contains "report: ... naming the field" "$err" "findings[1].breakdown.devices[1].h2d_ns must be an integer"
else
  skip "report" "no fixture $RF"
fi
t_done
