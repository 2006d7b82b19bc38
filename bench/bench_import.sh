#!/usr/bin/env bash
# Import at the speed of SQLite (issue 29): an nsys SQLite export generated with the real schema
# (tests/gen/big_export.py --ranges BENCH_IMPORT_RANGES, default 1,000,000: 1.0M kernels, 1.03M runtime
# calls, 1.01M NVTX rows, 20k copies, 10k syncs; 168 MB; BENCH_IMPORT_MIX=issue29 gives the tables issue 29's
# proportions, and BENCH_IMPORT_RANGES=633300 its row counts: 633k kernels, 1.09M runtime calls, 3.09M NVTX
# rows, 184k copies, 44k syncs, 278 MB), read by
#   the floor:  the sqlite3 shell stepping every row of the tables the import reads and decoding the
#               columns it reads (bench/floor_query.py: one total() per column; nothing sorted or written);
#   gpuflame:   the import alone (bench/import_only.lua), timeline, findings, stats -r nvtx_pushpop_trace,
#               stats -r nvtx_gpu_proj_trace, the hierarchical flamegraph with and without its findings panel
#               (issue 42 item 3), run rank-skew;
# and the bounded runs (issue 29 item 6): timeline --max-events 20000 of the 2M + 2M trace CSVs
# (bench/gen_trace_csv.py) and of the export, with RSS per kept event.
# Each case: median of BENCH_RUNS (default 3) wall times, its CPU seconds and peak RSS; MB/s of the export
# (file bytes / wall); the ratio to the floor's median wall in the same run, and of CPU seconds (the fairer
# figure on a shared machine).
# BENCH_BEFORE=/path/to/old/gpuflame runs every gpuflame case with that binary too, interleaved (before/after
# in one run, under the same load). BENCH_SQLITE_AB=1 runs every gpuflame case twice, interleaved: with every row
# stepped through SQLite (GPUFLAME_SQLITE_DIRECT=0) and with the rows read from the file's pages (issue 42,
# core/sqlite_btree.c). BENCH_IMPORT_REF=1 adds the Python reference of the bounded CSV timeline
# (bench/ref_timeline.py: about 50 CPU-seconds and 2.5 GB), for the "10x the reference" ratio.
set -eu
top=${GF_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
out=${BENCH_OUT:-$top/bench/out}
runs=${BENCH_RUNS:-3}
ranges=${BENCH_IMPORT_RANGES:-1000000}
mkdir -p "$out"
mix=${BENCH_IMPORT_MIX:-default}
db=$out/import_$ranges.sqlite
[ "$mix" = default ] || db=$out/import_${ranges}_$mix.sqlite
[ -s "$db" ] || nice python3 "$top/tests/gen/big_export.py" "$db" --ranges "$ranges" --mix "$mix" >/dev/null
csv=$out/csv2m
[ -s "$csv/cuda_gpu_trace.csv" ] || nice python3 "$top/bench/gen_trace_csv.py" 2000000 "$csv" >/dev/null
python3 "$top/bench/floor_query.py" "$db" >"$out/floor.sql"
dbmb=$(awk -v b="$(stat -c %s "$db")" 'BEGIN { printf "%.1f", b / 1e6 }')
csvmb=$(awk -v b="$(( $(stat -c %s "$csv/cuda_gpu_trace.csv") + $(stat -c %s "$csv/cuda_api_trace.csv") ))" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "# import benchmark ($(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)); export $dbmb MB ($mix mix), CSV $csvmb MB; median of $runs"

# median CMD... → "wall cpu rss_mb" of the run with the median wall time
median() {
  local tf; tf=$(mktemp)
  for _ in $(seq 1 "$runs"); do
    /usr/bin/time -f '%e %U %S %M' -a -o "$tf" "$@" >/dev/null 2>"$out/err.txt" || { cat "$out/err.txt" >&2; rm -f "$tf"; return 1; }
  done
  sort -n "$tf" | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "%s %.2f %.1f\n", $1, $2 + $3, $4 / 1024 }'
  rm -f "$tf"
}

read -r fw fc fr < <(median sqlite3 "file:$db?immutable=1" ".read $out/floor.sql")
echo "RESULT|floor: sqlite3 scan of the import's columns|$fw|$fr|-|cpu $fc s; $(awk -v m="$dbmb" -v w="$fw" 'BEGIN { printf "%.0f", m / w }') MB/s"

bins=("$gf"); tags=(""); envs=("GPUFLAME_SQLITE_DIRECT=1")
if [ -n "${BENCH_BEFORE:-}" ]; then bins=("$BENCH_BEFORE" "$gf"); tags=("before: " "after: "); envs+=("${envs[0]}"); fi
if [ "${BENCH_SQLITE_AB:-}" = 1 ]; then
  bins=("$gf" "$gf"); tags=("rows through SQLite: " "rows from the pages: ")
  envs=("GPUFLAME_SQLITE_DIRECT=0" "GPUFLAME_SQLITE_DIRECT=1")
fi
case_() { # LABEL MB KEPT CMD... (CMD's {gf} is each binary)
  local label=$1 mb=$2 kept=$3; shift 3
  for i in "${!bins[@]}"; do
    local argv=() a
    for a in "$@"; do argv+=("${a//\{gf\}/${bins[$i]}}"); done
    read -r w c r < <(median env "${envs[$i]}" "${argv[@]}")
    local note="cpu $c s"
    [ "$mb" = - ] || note="$note; $(awk -v m="$mb" -v w="$w" 'BEGIN { printf "%.0f", m / w }') MB/s"
    [ "$mb" != "$dbmb" ] || note="$note; $(awk -v a="$w" -v b="$fw" -v c="$c" -v d="$fc" 'BEGIN { printf "%.1fx floor (CPU %.1fx)", a / b, c / d }')"
    [ "$kept" = - ] || note="$note; $(awk -v r="$r" -v k="$kept" 'BEGIN { printf "%.0f", r * 1048576 / k }') B RSS per kept event"
    echo "RESULT|${tags[$i]}$label|$w|$r|-|$note"
  done
}
case_ "import alone (run import_only.lua)" "$dbmb" - {gf} -q run "$top/bench/import_only.lua" "$db"
case_ "timeline" "$dbmb" - {gf} -q timeline "$db" -o "$out/import_tl.html"
case_ "findings" "$dbmb" - {gf} -q findings -f csv "$db" -o "$out/import_fd"
case_ "stats -r nvtx_pushpop_trace" "$dbmb" - {gf} -q stats -r nvtx_pushpop_trace "$db" -o "$out/import_st"
case_ "stats -r nvtx_gpu_proj_trace" "$dbmb" - {gf} -q stats -r nvtx_gpu_proj_trace "$db" -o "$out/import_pj"
case_ "flamegraph (hierarchical, findings panel)" "$dbmb" - {gf} -q flamegraph "$db" -o "$out/import_fg.html"
case_ "flamegraph (hierarchical, no panel)" "$dbmb" - {gf} -q --policy "$top/bench/no_findings.lua" flamegraph "$db" -o "$out/import_fg_np.html"
case_ "run rank-skew" "$dbmb" - {gf} -q run rank-skew "$db"
case_ "timeline --max-events 20000 (export)" "$dbmb" 20000 {gf} -q timeline --max-events 20000 "$db" -o "$out/import_tl20k.html"
case_ "timeline --max-events 20000 (2M+2M CSV)" "$csvmb" 20000 {gf} -q timeline --max-events 20000 "$csv/cuda_gpu_trace.csv" "$csv/cuda_api_trace.csv" -o "$out/import_csv20k.html"
if [ "${BENCH_IMPORT_REF:-}" = 1 ]; then
  read -r w c r < <(median python3 "$top/bench/ref_timeline.py" "$csv/cuda_gpu_trace.csv" "$csv/cuda_api_trace.csv" \
    "$top/tests/trace/templates/timeline.html" "$out/import_csvref.html")
  echo "RESULT|python reference: bounded 2M+2M CSV timeline (bench/ref_timeline.py)|$w|$r|-|cpu $c s; $(awk -v m="$csvmb" -v w="$w" 'BEGIN { printf "%.0f", m / w }') MB/s"
fi
