#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier, NVTX parents with ties (issue 24, item 9): planted exports (tests/gen/stats_nvtx_ties.py:
# equal-start and equal-end siblings, zero-length ranges at sibling seams, 2,000 blocks with shuffled rowids)
# through the real `nsys stats -r nvtxpptrace` and gpuflame's nvtx_pushpop_trace: every range's ParentId,
# Lvl, NumChild and DurChild equal. Also re-records tests/data/nvtx_ties_nsys2022.4.csv's export and checks
# the recording (tests/cli/test_nvtx_ties.sh compares gpuflame with it where no nsys is installed).
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: NVTX parent ties"
ROWS=$TOP/tests/lib/nvtx_tree_rows.py
for blocks in 2000 300; do
  d=$TMP/b$blocks; mkdir -p "$d"
  python3 "$TOP/tests/gen/stats_nvtx_ties.py" "$d/x.sqlite" --blocks "$blocks"
  rnsys stats --format csv --force-overwrite=true -o "$d/ns" --report nvtxpptrace "$d/x.sqlite"
  check_eq "$blocks blocks: nsys stats nvtxpptrace exit 0" 0 "$rrc"
  run_gf stats -r nvtx_pushpop_trace "$d/x.sqlite" -o "$d/gf"
  check_eq "$blocks blocks: gpuflame exit 0" 0 "$rc"
  n=$(($(wc -l < "$d/ns_nvtxpptrace.csv") - 1))
  check_eq "$blocks blocks: every range's parent, level and child sums equal nsys's" "rows=$n/$n differ=0" \
    "$(python3 "$ROWS" "$d/ns_nvtxpptrace.csv" "$d/gf_nvtx_pushpop_trace.csv")"
done
check_eq "the recording in tests/data equals this nsys's rows" "rows=1313/1313 differ=0" \
  "$(python3 "$ROWS" "$TMP/b300/ns_nvtxpptrace.csv" "$TOP/tests/data/nvtx_ties_nsys2022.4.csv")"
t_done
