#!/usr/bin/env bash
# gf-test: slow
# gpuflame stats (issue 12): nsys stats reports computed from an SQLite export, no nsys needed.
# Byte-identity with what a current nsys (2025.1) recorded: exports rebuilt from the recorded CSVs
# (tests/gen/recorded_exports.py) must give those CSVs back byte for byte. Known answers on
# tests/gen/stats_edges.py's export (the real-nsys equality is tests/real/test_stats_equal.sh). Exit codes,
# bad input (exit 6 naming file and table), empty and absent tables, `-` output, .nsys-rep export caching
# (through the fake nsys).
. "$(dirname "$0")/../lib/t.sh"

E=$TMP/edges.sqlite
python3 "$TOP/tests/gen/stats_edges.py" "$E"

# --- usage and listing ---
run_gf stats --help-reports
check_eq "--help-reports: exit 0" 0 "$rc"
check_contains "--help-reports: lists cuda_gpu_kern_sum with its old name" "$out" "cuda_gpu_kern_sum        gpukernsum"
check_contains "--help-reports: lists nvtx_gpu_proj_trace" "$out" "nvtx_gpu_proj_trace"
run_gf stats "$E"
check_eq "no -r: exit 2" 2 "$rc"
run_gf stats -r cuda_gpu_kern_sum
check_eq "no INPUT: exit 2" 2 "$rc"
run_gf stats -r no_such_report "$E"
check_eq "unknown report: exit 2" 2 "$rc"
check_contains "unknown report: named" "$err" "unknown report 'no_such_report'"
run_gf stats -r cuda_api_sum:base "$E"
check_eq "an argument on a report without arguments: exit 2" 2 "$rc"
run_gf stats -r cuda_gpu_kern_sum:shiny "$E"
check_eq "an unknown report argument: exit 2" 2 "$rc"
run_gf stats -r cuda_api_sum --format xml "$E"
check_eq "unknown --format: exit 2" 2 "$rc"
run_gf stats -r cuda_api_sum "$E" "$E"
check_eq "the same INPUT twice is one input (several INPUTs: tests/cli/test_ranks.sh)" 0 "$rc"

# --- bad input: exit 6 naming the file (and the table) ---
run_gf stats -r cuda_api_sum "$TMP/missing.sqlite"
check_eq "missing INPUT: exit 6" 6 "$rc"
check_contains "missing INPUT: named" "$err" "$TMP/missing.sqlite"
printf 'a,b\n1,2\n' >"$TMP/plain.csv"
run_gf stats -r cuda_api_sum "$TMP/plain.csv"
check_eq "a CSV that is no export: exit 6" 6 "$rc"
check_contains "a CSV that is no export: named" "$err" "$TMP/plain.csv"
head -c 40000 "$E" >"$TMP/cut.sqlite"
printf 'SQLite format 3\0garbage garbage garbage garbage' | dd of="$TMP/garbage.sqlite" bs=4096 conv=sync 2>/dev/null
for f in cut garbage; do
  run_gf stats -r cuda_api_sum,cuda_gpu_trace,nvtx_pushpop_trace "$TMP/$f.sqlite"
  check_eq "damaged export ($f): exit 6" 6 "$rc"
  check_contains "damaged export ($f): names the file" "$err" "$TMP/$f.sqlite"
done
python3 - "$TMP/badcol.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (begin INTEGER, finish INTEGER, nameId INTEGER);"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, 3);"
                 "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, text TEXT);"
                 "INSERT INTO NVTX_EVENTS VALUES (1, 2, 'x');")
db.commit()
PY
run_gf stats -r cuda_api_sum "$TMP/badcol.sqlite"
check_eq "a table without its columns: exit 6" 6 "$rc"
check_contains "a table without its columns: names file, table and column" "$err" \
  "$TMP/badcol.sqlite: table CUPTI_ACTIVITY_KIND_RUNTIME has no column start"
run_gf stats -r nvtx_pushpop_trace "$TMP/badcol.sqlite"
check_eq "NVTX_EVENTS without eventType: exit 6" 6 "$rc"
check_contains "NVTX_EVENTS without eventType (nor globalTid): names file, table and column" "$err" \
  "$TMP/badcol.sqlite: table NVTX_EVENTS has no column"

# --- absent and empty tables ---
python3 - "$TMP/empty.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);"
                 "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
                 " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,"
                 " correlationId INTEGER, nameId INTEGER, returnValue INTEGER);"
                 "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER,"
                 " textId INTEGER, domainId INTEGER);"
                 "INSERT INTO NVTX_EVENTS VALUES (5, NULL, 34, 'a mark', 1, NULL, 0);")
db.commit()
PY
ALL=cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,cuda_gpu_trace,cuda_api_trace,nvtx_pushpop_trace,nvtx_gpu_proj_trace,nvtx_sum,nvtx_gpu_proj_sum
run_gf stats -r "$ALL" -o "$TMP/e/x" "$TMP/empty.sqlite"
check_eq "empty tables: exit 5 (no report had data)" 5 "$rc"
n0=0
for r in ${ALL//,/ }; do [ -f "$TMP/e/x_$r.csv" ] && [ ! -s "$TMP/e/x_$r.csv" ] && n0=$((n0 + 1)); done
check_eq "empty tables: a 0-byte file per report (as nsys)" 10 "$n0"
check_contains "empty tables: an absent MEMCPY table is SKIPPED, as nsys says it" "$err" \
  "SKIPPED: $TMP/empty.sqlite does not contain GPU memory data."
check_not_contains "empty tables: an empty KERNEL table is not SKIPPED" "$err" "does not contain CUDA kernel data"
run_gf stats -r "$ALL" "$TMP/empty.sqlite"
check_eq "empty tables to stdout: exit 5" 5 "$rc"
check_eq "empty tables to stdout: nothing printed" "" "$out"
if have_fixture real/sc23-openmp-tutorial/report1.sqlite; then
  run_gf stats -r cuda_gpu_kern_sum,cuda_gpu_trace,nvtx_sum -o "$TMP/sc/x" "$FIX/real/sc23-openmp-tutorial/report1.sqlite"
  check_eq "no CUPTI tables at all (real 2023.3 export): exit 5" 5 "$rc"
  check_contains "no CUPTI tables: SKIPPED kernel data" "$err" "does not contain CUDA kernel data."
  check_contains "no CUPTI tables: SKIPPED GPU trace data" "$err" "does not contain GPU trace data."
  check_contains "no CUPTI tables: SKIPPED NVTX data" "$err" "does not contain NV Tools Extension (NVTX) data."
else
  skip "no CUPTI tables" "fixtures absent"
fi

# --- stdout and files, JSON ---
run_gf stats -r cuda_api_sum -o "$TMP/o/p" "$E"
check_eq "-o PREFIX: exit 0" 0 "$rc"
check "-o PREFIX: PREFIX_cuda_api_sum.csv written" test -s "$TMP/o/p_cuda_api_sum.csv"
run_gf stats -r cuda_api_sum "$E"
check_eq "-o - (default): the file's bytes and one blank line" "$(cat "$TMP/o/p_cuda_api_sum.csv")"$'\n' "$out"$'\n'
"$GF" stats -r cuda_api_sum,cuda_gpu_kern_sum -o - "$E" >"$TMP/two.out"
check_eq "-o - with two reports: each followed by a blank line" \
  "$(cat "$TMP/o/p_cuda_api_sum.csv"; echo; "$GF" stats -r cuda_gpu_kern_sum -o "$TMP/o/k" "$E" 2>/dev/null; cat "$TMP/o/k_cuda_gpu_kern_sum.csv"; echo)" \
  "$(cat "$TMP/two.out")"
run_gf stats -r gpukernsum,gpukernsum:base -o "$TMP/o/old" "$E"
check "old report names accepted; files named as given (nsys)" test -s "$TMP/o/old_gpukernsum.csv" -a -s "$TMP/o/old_gpukernsum_base.csv"
check_eq "old name = current report" "$(cat "$TMP/o/k_cuda_gpu_kern_sum.csv")" "$(cat "$TMP/o/old_gpukernsum.csv")"
run_gf stats -r cuda_api_sum --format json -o "$TMP/o/j" "$E"
check "--format json: PREFIX_cuda_api_sum.json" test -s "$TMP/o/j_cuda_api_sum.json"
check "--format json: parses as a list of objects" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d, list) and d and 'Time (%)' in d[0]" "$TMP/o/j_cuda_api_sum.json"
run_gf stats -r nvtx_sum --format json -o "$TMP/o/j" "$TMP/empty.sqlite"
check_eq "--format json, no rows: [ ] (nsys 2022.4's shape)" "[
]" "$(cat "$TMP/o/j_nvtx_sum.json")"

# --- known answers (tests/gen/stats_edges.py; the rules are in docs/REPORTS.md) ---
"$GF" stats -r cuda_api_sum,cuda_gpu_trace,cuda_gpu_mem_size_sum,nvtx_pushpop_trace,nvtx_gpu_proj_trace,cuda_api_trace \
  --format csv:mem=B -o "$TMP/k/e" "$E" 2>/dev/null
api=$(cat "$TMP/k/e_cuda_api_sum.csv")
check_contains "api sum: a 6-character _vNNNN suffix is removed" "$api" ",cudaLaunchKernel"
check_contains "api sum: a '_v' not 6 from the end stays" "$api" ",cuOdd_vAB"
check_eq "api sum: a name that is only '_vabcd' becomes empty" "0.0,100,1,100.0,100.0,100,100,0.0," "$(tail -1 <<<"$api")"
check_contains "api sum: the median of two values above 2^31 is exact" "$api" "4000000000,1,4000000000.0,4000000000.0,4000000000,4000000000,0.0,cudaDeviceSynchronize"
gt=$(cat "$TMP/k/e_cuda_gpu_trace.csv")
check_contains "gpu trace: equal starts keep kernels before memcpys" "$gt" \
  "40000,200,9,1,1,1,128,1,1,32,0,1024,,,,,NVIDIA Edge GPU (0),1,,8,\"kernA(float*, int)\""$'\n'"40000,300,4,"
check_contains "gpu trace: a copyKind without a label has an empty name" "$gt" "60000,1,8,,,,,,,,,,5,5000.000,Device,Device,NVIDIA Edge GPU (0),1,,7,"$'\n'
check_contains "gpu trace: a zero-length memcpy has no throughput" "$gt" "61000,0,8,,,,,,,,,,4096,,Device,Device"
check_contains "gpu trace: memset kind and name" "$gt" ",2048,40960.000,Device,,NVIDIA Edge GPU (0),1,,7,[CUDA memset]"
check_contains "mem size sum: the label-less copyKind is left out; median of two values is a REAL" \
  "$(cat "$TMP/k/e_cuda_gpu_mem_size_sum.csv")" "1003,2,501.5,501.5,3,1000,704.9854608429879,[CUDA memcpy Host-to-Device]"
pp=$(cat "$TMP/k/e_nvtx_pushpop_trace.csv")
check_not_contains "push/pop: identical ranges (each other's parent) are left out" "$pp" ":dup"
check_not_contains "push/pop: and the range below them" "$pp" "under dup"
check_contains "push/pop: a zero-length range at its parent's end is its child" "$pp" "4000,4000,0,0,0,:zero at A end,4242,4242,1,0,11,3,:3:11,--:zero at A end"
check_contains "push/pop: a named domain prefixes the name" "$pp" ",EdgeDomain:child A1,"
check_contains "push/pop: textId names the range" "$pp" ",:child A2 (textId),"
check_contains "push/pop: an unended range ends at the last push/pop timestamp" "$pp" "150,9500,9350,"
check_contains "push/pop: rows by start (rowid 12 on thread 2 first)" "$(sed -n 2p "$TMP/k/e_nvtx_pushpop_trace.csv")" "150,9500"
pj=$(cat "$TMP/k/e_nvtx_gpu_proj_trace.csv")
check_contains "projection: identical ranges are projected without a level, parent or stack" "$pj" \
  ":dup,30000,100,6000,1000,PushPop,4242,4242,1,,2,6,,"
check_contains "projection: a push/pop range's parent can be a start/end range" "$pj" ":root A,20000,20300,1000,3000,PushPop,4242,4242,4,1,2,3,9,:9:3"
check_contains "projection: rows in RangeId order" "$(cut -d, -f12 <<<"$pj" | tr '\n' ' ')" "RangeId 2 3 4 5 6 7 8 9 10 12 13 16 "
at=$(cat "$TMP/k/e_cuda_api_trace.csv")
check_contains "api trace: one row per ThreadNames row of the thread" "$at" \
  "1100,100,cuOdd_vAB,0,6,4242,4242,10,main"$'\n'"1100,100,cuOdd_vAB,0,6,4242,4242,20,\"main, renamed\""

# --- NVTX parents and GPU op counts: tests/gen/stats_nvtx_edges.py (what nsys 2022.4 says on the same
# export: tests/real/test_stats_equal.sh; it differs only for the late child, V4 of docs/REPORTS.md) ---
N=$TMP/nvtx_edges.sqlite
python3 "$TOP/tests/gen/stats_nvtx_edges.py" "$N"
"$GF" stats -r nvtx_pushpop_trace,nvtx_gpu_proj_trace,nvtx_gpu_proj_sum -o "$TMP/ne/n" "$N" 2>/dev/null
pp=$(cat "$TMP/ne/n_nvtx_pushpop_trace.csv")
pj=$(cat "$TMP/ne/n_nvtx_gpu_proj_trace.csv")
check_contains "push/pop: a zero-length range where two siblings meet: the lower rowid (the later one) is its parent" \
  "$pp" "2000,2000,0,0,0,:zero at the seam,4343,4343,1,0,3,1,:1:3,--:zero at the seam"
check_contains "push/pop: above 2^32 ns, a range 710 ns inside its parent's start is that parent's child" "$pp" \
  "9027183414,9027223023,39609,0,39609,:late child,4343,4343,2,0,12,11,:10:11:12,----:late child"
check_contains "push/pop: and the parent's DurChild and NumChild count it" "$pp" \
  "9027182704,9027223293,40589,39609,980,:late parent,4343,4343,1,1,11,10,:10:11,--:late parent"
check_contains "projection: crossing start/end ranges of equal tightness: the lower rowid is the parent" "$pj" \
  ":in both,18000,300,15000,2000,PushPop,4343,4343,1,1,0,6,4,:4:6"$'\n'
check_contains "projection: NumGPUOps counts correlation ids (the two calls of one id count once)" "$pj" \
  ":dup corr,50000,3500,30000,10000,PushPop,4343,4343,3,0,1,7,,:7"$'\n'
check_contains "projection: around the inner call of a pair (not the outer) and a call between them: 2" "$pj" \
  ":inner only,50000,1100,31000,3990,PushPop,4343,4343,2,1,1,8,7,:7:8"$'\n'
check_contains "projection: a start/end range around the inner call only: 1" "$pj" \
  ":se inner,50000,400,31090,3860,StartEnd,4343,4343,1,2,0,9,8,:7:8:9"$'\n'
check_contains "projection: a call on another thread with the pair's correlation id counts there" "$pj" \
  ":other thread,50000,400,31000,4000,PushPop,4343,4344,1,0,0,13,,:13"
check_contains "projection: above 2^32 ns the exact parents (grandparent, parent and child one level apart)" "$pj" \
  ":late grandparent,9027220420,901303,9026221514,1005839,PushPop,4343,4343,1,0,1,10,,:10
:late parent,9027220420,901303,9027182704,40589,PushPop,4343,4343,1,1,1,11,10,:10:11
:late child,9027220420,901303,9027183414,39609,PushPop,4343,4343,1,2,0,12,11,:10:11:12"
check_contains "projection sum: Total GPU Ops sums the distinct correlation ids" \
  "$(cat "$TMP/ne/n_nvtx_gpu_proj_sum.csv")" ":dup corr,PushPop,3500,10000,1,3500.0,3500.0,3500,3500,0.0,3,3.0,0.0,1.0"

# --- a 5,000-deep push/pop stack: levels and stacks are not cut ---
python3 - "$TMP/deep.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER,"
                 " textId INTEGER, domainId INTEGER, endGlobalTid INTEGER);")
D = 5000
db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, 281474976710657, NULL, 0, NULL)",
               [(i, 2 * D - i, "d%d" % i) for i in range(D)])
db.commit()
PY
"$GF" stats -r nvtx_pushpop_trace -o "$TMP/deep/x" "$TMP/deep.sqlite" 2>/dev/null
last=$(tail -1 "$TMP/deep/x_nvtx_pushpop_trace.csv")
check_contains "5,000 levels: the innermost range is level 4999" "$last" ",4999,0,5000,4999,"
check_eq "5,000 levels: its RangeStack holds all 5,000 ids" 5000 "$(cut -d, -f13 <<<"$last" | tr -cd ':' | wc -c)"

# --- byte-identity with a current nsys (2025.1 recordings) ---
if have_fixture real/roboflow-inference/nvtx_pushpop_trace.csv; then
  python3 "$TOP/tests/gen/recorded_exports.py" "$FIX" "$TMP/rec"
  R=$FIX/real/roboflow-inference
  "$GF" stats -r nvtx_pushpop_trace,nvtx_gpu_proj_trace,nvtx_gpu_proj_sum -o "$TMP/rec/n" "$TMP/rec/nvtx.sqlite" 2>/dev/null
  "$GF" stats -r cuda_gpu_trace,cuda_gpu_kern_sum --format csv:mem=B -o "$TMP/rec/c" "$TMP/rec/cuda.sqlite" 2>/dev/null
  for p in "n nvtx_pushpop_trace" "n nvtx_gpu_proj_trace" "n nvtx_gpu_proj_sum" "c cuda_gpu_trace" "c cuda_gpu_kern_sum"; do
    set -- $p
    check "2025.1 recording: $2 byte-identical" cmp -s "$TMP/rec/$1_$2.csv" "$R/$2.csv"
  done
else
  skip "2025.1 recordings" "fixtures absent"
fi
if have_fixture real/vernier/nsys_stats_cuda_api_sum.out; then
  check_eq "2025.3 recording: cuda_api_sum header" "$(sed -n 2p "$FIX/real/vernier/nsys_stats_cuda_api_sum.out")" \
    "$(head -1 "$TMP/k/e_cuda_api_sum.csv")"
fi

# --- .nsys-rep: one export cache keyed by content + nsys version, nothing beside the report (fake nsys) ---
if have_fixture real/test-cuda/report1.sqlite && have_fixture real/nussinov-gpu/report3.sqlite; then
  A_DB=$FIX/real/test-cuda/report1.sqlite B_DB=$FIX/real/nussinov-gpu/report3.sqlite
  CACHE=$XDG_CACHE_HOME/gpuflame/exports
  # the kernel names of an export, sorted, by SQL (independent of gpuflame)
  kernels_of() { python3 -c 'import sqlite3,sys
db=sqlite3.connect(sys.argv[1]); print("\n".join(sorted({r[0] for r in db.execute("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id=k.demangledName")})))' "$1"; }
  # the Name column of a cuda_gpu_kern_sum CSV, sorted
  names_of() { python3 -c 'import csv,sys
print("\n".join(sorted(r["Name"] for r in csv.DictReader(open(sys.argv[1])))))' "$1"; }
  mkdir -p "$TMP/rep"
  printf 'capture A\n' >"$TMP/rep/report1.nsys-rep"
  printf 'capture B\n' >"$TMP/rep/report1.qdrep"
  export FAKE_NSYS_LOG=$TMP/rep/nsys.log
  FAKE_NSYS_SQLITE=$A_DB run_gf stats --nsys "$FAKE_NSYS" -r cuda_gpu_kern_sum -o "$TMP/rep/a" "$TMP/rep/report1.nsys-rep"
  check_eq ".nsys-rep: exit 0" 0 "$rc"
  check_eq ".nsys-rep: nothing written beside the report" "report1.nsys-rep report1.qdrep" \
    "$(cd "$TMP/rep" && echo report1.*)"
  check_eq ".nsys-rep: one export in the cache" 1 "$(ls "$CACHE" | grep -c '\.sqlite$')"
  check_eq ".nsys-rep: the cache entry is named by the report's sha256 and the nsys version" \
    "$(sha256sum "$TMP/rep/report1.nsys-rep" | cut -c1-64)-nsys2025.1.3.140.sqlite" "$(ls "$CACHE")"
  # the collision case: report1.qdrep is another capture; its stats are its own (the fake exports B_DB now)
  FAKE_NSYS_SQLITE=$B_DB run_gf stats --nsys "$FAKE_NSYS" -r cuda_gpu_kern_sum -o "$TMP/rep/b" "$TMP/rep/report1.qdrep"
  check_eq "report1.qdrep beside report1.nsys-rep: exit 0" 0 "$rc"
  check_eq "report1.qdrep beside report1.nsys-rep: its own kernels (SQL over its export)" "$(kernels_of "$B_DB")" \
    "$(names_of "$TMP/rep/b_cuda_gpu_kern_sum.csv")"
  check_eq "report1.nsys-rep: still its own kernels" "$(kernels_of "$A_DB")" "$(names_of "$TMP/rep/a_cuda_gpu_kern_sum.csv")"
  # reused by content whatever exports next, and by every command
  FAKE_NSYS_SQLITE=$B_DB run_gf stats --nsys "$FAKE_NSYS" -r cuda_gpu_kern_sum -o "$TMP/rep/a2" "$TMP/rep/report1.nsys-rep"
  check_eq "report1.nsys-rep again: read from the cache (its own kernels)" "$(kernels_of "$A_DB")" \
    "$(names_of "$TMP/rep/a2_cuda_gpu_kern_sum.csv")"
  FAKE_NSYS_SQLITE=$A_DB run_gf collapse --nsys "$FAKE_NSYS" "$TMP/rep/report1.qdrep"
  check_eq "collapse of report1.qdrep: exit 0" 0 "$rc"
  check_contains "collapse of report1.qdrep: from the cached export (its kernel)" "$out" "nussinov_gpu"
  check_eq "two reports, four commands: two nsys exports in all" 2 "$(grep -c '"export"' "$FAKE_NSYS_LOG")"
  FAKE_NSYS_SQLITE=$A_DB FAKE_NSYS_VERSION=2025.2.1.1 run_gf stats --nsys "$FAKE_NSYS" -r cuda_api_sum -o "$TMP/rep/v" \
    "$TMP/rep/report1.nsys-rep"
  check_eq "another nsys version: exported again" 3 "$(grep -c '"export"' "$FAKE_NSYS_LOG")"
  FAKE_NSYS_SQLITE=$A_DB run_gf stats --nsys "$FAKE_NSYS" --force-export -r cuda_api_sum -o "$TMP/rep/d" "$TMP/rep/report1.nsys-rep"
  check_eq "--force-export: exported again" 4 "$(grep -c '"export"' "$FAKE_NSYS_LOG")"
  FAKE_NSYS_FAIL=export:exit run_gf stats --nsys "$FAKE_NSYS" --force-export -r cuda_api_sum "$TMP/rep/report1.nsys-rep"
  check_eq "a failed nsys export: exit 6" 6 "$rc"
  check_contains "a failed nsys export: names the report" "$err" "$TMP/rep/report1.nsys-rep: nsys export"
  check_eq "a failed nsys export: no temporary directory left in the cache" "" "$(ls -A "$CACHE" | grep -v '\.sqlite$')"
  # two processes exporting one report at once: each reads a whole export, the cache holds one
  printf 'capture C\n' >"$TMP/rep/c.nsys-rep"
  for i in 1 2 3; do
    FAKE_NSYS_SQLITE=$A_DB "$GF" stats --nsys "$FAKE_NSYS" -r cuda_gpu_kern_sum -o "$TMP/rep/par$i" "$TMP/rep/c.nsys-rep" \
      2>"$TMP/rep/par$i.err" &
  done
  wait
  check_eq "three processes exporting one report at once: the same kernels each" \
    "$(for i in 1 2 3; do kernels_of "$A_DB"; done)" \
    "$(for i in 1 2 3; do names_of "$TMP/rep/par${i}_cuda_gpu_kern_sum.csv"; done)"
  C_ENTRY=$CACHE/$(sha256sum "$TMP/rep/c.nsys-rep" | cut -c1-64)-nsys2025.1.3.140.sqlite
  check_eq "concurrent exports: the cache entry is a whole SQLite file" ok \
    "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])' "$C_ENTRY")"
  check_eq "concurrent exports: no temporary directory left in the cache" "" "$(ls -A "$CACHE" | grep -v '\.sqlite$')"
  # bounded: with a 1 MiB cache, adding an export evicts the least recently used ones
  printf 'return { extends = "default", exports = { cache_max_mb = 1 } }\n' >"$TMP/rep/small.lua"
  touch -d '-1 hour' "$C_ENTRY"
  printf 'capture D\n' >"$TMP/rep/d.nsys-rep"
  FAKE_NSYS_SQLITE=$A_DB run_gf stats --policy "$TMP/rep/small.lua" --nsys "$FAKE_NSYS" -r cuda_api_sum -o "$TMP/rep/e" \
    "$TMP/rep/d.nsys-rep"
  check_eq "cache_max_mb = 1: exit 0" 0 "$rc"
  check_eq "cache_max_mb = 1: only the newest export is left" \
    "$(sha256sum "$TMP/rep/d.nsys-rep" | cut -c1-64)-nsys2025.1.3.140.sqlite" "$(ls "$CACHE")"
  # exports.beside: <report file>.sqlite beside the report, one per capture
  printf 'return { extends = "default", exports = { beside = true } }\n' >"$TMP/rep/beside.lua"
  FAKE_NSYS_SQLITE=$B_DB run_gf stats --policy "$TMP/rep/beside.lua" --nsys "$FAKE_NSYS" -r cuda_gpu_kern_sum \
    -o "$TMP/rep/f" "$TMP/rep/report1.qdrep"
  check "exports.beside: report1.qdrep.sqlite beside it" test -s "$TMP/rep/report1.qdrep.sqlite"
  check_eq "exports.beside: its own kernels" "$(kernels_of "$B_DB")" "$(names_of "$TMP/rep/f_cuda_gpu_kern_sum.csv")"
  # no usable cache directory: a temporary export for this run only
  printf 'x' >"$TMP/rep/notadir"
  printf 'return { extends = "default", exports = { cache_dir = "%s" } }\n' "$TMP/rep/notadir/cache" >"$TMP/rep/nodir.lua"
  FAKE_NSYS_SQLITE=$B_DB run_gf stats --policy "$TMP/rep/nodir.lua" --nsys "$FAKE_NSYS" -r cuda_gpu_kern_sum \
    -o "$TMP/rep/g" "$TMP/rep/report1.qdrep"
  check_eq "an unusable cache directory: exit 0" 0 "$rc"
  check_eq "an unusable cache directory: its own kernels" "$(kernels_of "$B_DB")" "$(names_of "$TMP/rep/g_cuda_gpu_kern_sum.csv")"
  unset FAKE_NSYS_LOG
else
  skip ".nsys-rep export" "fixtures absent"
fi
t_done
