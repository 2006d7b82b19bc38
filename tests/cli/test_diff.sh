#!/usr/bin/env bash
# gf-test: slow
# gpuflame diff (issue 13): golden JSON on real fixture pairs (an export against itself is all-zero; one
# kernel's durations scaled x2 on a temp copy leads the table at +100%), the verdict's exit codes and
# policy overrides, kernel-name normalisation, NVTX analyses sent to `compare`, capture directories and
# .nsys-rep inputs imported once, --folded read back by `gpuflame flamegraph`, nothing of the captures'
# command lines or environments in any output.
. "$(dirname "$0")/../lib/t.sh"

GOLD=$TOP/tests/data/diff
norm() { python3 "$TOP/tests/lib/diff_json.py" "$1"; }
# golden NAME JSONFILE: compares the normalised JSON with tests/data/diff/NAME.json (GF_UPDATE_GOLDEN=1 rewrites it)
golden() {
  local name=$1 got; got=$(norm "$2")
  if [ "${GF_UPDATE_GOLDEN:-}" = 1 ]; then printf '%s\n' "$got" >"$GOLD/$1.json"; fi
  if [ "$got" == "$(cat "$GOLD/$name.json" 2>/dev/null)" ]; then ok "golden $name"
  else not_ok "golden $name" "$(diff <(printf '%s\n' "$got") "$GOLD/$name.json" | head -20)"; fi
}
# jq-less field access: jget FILE PYTHON-EXPR (d is the document)
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# secret_absent NAME FILE SECRET: SECRET must not occur in FILE (the secret itself is never printed)
secret_absent() { if grep -qF -- "$3" "$2"; then not_ok "$1" "a sensitive value from META_DATA_CAPTURE appears in $(basename "$2")"; else ok "$1"; fi; }

cd "$TMP" || exit 1
run_gf diff
check_eq "no inputs: usage error (exit 2)" 2 "$rc"
run_gf diff a
check_eq "one input: usage error (exit 2)" 2 "$rc"
run_gf diff "$TMP/none1" "$TMP/none2"
check_eq "missing input: bad input (exit 6)" 6 "$rc"
check_contains "missing input named" "$err" "$TMP/none1"

# NVTX analyses belong to `compare`
AJ=$TOP/tests/data/nvtx_roboflow_analysis.json
run_gf diff "$AJ" "$AJ"
check_eq "two analysis.json: exit 2" 2 "$rc"
check_contains "two analysis.json: says to use compare" "$err" "gpuflame compare"
mkdir -p "$TMP/rundir" && cp "$AJ" "$TMP/rundir/analysis.json"
run_gf diff "$TMP/rundir" "$AJ"
check_eq "run directory + analysis.json: exit 2, compare" "2|1" "$rc|$([[ $err == *compare* ]] && echo 1)"

if ! have_fixture real/test-cuda/report1.sqlite; then
  skip "diff on fixtures" "fixtures absent"
  t_done
fi
TC=$FIX/real/test-cuda/report1.sqlite
DL=$FIX/reports/dlprof/nsys_profile.sqlite

# --- an export against itself: all zero, no regression, exit 0 ---
run_gf diff "$TC" "$TC" --json
check_eq "self diff: exit 0" 0 "$rc"
printf '%s\n' "$out" >"$TMP/self.json"
golden self_test-cuda "$TMP/self.json"
check_eq "self diff: every delta zero" "0 0 set()" "$(jget "$TMP/self.json" 'd["total"]["delta_ns"], sum(abs(k["delta_ns"]) for k in d["kernels"]), set(k["status"] for k in d["kernels"]) - {"same"}')"
check_eq "self diff: no caveats, nothing new or vanished" "0 0 0" "$(jget "$TMP/self.json" 'len(d["caveats"]), len(d["new"]), len(d["vanished"])')"
check "--json without -o writes no page" test ! -e "$TMP/diff.html"

# --- one kernel's durations x2 on a temp copy: it leads the table at +100%, regression (exit 10) ---
if have_fixture reports/dlprof/nsys_profile.sqlite; then
  cp "$DL" "$TMP/before.sqlite"; cp "$DL" "$TMP/after.sqlite"; chmod u+w "$TMP/after.sqlite"
  K=volta_scudnn_128x32_relu_interior_nn_v1
  sqlite3 "$TMP/after.sqlite" "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET [end] = start + 2 * ([end] - start)
    WHERE demangledName = (SELECT id FROM StringIds WHERE value = '$K')"
  run_gf diff "$TMP/before.sqlite" "$TMP/after.sqlite" --json --folded "$TMP/scaled.folded" -o "$TMP/scaled.html"
  check_eq "scaled kernel: regression, exit 10" 10 "$rc"
  printf '%s\n' "$out" >"$TMP/scaled.json"
  golden dlprof_scaled "$TMP/scaled.json"
  check_eq "scaled kernel leads the table at +100%" "$K|1|grew|1" \
    "$(jget "$TMP/scaled.json" '"|".join(str(x) for x in (d["kernels"][0]["name"], d["kernels"][0]["change"], d["kernels"][0]["status"], d["kernels"][0]["rank"]))')"
  check_eq "every other kernel unchanged" 0 "$(jget "$TMP/scaled.json" 'sum(abs(k["delta_ns"]) for k in d["kernels"][1:])')"
  check_eq "instances and mean: same count, mean doubled" "2 2 True" \
    "$(jget "$TMP/scaled.json" 'd["kernels"][0]["before"]["instances"], d["kernels"][0]["after"]["instances"], d["kernels"][0]["after"]["mean_ns"] == 2 * d["kernels"][0]["before"]["mean_ns"]')"
  check_eq "verdict: both rules named" "True 2" "$(jget "$TMP/scaled.json" 'd["verdict"]["regression"], len(d["verdict"]["reasons"])')"
  run_gf diff "$TMP/before.sqlite" "$TMP/after.sqlite" -o "$TMP/scaled2.html"
  check_eq "without --json: page path and the verdict on stdout, exit 10" "10|$TMP/scaled2.html|verdict: REGRESSION" \
    "$rc|$(head -1 <<<"$out")|$(sed -n 2p <<<"$out" | cut -c1-19)"
  check "the page is written" test -s "$TMP/scaled2.html"

  # policy: thresholds, verdict function
  printf 'return { diff = { threshold = 0.5, kernel_threshold = 1.5 } }\n' >"$TMP/loose.lua"
  run_gf --policy "$TMP/loose.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite" --json
  check_eq "policy thresholds 50%/150%: no regression (exit 0)" 0 "$rc"
  printf 'return { diff = { threshold = 0.5, kernel_threshold = 0.99 } }\n' >"$TMP/kern.lua"
  run_gf --policy "$TMP/kern.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite" --json
  check_eq "per-kernel rule alone: exit 10" 10 "$rc"
  check_contains "per-kernel reason" "$out" "per-kernel threshold"
  printf 'return { diff = { top_kernels = 1, threshold = 0.5 } }\n' >"$TMP/top1.lua"
  run_gf --policy "$TMP/top1.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite" --json
  check_eq "top_kernels = 1: the scaled kernel is the largest, exit 10" 10 "$rc"
  printf 'return { diff = { top_kernels = 0, threshold = 0.5 } }\n' >"$TMP/top0.lua"
  run_gf --policy "$TMP/top0.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite" --json
  check_eq "top_kernels = 0 (no per-kernel rule), total below 50%: exit 0" 0 "$rc"
  cat >"$TMP/custom.lua" <<'LUA'
return { diff = { verdict = function(d)
  return { regression = d.total.change > 0.01 and d.kernels[1].change == 1, reasons = { "custom: " .. d.kernels[1].name } }
end } }
LUA
  run_gf --policy "$TMP/custom.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite" --json
  check_eq "policy diff.verdict: exit 10" 10 "$rc"
  printf '%s\n' "$out" >"$TMP/custom.json"
  check_eq "policy verdict recorded" "policy|custom: $K" "$(jget "$TMP/custom.json" 'd["verdict"]["decided_by"] + "|" + d["verdict"]["reasons"][0]')"
  printf 'return { diff = { verdict = function(d) return d.kernels[1].after.mean_ns ~= nil and d.new[1] == nil and d.before.meta.command_hash == nil end } }\n' >"$TMP/nils.lua"
  run_gf --policy "$TMP/nils.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite"
  check_eq "policy verdict sees JSON nulls as nil (no command hash in this export)" 10 "$rc"
  printf 'return { diff = { verdict = function(d) return false end } }\n' >"$TMP/never.lua"
  run_gf --policy "$TMP/never.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite"
  check_eq "policy verdict false: exit 0" 0 "$rc"
  printf 'return { diff = { verdict = function(d) return 42 end } }\n' >"$TMP/bad.lua"
  run_gf --policy "$TMP/bad.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite"
  check_eq "policy verdict of the wrong type: exit 1, says what it must return" "1|1" "$rc|$([[ $err == *"must return true/false"* ]] && echo 1)"
  printf 'return { diff = { verdict = function(d) while true do end end }, limits = { function_budget = 1 } }\n' >"$TMP/loop.lua"
  run_gf --policy "$TMP/loop.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite"
  check_eq "runaway policy verdict stopped by the budget: exit 1" "1|1" "$rc|$([[ $err == *"time budget"* ]] && echo 1)"
  printf 'return { diff = { threshold = "5%%" } }\n' >"$TMP/typo.lua"
  run_gf --policy "$TMP/typo.lua" diff "$TMP/before.sqlite" "$TMP/after.sqlite"
  check_contains "policy diff.threshold validated" "$err" "diff.threshold must be a number"

  # --folded: difffolded.pl's two-column format, read back by `gpuflame flamegraph`
  check_eq "--folded: the metadata in the sidecar FILE.json" '{"after":"'"$TMP"'/after.sqlite","before":"'"$TMP"'/before.sqlite","format":"difffolded","generator":"gpuflame","unit":"ns"}' "$(cat "$TMP/scaled.folded.json")"
  check_eq "--folded: only 'stack BEFORE AFTER' lines (difffolded.pl's format, no comment line)" 0 \
    "$(grep -cvE '^[^#].* [0-9]+ [0-9]+$' "$TMP/scaled.folded")"
  # the hierarchical stacks: the kernel's lines (one per NVTX path it was launched under) sum to its totals
  check_eq "--folded: the scaled kernel's lines" "33344 66688" "$(grep -F ";$K " "$TMP/scaled.folded" |
    awk '{ b += $(NF - 1); a += $NF } END { print b, a }')"
  check_eq "--folded: one line per stack" "$(jget "$TMP/scaled.json" 'd["stacks"]["distinct"]')" \
    "$(grep -vc '^#' "$TMP/scaled.folded")"
  run_gf flamegraph "$TMP/scaled.folded" -o "$TMP/readback.html"
  check_eq "flamegraph reads the two-column file back: exit 0" "0|$TMP/readback.html" "$rc|$out"
  rb=$(python3 - "$TMP/readback.html" "$TMP/scaled.html" <<'PY'
import json, re, sys
def data(f):
    h = open(f).read()
    fl = json.loads(re.search(r'<script type="application/json" id="flame-data">(.*?)</script>', h, re.S).group(1))
    m = json.loads(re.search(r'<script type="application/json" id="model-data">(.*?)</script>', h, re.S).group(1))
    return fl, m
a, ma = data(sys.argv[1]); b, mb = data(sys.argv[2])
print(a["total"] == b["total"], a["nodes"] == b["nodes"], a["names"] == b["names"],
      [k["delta_ns"] for k in ma["kernels"]] == [k["delta_ns"] for k in mb["kernels"]])
PY
)
  check_eq "read-back page: same totals, tree and kernel deltas as the diff page" "True True True True" "$rb"
  run_gf collapse "$TMP/scaled.folded"
  check_eq "collapse of a two-column file keeps the AFTER column (flamegraph.pl)" 66688 \
    "$(grep -F ";$K " <<<"$out" | awk '{ a += $NF } END { print a }')"
  run_gf diff "$TMP/scaled.folded" "$TMP/scaled.folded"
  check_eq "a two-column file as a diff input: exit 6, says to draw it" "6|1" "$rc|$([[ $err == *"gpuflame flamegraph"* ]] && echo 1)"

  # kernel-name normalisation: a kernel whose template argument changed
  cp "$DL" "$TMP/renamed.sqlite"; chmod u+w "$TMP/renamed.sqlite"
  sqlite3 "$TMP/renamed.sqlite" "UPDATE StringIds SET value = replace(value, 'im2col4d_kernel<float, int>', 'im2col4d_kernel<double, int>') WHERE value LIKE 'void im2col4d_kernel<float, int>%'"
  run_gf diff "$DL" "$TMP/renamed.sqlite" --json
  printf '%s\n' "$out" >"$TMP/renamed.json"
  check_eq "exact names: the renamed kernel is new and vanished" "1 1" "$(jget "$TMP/renamed.json" 'len(d["new"]), len(d["vanished"])')"
  check_eq "exact names: a new kernel in the top 10 is a regression" 10 "$rc"
  # the same rename while every kernel runs 20% shorter: the total falls 20%, more than diff.threshold, so the
  # new kernel (an optimisation's swap) is a note, not a regression (exit 0); the thresholds known, the totals by SQL
  cp "$TMP/renamed.sqlite" "$TMP/faster.sqlite"
  sqlite3 "$TMP/faster.sqlite" "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET [end] = start + ([end] - start) * 8 / 10"
  run_gf diff "$DL" "$TMP/faster.sqlite" --json
  printf '%s\n' "$out" >"$TMP/faster.json"
  want=$(sqlite3 "$TMP/faster.sqlite" "ATTACH '$DL' AS b; SELECT (SELECT sum([end] - start) FROM CUPTI_ACTIVITY_KIND_KERNEL) < 0.95 * (SELECT sum([end] - start) FROM b.CUPTI_ACTIVITY_KIND_KERNEL)")
  check_eq "faster and renamed: SQL says the kernels' total fell by more than 5%" 1 "$want"
  check_eq "faster and renamed: no regression (exit 0), no reasons, the new kernel a note" \
    "0|False 0 1|True" "$rc|$(jget "$TMP/faster.json" 'd["verdict"]["regression"], len(d["verdict"]["reasons"]), len(d["verdict"]["notes"])')|$(jget "$TMP/faster.json" '"im2col4d_kernel<double, int>" in d["verdict"]["notes"][0] and d["verdict"]["notes_why"].startswith("total GPU time fell")')"
  run_gf diff "$DL" "$TMP/faster.sqlite"
  check_contains "faster and renamed: the text says why the kernel change is no regression" "$out" \
    "verdict: no regression (exit 0); total GPU time fell"
  printf 'return { diff = { notes_when_faster = false } }\n' >"$TMP/strict.lua"
  run_gf --policy "$TMP/strict.lua" diff "$DL" "$TMP/faster.sqlite" --json
  check_eq "faster and renamed, policy diff.notes_when_faster = false: a regression all the same (exit 10)" \
    "10 0" "$rc $(python3 -c 'import json, sys; print(len(json.load(sys.stdin)["verdict"]["notes"]))' <<<"$out")"
  printf 'return { diff = { normalize_name = require("gpuflame.kernelnames").standard } }\n' >"$TMP/norm.lua"
  run_gf --policy "$TMP/norm.lua" diff "$DL" "$TMP/renamed.sqlite" --json
  printf '%s\n' "$out" >"$TMP/norm.json"
  check_eq "normalize_name (kernelnames.standard): matched, all zero, exit 0" "0|0 0 0|policy" \
    "$rc|$(jget "$TMP/norm.json" 'len(d["new"]), len(d["vanished"]), d["total"]["delta_ns"]')|$(jget "$TMP/norm.json" 'd["normalize_name"]')"
  check_contains "the matched names are listed" "$out" "im2col4d_kernel<double, int>"
  printf 'return { diff = { normalize_name = function(n) return "" end } }\n' >"$TMP/badnorm.lua"
  run_gf --policy "$TMP/badnorm.lua" diff "$DL" "$DL"
  check_eq "normalize_name returning an empty string: exit 1, named" "1|1" "$rc|$([[ $err == *"non-empty string"* ]] && echo 1)"
fi

# --- the GPU models compared, not their names' vendor prefix nor the node's count; display adapters that run
# no CUDA (smCount 0: Windows lists them) left out ---
if have_fixture reports/dlprof/nsys_profile.sqlite && command -v sqlite3 >/dev/null; then
  gpus() { # OUT, then "name|smCount" rows for TARGET_INFO_GPU
    local out=$1; shift
    cp "$DL" "$out"; chmod u+w "$out"
    local sql="DELETE FROM TARGET_INFO_GPU;" id=0 r
    for r in "$@"; do
      sql+="INSERT INTO TARGET_INFO_GPU (vmId, id, name, smCount) VALUES (0, $id, '${r%|*}', ${r#*|});"
      id=$((id + 1))
    done
    sqlite3 "$out" "$sql"
  }
  gpus "$TMP/g_new.sqlite" "NVIDIA A100-SXM4-40GB|108" "NVIDIA A100-SXM4-40GB|108" "Microsoft Basic Render Driver|0"
  gpus "$TMP/g_old.sqlite" "A100-SXM4-40GB|108"
  gpus "$TMP/g_h100.sqlite" "NVIDIA H100 80GB HBM3|132"
  run_gf diff "$TMP/g_new.sqlite" "$TMP/g_old.sqlite" --json -o "$TMP/g1.html"
  check_eq "2 x NVIDIA A100-SXM4-40GB (and a display adapter) against 1 x A100-SXM4-40GB (nsys 2021's name): no GPU caveat" \
    "0 []" "$rc $(jget /dev/stdin '[c["field"] for c in d["caveats"] if c["field"] == "gpus"]' <<<"$out")"
  check_eq "... the metadata lists the CUDA devices only" "['NVIDIA A100-SXM4-40GB', 'NVIDIA A100-SXM4-40GB']" \
    "$(jget /dev/stdin 'd["before"]["meta"]["gpus"]' <<<"$out")"
  run_gf diff "$TMP/g_new.sqlite" "$TMP/g_h100.sqlite"
  check_contains "another model: the caveat, the names as recorded with their counts" "$err" \
    "Different GPUs: BEFORE ran on 2 × NVIDIA A100-SXM4-40GB, AFTER on NVIDIA H100 80GB HBM3."
else
  skip "GPU models in diff's caveats" "fixture reports/dlprof/nsys_profile.sqlite or the sqlite3 CLI absent"
fi

# --- two different real captures: caveats stated plainly, new and vanished kernels ---
if have_fixture real/sc23-openmp-tutorial/report3.sqlite && have_fixture real/nussinov-gpu/report3.sqlite; then
  run_gf diff "$FIX/real/sc23-openmp-tutorial/report3.sqlite" "$FIX/real/nussinov-gpu/report3.sqlite" --json -o "$TMP/two.html"
  printf '%s\n' "$out" >"$TMP/two.json"
  golden sc23_vs_nussinov "$TMP/two.json"
  check_eq "different captures: caveats for GPU, nsys, driver, length, command line, host" \
    "command_hash driver duration_ns gpus host_hash nsys_version" "$(jget "$TMP/two.json" '" ".join(sorted(c["field"] for c in d["caveats"]))')"
  check_contains "caveat wording names both GPUs" "$out" "Different GPUs: BEFORE ran on Tesla T4, AFTER on NVIDIA A30 MIG 2g.12gb"
  check_eq "one kernel new, one vanished" "1 1" "$(jget "$TMP/two.json" 'len(d["new"]), len(d["vanished"])')"
  # what the page holds besides its own template: the JSON data blocks (the template's code, and the palette
  # table it carries in a JSON block of its own, can contain short values such as " else" by coincidence)
  python3 - "$TMP/two.html" >"$TMP/two.data" <<'PY'
import re, sys
blocks = re.findall(r'<script type="application/json"([^>]*)>(.*?)</script>', open(sys.argv[1]).read(), re.S)
print("\n".join(body for attrs, body in blocks if 'id="gf-palettes"' not in attrs))
PY
  for f in real/sc23-openmp-tutorial/report3.sqlite real/nussinov-gpu/report3.sqlite; do
    while IFS= read -r secret; do
      [ ${#secret} -ge 4 ] || continue
      secret_absent "no command line, argument, working directory or environment value of $(dirname "$f") in the JSON" "$TMP/two.json" "$secret"
      secret_absent "... nor in the page's data" "$TMP/two.data" "$secret"
    done < <(sqlite3 -readonly "$FIX/$f" "SELECT DISTINCT value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_%:COMMAND' OR name LIKE 'PROCESS_%:ARGUMENT_%' OR name LIKE 'PROCESS_%:WORKING_DIR' OR name LIKE 'PROCESS_%:ENVIRONMENT_VARIABLE'" | sort -u | head -40)
  done
fi

# --- stats CSVs: no metadata, stated; instances from the CSV ---
if have_fixture gprofiler/KERN_CSV.csv && have_fixture real/roboflow-inference/cuda_gpu_kern_sum.csv; then
  run_gf diff "$FIX/gprofiler/KERN_CSV.csv" "$FIX/real/roboflow-inference/cuda_gpu_kern_sum.csv" --json
  printf '%s\n' "$out" >"$TMP/csv.json"
  golden csv_pair "$TMP/csv.json"
  check_eq "CSV pair: sources and the missing-metadata caveat" "csv csv metadata" \
    "$(jget "$TMP/csv.json" 'd["before"]["source"], d["after"]["source"], d["caveats"][0]["field"]')"
  run_gf diff "$FIX/gprofiler/API_CSV.csv" "$FIX/gprofiler/API_CSV.csv" --json
  check_contains "API summaries: said to be CPU-side API time" "$out" "not GPU time"
  run_gf diff "$FIX/gprofiler/GPU_TRACE_CSV.csv" "$TC"
  check_eq "a trace CSV cannot be diffed: exit 6" 6 "$rc"
fi

# --- CSV numbers as the collapse path reads them; bad numbers named by file, line and column ---
printf 'Time (%%),Total Time (ns),Instances,Name\n50.0,1000.0,2,"k<a, b>"\n50.0,2000,1,other\n50.0,500,1,"k<a, b>"\n' >"$TMP/k1.csv"
run_gf diff "$TMP/k1.csv" "$TMP/k1.csv" --json
printf '%s\n' "$out" >"$TMP/k1.json"
check_eq "CSV: decimal totals, duplicate names summed with their instances" "1500 3 500" \
  "$(jget "$TMP/k1.json" '" ".join(str([k for k in d["kernels"] if k["name"] == "k<a, b>"][0]["before"][f]) for f in ("total_ns", "instances", "mean_ns"))')"
printf 'Time (%%),Total Time (ns),Instances,Name\n50.0,abc,2,k\n' >"$TMP/k2.csv"
run_gf diff "$TMP/k2.csv" "$TMP/k1.csv"
check_eq "CSV: a total that is not a number: exit 6, file:line:col" "6|gpuflame: $TMP/k2.csv:2:2 (column 'Total Time (ns)'): invalid number 'abc'" "$rc|$(tail -1 <<<"$err")"

# --- folded with gpuflame's unit metadata vs the export: units converted, kinds called out ---
run_gf export --format folded "$TC" -o "$TMP/tc.folded"
run_gf diff "$TMP/tc.folded" "$TC" --json
printf '%s\n' "$out" >"$TMP/mixed.json"
gpu_ns=$(sqlite3 -readonly "$TC" "SELECT (SELECT sum([end] - start) FROM CUPTI_ACTIVITY_KIND_KERNEL) +
  (SELECT coalesce(sum([end] - start), 0) FROM CUPTI_ACTIVITY_KIND_MEMCPY)")  # no memset table
check_eq "folded (collapse of the export: ns) vs export: the same GPU ns on both sides, kinds differ" "ns $gpu_ns $gpu_ns True" \
  "$(jget "$TMP/mixed.json" 'd["unit"], d["total"]["before_ns"], d["total"]["after_ns"], "input kind" in [c["field"] for c in d["caveats"]]')"

# --- no kernels: exit 5 ---
if have_fixture real/cuda-learning/report1.sqlite; then
  run_gf diff "$FIX/real/cuda-learning/report1.sqlite" "$TC"
  check_eq "an export without kernels: exit 5, named" "5|1" "$rc|$([[ $err == *"cuda-learning/report1.sqlite: no GPU kernels"* ]] && echo 1)"
fi

# --- capture directories ---
mkdir -p "$TMP/cap1" "$TMP/cap2"
cp "$TC" "$TMP/cap1/capture.sqlite"
printf '{"artifacts": {"sqlite": "%s"}}\n' "$TMP/cap1/capture.sqlite" >"$TMP/cap1/summary.json"
cp "$TC" "$TMP/cap2/other-name.sqlite"
run_gf diff "$TMP/cap1" "$TMP/cap2/" --json
check_eq "capture directories (summary.json, or by name): exit 0, all zero" "0|0|capture.sqlite|other-name.sqlite" \
  "$rc|$(jget <(printf '%s' "$out") 'd["total"]["delta_ns"]')|$(jget <(printf '%s' "$out") 'd["before"]["file"].split("/")[-1] + "|" + d["after"]["file"].split("/")[-1]')"
mkdir -p "$TMP/empty"
run_gf diff "$TMP/empty" "$TC"
check_eq "a directory without a capture: exit 5" 5 "$rc"

# --- .nsys-rep inputs: each exported once (fake nsys) ---
echo "fake report a" >"$TMP/a.nsys-rep"; echo "fake report b" >"$TMP/b.nsys-rep"
: >"$TMP/nsys.log"
FAKE_NSYS_SQLITE=real/test-cuda/report1.sqlite FAKE_NSYS_LOG=$TMP/nsys.log run_gf_env FAKE_NSYS_SQLITE=real/test-cuda/report1.sqlite FAKE_NSYS_LOG="$TMP/nsys.log" -- \
  diff --nsys "$FAKE_NSYS" "$TMP/a.nsys-rep" "$TMP/b.nsys-rep" --json
check_eq ".nsys-rep inputs: exit 0" 0 "$rc"
check_eq ".nsys-rep inputs: one nsys export per side" 2 "$(grep -c '"export"' "$TMP/nsys.log")"
check_contains ".nsys-rep: the report is named" "$out" '"report": "'"$TMP"'/a.nsys-rep"'
check "nsys-rep: no SQLite left beside the reports" test ! -e "$TMP/a.sqlite"

t_done
