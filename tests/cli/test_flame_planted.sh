#!/usr/bin/env bash
# The hierarchical GPU flamegraph on planted NVTX ranges whose answer is known by construction (issue 25):
# a copy of the test-cuda export (4 kernels launched from one thread, correlation ids 133/137/141/145) gets
#   outer        push/pop around every launch               → a frame of all four
#   inner        push/pop with exactly launch 133's bounds   → contains it (start <= call start, end >= end)
#   partial      push/pop from inside launch 137 to before its end → contains nothing (the whole call counts)
#   se           start/end around launches 141 and 145       → a frame unless policy nvtx_startend = false
#   d-range      push/pop in domain 5 ("dom") around 145     → named "dom:d-range"
# and launch 141's runtime row is deleted: its kernel sits under the process in "[launch not in capture]".
# Each kernel's weight is read back by SQL per correlation id (integer ns).
. "$(dirname "$0")/../lib/t.sh"
src=real/test-cuda/report1.sqlite
have_fixture "$src" || { skip "flamegraph planted NVTX" "fixtures absent"; exit 0; }
command -v sqlite3 >/dev/null || { skip "flamegraph planted NVTX" "no sqlite3 CLI"; exit 0; }
db=$TMP/planted.sqlite
cp "$FIX/$src" "$db"; chmod u+w "$db"
T=281761330250412
sqlite3 "$db" "
  CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, globalTid INTEGER,
    endGlobalTid INTEGER, text TEXT, textId INTEGER, domainId INTEGER);
  INSERT INTO NVTX_EVENTS VALUES (1000, NULL, 75, $T, NULL, 'dom', NULL, 5);
  INSERT INTO NVTX_EVENTS VALUES (1412367000, 1453800000, 59, $T, NULL, 'outer', NULL, 0);
  INSERT INTO NVTX_EVENTS VALUES (1412367166, 1453542080, 59, $T, NULL, 'inner', NULL, 0);
  INSERT INTO NVTX_EVENTS VALUES (1453605300, 1453620000, 59, $T, NULL, 'partial', NULL, 0);
  INSERT INTO NVTX_EVENTS VALUES (1453661000, 1453800000, 60, $T, NULL, 'se', NULL, 0);
  INSERT INTO NVTX_EVENTS VALUES (1453755000, 1453775000, 59, $T, NULL, 'd-range', NULL, 5);
  DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = 141;"
w() { sqlite3 -readonly "$db" "SELECT [end] - start FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = $1"; }
K='add_parallel(const float *, const float *, float *, int)'
kernels() { grep -v '\[CUDA mem' <<<"$1" | sort; }

run_gf collapse --levels nvtx,kernel "$db"
check_eq "nvtx,kernel: the planted paths, weights in ns" "$(sort <<EOF
[launch not in capture];$K $(w 141)
outer;$K $(w 137)
outer;inner;$K $(w 133)
outer;se;dom:d-range;$K $(w 145)
EOF
)" "$(kernels "$out")"

printf 'return { flamegraph = { nvtx_startend = false } }\n' >"$TMP/pp.lua"
run_gf --policy "$TMP/pp.lua" collapse --levels nvtx,kernel "$db"
check_contains "nvtx_startend = false: start/end ranges make no frame" "$(kernels "$out")" "outer;dom:d-range;$K $(w 145)"

run_gf collapse "$db"
check_contains "default levels: process;[launch not in capture];kernel" "$out" "async.out [17068];[launch not in capture];$K $(w 141)"
check_contains "default levels: process;NVTX path;launch call;kernel" "$out" \
  "async.out [17068];outer;inner;cudaLaunchKernel;$K $(w 133)"
check_contains "copies are leaves named by their kind under their launch call" "$out" \
  "async.out [17068];outer;cudaMemcpyAsync;[CUDA memcpy Host-to-Device] "

total() { awk '{ s += $NF } END { print s }' <<<"$1"; }
all=$(total "$out")
run_gf collapse --levels nvtx "$db"
check_eq "--levels nvtx alone: GPU work outside every range still counted (as its leaf)" "$all" "$(total "$out")"

run_gf collapse --levels process,device,stream,kernel "$db"
check_contains "device and stream levels" "$out" "async.out [17068];NVIDIA GeForce RTX 4060 Ti (0);stream 15;$K $(w 141)"

run_gf diff --json --group-by nvtx "$db" "$db"
printf '%s\n' "$out" >"$TMP/d.json"
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s=%d" % (k["name"], k["before"]["total_ns"]) for k in sorted(d["kernels"], key=lambda k: k["name"])))' "$TMP/d.json")
outer=$(sqlite3 -readonly "$db" "SELECT sum(o.[end] - o.start) FROM (SELECT start, [end], correlationId FROM
  CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT start, [end], correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY) AS o
  JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = o.correlationId WHERE r.start >= 1412367000 AND r.[end] <= 1453800000")
check_contains "diff --group-by nvtx: a range's row holds the GPU work launched inside it" "$got" "outer=$outer"
check_contains "diff --group-by nvtx: inner's row" "$got" "inner=$(w 133)"
t_done
