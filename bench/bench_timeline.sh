#!/usr/bin/env bash
# Timeline benchmark, CSV path (issue 4): 2,000,000 cuda_gpu_trace + 2,000,000 cuda_api_trace rows (and 4M + 4M)
# → timeline HTML; throughput of CSV in MB/s, peak RSS, and the ratio against the Python reference of the
# reference pipeline (bench/ref_timeline.py) measured in the same run.
# Standalone: bench/bench_timeline.sh [ROWS...]   (default 2000000 4000000; GPUFLAME_BIN or bin/gpuflame)
# Generated files live in bench/out/ (gitignored). Set BENCH_SKIP_PY=1 to skip the Python reference.
set -eu
# result CASE REF_WALL NOTE: a bench/run table line for the last measure
result() {
  local w u s r; read -r w u s r <"$out/last.txt"
  echo "RESULT|$1|$w|$(awk -v k="$r" 'BEGIN { printf "%.1f", k / 1024 }')|$2|cpu $(awk -v a="$u" -v b="$s" 'BEGIN { printf "%.2f", a + b }') s; $3"
}
top=$(cd "$(dirname "$0")/.." && pwd)
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
out=$top/bench/out
mkdir -p "$out"
tmpl=$top/tests/trace/templates/timeline.html
lp=()
[ -e "$top/templates/timeline.html" ] || lp=(--lua-path "$top/tests/trace")
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(2000000 4000000)

measure() { # label cmd... → prints "label wall_s cpu_s rss_MB"
  local label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/err.txt" || { cat "$out/err.txt"; return 1; }
  read -r wall user sys rss <"$out/time.txt"
  python3 -c "import sys; w,u,s,r=map(float,sys.argv[2:]); print('%-28s wall %7.2f s  cpu %7.2f s  peak RSS %7.1f MB' % (sys.argv[1], w, u+s, r/1024))" \
    "$label" "$wall" "$user" "$sys" "$rss"
  echo "$wall $user $sys $rss" >"$out/last.txt"
}

echo "# timeline CSV benchmark ($(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
for n in "${rows[@]}"; do
  d=$out/csv$((n / 1000000))m
  [ -s "$d/cuda_gpu_trace.csv" ] || python3 "$top/bench/gen_trace_csv.py" "$n" "$d"
  bytes=$(( $(stat -c %s "$d/cuda_gpu_trace.csv") + $(stat -c %s "$d/cuda_api_trace.csv") ))
  echo "## $n + $n rows, $((bytes / 1000000)) MB of CSV"
  measure "gpuflame timeline" "$gf" -q "${lp[@]}" timeline --max-events 20000 "$d/cuda_gpu_trace.csv" "$d/cuda_api_trace.csv" -o "$out/csv.html"
  read -r w u s r <"$out/last.txt"
  gr=$r
  python3 -c "import sys; b,w,c=map(float,sys.argv[1:]); print('  throughput %.1f MB/s of CSV (wall), %.1f MB/s per CPU-second' % (b/1e6/w, b/1e6/c))" \
    "$bytes" "$w" "$(python3 -c "print($u+$s)")"
  gw=$w gc=$(python3 -c "print($u+$s)")
  gres="timeline csv $((n / 1000000))M+$((n / 1000000))M rows -> html"
  gnote="$((bytes / 1000000)) MB CSV, $(python3 -c "print('%.1f' % ($bytes / 1e6 / $w))") MB/s"
  if [ "${BENCH_SKIP_PY:-}" != 1 ] && [ "$n" = "${rows[0]}" ]; then
    measure "python reference" python3 "$top/bench/ref_timeline.py" "$d/cuda_gpu_trace.csv" "$d/cuda_api_trace.csv" "$tmpl" "$out/ref.html"
    read -r w u s r <"$out/last.txt"
    python3 -c "import sys; gw,gc,pw,pc=map(float,sys.argv[1:]); print('  gpuflame is %.1fx faster (wall), %.1fx (CPU)' % (pw/gw, pc/gc))" \
      "$gw" "$gc" "$w" "$(python3 -c "print($u+$s)")"
    echo "RESULT|$gres|$gw|$(awk -v k="$gr" 'BEGIN { printf "%.1f", k / 1024 }')|$w|$gnote (ref: Python reference pipeline)"
  else
    echo "RESULT|$gres|$gw|$(awk -v k="$gr" 'BEGIN { printf "%.1f", k / 1024 }')|-|$gnote"
  fi
done
