#!/usr/bin/env bash
# gpuflame stats vs nsys stats (issue 12), per report, on generated exports with the real schema
# (tests/gen/big_export.py: N NVTX ranges, N kernels, N CUDA runtime calls; default N = 1,000,000, 100,000
# and 10,000). Wall time and peak RSS from /usr/bin/time -v; every nsys run bounded by
# BENCH_NSYS_TIMEOUT s (default 900). nsys 2022.4's nvtxgpuproj joins every GPU op against every CUDA call
# without an index (65 s at N = 10,000, quadratic): it only runs for N <= BENCH_PROJ_NSYS_MAX (10,000).
# After timing, tests/real/stats_equal.py checks that the two tools' CSVs agree (same normalisations as
# tests/real/test_stats_equal.sh) for every report nsys finished.
# Standalone: bench/bench_stats.sh [N...]   (files in bench/out/; BENCH_NSYS=PATH, BENCH_SKIP_NSYS=1)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
out=${BENCH_OUT:-$top/bench/out}
mkdir -p "$out"
nsys=${BENCH_NSYS:-$(command -v nsys || true)}
[ "${BENCH_SKIP_NSYS:-}" = 1 ] && nsys=""
tmo=${BENCH_NSYS_TIMEOUT:-900}
proj_max=${BENCH_PROJ_NSYS_MAX:-10000}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 100000 10000)
REPORTS="cuda_gpu_kern_sum:gpukernsum cuda_api_sum:cudaapisum cuda_gpu_trace:gputrace cuda_api_trace:cudaapitrace
cuda_gpu_mem_time_sum:gpumemtimesum cuda_gpu_mem_size_sum:gpumemsizesum nvtx_sum:nvtxsum
nvtx_pushpop_trace:nvtxpptrace nvtx_gpu_proj_trace:nvtxgpuproj nvtx_gpu_proj_sum:-"

# tv CMD...: runs under /usr/bin/time -v; sets $wall (s), $rss (MB), $cpu (s), $st (exit status)
tv() {
  local f=$out/tv.txt
  set +e
  /usr/bin/time -v -o "$f" "$@" >/dev/null 2>"$out/tv.err"
  st=$?
  set -e
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$f")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$f")
  cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$f")
}

echo "# stats benchmark ($(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)); nsys: ${nsys:-none}"
for n in "${sizes[@]}"; do
  f=$out/stats_$n.sqlite
  [ -s "$f" ] || python3 "$top/tests/gen/big_export.py" "$f" --ranges "$n"
  counts=$(python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); print(" ".join(str(d.execute("SELECT count(*) FROM " + t).fetchone()[0]) for t in ("NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME")))' "$f")
  echo "## N=$n: $(( $(stat -c %s "$f") / 1000000 )) MB; NVTX_EVENTS / KERNEL / RUNTIME rows: $counts"
  d=$out/stats_eq_$n
  rm -rf "$d"; mkdir -p "$d"
  ln -sf "$f" "$d/x.sqlite"
  : >"$d/stats.log"
  for pair in $REPORTS; do
    r=${pair%%:*} old=${pair#*:}
    tv "$gf" -q stats --format csv:mem=B -r "$r" -o "$d/gf" "$f"
    [ "$st" = 0 ] || { echo "gpuflame stats -r $r failed ($st): $(tail -2 "$out/tv.err")"; exit 1; }
    gw=$wall gr=$rss gc=$cpu
    ref=- note="gpuflame cpu ${gc} s"
    if [ -n "$nsys" ] && [ "$old" != - ] && { [ "$old" != nvtxgpuproj ] || [ "$n" -le "$proj_max" ]; }; then
      tv timeout -k 5 "$tmo" "$nsys" stats --format csv:mem=B --force-overwrite=true -o "$d/ns" --report "$old" "$f"
      cat "$out/tv.err" >>"$d/stats.log"
      if [ "$st" = 124 ] || [ "$st" = 137 ]; then
        ref=">$tmo"; note="$note; nsys $old timed out after $tmo s"
      elif [ "$st" != 0 ]; then
        note="$note; nsys $old failed ($st)"
      else
        ref=$wall; note="$note; nsys $old cpu ${cpu} s, peak RSS ${rss} MB"
      fi
    elif [ "$old" = nvtxgpuproj ]; then
      note="$note; nsys nvtxgpuproj not run above N=$proj_max (quadratic)"
    fi
    echo "RESULT|stats $r N=$n|$gw|$gr|$ref|$note"
  done
  if [ -n "$nsys" ]; then
    if python3 "$top/tests/real/stats_equal.py" "$d" "N=$n" --present-only >"$d/equal.txt"; then
      echo "N=$n: gpuflame = nsys on every report nsys finished ($(grep -c '^ok' "$d/equal.txt") checks)"
    else
      echo "N=$n: DIFFERENCES:"; grep -v '^ok' "$d/equal.txt" | cut -c1-300
    fi
  fi
done
