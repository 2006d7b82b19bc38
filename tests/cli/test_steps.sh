#!/usr/bin/env bash
# `gpuflame steps` (issue 40; docs/SEMANTICS.md "Steps", docs/STEPS.md), checked without gpuflame's code: the
# steps' start and end, and per step and device compute, communication, copy, memset, idle and span, the kernel
# and launch counts, equal SQL over the export (tests/real/steps_check.py: the marker ranges from NVTX_EVENTS,
# the GPU work joined to CUPTI_ACTIVITY_KIND_RUNTIME by correlation id and process, its own union of
# intervals) to the ns, on planted exports (tests/gen/steps_export.py: steps of known lengths, a slow step, a
# warm-up, ProfilerStep#N under an Epoch range and above per-op ranges, a helper thread, another process) whose
# numbers are also known by construction, and on the real cs336 export (`Warm-up Step N`); several ranks
# (tests/gen/rank_exports.py: rank 1 computes 1.5x longer) side by side; the fallback rule; --step of collapse,
# flamegraph and diff; the --html page's structure; a GPU-bound loop (its steps timed by their GPU work).
. "$(dirname "$0")/../lib/t.sh"

GEN=$TOP/tests/gen/steps_export.py
CHECK=$TOP/tests/real/steps_check.py
COMM=('%nccl%' '%nvshmem%' '%allreduce%' '%all_reduce%' '%allgather%' '%all_gather%' '%reducescatter%'
      '%reduce_scatter%' '%alltoall%' '%all_to_all%') # policy gpu_time.communication's default

# j FILE EXPR: EXPR (Python) over the JSON document in FILE (d)
j() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# --- planted: ProfilerStep#N, known by construction ---
DB=$TMP/train.sqlite
python3 "$GEN" train "$DB"
run_gf steps --json "$DB"
check_eq "train: exit 0" 0 "$rc"
printf '%s\n' "$out" >"$TMP/train.json"
res=$(python3 "$CHECK" "$DB" "$TMP/train.json" 'ProfilerStep#\d+' "${COMM[@]}")
check_eq "train: every step's start, end and per-device parts equal SQL over the export" 0 "$?"
check_eq "train: 8 steps checked" 8 "$(grep -c ': ok ' <<<"$res")"
check_eq "train: the rule names the marker" "marker ^ProfilerStep#%d+\$" "$(j "$TMP/train.json" "d['rule']['kind'] + ' ' + d['rule']['pattern']")"
check_eq "train: steps in time order, index 0..7" "[0, 1, 2, 3, 4, 5, 6, 7]" "$(j "$TMP/train.json" "[s['index'] for s in d['steps']]")"
check_eq "train: durations as planted (ms)" "[25.0, 10.0, 10.0, 10.0, 10.0, 30.0, 10.0, 10.0]" \
  "$(j "$TMP/train.json" "[s['duration_ns'] / 1e6 for s in d['steps']]")"
# step 1: GEMMs [0.3,1.3) [2.75,3.75) [5.2,6.2) [10.1,11.1) ms after its start, the helper thread's [5,7):
# compute 5 ms; the H2D copy 0.5 ms, the memset 0.1 ms; span 10.8 ms (its last kernel runs after the step)
check_eq "train: step 1 as planted (compute, copy, memset, span, idle, kernels, launches)" \
  "[5000000, 500000, 100000, 10800000, 5700000, 5, 7]" \
  "$(j "$TMP/train.json" "[d['steps'][1]['devices'][0][k] for k in ('compute_ns', 'copy_ns', 'memset_ns', 'span_ns', 'idle_ns')] + [d['steps'][1]['kernels'], d['steps'][1]['launches']]")"
check_eq "train: step 5 (3 ms GEMMs): compute 14 ms" 14000000 "$(j "$TMP/train.json" "d['steps'][5]['compute_ns']")"
check_eq "train: only device 0 (the other process's kernel is not the step's)" "True" \
  "$(j "$TMP/train.json" "[[x['device'] for x in s['devices']] for s in d['steps']] == [[0]] * 8")"
check_eq "train: step 0 is warm-up, the rest not" "[True, False, False, False, False, False, False, False]" \
  "$(j "$TMP/train.json" "[s['warmup'] for s in d['steps']]")"
check_eq "train: step 5 is the one outlier" "[5]" "$(j "$TMP/train.json" "d['summary']['outliers']")"
check_eq "train: summary median, p90, max, slowest (warm-up left out)" "[10000000, 30000000, 30000000, 5, 7]" \
  "$(j "$TMP/train.json" "[d['summary'][k] for k in ('median_ns', 'p90_ns', 'max_ns', 'slowest', 'counted')]")"
check_eq "train: top kernel of step 5" "ampere_sgemm_128x64_tn 4 12000000" \
  "$(j "$TMP/train.json" "' '.join(str(d['steps'][5]['top_kernels'][0][k]) for k in ('name', 'count', 'total_ns'))")"
check_eq "train: top NVTX ranges one level below the marker, grouped by policy nvtx.group (4 emit_nvtx calls)" \
  "aten::mm 4" "$(j "$TMP/train.json" "d['steps'][1]['top_nvtx'][0]['name'] + ' ' + str(d['steps'][1]['top_nvtx'][0]['count'])")"

# NVTX marks (eventType 34, no end) named like steps are points, not steps
cp "$DB" "$TMP/marks.sqlite"
sqlite3 "$TMP/marks.sqlite" "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId)
  SELECT start + 1000, NULL, 34, 'ProfilerStep#' || (100 + rowid), globalTid, 0 FROM NVTX_EVENTS
  WHERE text LIKE 'ProfilerStep#%'"
run_gf steps --json "$TMP/marks.sqlite"
check_eq "NVTX marks named like steps: still the 8 ranges" 8 \
  "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["steps"]))' <<<"$out")"

# text output
run_gf steps "$DB"
check_contains "text: the rule" "$out" "steps: NVTX ranges matching ^ProfilerStep#%d+\$ (PyTorch profiler (ProfilerStep#N))"
check_contains "text: the summary" "$out" "summary: 8 steps (1 warm-up left out), median 10.000 ms, p90 30.000 ms, max 30.000 ms (step 5); 1 outlier(s): 5"

# --- jitter only: no outlier; Batch N found by policy ---
python3 "$GEN" noisy "$TMP/noisy.sqlite"
run_gf steps --json "$TMP/noisy.sqlite"
printf '%s\n' "$out" >"$TMP/noisy.json"
check_eq "noisy: Batch N steps, no outlier" "batch N []" "$(j "$TMP/noisy.json" "d['rule']['convention'] + ' ' + str(d['summary']['outliers'])")"
python3 "$CHECK" "$TMP/noisy.sqlite" "$TMP/noisy.json" 'Batch \d+' "${COMM[@]}" >/dev/null
check_eq "noisy: equals SQL" 0 "$?"

# --- a GPU-bound loop: each step's time is its GPU work where that outlasts its CPU range ---
python3 "$GEN" gpubound "$TMP/gpubound.sqlite"
run_gf steps --json "$TMP/gpubound.sqlite"
printf '%s\n' "$out" >"$TMP/gpubound.json"
res=$(python3 "$CHECK" "$TMP/gpubound.sqlite" "$TMP/gpubound.json" 'step \d+' "${COMM[@]}")
check_eq "gpubound: every step and the summary (median, outliers, slowest, GPU-bound count) equal SQL" 0 "$?"
check_contains "gpubound: the summary was checked" "$res" "summary equal to SQL"
check_eq "gpubound: times as planted (ms): the 9.5 ms kernel, or the 10 ms CPU range of steps 4 and 6" \
  "[9.5, 9.5, 9.5, 9.5, 10.0, 9.5, 10.0, 9.5]" "$(j "$TMP/gpubound.json" "[s['time_ns'] / 1e6 for s in d['steps']]")"
check_eq "gpubound: no outlier (the CPU ranges alone would flag steps 4 and 6), median 9.5 ms, slowest 4" \
  "[] 9500000 4 5" "$(j "$TMP/gpubound.json" "' '.join(str(d['summary'][k]) for k in ('outliers', 'median_ns', 'slowest', 'gpu_bound'))")"
run_gf steps "$TMP/gpubound.sqlite"
check_contains "gpubound: the text says which steps are GPU-bound and what their CPU ranges took" "$out" \
  "0 outlier(s); 5 of 7 steps GPU-bound: their busiest GPU's work outlasts their CPU range (median 5.000 ms)"
check_contains "gpubound: a GPU-bound step is flagged so" "$out" "gpu-bound"
run_gf collapse --step median "$TMP/gpubound.sqlite"
check_contains "gpubound: --step median is the step whose time is nearest the median (step 1), not its CPU range's" \
  "$err" "step 1 (step 1, the median step)"

# --- between steps: a loop whose data loading lies between its steps (as aiprof's and nersc-dl's do) ---
python3 "$GEN" loader "$TMP/loader.sqlite"
run_gf steps --json "$TMP/loader.sqlite"
printf '%s\n' "$out" >"$TMP/loader.json"
res=$(python3 "$CHECK" "$TMP/loader.sqlite" "$TMP/loader.json" 'step \d+' "${COMM[@]}")
check_eq "loader: every step, its gap and the summary's between equal SQL" 0 "$?"
check_contains "loader: between was checked" "$res" "between equal to SQL (6 gaps"
check_eq "loader: the gap after each step as planted (ms); none after the last" \
  "[20.0, 20.0, 20.0, 20.0, 60.0, 20.0, 20.0, None]" \
  "$(j "$TMP/loader.json" "[s['gap_ns'] / 1e6 if s['gap_ns'] is not None else None for s in d['steps']]")"
check_eq "loader: 6 gaps after counted steps, 160 of 220 ms, the steps' work 18 ms into them, median 20, longest 60 after step 4" \
  "6 220000000 160000000 18000000 20000000 60000000 4 True" \
  "$(j "$TMP/loader.json" "' '.join(str(d['summary']['between'][k]) for k in ('gaps', 'loop_ns', 'total_ns', 'tail_ns', 'median_ns', 'max_ns', 'longest_after', 'mostly_between'))")"
check_eq "loader: the gaps' outermost ranges on the steps' thread (not the nested one, the helper's, the one running into the next step)" \
  "Data loading 6 102000000, log 6 6000000" \
  "$(j "$TMP/loader.json" "', '.join('%s %d %d' % (r['name'], r['count'], r['total_ns']) for r in d['summary']['between']['ranges'])")"
check_eq "loader: the GPU work launched in the gaps (any thread of the process): kernels, copies, calls, busy, compute" \
  "6 6 12 15000000 12000000" \
  "$(j "$TMP/loader.json" "' '.join(str(d['summary']['between'][k]) for k in ('kernels', 'copies', 'launches', 'busy_ns', 'compute_ns'))")"
run_gf steps "$TMP/loader.sqlite"
check_contains "loader: the text gives the share and says the steps' times leave most of the loop out" "$out" \
  "between steps: 72.7 % of the loop (160.000 ms of 220.000 ms in 6 gaps after the counted steps; median gap 20.000 ms, longest 60.000 ms after step 4); the steps' GPU work ran on into them for 18.000 ms: 64.5 % of the loop is outside both: most of the loop"
check_contains "loader: ... and what is in the gaps" "$out" \
  "in the gaps: NVTX ranges on the steps' thread: Data loading 102.000 ms (6), log 6.000 ms (6); GPU work launched: 6 kernels, 6 copies, 0 memsets, busy 15.000 ms"
printf 'return { steps = { between_share = 0.7 } }\n' >"$TMP/between70.lua"
run_gf --policy "$TMP/between70.lua" steps "$TMP/loader.sqlite"
check_contains "loader: policy between_share = 0.7: 64.5 % is not most of the loop" "$out" "64.5 % of the loop is outside both"
check_not_contains "loader: ... so the text does not say so" "$out" "most of the loop"
# the same loop with nothing recorded in its gaps (nersc-dl's baseline waits ~1.3 s so): the text says so
cp "$TMP/loader.sqlite" "$TMP/bare.sqlite"
sqlite3 "$TMP/bare.sqlite" "DELETE FROM NVTX_EVENTS WHERE text NOT LIKE 'step %';
  DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY; DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = 0 AND streamId = 9"
run_gf steps "$TMP/bare.sqlite"
check_contains "bare gaps: most of the loop, and nothing in it named" "$out" \
  "in the gaps: no NVTX range of the steps' thread and no GPU work launched: nothing the capture recorded says what the loop does then"
run_gf steps "$TMP/noisy.sqlite"
check_not_contains "noisy: its 2 ms gaps are not most of the loop: no such line" "$out" "in the gaps: no NVTX range"
check_eq "noisy: 2 ms gaps between 10 ms steps: a small share, not most of the loop" "0.17 False" \
  "$(j "$TMP/noisy.json" "'%.2f %s' % (d['summary']['between']['share'], d['summary']['between']['mostly_between'])")"

# --- a loop that slows down, or speeds up, over the run: a drift, no outlier ---
for v in drift speedup; do
  python3 "$GEN" $v "$TMP/$v.sqlite"
  run_gf steps --json "$TMP/$v.sqlite"
  printf '%s\n' "$out" >"$TMP/$v.json"
  res=$(python3 "$CHECK" "$TMP/$v.sqlite" "$TMP/$v.json" 'step \d+' "${COMM[@]}")
  check_eq "$v: every step and the summary, its drift included, equal SQL" 0 "$?"
  check_contains "$v: the summary was checked" "$res" "summary equal to SQL"
done
check_eq "drift: no outlier; thirds of 3 steps, medians 10 and 12.4 ms, every later step slower: slower" \
  "[] 3 10000000 12400000 1 slower" "$(j "$TMP/drift.json" "' '.join(str(x) for x in [d['summary']['outliers']] + [d['summary']['drift'][k] for k in ('steps_per_third', 'first_median_ns', 'last_median_ns', 'later_slower', 'direction')])")"
check_eq "speedup: the same in reverse: faster" "[] 12400000 10000000 0 faster" \
  "$(j "$TMP/speedup.json" "' '.join(str(x) for x in [d['summary']['outliers']] + [d['summary']['drift'][k] for k in ('first_median_ns', 'last_median_ns', 'later_slower', 'direction')])")"
run_gf steps "$TMP/drift.sqlite"
check_contains "drift: the text says so" "$out" \
  "drift: the steps get slower over the run: the last third's median 12.400 ms against the first third's 10.000 ms (+24.0 %); the later step is the slower in 100 % of the pairs"
check_contains "drift: ... and which part of the steps' GPU work grew most: idle (the GPU work is the same)" "$out" \
  "; idle grew most (median 5.700 ms to 7.450 ms)"
run_gf steps "$TMP/speedup.sqlite"
check_contains "speedup: the text says so" "$out" "drift: the steps get faster over the run"
check_contains "speedup: ... and which part shrank most" "$out" "; idle shrank most (median 7.450 ms to 5.700 ms)"
check_eq "noisy: 7 counted steps, too few to judge a drift (null)" "None" "$(j "$TMP/noisy.json" "d['summary']['drift']")"
printf 'return { steps = { drift_min_share = 0.3 } }\n' >"$TMP/drift30.lua"
run_gf --policy "$TMP/drift30.lua" steps --json "$TMP/drift.sqlite"
check_eq "drift: policy drift_min_share = 0.3: +24 % is no drift" "None" "$(j /dev/stdin "d['summary']['drift']['direction']" <<<"$out")"
run_gf steps "$DB"
check_not_contains "train: no drift line" "$out" "drift:"

# --- the fallback: no marker in the policy ---
P=$TMP/policies; mkdir -p "$P"; chmod 755 "$P"
printf 'return { steps = { markers = {} } }\n' >"$P/nomarkers.lua"
run_gf --policy "$P/nomarkers.lua" steps --json "$DB"
printf '%s\n' "$out" >"$TMP/fb.json"
check_eq "fallback: the repeating range under the one Epoch range (level 1), not the per-op ranges" \
  "fallback ['ProfilerStep#N'] 1 8" "$(j "$TMP/fb.json" "d['rule']['kind'] + ' ' + str(d['rule']['names']) + ' ' + str(d['rule']['depth']) + ' ' + str(len(d['steps']))")"
python3 "$CHECK" "$DB" "$TMP/fb.json" 'ProfilerStep#\d+' "${COMM[@]}" >/dev/null
check_eq "fallback: the same steps, equal to SQL" 0 "$?"
run_gf steps --marker '^aten::mm' --json "$DB"
check_eq "--marker: a Lua pattern chooses the ranges" 32 "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["steps"]))' <<<"$out")"
run_gf steps --marker '^nothing' "$DB"
check_eq "--marker matching nothing: exit 5 (no data)" 5 "$rc"
check_contains "--marker matching nothing: says so" "$err" "no steps: no NVTX range matches --marker ^nothing"
run_gf steps --marker '[' "$DB"
check_eq "--marker not a pattern: exit 2" 2 "$rc"
run_gf steps "$TOP/tests/cases/data/nonexistent.sqlite"
check_eq "missing input: exit 6" 6 "$rc"

# --- several ranks: rank 1 computes 1.5x longer in every step ---
python3 "$TOP/tests/gen/rank_exports.py" job "$TMP/job" --ranks 2 --slow 1 --factor 1.5 --steps 5
run_gf steps --json "$TMP/job/rank0.sqlite" "$TMP/job/rank1.sqlite"
check_eq "ranks: exit 0" 0 "$rc"
printf '%s\n' "$out" >"$TMP/ranks.json"
check_eq "ranks: 5 steps per rank, side by side" "5 ['rank 0', 'rank 1']" \
  "$(j "$TMP/ranks.json" "str(len(d['ranks'])) + ' ' + str([r['rank'] for r in d['ranks'][0]['ranks']])")"
check_eq "ranks: rank 1 slowest in every step, above the noise floor (each)" "5" \
  "$(j "$TMP/ranks.json" "sum(1 for r in d['ranks'] if r['slowest']['rank'] == 'rank 1' and r['above_noise'])")"
# the margin equals the compute difference SQL gives for each rank's step (each export alone)
for r in 0 1; do
  run_gf steps --json "$TMP/job/rank$r.sqlite"
  printf '%s\n' "$out" >"$TMP/rank$r.json"
  python3 "$CHECK" "$TMP/job/rank$r.sqlite" "$TMP/rank$r.json" 'step \d+' "${COMM[@]}" >/dev/null
  check_eq "ranks: rank $r alone equals SQL (its NCCL kernel is communication)" 0 "$?"
done
check_eq "ranks: the merged steps' compute equals each export's" \
  "$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); print([s["compute_ns"] for s in a["steps"] + b["steps"]])' "$TMP/rank0.json" "$TMP/rank1.json")" \
  "$(j "$TMP/ranks.json" "[s['compute_ns'] for s in d['steps']]")"
check_eq "ranks: the margin is rank 1's compute minus rank 0's" \
  "$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); print([y["compute_ns"] - x["compute_ns"] for x, y in zip(a["steps"], b["steps"])])' "$TMP/rank0.json" "$TMP/rank1.json")" \
  "$(j "$TMP/ranks.json" "[r['margin_ns'] for r in d['ranks']]")"
# the text: which rank is the slowest how often, a line per step; past policy steps.text_rows (3 here), the steps
# with the largest margins above the noise floor (the margins the JSON gives, checked against SQL above)
run_gf steps "$TMP/job/rank0.sqlite" "$TMP/job/rank1.sqlite"
check_contains "ranks text: how often each rank is the slowest" "$out" \
  "slowest rank of each of the 5 steps: rank 1 in 5 (above the noise floor in 5)"
check_eq "ranks text: a line per step" 5 "$(grep -c '^step [0-9]*: slowest' <<<"$out")"
printf 'return { steps = { text_rows = 3 } }\n' >"$TMP/rows3.lua"
run_gf --policy "$TMP/rows3.lua" steps "$TMP/job/rank0.sqlite" "$TMP/job/rank1.sqlite"
check_eq "ranks text, text_rows 3: the 3 steps with the largest margins, in step order" \
  "$(j "$TMP/ranks.json" "' '.join(str(r['index']) for r in sorted(sorted(d['ranks'], key=lambda r: -r['margin_ns'])[:3], key=lambda r: r['index']))")" \
  "$(sed -n 's/^step \([0-9]*\): slowest.*/\1/p' <<<"$out" | paste -sd' ')"
check_contains "... and says so" "$out" "… 3 of the 5 steps' lines shown: the largest margins above the noise floor"
# between steps per rank: each process's summary.between in the merged document is its export's alone (checked
# against SQL above; the clocks' alignment moves no gap), and the run's sums both
check_eq "ranks: each process's between equals its export's alone, and the run's sums them" True \
  "$(python3 - "$TMP/ranks.json" "$TMP/rank0.json" "$TMP/rank1.json" <<'PY'
import json, sys
m, a, b = (json.load(open(f)) for f in sys.argv[1:])
keys = ("gaps", "loop_ns", "total_ns", "tail_ns", "max_ns", "ranges", "kernels", "launches", "busy_ns")
alone = [a["summary"]["between"], b["summary"]["between"]]
per = [p["between"] for p in m["processes"]]
run = m["summary"]["between"]
print(alone[0]["gaps"] > 0 and all(per[i][k] == alone[i][k] for i in (0, 1) for k in keys) and
      all(run[k] == alone[0][k] + alone[1][k] for k in ("gaps", "loop_ns", "total_ns", "tail_ns", "kernels")))
PY
)"

python3 "$TOP/tests/gen/rank_exports.py" job "$TMP/even" --ranks 2 --steps 5 # no slow rank: jitter only
run_gf steps --json "$TMP/even/rank0.sqlite" "$TMP/even/rank1.sqlite"
printf '%s\n' "$out" >"$TMP/even.json"
check_eq "ranks without a slow one: no step's slowest rank is above rank-skew's noise floor" "0" \
  "$(j "$TMP/even.json" "sum(1 for r in d['ranks'] if r['above_noise'])")"

# --- the real cs336 export: Warm-up Step N ---
rel=real/cs336-jsun012/result.sqlite
if have_fixture "$rel"; then
  run_gf steps --json "$FIX/$rel"
  printf '%s\n' "$out" >"$TMP/cs.json"
  res=$(python3 "$CHECK" "$FIX/$rel" "$TMP/cs.json" 'Warm-up Step \d+' "${COMM[@]}")
  check_eq "cs336: the steps equal SQL over the export" 0 "$?"
  check_eq "cs336: 5 steps checked" 5 "$(grep -c ': ok ' <<<"$res")"
  check_eq "cs336: every step is warm-up: counted in the summary, and said so" "True 5" \
    "$(j "$TMP/cs.json" "str(d['summary']['warmup_included']) + ' ' + str(d['summary']['counted'])")"
else
  skip "cs336 steps" "fixture absent ($FIX/$rel)"
fi

# --- the fallback on a real export: the user's `saxpy` ranges, not the MPI domain's wrappers around them ---
rel=real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
if have_fixture "$rel"; then
  run_gf steps --json "$FIX/$rel"
  printf '%s\n' "$out" >"$TMP/pipit.json"
  check_eq "pipit: the fallback takes the default domain's repeating range" "fallback ['saxpy'] 5" \
    "$(j "$TMP/pipit.json" "d['rule']['kind'] + ' ' + str(d['rule']['names']) + ' ' + str(len(d['steps']))")"
  python3 "$CHECK" "$FIX/$rel" "$TMP/pipit.json" 'saxpy' "${COMM[@]}" >/dev/null
  check_eq "pipit: its steps equal SQL over the export" 0 "$?"
fi

# --- --step of collapse, flamegraph, diff ---
run_gf collapse --step 5 "$DB"
check_eq "collapse --step 5: exit 0" 0 "$rc"
check_eq "collapse --step 5: the step's GPU time (12 ms of GEMMs, 2 ms helper, copy, memset)" 14600000 \
  "$(awk '{s += $NF} END {print s}' <<<"$out")"
check_not_contains "collapse --step 5: no other step's work" "$out" "ProfilerStep#4"
check_not_contains "collapse --step 5: no other process's work" "$out" "other_process_kernel"
run_gf collapse --step slowest "$DB"
check_contains "collapse --step slowest: step 5" "$out" "ProfilerStep#5;"
run_gf collapse --step median "$DB"
check_contains "collapse --step median: a 10 ms step (the first: step 1)" "$out" "ProfilerStep#1;"
check_contains "collapse --step median: says which step" "$err" "step 1 (ProfilerStep#1, the median step)"
run_gf collapse --step 99 "$DB"
check_eq "collapse --step 99: usage error" 2 "$rc"
if have_fixture gprofiler/KERN_CSV.csv; then
  run_gf collapse --step 0 "$FIX/gprofiler/KERN_CSV.csv"
  check_eq "collapse --step on a stats CSV: usage error" 2 "$rc"
  check_contains "collapse --step on a stats CSV: says why" "$err" "--step needs an SQLite export"
fi
run_gf flamegraph --step slowest -o "$TMP/fg.html" "$DB"
check_eq "flamegraph --step slowest: exit 0" 0 "$rc"
check_contains "flamegraph --step: the subtitle names the step" "$(<"$TMP/fg.html")" "step 5 (ProfilerStep#5, the slowest step)"
run_gf diff --step median --json "$DB" "$TMP/noisy.sqlite"
check_contains "diff --step median: the sides name their steps (BEFORE)" "$out" '"name": "ProfilerStep#1"'
check_contains "diff --step median: the sides name their steps (AFTER: the 10.0 ms Batch 4)" "$out" '"name": "Batch 4"'
check_not_contains "diff --step median: no capture-length caveat" "$out" "Different capture lengths"
# the work of one step each (4 GEMMs, a helper kernel, a copy, a memset; the same in both): comparable
run_gf diff --step median --json "$DB" "$TMP/noisy.sqlite"
check_eq "diff --step median: the steps' work compared: comparable, kernel instances of one step" "True True 4" \
  "$(python3 -c 'import json,sys; d=json.load(sys.stdin); v=d["verdict"]; print(v["work_compared"], v["comparable"], [k for k in d["kernels"] if k["name"].startswith("ampere")][0]["before"]["instances"])' <<<"$out" 2>&1)"
printf '%s\n' "$out" >"$TMP/diffstep.json"
check_eq "diff --step median: each side's step time is the one \`steps --json\` gives that step" \
  "$(j "$TMP/train.json" "[s['time_ns'] for s in d['steps'] if s['index'] == 1][0]") $(j "$TMP/noisy.json" "[s['time_ns'] for s in d['steps'] if s['index'] == 4][0]")" \
  "$(j "$TMP/diffstep.json" "str(d['before']['step']['time_ns']) + ' ' + str(d['after']['step']['time_ns'])")"
# whole captures of different lengths (ANALYSIS_DETAILS' duration planted: 0.1 s against 0.2 s), both with steps:
# the capture-length caveat says how many each has and points at --step median; one without NVTX gets no advice
for c in train noisy; do
  cp "$TMP/$c.sqlite" "$TMP/len_$c.sqlite"
done
python3 -c 'import sqlite3, sys
for path, ns in ((sys.argv[1], 100000000), (sys.argv[2], 200000000)):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE ANALYSIS_DETAILS (duration INTEGER)")
    db.execute("INSERT INTO ANALYSIS_DETAILS VALUES (?)", (ns,))
    db.commit()' "$TMP/len_train.sqlite" "$TMP/len_noisy.sqlite"
run_gf diff -o "$TMP/len.html" "$TMP/len_train.sqlite" "$TMP/len_noisy.sqlite"
check_contains "diff of captures of different lengths, both with steps: the caveat points at --step median" "$err" \
  "Both captures have steps (8 and 8): --step median compares one step of each, and the loop comparison is per iteration."
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DELETE FROM NVTX_EVENTS")
db.commit()' "$TMP/len_noisy.sqlite"
run_gf diff -o "$TMP/len.html" "$TMP/len_train.sqlite" "$TMP/len_noisy.sqlite"
check_contains "one side without steps: the capture-length caveat" "$err" "Different capture lengths (100.000 ms vs 200.000 ms"
check_not_contains "one side without steps: no --step advice" "$err" "--step median compares"
run_gf diff --step median -o "$TMP/diffstep.html" "$DB" "$TMP/noisy.sqlite"
check_contains "diff --step median: stderr names both steps and their times" "$err" \
  "median step: step 1 of 8 (10.000 ms) → step 4 of 8 (10.000 ms)"
check_not_contains "diff --step median of loops with 2 ms gaps: no between-steps caveat" "$err" "leave out most of the loop"
# one step of each where the steps leave out most of the loop (the loader loop: 64.5 % outside the steps and their
# GPU work, noisy's 2 ms gaps): a caveat with each side's share as `steps` gives it
run_gf diff --step median --json "$TMP/loader.sqlite" "$TMP/noisy.sqlite"
check_eq "diff --step median, a loader loop: the between-steps caveat carries each side's outside share" \
  "$(j "$TMP/loader.json" "d['summary']['between']['outside_share']") $(j "$TMP/noisy.json" "d['summary']['between']['outside_share']")" \
  "$(python3 -c 'import json,sys; c=[x for x in json.load(sys.stdin)["caveats"] if x["field"] == "between_steps"]; print(c[0]["before"], c[0]["after"])' <<<"$out")"
run_gf diff --step median -o "$TMP/diffloader.html" "$TMP/loader.sqlite" "$TMP/noisy.sqlite"
check_contains "diff --step median, a loader loop: the warning says so and names what fills the gaps" "$err" \
  "The steps leave out most of the loop (64.5% of BEFORE's and 7.5% of AFTER's lie outside the steps and their GPU work, in the gaps: Data loading): one step of each compares none of that time"

# --- the text table of many steps: at most policy steps.text_rows rows (the first and last, the slowest, the
# outliers furthest from the median); --all every one ---
printf 'return { steps = { text_rows = 4 } }\n' >"$TMP/rows4.lua"
run_gf --policy "$TMP/rows4.lua" steps "$DB"
check_eq "text_rows 4 of 8 steps: step 0, the slowest (5, the outlier) and the last, a line for each run left out" \
  "0|… 4 steps not shown|5|… 1 step not shown|7" \
  "$(awk 'NR > 2 && /^ *[0-9]+  ProfilerStep/ { print $1 } /not shown/ { sub(/^ +/, ""); print }' <<<"$out" | paste -sd'|')"
check_contains "... and says how many it shows and where the rest are" "$out" "table: 3 of 8 steps"
run_gf --policy "$TMP/rows4.lua" steps --all "$DB"
check_eq "--all: every step" 8 "$(grep -c '^ *[0-9]\+  ProfilerStep' <<<"$out")"
check_not_contains "--all: no table line" "$out" "table:"
run_gf steps "$DB"
check_not_contains "8 steps under the default text_rows (60): no table line" "$out" "not shown"
# the outliers named in the summary: at most text_rows // 3 (every step off the median is one under a zero MAD rule)
printf 'return { steps = { text_rows = 6, outlier_mad = 0, outlier_min_share = 0 } }\n' >"$TMP/out6.lua"
run_gf --policy "$TMP/out6.lua" steps --json "$TMP/noisy.sqlite"
all_out=$(python3 -c 'import json,sys; print(", ".join(str(i) for i in json.load(sys.stdin)["summary"]["outliers"]))' <<<"$out")
run_gf --policy "$TMP/out6.lua" steps "$TMP/noisy.sqlite"
check_contains "the summary names text_rows // 3 (2) outliers and how many more" "$out" \
  "outlier(s): $(cut -d, -f1-2 <<<"$all_out") and $(( $(tr ',' '\n' <<<"$all_out" | wc -l) - 2 )) more"
run_gf --policy "$TMP/out6.lua" steps --all "$TMP/noisy.sqlite"
check_contains "--all: every outlier" "$out" "outlier(s): $all_out"

# --- findings name the step their rows fall in: each planted copy starts 3 ms into its step ---
run_gf findings -r cuda-async-memcpy -f json "$DB"
printf '%s\n' "$out" >"$TMP/findings.json"
check_eq "findings: the pageable copies' finding names the step of each row" "[(0, 'ProfilerStep#0', 1), (1, 'ProfilerStep#1', 1), (2, 'ProfilerStep#2', 1), (3, 'ProfilerStep#3', 1), (4, 'ProfilerStep#4', 1), (5, 'ProfilerStep#5', 1), (6, 'ProfilerStep#6', 1), (7, 'ProfilerStep#7', 1)]" \
  "$(j "$TMP/findings.json" "[(e['index'], e['name'], e['rows']) for e in d['findings'][0]['steps']]")"
run_gf findings -r cuda-async-memcpy "$DB"
check_contains "findings text: the steps named under the verdict" "$out" "in step 0 (ProfilerStep#0: 1 row), step 1 (ProfilerStep#1: 1 row)"
python3 "$TOP/tests/gen/busy_export.py" copybound "$TMP/nosteps.sqlite"
run_gf findings -r cuda-async-memcpy -f json "$TMP/nosteps.sqlite"
check_not_contains "findings without steps in the capture: no steps field" "$out" '"steps"'

# --- analyze --from-export without a manifest falls back to the steps ---
mkdir -p "$TMP/run"
cp "$DB" "$TMP/run/trace.sqlite"
run_gf analyze --run-dir "$TMP/run" --from-export
check_eq "analyze --from-export without manifest.yaml: exit 0" 0 "$rc"
check_eq "analyze --from-export without manifest.yaml: writes the steps" "Wrote steps: $TMP/run/steps.json" "$out"
check_contains "analyze --from-export without manifest.yaml: says so" "$err" "no manifest: the steps found in the capture"
check_eq "analyze fallback: the steps document, as steps --json gives it" "$(j "$TMP/train.json" "[(s['start_ns'], s['compute_ns']) for s in d['steps']]")" \
  "$(j "$TMP/run/steps.json" "[(s['start_ns'], s['compute_ns']) for s in d['steps']]")"
run_gf analyze --run-dir "$TMP/run"
check_eq "analyze without --from-export and without manifest.yaml: still the spec's error (exit 6)" 6 "$rc"

# --- the page ---
run_gf steps --html "$TMP/steps.html" "$DB"
check_eq "steps --html: exit 0" 0 "$rc"
check_contains "steps --html: the document in the page" "$(<"$TMP/steps.html")" '"rule_text":'
t_done
