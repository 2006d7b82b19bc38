#!/usr/bin/env bash
# (a) 1,000,000-row kern-sum CSV → folded; (b) 100,000 unique stacks of depth 5-40 → flamegraph HTML.
# Each against the Python reference pipeline (bench/ref_pipeline.py) measured in the same run; plus raw
# libcsv parse speed vs core/csv.c on the same file.
set -eu
. "$GF_TOP/bench/lib.sh"
B=$BENCH_OUT/flamegraph
mkdir -p "$B"
GF=$GPUFLAME_BIN
CSV=$B/kern_1m.csv FOLDED=$B/stacks_100k.folded
[ -s "$CSV" ] || python3 "$GF_TOP/bench/gen_inputs.py" kern-csv "$CSV" 1000000
[ -s "$FOLDED" ] || python3 "$GF_TOP/bench/gen_inputs.py" folded "$FOLDED" 100000
echo "inputs: $(du -h "$CSV" | cut -f1) CSV, $(du -h "$FOLDED" | cut -f1) folded"
cc -O2 -o "$B/csv_raw" "$GF_TOP/bench/csv_raw.c" -lcsv
cc -O2 -std=c11 -D_GNU_SOURCE -I"$GF_TOP/core" -o "$B/csv_read" "$GF_TOP/bench/csv_read.c" "$GF_TOP/lib/libgpuflame.a" \
  $(pkg-config --libs lua5.4 sqlite3 libcurl libcjson yaml-0.1 2>/dev/null) -lcsv -ldeflate -lz -lm

# (a)
best_of a 3 "$GF" collapse "$CSV" -q
measure ra python3 "$GF_TOP/bench/ref_pipeline.py" csv "$CSV" "$B/ref.folded"
ra_cpu=$LAST_CPU
"$GF" collapse "$CSV" >"$B/gf.folded"
same=$(cmp -s <(cat "$B/ref.folded"; echo) "$B/gf.folded" && echo "output identical to the reference" || echo "OUTPUT DIFFERS")
measure a1 "$GF" collapse "$CSV" -q
echo "RESULT|(a) 1M-row kern-sum CSV → folded|${a% *}|${a#* }|${ra% *}|$same; ref RSS ${ra#* } MB; CPU s: ${LAST_CPU} vs ref ${ra_cpu}"

# the same CSV through the collapse table (what the HTML path builds): export --format folded
best_of at 1 "$GF" -q export --format folded "$CSV" -o "$B/table.folded"
echo "RESULT|(a') same CSV → collapse table → folded|${at% *}|${at#* }|${ra% *}|interned + aggregated (export --format folded)"

# raw libcsv vs core/csv.c
best_of raw 3 "$B/csv_raw" "$CSV"
best_of rd 3 "$B/csv_read" "$CSV"
ratio=$(awk -v a="${rd% *}" -v b="${raw% *}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
echo "RESULT|libcsv raw parse, same CSV|${raw% *}|${raw#* }|-|floor"
echo "RESULT|core/csv.c read all rows+fields|${rd% *}|${rd#* }|-|${ratio}x libcsv raw (target <= 1.5x)"

# (b)
best_of b 3 "$GF" -q flamegraph "$FOLDED" -o "$B/fg.html"
measure rb python3 "$GF_TOP/bench/ref_pipeline.py" json "$FOLDED" "$B/ref.json"
rb_cpu=$LAST_CPU
measure b1 "$GF" -q flamegraph "$FOLDED" -o "$B/fg.html"
echo "RESULT|(b) 100k unique stacks (depth 5-40) → HTML|${b% *}|${b#* }|${rb% *}|page $(du -h "$B/fg.html" | cut -f1); ref RSS ${rb#* } MB (JSON only); CPU s: ${LAST_CPU} vs ref ${rb_cpu}"
