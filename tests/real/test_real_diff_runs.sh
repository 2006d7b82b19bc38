#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier, issue 41: `gpuflame diff` of two runs of one PyTorch program (reports/aiprof: the baseline
# and its third optimisation, other pids), exported through the real nsys: the process frames line up (the
# root is the executable on both sides, not `pid N` vanished and `pid M` new), and the same input (the same
# bytes copied each way, as nsys's own export counts them) keeps the pair comparable.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: diff of two runs"
A=reports/aiprof/baseline_nvtx.nsys-rep B=reports/aiprof/thirdOptimization.nsys-rep
if ! have_fixture "$A" || ! have_fixture "$B"; then skip "aiprof: two runs of one program" "fixture absent ($FIX)"; t_done; fi
cp "$FIX/$A" "$FIX/$B" "$TMP/"                 # nsys writes beside its input: never into the fixtures
cd "$TMP" || exit 1
# The reference: nsys's own exports of the two reports.
for r in baseline_nvtx thirdOptimization; do
  rnsys export --type sqlite --force-overwrite true --output "$TMP/ref_$r.sqlite" "$TMP/$r.nsys-rep"
done
q() { sqlite3 "file:$TMP/ref_$1.sqlite?mode=ro" "$2"; }
gpu_pid="SELECT DISTINCT globalPid / 16777216 % 16777216 FROM CUPTI_ACTIVITY_KIND_KERNEL"
pb=$(q baseline_nvtx "$gpu_pid") pa=$(q thirdOptimization "$gpu_pid")
check "two runs, two pids (nsys's export: $pb, $pa)" test -n "$pb" -a -n "$pa" -a "$pb" != "$pa"
bytes="SELECT group_concat(copyKind || ':' || b) FROM (SELECT copyKind, sum(bytes) b FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1 ORDER BY 1)"
check_eq "the same bytes copied each way (nsys's export)" "$(q baseline_nvtx "$bytes")" "$(q thirdOptimization "$bytes")"

run_gf diff --nsys "$MEMO_NSYS" baseline_nvtx.nsys-rep thirdOptimization.nsys-rep --json --folded runs.folded -o runs.html
printf '%s\n' "$out" >runs.json
check_eq "the root frame on both sides: the executable, no pid" "python3" "$(cut -d';' -f1 runs.folded | sort -u)"
check_eq "the roots line up: no stack root on one side only" 0 \
  "$(awk '{ split($0, f, ";"); if ($(NF-1) > 0) b[f[1]] = 1; if ($NF > 0) a[f[1]] = 1 } END { n = 0; for (k in b) if (!(k in a)) n++; for (k in a) if (!(k in b)) n++; print n }' runs.folded)"
check_eq "processes: python3, each side's pid kept" "python3 [$pb] [$pa]" \
  "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["processes"]; print(len(p) == 1 and "%s %s %s" % (p[0]["key"], p[0]["before"], p[0]["after"]))' runs.json)"
check_eq "the same input: comparable (exit 0 or 10, not 11)" "True 0|ok" \
  "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["verdict"]; print(v["comparable"], len(v["work_changes"]))' runs.json)|$([ "$rc" != 11 ] && echo ok)" 
t_done
