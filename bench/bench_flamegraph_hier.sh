#!/usr/bin/env bash
# The hierarchical GPU flamegraph (issue 25) on a generated export with 1,000,000 kernels, their 1,000,000
# launch calls and 1,000,000 NVTX ranges nested 3 deep (tests/gen/big_export.py: step > layer > op, a
# domain, start/end ranges on a second thread): `gpuflame flamegraph EXPORT` (import of the trace, the
# NVTX path of every launch, the stacks, the page) against the flat page gpuflame drew before (per-kernel
# totals by SQL, bench/flat_flamegraph.lua) on the same file. Aim: under 1.5x the flat one.
set -eu
. "$GF_TOP/bench/lib.sh"
f=$BENCH_OUT/stats_1000000.sqlite
[ -s "$f" ] || python3 "$GF_TOP/tests/gen/big_export.py" "$f" --ranges 1000000
echo "input: $(( $(stat -c %s "$f") / 1000000 )) MB"
best_of flat 2 "$GPUFLAME_BIN" -q run "$GF_TOP/bench/flat_flamegraph.lua" "$f" "$BENCH_OUT/fg_flat.html"
flat_cpu=$LAST_CPU
best_of hier 2 "$GPUFLAME_BIN" -q --policy "$GF_TOP/bench/no_findings.lua" flamegraph "$f" -o "$BENCH_OUT/fg_hier.html"
hier_cpu=$LAST_CPU
# the CPU time too: on a shared machine the wall time says more about the load than about gpuflame
ratio=$(awk -v a="${hier%% *}" -v b="${flat%% *}" 'BEGIN { printf "%.2f", a / b }')
cratio=$(awk -v a="$hier_cpu" -v b="$flat_cpu" 'BEGIN { printf "%.2f", a / b }')
"$GPUFLAME_BIN" -q collapse "$f" >"$BENCH_OUT/fg_hier.folded"
depth=$(awk '{ n = split($0, a, ";"); if (n > m) m = n } END { print m }' "$BENCH_OUT/fg_hier.folded")
# the page folds the frames under policy flamegraph.fold_share of the total (pages of > fold_min_stacks stacks)
pmb=$(awk -v b="$(stat -c %s "$BENCH_OUT/fg_hier.html")" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "RESULT|hierarchical flamegraph, 1M kernels, NVTX 3 deep|${hier% *}|${hier#* }|${flat% *}|${ratio}x the flat page's wall, ${cratio}x its CPU (${hier_cpu} vs ${flat_cpu} s; aim < 1.5x); $(wc -l <"$BENCH_OUT/fg_hier.folded") stacks, depth $depth; page ${pmb} MB (folded)"
