#!/usr/bin/env bash
# Several reports (issue 14): 8 ranks x ~200k kernels (tests/gen/rank_exports.py, the real schema; rank 3
# slowed 1.2x). Reference: the sum of the 8 single-report runs divided by the worker count. Target:
# `run rank-skew` over the 8 reports (imported in worker processes, merged) within 1.5x of it. The worker
# RSS is the single-report RSS (each worker imports one report). Also: merged timeline page, and 64 small
# reports in one call. BENCH_RANKS_STEPS (default 28572: 7 kernels a step, 200,004 per rank).
set -eu
top=${GF_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/bench/lib.sh"
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
out=${BENCH_OUT:-$top/bench/out}
steps=${BENCH_RANKS_STEPS:-28572}
job=$out/ranks8_$steps
[ -s "$job/rank7.sqlite" ] || python3 "$top/tests/gen/rank_exports.py" job "$job" --ranks 8 --steps "$steps" --slow 3 --factor 1.2
small=$out/ranks64
[ -s "$small/rank63.sqlite" ] || python3 "$top/tests/gen/rank_exports.py" job "$small" --ranks 64 --steps 20
workers=$(nproc)
[ "$workers" -gt 8 ] && workers=8
printf 'return { ranks = { workers = 1 } }\n' >"$out/ranks_w1.lua"
sum=0 maxrss=0
for r in 0 1 2 3 4 5 6 7; do
  best_of one 3 "$gf" -q run rank-skew "$job/rank$r.sqlite"
  sum=$(awk -v a="$sum" -v b="${one%% *}" 'BEGIN { print a + b }')
  maxrss=$(awk -v a="$maxrss" -v b="${one##* }" 'BEGIN { print (b > a) ? b : a }')
done
ref=$(awk -v s="$sum" -v w="$workers" 'BEGIN { printf "%.2f", s / w }')
echo "8 single-report rank-skew runs: ${sum} s in all; largest RSS ${maxrss} MB (= one worker's import)"
best_of merged 3 "$gf" -q run rank-skew "$job"
echo "RESULT|rank-skew, 8 ranks x 200k kernels, $workers workers|${merged% *}|${merged#* }|$ref|target <= 1.5x ref (sum of single runs / workers); worker RSS ${maxrss} MB"
best_of seq 1 "$gf" -q --policy "$out/ranks_w1.lua" run rank-skew "$job"
echo "RESULT|rank-skew, 8 ranks x 200k kernels, 1 process|${seq% *}|${seq#* }|$sum|ranks.workers = 1; ref = sum of single runs"
best_of page 1 "$gf" -q timeline "$job" -o "$out/ranks8.html"
echo "RESULT|timeline page, 8 ranks x 200k kernels, $workers workers|${page% *}|${page#* }|-|$(du -m "$out/ranks8.html" | cut -f1) MB page"
best_of many 1 "$gf" -q run rank-skew "$small"
echo "RESULT|rank-skew, 64 small reports in one call|${many% *}|${many#* }|-|64 ranks x 20 steps"
