#!/usr/bin/env bash
# gpuflame analyze on deeply nested NVTX ranges with a 400 KiB stack (`ulimit -s 400`): nothing in the
# analysis is sized by the nesting depth on the stack. An 80,000-deep chain would write ~6.4 GB of
# scoped names (N names of up to N elements) and is refused cleanly (docs/LIMITS.md); a 3,000-deep
# chain on the host and the GPU report is analysed byte for byte like the Python reference
# (bench/nvtx_reference.py).
. "$(dirname "$0")/../lib/t.sh"

# mkchain DIR DEPTH: capture range → iteration 0 → a chain of DEPTH ranges named `r`, each the only child
# of the one above; every host range also has a GPU projection row.
mkchain() {
  python3 - "$1" "$2" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d + "/stats", exist_ok=True)
with open(d + "/manifest.yaml", "w") as f:
    f.write('{"capture_range": "profile-target", "workload": {"iterations": 1}, "record_ids": []}\n')
host = ["Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId"]
gpu = ["Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),Style,PID,TID,NumGPUOps,"
       "Lvl,NumChild,RangeId,ParentId"]
rows = [(":profile-target", 1, None), (":iteration 0", 2, 1)] + [(":r", 3 + k, 2 + k) for k in range(n)]
total = len(rows)
for lvl, (name, rid, parent) in enumerate(rows):
    start, end = lvl, 2 * total - lvl
    dur = end - start
    child = dur - 2 if lvl < total - 1 else 0
    par = "" if parent is None else str(parent)
    host.append("%d,%d,%d,%d,%d,%s,1,1,%d,%d,%d,%s" % (start, end, dur, child, dur - child, name, lvl,
                                                     int(lvl < total - 1), rid, par))
    gpu.append("%s,%d,%d,%d,%d,PushPop,1,1,%d,%d,%d,%d,%s" % (name, start + 1, dur - 2, start, dur, total - lvl,
                                                            lvl, int(lvl < total - 1), rid, par))
open(d + "/stats/nsys_nvtx_pushpop_trace.csv", "w").write("\n".join(host) + "\n")
open(d + "/stats/nsys_nvtx_gpu_proj_trace.csv", "w").write("\n".join(gpu) + "\n")
PY
}

# run_small_stack ARGS...: run_gf in a subshell limited to a 400 KiB stack
run_small_stack() {
  local o e; o=$(mktemp); e=$(mktemp)
  (ulimit -s 400 && exec "$GF" "$@") >"$o" 2>"$e"; rc=$?
  out=$(cat "$o"); err=$(cat "$e"); rm -f "$o" "$e"
}

V="NVIDIA Nsight Systems version 2025.1.3"

R=$TMP/deep80k; mkchain "$R" 80000
run_small_stack analyze --run-dir "$R" --no-export --nsys-version "$V"
check "80,000-deep chain, 400 KiB stack: no crash (exit $rc)" [ "$rc" -lt 128 ]
check_eq "80,000-deep chain: a clean input error (exit 6)" 6 "$rc"
check_eq "80,000-deep chain: the message names the size, the limit, the depth and the deepest range" \
  "gpuflame: Scoped NVTX range names would take 12800000028 bytes in analysis.json, more than the limit of 268435456: ranges are nested 80000 deep at (1, 1, 80002)." \
  "$err"
check "80,000-deep chain: no analysis.json" [ ! -e "$R/analysis.json" ]

R=$TMP/deep3k; mkchain "$R" 3000
run_small_stack analyze --run-dir "$R" --no-export --nsys-version "$V"
check_eq "3,000-deep chain, 400 KiB stack: exit 0" 0 "$rc"
check_eq "3,000-deep chain: no warnings" "" "$err"
python3 "$TOP/bench/nvtx_reference.py" "$R" "$V" "$TMP/deep3k_ref.json" >/dev/null
check "3,000-deep chain: analysis.json byte-identical to the Python reference" cmp -s "$TMP/deep3k_ref.json" "$R/analysis.json"
check_contains "3,000-deep chain: the deepest scoped name has 3,000 elements" "$(tail -c 40000 "$R/analysis.json")" \
  "\"name\": \"$(printf 'r.%.0s' $(seq 2999))r\""
t_done
