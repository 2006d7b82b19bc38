#!/usr/bin/env bash
# CSV at memory speed (issue 42 item 4): the nsys-stats CSV paths on one core, as ratios measured in one run.
# Inputs: bench/gen_inputs.py's 1,000,000-row cuda_gpu_kern_sum CSV (every name quoted, with commas) and
# bench/gen_trace_csv.py's ROWS + ROWS trace CSVs (default 1,000,000). Every command runs pinned to one CPU
# (taskset) and interleaved RUNS times (default 3); the table shows medians of CPU seconds (user + sys),
# which a loaded machine inflates less than wall time, and MB of CSV per CPU second.
#   collapse     `gpuflame collapse kern.csv` against bench/ref_pipeline.py csv (Python csv module)
#   timeline     `gpuflame timeline --max-events 20000 gpu.csv api.csv`
#   csv reader   bench/csv_read.c (core/csv.c, every field) against bench/csv_raw.c (libcsv, empty callbacks)
# Standalone: GF_TOP=. GPUFLAME_BIN=bin/gpuflame BENCH_OUT=bench/out bench/bench_csv.sh [ROWS]
set -eu
top=${GF_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
GF=${GPUFLAME_BIN:-$top/bin/gpuflame}
B=${BENCH_OUT:-$top/bench/out}/csv
rows=${1:-1000000} runs=${RUNS:-3}
mkdir -p "$B"
K=$B/kern_1m.csv T=$B/trace$rows
[ -s "$K" ] || python3 "$top/bench/gen_inputs.py" kern-csv "$K" 1000000
[ -s "$T/cuda_gpu_trace.csv" ] || python3 "$top/bench/gen_trace_csv.py" "$rows" "$T"
cc -O2 -o "$B/csv_raw" "$top/bench/csv_raw.c" -lcsv
cc -O2 -std=c11 -D_GNU_SOURCE -I"$top/core" -o "$B/csv_read" "$top/bench/csv_read.c" "$top/lib/libgpuflame.a" \
  $(pkg-config --libs lua5.4 sqlite3 libcurl libcjson yaml-0.1 2>/dev/null) -lcsv -ldeflate -lz -lm
kb=$(stat -L -c %s "$K") tb=$(( $(stat -L -c %s "$T/cuda_gpu_trace.csv") + $(stat -L -c %s "$T/cuda_api_trace.csv") ))
cpu=$(( $(nproc) - 1 ))
echo "# CSV benchmark ($(date -u +%FT%TZ), $(nproc) CPUs, pinned to CPU $cpu, load $(cut -d' ' -f1-3 /proc/loadavg))"
# one LABEL CMD...: appends "wall cpu rss_kb" to $B/LABEL.t
one() { local l=$1; shift
  taskset -c "$cpu" /usr/bin/time -f "%e %U %S %M" -o "$B/t.txt" "$@" >/dev/null 2>"$B/err.txt" || { cat "$B/err.txt"; return 1; }
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$B/t.txt" >>"$B/$l.t"; }
rm -f "$B"/*.t
for i in $(seq "$runs"); do
  one raw "$B/csv_raw" "$K"; one read "$B/csv_read" "$K"
  one collapse "$GF" -q collapse "$K"
  one timeline "$GF" -q timeline --max-events 20000 "$T/cuda_gpu_trace.csv" "$T/cuda_api_trace.csv" -o "$B/tl.html"
  [ "$i" = 1 ] && one ref python3 "$top/bench/ref_pipeline.py" csv "$K" "$B/ref.folded"
done
"$GF" -q collapse "$K" >"$B/gf.folded"
same=$(cmp -s <(cat "$B/ref.folded"; echo) "$B/gf.folded" && echo "output identical to the reference" || echo "OUTPUT DIFFERS")
med() { sort -n -k"$2" "$B/$1.t" | awk -v k="$2" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'; }
rss() { sort -n -k3 "$B/$1.t" | tail -1 | awk '{ printf "%.1f", $3 / 1024 }'; }
r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
mbs() { awk -v by="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? by / 1e6 / s : 0) }'; }
c_col=$(med collapse 2) c_ref=$(med ref 2) c_tl=$(med timeline 2) c_raw=$(med raw 2) c_rd=$(med read 2)
echo "  collapse: $(mbs "$kb" "$c_col") MB/CPU-s; reference $c_ref CPU s (one run): $(r "$c_ref" "$c_col")x"
echo "  timeline: $(mbs "$tb" "$c_tl") MB/CPU-s of $((tb / 1000000)) MB"
echo "  core/csv.c $(mbs "$kb" "$c_rd") MB/CPU-s, raw libcsv $(mbs "$kb" "$c_raw") MB/CPU-s"
echo "RESULT|csv: collapse 1M-row kern sum (CPU s)|$c_col|$(rss collapse)|$c_ref|$(mbs "$kb" "$c_col") MB per CPU-s; $same; median of $runs, ref one run"
echo "RESULT|csv: timeline ${rows}+${rows} trace rows (CPU s)|$c_tl|$(rss timeline)|-|$(mbs "$tb" "$c_tl") MB per CPU-s of $((tb / 1000000)) MB; median of $runs"
echo "RESULT|csv: core/csv.c every field, kern sum (CPU s)|$c_rd|$(rss read)|$c_raw|$(mbs "$kb" "$c_rd") MB per CPU-s; ref = raw libcsv, empty callbacks"
