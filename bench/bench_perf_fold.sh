#!/usr/bin/env bash
# perf backend: `perf script` text of 200,000 samples (bench/gen_perf_script.py) → cpu.folded, C folding
# (core/stacks_perf.c through bench/perf_fold.lua) against the former Lua loop (bench/ref_perf_fold.lua)
# measured in the same run; outputs compared byte for byte. PERF_SAMPLES=N changes the size.
set -eu
. "$GF_TOP/bench/lib.sh"
B=$BENCH_OUT/perf
mkdir -p "$B"
GF=$GPUFLAME_BIN
N=${PERF_SAMPLES:-200000}
IN=$B/perf_${N}.script
[ -s "$IN" ] || python3 "$GF_TOP/bench/gen_perf_script.py" "$IN" "$N"
echo "input: $(du -h "$IN" | cut -f1) perf script, $N samples"

best_of c 3 "$GF" run "$GF_TOP/bench/perf_fold.lua" "$IN" "$B/c.folded"
measure c1 "$GF" run "$GF_TOP/bench/perf_fold.lua" "$IN" "$B/c.folded"
c_cpu=$LAST_CPU
measure r "$GF" run "$GF_TOP/bench/ref_perf_fold.lua" "$IN" "$B/ref.folded"
r_cpu=$LAST_CPU
same=$(cmp -s "$B/ref.folded" "$B/c.folded" && echo "output identical to the Lua loop" || echo "OUTPUT DIFFERS")
echo "RESULT|perf script ${N} samples → folded (C)|${c% *}|${c#* }|${r% *}|$same; $(wc -l <"$B/c.folded") stacks; Lua RSS ${r#* } MB; CPU s: ${c_cpu} vs Lua ${r_cpu}"
