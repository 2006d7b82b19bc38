#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier of `gpuflame steps` (issue 40): on the real reports with step markers (nersc-dl: `step N` in
# two nsys eras, .nsys-rep and .qdrep; aiprof: `Batch N` above ~20k per-op PyTorch ranges, so the level must
# be picked), `steps --json REPORT` (exported by the real nsys into this file's export cache, never beside the
# fixture) gives steps whose start, end and per-device compute, copy, memset, idle and span equal SQL over
# nsys's own export (tests/real/steps_check.py, sharing nothing with gpuflame), to the ns; `diff --step median`
# of aiprof's two runs (different lengths) compares one step of each without the capture-length caveat.
# Without --step, diff compares the two runs' loops: each side's is its steps' between (equal to SQL) per iteration.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: steps of the reports"
COMM=('%nccl%' '%nvshmem%' '%allreduce%' '%all_reduce%' '%allgather%' '%all_gather%' '%reducescatter%'
      '%reduce_scatter%' '%alltoall%' '%all_to_all%') # policy gpu_time.communication's default
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$TMP/xdg-cache}

for c in "nersc-dl/baseline.nsys-rep:step \\d+:59" "nersc-dl/dali_amp_apex_jit.qdrep:step \\d+:29" \
         "aiprof/baseline_nvtx.nsys-rep:Batch \\d+:59" "aiprof/thirdOptimization.nsys-rep:Batch \\d+:59"; do
  rel=reports/${c%%:*} rest=${c#*:}; rx=${rest%:*} n=${rest##*:}
  name=$(basename "$rel")
  if ! have_fixture "$rel"; then skip "steps $rel" "fixture absent ($FIX)"; continue; fi
  run_gf steps --nsys "$MEMO_NSYS" --json "$FIX/$rel"
  check_eq "$name: steps exit 0" 0 "$rc"
  printf '%s\n' "$out" >"$TMP/$name.json"
  db=$(ls "$XDG_CACHE_HOME"/gpuflame/exports/"$(sha256sum <"$FIX/$rel" | cut -c1-64)"-*.sqlite 2>/dev/null | head -1)
  check "$name: nsys's export is in the export cache" test -f "$db"
  res=$(python3 "$TOP/tests/real/steps_check.py" "$db" "$TMP/$name.json" "$rx" "${COMM[@]}" 2>&1)
  check_eq "$name: every step's start, end and per-device parts equal SQL over nsys's export" 0 "$?"
  check_eq "$name: $n steps checked" "$n" "$(grep -c ': ok ' <<<"$res")"
  check_contains "$name: the summary, its drift included, equals SQL" "$res" "summary equal to SQL"
  check_contains "$name: the gaps between the steps (between) equal SQL" "$res" "between equal to SQL"
done
# between steps (docs/SEMANTICS.md "Steps"): aiprof's `Batch N` ranges leave its data loading out (94 % of the loop,
# the `Data loading` range in every gap); nersc-dl's baseline waits ~1.3 s after every second step with no NVTX
# range and no CUDA call there (the tutorial's data loader); with DALI the gaps are a third of the loop
for c in "baseline_nvtx.nsys-rep:True Data loading" "thirdOptimization.nsys-rep:True Data loading" \
         "baseline.nsys-rep:True -" "dali_amp_apex_jit.qdrep:False [DALI][ExternalSource] SetDataSource"; do
  [ -f "$TMP/${c%%:*}.json" ] || continue
  check_eq "${c%%:*}: most of the loop between the steps, and the range with the most time in the gaps" "${c#*:}" \
    "$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["summary"]["between"]; print(b["mostly_between"], b["ranges"][0]["name"] if b["ranges"] else "-")' "$TMP/${c%%:*}.json")"
done
# the drift on real loops (docs/SEMANTICS.md "Steps"): dali's steps' GPU work grows from ~90 to 105-134 ms over
# the second half; the other three loops are steady (within 4 % from the first third to the last)
for c in baseline.nsys-rep:None dali_amp_apex_jit.qdrep:slower baseline_nvtx.nsys-rep:None thirdOptimization.nsys-rep:None; do
  [ -f "$TMP/${c%%:*}.json" ] || continue
  check_eq "${c%%:*}: drift ${c#*:}" "${c#*:}" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["drift"]["direction"])' "$TMP/${c%%:*}.json")"
done
A=$FIX/reports/aiprof
if have_fixture reports/aiprof/baseline_nvtx.nsys-rep && have_fixture reports/aiprof/thirdOptimization.nsys-rep; then
  run_gf diff --nsys "$MEMO_NSYS" --step median --json "$A/baseline_nvtx.nsys-rep" "$A/thirdOptimization.nsys-rep"
  printf '%s\n' "$out" >"$TMP/diff.json"
  check_contains "aiprof diff --step median: compares one step of each" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["before"]["step"]["pick"], d["after"]["step"]["pick"], d["before"]["step"]["name"][:6])' "$TMP/diff.json")" "median median Batch "
  check_not_contains "aiprof diff --step median: no capture-length caveat" "$out" "Different capture lengths"
  check_eq "aiprof diff --step median: the two steps' work compared, and comparable" "True True" \
    "$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verdict"]; print(v["work_compared"], v["comparable"])' "$TMP/diff.json")"
  # the step's totals are those of the step's own GPU work (SQL: kernels, copies, memsets launched in it)
  want=$(python3 - "$XDG_CACHE_HOME" "$A/baseline_nvtx.nsys-rep" "$TMP/diff.json" <<'PY'
import glob, hashlib, json, sqlite3, sys
d = json.load(open(sys.argv[3]))["before"]["step"]
h = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
db = sqlite3.connect(glob.glob(sys.argv[1] + "/gpuflame/exports/" + h + "-*.sqlite")[0])
tot = 0
for tab in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
    tot += db.execute("SELECT coalesce(sum(g.end - g.start), 0) FROM %s g JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                      "ON r.correlationId = g.correlationId AND (r.globalTid >> 24) = (g.globalPid >> 24) "
                      "WHERE r.start >= ? AND r.start < ?" % tab, (d["start_ns"], d["end_ns"])).fetchone()[0]
print(tot)
PY
)
  check_eq "aiprof diff --step median: BEFORE's total is the step's GPU time by SQL" "$want" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["before_ns"])' "$TMP/diff.json")"
fi
# the loops of two runs (docs/DIFF.md "The loop"): each side's is its steps' between (equal to SQL above) per
# iteration; aiprof's optimisation changed the mean iteration by -7.5 % (under diff.loop_threshold), nersc-dl's DALI
# run by -81 %, nearly all of it outside the steps and their GPU work (the data loader's waits)
for c in "aiprof/baseline_nvtx.nsys-rep aiprof/thirdOptimization.nsys-rep none" \
         "nersc-dl/baseline.nsys-rep nersc-dl/dali_amp_apex_jit.qdrep outside"; do
  set -- $c
  nb=$(basename "$1") na=$(basename "$2")
  [ -f "$TMP/$nb.json" ] && [ -f "$TMP/$na.json" ] || continue
  run_gf diff --nsys "$MEMO_NSYS" --json "$FIX/reports/$1" "$FIX/reports/$2"
  printf '%s\n' "$out" >"$TMP/loop.json"
  for x in "before $nb" "after $na"; do
    set -- $x
    check_eq "diff $nb $na: $1's loop is its steps' between per iteration" \
      "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["summary"]; b=s["between"]; n=b["gaps"]; print(n, int(b["loop_ns"]/n + 0.5), int((b["loop_ns"]-b["total_ns"]+b["tail_ns"])/n + 0.5), int((b["total_ns"]-b["tail_ns"])/n + 0.5), s["median_ns"], b["median_ns"], [int(r["total_ns"]/n + 0.5) for r in b["ranges"]])' "$TMP/$2.json")" \
      "$(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["loop"][sys.argv[2]]; print(l["iterations"], l["iteration_ns"], l["in_steps_ns"], l["outside_ns"], l["step_median_ns"], l["gap_median_ns"], [r["per_iteration_ns"] for r in l["ranges"]])' "$TMP/loop.json" "$1")"
  done
  check_eq "diff $nb $na: where the change per iteration is" "${c##* }" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["loop"]["where"])' "$TMP/loop.json")"
done
t_done
