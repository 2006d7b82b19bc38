#!/usr/bin/env bash
# gf-test: slow
# Several reports, one model (issue 14): ranks, clock alignment, rank-aware views, rank-skew, errors.
# Exports are generated in the real schema by tests/gen/rank_exports.py (synthetic, never real captures).
. "$(dirname "$0")/../lib/t.sh"
GEN=$TOP/tests/gen/rank_exports.py
TT=$TOP/tests/trace

page() { python3 -c "import sys, json; sys.path.insert(0, '$TT'); import page_data; print(json.dumps(page_data.load(sys.argv[1])))" "$1"; }

# --- one export, two processes on two GPUs: two ranks with the right devices ---
python3 "$GEN" multi "$TMP/multi.sqlite"
run_gf run rank-skew "$TMP/multi.sqlite" --json
check_eq "two-process export: rank-skew exits 0" 0 "$rc"
res=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" | ".join("%s kernels=%d" % (r["label"], r["kernel_ns"]) for r in d["ranks"]))')
check_eq "two-process export: two ranks labelled host + pid (no rank variable captured)" \
  "nodeA pid 2001 kernels=500000 | nodeA pid 2002 kernels=1000000" "$res"
# another capture of the same processes (its session starts 1 s later; a plain copy would be the same
# capture, counted once: tests/cli/test_related.sh)
cp "$TMP/multi.sqlite" "$TMP/multi-copy.sqlite"
sqlite3 "$TMP/multi-copy.sqlite" "UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = utcEpochNs + 1000000000"
run_gf -q export -f chrome-trace "$TMP/multi.sqlite" "$TMP/multi-copy.sqlite" -o "$TMP/dup.json"
check_eq "two reports with the same processes: exits 0" 0 "$rc"
res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sorted(e["args"]["name"] for e in d["traceEvents"] if e.get("name") == "process_name"))' "$TMP/dup.json")
check_eq "colliding labels get the report's file name" \
  "['nodeA pid 2001 (multi-copy.sqlite)', 'nodeA pid 2001 (multi.sqlite)', 'nodeA pid 2002 (multi-copy.sqlite)', 'nodeA pid 2002 (multi.sqlite)']" "$res"

cat > "$TMP/ranks.lua" <<'LUA'
local ctx = require("gpuflame.cli").script_context()
local tr, info = require("gpuflame.trace").load({ ... }, { ranks = true }, ctx.policy())
for _, l in ipairs(tr:lanes()) do
  if l.kind == "gpu" then io.stdout:write(l.rank, " => ", l.device, "\n") end
end
return 0
LUA
run_gf run "$TMP/ranks.lua" "$TMP/multi.sqlite"
check_contains "rank pid 2001 has device 0 only" "$out" "nodeA pid 2001 => NVIDIA A100-SXM4-80GB (0)"
check_contains "rank pid 2002 has device 1 only" "$out" "nodeA pid 2002 => NVIDIA A100-SXM4-80GB (1)"
check_not_contains "rank pid 2001 has no device 1 lane" "$out" "nodeA pid 2001 => NVIDIA A100-SXM4-80GB (1)"

# --- a 4-rank job, rank 2 slowed 1.5x: named as the straggler ---
python3 "$GEN" job "$TMP/job" --ranks 4 --slow 2 --factor 1.5 --steps 5 --skew-ns 3000000
run_gf run rank-skew "$TMP/job" --json
check_eq "4-rank job: rank-skew --json exits 0" 0 "$rc"
res=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("ranks=" + ",".join(r["label"] for r in d["ranks"]))
print("stragglers=" + ",".join(s["label"] for s in d["stragglers"]))
print("iters=" + ",".join(str(len(r["iterations"])) for r in d["ranks"]))
print("slowest=" + ",".join(i["slowest"] for i in d["iterations"]))
r2 = [r for r in d["ranks"] if r["label"] == "rank 2"][0]; r0 = d["ranks"][0]
print("nccl_less=%s" % (r2["nccl_ns"] < r0["nccl_ns"] / 2))
print("fields=" + ",".join(sorted(r0)))')
check_contains "4-rank job: labels from the captured RANK variable, in rank order" "$res" "ranks=rank 0,rank 1,rank 2,rank 3"
check_contains "4-rank job: rank 2 is the straggler (only it)" "$res" "stragglers=rank 2"$'\n'
check_contains "4-rank job: 5 NVTX iterations per rank" "$res" "iters=5,5,5,5"
check_contains "4-rank job: rank 2 slowest in every iteration" "$res" "slowest=rank 2,rank 2,rank 2,rank 2,rank 2"
check_contains "4-rank job: the others wait in NCCL, rank 2 hardly" "$res" "nccl_less=True"
check_contains "--json fields" "$res" "fields=busy_ns,devices,idle_ns,iterations,kernel_ns,kernels,label,nccl_ns"
run_gf run rank-skew "$TMP"/job/rank*.sqlite
check_contains "text verdict names the straggler with numbers" "$out" "straggler: rank 2 (slowest in 5 of 5 iterations, median"
nw=$(nproc); [ "$nw" -gt 4 ] && nw=4
if [ "$nw" -gt 1 ]; then
  check_contains "default ranks.workers = 0: one worker per CPU, and says so" "$err" "importing 4 reports in $nw worker processes"
else
  check_contains "default ranks.workers = 0 on one CPU: imported in this process" "$err" "one process"
fi

# the same model whether imported in one process or in workers (policy ranks.workers)
for w in 1 2 4; do
  printf 'return { ranks = { workers = %d } }\n' "$w" >"$TMP/w$w.lua"
  run_gf --policy "$TMP/w$w.lua" -q export -f chrome-trace "$TMP/job" -o "$TMP/job-w$w.json"
  check_eq "ranks.workers = $w: export exits 0" 0 "$rc"
done
check_contains "ranks.workers = 1: imported in this process" "$(run_gf --policy "$TMP/w1.lua" run rank-skew "$TMP/job"; printf '%s' "$err")" "one process"
check "workers 2 and 1 give the same Chrome trace" cmp -s "$TMP/job-w1.json" "$TMP/job-w2.json"
check "workers 4 (one per report) and 1 give the same Chrome trace" cmp -s "$TMP/job-w1.json" "$TMP/job-w4.json"

# --html: the page with a per-rank bar chart embeds the --json document
run_gf run rank-skew "$TMP/job" --html "$TMP/rs.html"
check_eq "rank-skew --html: exit 0" 0 "$rc"
check_eq "rank-skew --html: the page's data names the straggler, 4 ranks, inputs" "rank 2|4|job" "$(python3 - "$TMP/rs.html" <<'PY'
import json, re, sys
h = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'<script id="rs-data" type="application/json">(.*?)</script>', h, re.S).group(1))
print("%s|%d|%s" % (",".join(s["label"] for s in d["stragglers"]), len(d["ranks"]), ",".join(d["inputs"])))
PY
)"
check "rank-skew --html: self-contained (no http:// or https://)" bash -c "! grep -q 'https\?://' '$TMP/rs.html'"
run_gf run rank-skew "$TMP/job" --html
check_eq "rank-skew --html without a file: usage, exit 2" 2 "$rc"

python3 "$GEN" job "$TMP/even" --ranks 4 --steps 3
run_gf run rank-skew "$TMP/even/rank*.sqlite"
check_contains "balanced job (glob input): no straggler" "$out" "no straggler"

# --- clock alignment: rank k's session starts k * 3 ms later, absolute step starts are shared ---
run_gf --lua-path "$TT" -q timeline "$TMP/job" -o "$TMP/job.html"
check_eq "4 reports: timeline exits 0" 0 "$rc"
res=$(page "$TMP/job.html" | python3 -c '
import json, sys
d = json.load(sys.stdin)
lanes = d["lanes"]
first = {}
for e in d["events"]:
    l = lanes[e[2]]
    if d["kinds"][e[6]] == "kernel":
        first.setdefault(l["rank"], e[0])
print("first=" + ",".join(str(first[r]) for r in d["ranks"]))
order = [l["rank"] for l in lanes]
print("grouped=%s" % (order == sorted(order, key=lambda r: d["ranks"].index(r))))
print("label0=" + lanes[0]["label"])')
check_contains "aligned clocks: each rank's first kernel at the same merged time" "$res" "first=10000,10000,10000,10000"
check_contains "lanes grouped by rank" "$res" "grouped=True"
check_contains "lane labels start with the rank" "$res" "label0=rank 0 · CPU pid 3000"
raw=$(sqlite3 "file:$TMP/job/rank3.sqlite?mode=ro" "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
raw0=$(sqlite3 "file:$TMP/job/rank0.sqlite?mode=ro" "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
check_eq "the raw exports differ by the session skew (9 ms)" 9000000 $((raw0 - raw))

# --- flamegraph: ranks summed (default) or a rank frame each (--by-rank) ---
run_gf -q flamegraph "$TMP/job" -o "$TMP/sum.html"
check_eq "flamegraph of 4 reports exits 0" 0 "$rc"
check_not_contains "default: ranks summed (no rank frame)" "$(cat "$TMP/sum.html")" '"rank 2"'
run_gf -q flamegraph --by-rank "$TMP/job" -o "$TMP/byrank.html"
check_contains "--by-rank: a rank frame" "$(cat "$TMP/byrank.html")" '"rank 2"'

# --- chrome-trace: one process per rank ---
run_gf -q export -f chrome-trace "$TMP/job" -o "$TMP/job.json"
res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = {e["pid"]: e["args"]["name"] for e in d["traceEvents"] if e.get("name") == "process_name"}
pids = sorted(set(e["pid"] for e in d["traceEvents"] if e["ph"] == "X"))
print(";".join("%d=%s" % (p, names[p]) for p in pids))' "$TMP/job.json")
check_eq "chrome-trace: one process per rank" "1=rank 0;2=rank 1;3=rank 2;4=rank 3" "$res"

# --- a missing or unreadable report among several: clear error naming it, no output ---
run_gf timeline "$TMP/job/rank0.sqlite" "$TMP/job/missing.sqlite" -o "$TMP/bad.html"
check_eq "missing report: exit 6" 6 "$rc"
check_contains "missing report: named" "$err" "missing.sqlite"
check "missing report: no output written" test ! -e "$TMP/bad.html"
cp "$TMP/job/rank1.sqlite" "$TMP/locked.sqlite"; chmod 000 "$TMP/locked.sqlite"
if [ -r "$TMP/locked.sqlite" ]; then
  skip "unreadable report" "running as root (chmod 000 does not stop reads)"
else
  run_gf export -f chrome-trace "$TMP/job/rank0.sqlite" "$TMP/locked.sqlite" -o "$TMP/bad.json"
  check_eq "unreadable report: exit 6" 6 "$rc"
  check_contains "unreadable report: named" "$err" "locked.sqlite"
  check "unreadable report: no output written" test ! -e "$TMP/bad.json"
fi
chmod 600 "$TMP/locked.sqlite"
head -c 3000 "$TMP/job/rank2.sqlite" > "$TMP/cut.sqlite"
echo "old" > "$TMP/keep.html"
run_gf timeline "$TMP/job/rank0.sqlite" "$TMP/cut.sqlite" -o "$TMP/keep.html"
check_eq "damaged report: exit 6" 6 "$rc"
check_contains "damaged report: named" "$err" "cut.sqlite"
check_eq "damaged report: the previous output is untouched" "old" "$(cat "$TMP/keep.html")"
run_gf run rank-skew "$TMP/nothing-*.sqlite"
check_eq "glob without matches: exit 6" 6 "$rc"
check_contains "glob without matches: named" "$err" "nothing-*.sqlite: no file matches"

# --- stats over several reports: one set of CSVs per input, the same bytes as one input at a time ---
run_gf stats -r cuda_gpu_kern_sum,nvtx_sum "$TMP/job" -o "$TMP/st/all"
check_eq "stats of a directory of 4 reports: exit 0" 0 "$rc"
same=1
for r in 0 1 2 3; do
  run_gf stats -r cuda_gpu_kern_sum,nvtx_sum "$TMP/job/rank$r.sqlite" -o "$TMP/st/one$r"
  for k in cuda_gpu_kern_sum nvtx_sum; do
    cmp -s "$TMP/st/all_rank${r}_$k.csv" "$TMP/st/one${r}_$k.csv" || same=0
  done
done
check_eq "stats of several: each input's CSVs equal its own stats run" 1 "$same"
run_gf stats -r cuda_gpu_kern_sum "$TMP/job/rank0.sqlite" "$TMP/job/rank1.sqlite"
check_eq "stats of several to stdout: usage error" 2 "$rc"
check_contains "stats of several to stdout: says -o PREFIX" "$err" "stats of 2 inputs needs -o PREFIX"
mkdir -p "$TMP/other"; cp "$TMP/job/rank1.sqlite" "$TMP/other/rank0.sqlite" # another capture, the same name
run_gf stats -r cuda_gpu_kern_sum "$TMP/job/rank0.sqlite" "$TMP/other/rank0.sqlite" -o "$TMP/st/dup"
check_eq "stats: two inputs of the same name: usage error before any work" "2:" "$rc:$(ls "$TMP/st" | grep dup)"

# --- real exports: session start read from every schema era (2.9.1 .. 3.24) ---
n=0
for f in "$FIX"/real/*/*.sqlite; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  tag=$(basename "$(dirname "$f")")/$(basename "$f")
  want=$(sqlite3 "file:$f?mode=ro" "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME")
  run_gf run "$TOP/tests/lib/ranks_meta.lua" "$f"
  check_eq "$tag: session start = TARGET_INFO_SESSION_START_TIME.utcEpochNs" "$want" "$out"
done
[ "$n" -gt 0 ] || skip "real exports" "fixtures absent"
t_done
