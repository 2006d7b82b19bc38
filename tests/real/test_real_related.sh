#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier, inputs that belong together (issue 24, item 4): a directory holding a real report
# (reports/dlprof/nsys_profile.nsys-rep, nsys 2022.1) and the export committed beside it counts one capture
# once. The oracle is the real nsys's own export of the report and SQL over both exports: the same session
# start and host (one capture), and the GPU processes of that capture (the ranks).
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: inputs that belong together"
REL=reports/dlprof
if ! have_fixture "$REL/nsys_profile.nsys-rep" || ! have_fixture "$REL/nsys_profile.sqlite"; then
  skip "dlprof report and export" "fixture absent ($FIX)"; t_done
fi
d=$TMP/dlprof; mkdir -p "$d"
cp "$FIX/$REL/nsys_profile.nsys-rep" "$FIX/$REL/nsys_profile.sqlite" "$d/" # nsys writes beside its input
rnsys export --type sqlite --force-overwrite true --output "$TMP/ref.sqlite" "$d/nsys_profile.nsys-rep"
check_eq "real nsys exports the report" 0 "$rrc"
q() { sqlite3 "file:$1?mode=ro" "SELECT (SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME) || ' ' ||
  (SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname') || ' ' ||
  (SELECT count(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL)"; }
ref=$(q "$TMP/ref.sqlite"); old=$(q "$d/nsys_profile.sqlite")
check_eq "oracle: nsys 2022.4's export and the committed 2022.1 export are one capture (start, host)" \
  "${ref% *}" "${old% *}"
run_gf_env NSYS_PATH="$REAL_NSYS" -- run rank-skew --json "$d"
check_eq "rank-skew of the directory: exit 0" 0 "$rc"
res=$(printf '%s' "$out" | python3 -c 'import json, sys; d = json.load(sys.stdin)
print("ranks=%d notes=%d" % (len(d["ranks"]), len(d["notes"])))')
check_eq "rank-skew: the capture's ranks once (GPU processes by SQL), one note" "ranks=${ref##* } notes=1" "$res"
check_contains "rank-skew: the note names the report and its export" "$err" \
  "$d/nsys_profile.nsys-rep and $d/nsys_profile.sqlite are one capture"
run_gf_env NSYS_PATH="$REAL_NSYS" -- stats -r cuda_gpu_kern_sum "$d" -o "$TMP/st/s"
check_eq "stats of the directory: one set of CSVs" "s_nsys_profile_cuda_gpu_kern_sum.csv" "$(ls "$TMP/st")"
t_done
