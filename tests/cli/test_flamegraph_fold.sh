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

run_gf --policy "$TMP/fold.lua" collapse "$db"
all=$out
run_gf --policy "$TMP/nofold.lua" collapse "$db"
check_eq "collapse (folded stacks) is never folded" "$out" "$all"
check_not_contains "collapse has no fold frame" "$all" "[folded: "
t_done
