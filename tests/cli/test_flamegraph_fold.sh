#!/usr/bin/env bash
# The flamegraph page's fold (policy flamegraph.fold_share / fold_min_stacks, issue 42): on a generated export
# (tests/gen/big_export.py, 20 steps of 100 launches) with every page folded at 5 % of the total, the page's
# tree and subtitle against SQL over the export (tests/trace/check_fold.py: the steps and step children under
# the threshold merged into "[folded: ...]" frames, the kept steps with their SQL totals, the nodes folded and
# their share said on the page). Pages of fewer stacks than fold_min_stacks, fold_share = 0 and the folded
# file of `collapse` are not folded.
. "$(dirname "$0")/../lib/t.sh"
command -v sqlite3 >/dev/null || { skip "flamegraph fold" "no sqlite3 CLI"; exit 0; }
db=$TMP/fold.sqlite
python3 "$TOP/tests/gen/big_export.py" "$db" --ranges 2000 >/dev/null || { not_ok "generate the export" "big_export.py failed"; t_done; }

printf 'return { findings = { pages = false }, flamegraph = { fold_share = 0.05, fold_min_stacks = 0 } }\n' >"$TMP/fold.lua"
run_gf -q --policy "$TMP/fold.lua" flamegraph "$db" -o "$TMP/folded.html"
check_eq "folded page written" 0 "$rc"
python3 "$TOP/tests/trace/check_fold.py" "$TMP/folded.html" "$db" 0.05 || _t_failed=$((_t_failed + 1))

printf 'return { findings = { pages = false }, flamegraph = { fold_share = 0 } }\n' >"$TMP/nofold.lua"
printf 'return { findings = { pages = false } }\n' >"$TMP/default.lua"
run_gf -q --policy "$TMP/nofold.lua" flamegraph "$db" -o "$TMP/nofold.html"
run_gf -q --policy "$TMP/default.lua" flamegraph "$db" -o "$TMP/default.html"
check "fold_share = 0: no fold frame" bash -c "! grep -q '\[folded: ' '$TMP/nofold.html'"
check "default policy, 2,000 stacks (under fold_min_stacks): the page is not folded" \
  cmp -s "$TMP/nofold.html" "$TMP/default.html"

# Where the page folds, its small NVTX frames are folded as its stacks are made (core/flame_fold.c): the
# page has the tree of the raw stacks folded after them (the page of `collapse`'s folded file), without the
# panel and with it (the stacks on a second thread), also under context levels above the NVTX frames; the
# stacks it reports are the raw ones.
printf 'return { limits = { threads = 2 }, flamegraph = { fold_share = 0.05, fold_min_stacks = 0 } }\n' >"$TMP/fold2.lua"
for lv in process,nvtx,api,kernel process,device,stream,nvtx,api,kernel nvtx,kernel; do
  run_gf --policy "$TMP/fold.lua" collapse --levels "$lv" "$db"
  printf '%s\n' "$out" >"$TMP/raw.folded"
  nraw=$(grep -c . "$TMP/raw.folded")
  run_gf --policy "$TMP/fold.lua" -v flamegraph "$TMP/raw.folded" -o "$TMP/after.html"
  for pol in fold fold2; do
    run_gf --policy "$TMP/$pol.lua" -v flamegraph --levels "$lv" "$db" -o "$TMP/made.html"
    check_contains "$lv, $pol: the NVTX frames folded as the stacks were made" "$err" \
      "$nraw stacks made as "
    check_contains "... the raw stacks reported ($nraw, as collapse has)" "$err" "($nraw stacks, "
    python3 "$TOP/tests/trace/same_tree.py" "... the tree of the raw stacks folded after them" "$TMP/made.html" \
      "$TMP/after.html" || _t_failed=$((_t_failed + 1))
  done
done

# ... where a context is under the threshold (the smaller stream, with the threshold just over its share: the rest of
# the fold cuts there, the NVTX frames under it stay as they are), and where an NVTX node's total is the threshold
# itself (the largest step: kept, "under" means less than)
run_gf --policy "$TMP/fold.lua" collapse --levels process,device,stream,nvtx,api,kernel "$db"
share=$(awk '{ n = split($0, a, ";"); s[a[3]] += $NF; t += $NF } END { m = t; for (k in s) if (s[k] < m) m = s[k]
  printf "%.6f", m / t + 0.01 }' <<<"$out")
printf '%s\n' "$out" >"$TMP/raw.folded"
printf 'return { findings = { pages = false }, flamegraph = { fold_share = %s, fold_min_stacks = 0 } }\n' "$share" \
  >"$TMP/ctx.lua"
run_gf --policy "$TMP/ctx.lua" -q flamegraph "$TMP/raw.folded" -o "$TMP/after.html"
run_gf --policy "$TMP/ctx.lua" -v flamegraph --levels process,device,stream,nvtx,api,kernel "$db" -o "$TMP/made.html"
check_contains "a stream under the threshold (fold_share $share): NVTX frames folded as the stacks were made" "$err" \
  "stacks made as "
python3 "$TOP/tests/trace/same_tree.py" "... the tree of the raw stacks folded after them" "$TMP/made.html" \
  "$TMP/after.html" || _t_failed=$((_t_failed + 1))
run_gf --policy "$TMP/fold.lua" collapse "$db"
share=$(awk '{ split($0, a, ";"); s[a[2]] += $NF; t += $NF } END { for (k in s) if (s[k] > m) m = s[k]
  printf "%.17g", (m - 0.5) / t }' <<<"$out")
printf '%s\n' "$out" >"$TMP/raw.folded"
printf 'return { findings = { pages = false }, flamegraph = { fold_share = %s, fold_min_stacks = 0 } }\n' "$share" \
  >"$TMP/edge.lua"
run_gf --policy "$TMP/edge.lua" -q flamegraph "$TMP/raw.folded" -o "$TMP/after.html"
run_gf --policy "$TMP/edge.lua" -v flamegraph "$db" -o "$TMP/made.html"
check_contains "the largest step's total as the threshold: NVTX frames folded as the stacks were made" "$err" \
  "stacks made as "
python3 "$TOP/tests/trace/same_tree.py" "... the tree of the raw stacks folded after them" "$TMP/made.html" \
  "$TMP/after.html" || _t_failed=$((_t_failed + 1))

run_gf --policy "$TMP/fold.lua" collapse "$db"
all=$out
run_gf --policy "$TMP/nofold.lua" collapse "$db"
check_eq "collapse (folded stacks) is never folded" "$out" "$all"
check_not_contains "collapse has no fold frame" "$all" "[folded: "
t_done
