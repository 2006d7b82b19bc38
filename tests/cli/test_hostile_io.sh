#!/usr/bin/env bash
# gf-test: slow
# Hostile environment (issue 8 §3): output directories that are read-only, immutable, full or capped by
# RLIMIT_FSIZE; policy *functions* that error, loop or allocate without bound; servers whose reply is not
# JSON, is 100 MB, never ends, or is not HTTP. Same assertions as test_hostile.sh: exit code, one error
# line naming the file, nothing half-written. Policies and scripts that fail at their top level are in
# tests/cases/hostile_io.cases.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/hostile.sh"

K=$TMP/k; mkdir -p "$K"
H='Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name'
# a kern CSV whose page is ~2 MB (20,000 kernels): bigger than the small tmpfs below
python3 - "$K/kern.csv" "$H" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n")
    for i in range(20000):
        f.write("0.1,%d,1,1,1,1,1,0,\"kernel_%d<float>(int, float *)\"\n" % (1000 + i * 7, i))
PY
GH='Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name'
AH='Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name'
python3 - "$K/gpu_trace.csv" "$K/api_trace.csv" "$GH" "$AH" <<'PY'
import sys
with open(sys.argv[1], "w") as g, open(sys.argv[2], "w") as a:
    g.write(sys.argv[3] + "\n"); a.write(sys.argv[4] + "\n")
    for i in range(20000):  # a name per kernel: the page stays ~300 KB however well its event columns compress
        g.write("%d,%d,%d,160,1,1,256,1,1,32,0.000,0.000,,,,,GPU (0),1,7,\"k%d\"\n" % (1000 + i * 100, 50 + i % 40, i, i))
        a.write("%d,30,cudaLaunchKernel,0,%d,42,42,20,python3\n" % (900 + i * 100, i))
PY

# --- output directories ------------------------------------------------------------------------------
# Root ignores mode bits, so: a read-only tmpfs and a 64 KiB tmpfs when mount works here (it does in
# this sandbox; otherwise those cases skip), chattr +i, and RLIMIT_FSIZE (`ulimit -f`; gpuflame ignores SIGXFSZ itself).
MNT_RO=$TMP/ro MNT_FULL=$TMP/full
mkdir -p "$MNT_RO" "$MNT_FULL"
cleanup() { umount "$MNT_RO" 2>/dev/null; umount "$MNT_FULL" 2>/dev/null; chattr -i "$TMP/imm" 2>/dev/null; }
trap cleanup EXIT
if mount -t tmpfs -o ro,size=64k tmpfs "$MNT_RO" 2>/dev/null && mount -t tmpfs -o size=64k tmpfs "$MNT_FULL" 2>/dev/null; then
  hostile "read-only output dir (flamegraph)" 1 "$MNT_RO/a.html: cannot create output: Read-only file system" "$MNT_RO/a.html" \
    flamegraph "$K/kern.csv" -o "$MNT_RO/a.html"
  hostile "read-only output dir (timeline)" 1 "$MNT_RO/t.html: cannot create output: Read-only file system" "$MNT_RO/t.html" \
    timeline "$K/gpu_trace.csv" "$K/api_trace.csv" -o "$MNT_RO/t.html"
  hostile "full filesystem (flamegraph)" 1 "$MNT_FULL/a.html: cannot write output: No space left on device" "$MNT_FULL/a.html" \
    flamegraph "$K/kern.csv" -o "$MNT_FULL/a.html"
  hostile "full filesystem (timeline)" 1 "$MNT_FULL/t.html: cannot write output: No space left on device" "$MNT_FULL/t.html" \
    timeline "$K/gpu_trace.csv" "$K/api_trace.csv" -o "$MNT_FULL/t.html"
  hostile "full filesystem (export speedscope)" 1 "$MNT_FULL/s.json: cannot write output: No space left on device" \
    "$MNT_FULL/s.json" export --format speedscope "$K/kern.csv" -o "$MNT_FULL/s.json"
  hostile "full filesystem (export chrome-trace)" 1 "$MNT_FULL/c.json: cannot write output: No space left on device" \
    "$MNT_FULL/c.json" export --format chrome-trace "$K/gpu_trace.csv" "$K/api_trace.csv" -o "$MNT_FULL/c.json"
  hostile "full filesystem (export folded)" 1 "$MNT_FULL/c.folded: cannot write output: No space left on device" \
    "$MNT_FULL/c.folded" export --format folded "$K/kern.csv" -o "$MNT_FULL/c.folded"
  check_eq "full filesystem: nothing left in it" "" "$(ls -A "$MNT_FULL")"
else
  skip "read-only and full tmpfs output dirs" "mount -t tmpfs is not permitted here"
fi
mkdir -p "$TMP/imm"
if chattr +i "$TMP/imm" 2>/dev/null; then
  hostile "immutable output dir (chattr +i)" 1 "$TMP/imm/a.html: cannot create output: Operation not permitted" "$TMP/imm/a.html" \
    flamegraph "$K/kern.csv" -o "$TMP/imm/a.html"
  chattr -i "$TMP/imm"
else
  skip "immutable output dir" "chattr +i not supported on this filesystem"
fi
mkdir -p "$TMP/fs"
run_fsize() { local o e; o=$(mktemp); e=$(mktemp)
  (ulimit -f 100; exec "$GF" "$@") >"$o" 2>"$e"; rc=$?; out=$(cat "$o"); err=$(cat "$e"); rm -f "$o" "$e"; }
run_fsize flamegraph "$K/kern.csv" -o "$TMP/fs/a.html"
check_eq "RLIMIT_FSIZE 100 KiB: exit 1, one line naming the output and 'File too large'" \
  "1|gpuflame: $TMP/fs/a.html: cannot write output: File too large" "$rc|$err"
check_eq "RLIMIT_FSIZE: no output, no temp file" "" "$(ls -A "$TMP/fs")"
cp "$K/kern.csv" "$TMP/fs/old.html"
old_sum=$(md5sum <"$TMP/fs/old.html")
run_fsize timeline "$K/gpu_trace.csv" "$K/api_trace.csv" -o "$TMP/fs/old.html"
check_eq "RLIMIT_FSIZE over an existing output: exit 1, the old file intact" "1|$old_sum" "$rc|$(md5sum <"$TMP/fs/old.html")"

# --- policy functions that loop, allocate or error, timed ------------------------------------------------
printf 'return { extends = "default", limits = { function_budget = 1 },\n  tags = function(ctx, tags) while true do end end }\n' >"$K/ltags.lua"
printf 'return { extends = "default", limits = { function_budget = 1 },\n  tags = function(ctx, tags) local t = {} for i = 1, 1e9 do t[i] = string.rep("y", 4096) .. i end end }\n' >"$K/atags.lua"
printf 'return { extends = "default", tags = function(ctx, tags) error("boom") end }\n' >"$K/etags.lua"
mkdir -p "$TMP/cap"; printf 'gpu;nsys;cuda_kernel;burn 28918\n' >"$TMP/cap/gpu.folded"
for p in ltags atags etags; do
  case $p in etags) why="$K/etags.lua:1: boom" ;; *) why="$K/$p.lua:2: script ran longer than its time budget of 1 s" ;; esac
  s0=$(date +%s)
  GPUFLAME_TOKEN=t hostile "policy function tags(): $p is stopped" 1 "policy function failed: $why" - \
    --policy "$K/$p.lua" upload --server http://127.0.0.1:9 --service s --state-dir "$TMP/st_$p" --hostname h "$TMP/cap"
  check "policy function tags(): $p stopped within 20 s" [ $(( $(date +%s) - s0 )) -lt 20 ]
done

# --- servers that misbehave (tests/lib/hostile_server.py, loopback, exits by itself) -------------------
fast=$K/up.lua
printf 'return { extends = "default", upload = { timeout = 3, connect_timeout = 2 },\n  deliver = { retry = { count = 1, base = 0.05, cap = 0.1, jitter = 0 } } }\n' >"$fast"
for mode in notjson huge endless garbage; do
  python3 "$TOP/tests/lib/hostile_server.py" --mode "$mode" --max-seconds 40 >"$TMP/srv.$mode" 2>/dev/null &
  spid=$!
  for _ in $(seq 1 100); do grep -q '^PORT ' "$TMP/srv.$mode" 2>/dev/null && break; sleep 0.1; done
  port=$(awk '/^PORT /{print $2}' "$TMP/srv.$mode")
  case $mode in
    notjson) why="HTTP 200 but the reply is not JSON" ;; huge) why="response larger than the 1048576-byte cap" ;;
    endless) why="Timeout was reached" ;; garbage) why="POST http://127.0.0.1:$port/api/v2/profiles:" ;;
  esac
  s0=$(date +%s)
  GPUFLAME_TOKEN=t run_gf --policy "$fast" upload --server "http://127.0.0.1:$port" --service s \
    --state-dir "$TMP/st_$mode" --hostname h "$TMP/cap"
  dt=$(( $(date +%s) - s0 ))
  n_spool=$(find "$TMP/st_$mode/spool" -name '*.item' 2>/dev/null | wc -l)
  if [ "$rc" = 7 ] && [[ "$err" == *"$why"* ]] && [ "$n_spool" = 1 ] && [ "$dt" -lt 30 ]; then
    ok "server reply '$mode': exit 7, the reason named, the capture kept in the spool, bounded time (${dt}s)"
  else
    not_ok "server reply '$mode'" "rc=$rc spool=$n_spool time=${dt}s err=[${err:0:300}]"
  fi
  kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
done

t_done
