#!/usr/bin/env bash
# Bundled scripts on the Trace model: top-kernels against independent SQL on each real export;
# launch-stats and gpu-idle on a small generated trace with known gaps.
. "$(dirname "$0")/../lib/t.sh"

run_gf run --list
check_contains "run --list shows top-kernels" "$out" "top-kernels"
check_contains "run --list shows launch-stats" "$out" "launch-stats"
check_contains "run --list shows gpu-idle" "$out" "gpu-idle"

n=0
for f in "$FIX"/real/*/*.sqlite; do
  [ -e "$f" ] || continue
  has=$(sqlite3 "file:$f?mode=ro" "SELECT count(*) FROM sqlite_master WHERE name='CUPTI_ACTIVITY_KIND_KERNEL'")
  [ "$has" = 1 ] || continue
  n=$((n + 1))
  tag=$(basename "$(dirname "$f")")
  run_gf run top-kernels "$f" --json
  check_eq "$tag: top-kernels exits 0" 0 "$rc"
  res=$(printf '%s' "$out" | python3 -c '
import json, sqlite3, sys
got = json.load(sys.stdin)
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
rows = db.execute("""SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k
                     JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value""").fetchall()
exp = {name: (n, t) for name, n, t in rows}
have = {k["name"]: (k["instances"], k["total_ns"]) for k in got["kernels"]}
total = sum(t for _, t in exp.values())
share = abs(sum(k["share"] for k in got["kernels"]) - 1) < 1e-9
print("ok" if have == exp and got["gpu_total_ns"] == total and share else "mismatch %r vs %r" % (have, exp))
' "$f")
  check_eq "$tag: top-kernels instances and totals equal SQL" ok "$res"
done
[ "$n" -gt 0 ] || skip "top-kernels on real exports" "fixtures absent"

# A generated trace with known gaps (one stream, 2025 CSV headers), see the arithmetic below.
cat >"$TMP/api.csv" <<'CSV'
Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name
0,10000,cudaLaunchKernel,0,1,7,7,20,app
20000,5000,cudaLaunchKernel,0,2,7,7,20,app
200000,2000,cudaLaunchKernel,0,3,7,7,20,app
250000,1000,cudaLaunchKernel,0,4,7,7,20,app
CSV
cat >"$TMP/gpu.csv" <<'CSV'
Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name
15000,50000,1,1,1,1,32,1,1,16,0,0,,,,,NVIDIA L4 (0),1,,7,kA
75000,1000,2,1,1,1,32,1,1,16,0,0,,,,,NVIDIA L4 (0),1,,7,kB
210000,500,3,1,1,1,32,1,1,16,0,0,,,,,NVIDIA L4 (0),1,,7,kB
400000,100,4,1,1,1,32,1,1,16,0,0,,,,,NVIDIA L4 (0),1,,7,kA
CSV
# gaps: 65000→75000 = 10000 (< 30 µs: kernel wait); 76000→210000 = 134000, launch 3 returned at 202000:
# host wait 126000 + other 8000; 210500→400000 = 189500, launch 4 returned at 251000: host 40500 + other 149000.
run_gf run gpu-idle "$TMP/gpu.csv" "$TMP/api.csv" --json
res=$(printf '%s' "$out" | python3 -c '
import json, sys
s = json.load(sys.stdin)["streams"]
r = s[0]
print(len(s), r["lane"], r["ops"], r["span_ns"], r["busy_ns"], r["idle_ns"], r["host_wait_ns"], r["kernel_wait_ns"], r["other_ns"], r["gaps"])')
check_eq "gpu-idle: span, busy, idle = host wait + kernel wait + other" \
  "1 GPU NVIDIA L4 (0) stream 7 4 385100 51600 333500 166500 10000 157000 3" "$res"
run_gf run gpu-idle "$TMP/gpu.csv" "$TMP/api.csv"
check_contains "gpu-idle table" "$out" "GPU NVIDIA L4 (0) stream 7"

# launch overhead = API duration; delay = kernel start - API end
# kA: K1 api 10000 delay 5000; K4 api 1000 delay 149000 (late, and 100 ns < 1000 ns launch: short)
# kB: K2 api 5000 delay 50000 (short); K3 api 2000 delay 8000 (short)
run_gf run launch-stats "$TMP/gpu.csv" "$TMP/api.csv" --json
res=$(printf '%s' "$out" | python3 -c '
import json, sys
for k in sorted(json.load(sys.stdin)["kernels"], key=lambda k: k["name"]):
    print(k["name"], k["kernels"], k["launched"], k["launch_overhead_mean_ns"], k["launch_overhead_max_ns"],
          k["launch_delay_mean_ns"], k["launch_delay_max_ns"], k["shorter_than_launch"], k["late_launches"])' | tr '\n' ';')
check_eq "launch-stats: overhead, delay, short and late flags" \
  "kA 2 2 5500 10000 77000 149000 1 1;kB 2 2 3500 5000 29000 50000 2 0;" "$res"
run_gf run launch-stats "$TMP/gpu.csv" "$TMP/api.csv"
check_contains "launch-stats table flags kernels" "$out" "2 kernel(s) flagged"
t_done
