#!/usr/bin/env bash
# gpuflame diff of two 100,000-stack folded inputs (depth 5-40, the flamegraph bench's stacks; the AFTER has
# 10% of the weights scaled x0.5..x2, 5% of the stacks replaced by new ones) → the differential page, the
# --json document and difffolded.pl's two-column folded. Target: under 2 s.
set -eu
. "$GF_TOP/bench/lib.sh"
B=$BENCH_OUT/flamegraph
mkdir -p "$B"
GF=$GPUFLAME_BIN
BEFORE=$B/stacks_100k.folded AFTER=$B/stacks_100k_after.folded
[ -s "$BEFORE" ] || python3 "$GF_TOP/bench/gen_inputs.py" folded "$BEFORE" 100000
[ -s "$AFTER" ] || python3 "$GF_TOP/bench/gen_inputs.py" folded-after "$BEFORE" "$AFTER"
echo "inputs: $(du -h "$BEFORE" | cut -f1) + $(du -h "$AFTER" | cut -f1) folded, 100,000 stacks each"
# exit 10 (a regression) is a normal outcome of diff: measure through a wrapper that maps it to 0
cat >"$B/diff-ok.sh" <<'SH'
#!/bin/sh
"$@"; rc=$?; [ $rc = 10 ] && exit 0; exit $rc
SH
chmod +x "$B/diff-ok.sh"

best_of d 3 "$B/diff-ok.sh" "$GF" -q diff "$BEFORE" "$AFTER" -o "$B/diff.html"
nodes=$(python3 -c "
import json,re,sys
h=open(sys.argv[1]).read()
d=json.loads(re.search(r'<script type=\"application/json\" id=\"flame-data\">(.*?)</script>', h, re.S).group(1))
print(len(d['nodes'])//4)" "$B/diff.html")
echo "RESULT|diff 2 x 100k stacks → HTML (target < 2 s)|${d% *}|${d#* }|-|page $(du -h "$B/diff.html" | cut -f1), ${nodes} tree nodes, nothing left out; CPU s ${LAST_CPU}"
best_of dm 3 "$B/diff-ok.sh" "$GF" -q diff "$BEFORE" "$AFTER" -o "$B/diff-mf.html" --min-fraction 0.0001
echo "RESULT|same, --min-fraction 0.0001|${dm% *}|${dm#* }|-|page $(du -h "$B/diff-mf.html" | cut -f1) (subtrees < 0.01% of both totals left out)"
best_of dj 3 "$B/diff-ok.sh" "$GF" -q diff "$BEFORE" "$AFTER" --json --folded "$B/diff.folded"
echo "RESULT|same → --json + --folded (no page)|${dj% *}|${dj#* }|-|folded $(du -h "$B/diff.folded" | cut -f1)"
