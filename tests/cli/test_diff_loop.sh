#!/usr/bin/env bash
# `gpuflame diff` compares the loops of two runs (docs/DIFF.md "The loop"): on planted loops whose numbers are
# known by construction (tests/gen/steps_export.py loader: 6 counted iterations of 220 ms in all, the steps' GPU
# work 3 ms into every gap, `Data loading` 17 ms a gap; slowloader: the same GPU work, data loading 10 ms longer
# a gap, 280 ms), the mean iteration, its parts and the ranges in the gaps, the verdict's loop rule (policy
# diff.loop_threshold; steps found by a marker only), --step and --marker, and the sides without a loop; each
# side's numbers also equal its `steps --json` summary (checked against SQL in test_steps.sh) divided out here.
. "$(dirname "$0")/../lib/t.sh"

GEN=$TOP/tests/gen/steps_export.py
# j FILE EXPR: EXPR (Python) over the JSON document in FILE (d)
j() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
FIELDS="('iterations', 'iteration_ns', 'in_steps_ns', 'outside_ns', 'between_ns', 'step_median_ns', 'gap_median_ns', 'by_marker')"
python3 "$GEN" loader "$TMP/a.sqlite"
python3 "$GEN" slowloader "$TMP/b.sqlite"

run_gf diff --json "$TMP/a.sqlite" "$TMP/b.sqlite"
check_eq "data loading 10 ms longer a gap, the same GPU work: a regression, exit 10" 10 "$rc"
printf '%s\n' "$out" >"$TMP/ab.json"
check_eq "... with the same GPU time and work" "0 True 0" \
  "$(j "$TMP/ab.json" "' '.join(str(x) for x in (d['total']['delta_ns'], d['verdict']['comparable'], len(d['verdict']['work_changes'])))")"
check_eq "BEFORE's loop as planted: 6 iterations of 220/6 ms, 13 ms in the steps with their work, 142/6 outside, 160/6 between, medians 10 and 20 ms" \
  "6 36666667 13000000 23666667 26666667 10000000 20000000 True" \
  "$(j "$TMP/ab.json" "' '.join(str(d['loop']['before'][k]) for k in $FIELDS)")"
check_eq "AFTER's loop as planted: 280/6 ms, 13 ms in the steps, 202/6 outside, 220/6 between, median gap 30 ms" \
  "6 46666667 13000000 33666667 36666667 10000000 30000000 True" \
  "$(j "$TMP/ab.json" "' '.join(str(d['loop']['after'][k]) for k in $FIELDS)")"
check_eq "the ranges in the gaps per iteration, the larger change first: Data loading 17 → 27 ms, log 1 → 1 ms" \
  "Data loading 17000000 27000000 10000000|log 1000000 1000000 0" \
  "$(j "$TMP/ab.json" "'|'.join('%s %d %d %d' % (r['name'], r['before_ns'], r['after_ns'], r['delta_ns']) for r in d['loop']['ranges'])")"
check_eq "the change: +10 ms an iteration (+27.27%), none of it in the steps, all outside them" \
  "10000000 0 10000000 0.272727 0 0.422535 outside True" \
  "$(j "$TMP/ab.json" "' '.join(str(x) for x in (d['loop']['delta_ns']['iteration_ns'], d['loop']['delta_ns']['in_steps_ns'], d['loop']['delta_ns']['outside_ns'], d['loop']['change']['iteration'], d['loop']['change']['in_steps'], d['loop']['change']['outside'], d['loop']['where'], d['loop']['same_rule']))")"
check_eq "the verdict's one reason is the loop" \
  "the loop's mean iteration grew +27.3% (36.667 ms → 46.667 ms), above the 10.0% loop threshold: the steps with their GPU work +0 ns, outside them +10.000 ms (Data loading +10.000 ms)" \
  "$(j "$TMP/ab.json" "' | '.join(d['verdict']['reasons'])")"
check_contains "stderr: the mean iteration and its parts" "$err" \
  "loop: mean iteration 36.667 ms → 46.667 ms (+27.3%, over 6 and 6 iterations): the steps with their GPU work +0 ns, outside them +10.000 ms (Data loading +10.000 ms)"
check_contains "stderr: the shares and the medians" "$err" \
  "loop: between the steps 72.7% → 78.6% of each iteration; median step 10.000 ms → 10.000 ms, median gap 20.000 ms → 30.000 ms"
check_contains "stderr: where the change is" "$err" "loop: most of the change per iteration is outside the steps and their GPU work"

# each side's loop is its `steps` summary (its between checked against SQL in test_steps.sh) per iteration,
# rounded as Lua's math.floor(x + 0.5)
for s in a b; do
  run_gf steps --json "$TMP/$s.sqlite"
  printf '%s\n' "$out" >"$TMP/$s.steps.json"
  side=$([ "$s" = a ] && echo before || echo after)
  check_eq "$side: the loop is steps' between per iteration (loop, gaps + tails, gaps - tails, gaps, median, ranges)" \
    "$(j "$TMP/$s.steps.json" "' '.join(str(x) for x in (lambda b, s: (b['gaps'], int(b['loop_ns'] / b['gaps'] + 0.5), int((b['loop_ns'] - b['total_ns'] + b['tail_ns']) / b['gaps'] + 0.5), int((b['total_ns'] - b['tail_ns']) / b['gaps'] + 0.5), int(b['total_ns'] / b['gaps'] + 0.5), s['median_ns'], b['median_ns'], [int(r['total_ns'] / b['gaps'] + 0.5) for r in b['ranges']]))(d['summary']['between'], d['summary']))")" \
    "$(j "$TMP/ab.json" "' '.join(str(x) for x in (lambda l: (l['iterations'], l['iteration_ns'], l['in_steps_ns'], l['outside_ns'], l['between_ns'], l['step_median_ns'], l['gap_median_ns'], [r['per_iteration_ns'] for r in l['ranges']]))(d['loop']['$side']))")"
done

# the other way round: faster, no regression; a threshold above the change: none
run_gf diff --json "$TMP/b.sqlite" "$TMP/a.sqlite"
check_eq "slowloader → loader: no regression, exit 0; -21.4% outside the steps" "0 -0.214286 outside" \
  "$rc $(python3 -c 'import json,sys; l=json.load(sys.stdin)["loop"]; print(l["change"]["iteration"], l["where"])' <<<"$out")"
printf 'return { diff = { loop_threshold = 0.3 } }\n' >"$TMP/loop30.lua"
run_gf --policy "$TMP/loop30.lua" diff --json "$TMP/a.sqlite" "$TMP/b.sqlite"
check_eq "policy loop_threshold 0.3: +27.3% is no regression, and no part is named" "0 none 0.3" \
  "$rc $(python3 -c 'import json,sys; l=json.load(sys.stdin)["loop"]; print(l["where"], l["threshold"])' <<<"$out")"
printf 'return { diff = { loop_min_iterations = 7 } }\n' >"$TMP/loop7.lua"
run_gf --policy "$TMP/loop7.lua" diff --json "$TMP/a.sqlite" "$TMP/b.sqlite"
check_eq "policy loop_min_iterations 7: 6 iterations a side are too few for the verdict; the loop still compared" \
  "0 outside 7" "$rc $(python3 -c 'import json,sys; l=json.load(sys.stdin)["loop"]; print(l["where"], l["min_iterations"])' <<<"$out")"
check_contains "... and stderr says why" "$err" "loop: too few iterations for the verdict (6 and 6; policy diff.loop_min_iterations 7)"
# steps found by the fallback (no marker matches): the loop is shown, the verdict does not use it
printf 'return { steps = { markers = {} } }\n' >"$TMP/nomarkers.lua"
run_gf --policy "$TMP/nomarkers.lua" diff --json "$TMP/a.sqlite" "$TMP/b.sqlite"
check_eq "the fallback's repeating range (Data loading: the most time): the loop compared, over 10 % slower, not a regression" \
  "0 True False Data loading" \
  "$rc $(python3 -c 'import json,sys; l=json.load(sys.stdin)["loop"]; print(l["change"]["iteration"] > 0.1, l["before"]["by_marker"], l["before"]["rule"].split("range ")[1].split(" of")[0])' <<<"$out")"
# a policy verdict sees the loop
printf 'return { diff = { verdict = function(d) return { regression = d.loop.where == "outside", reasons = { d.loop.ranges[1].name } } end } }\n' >"$TMP/verdict.lua"
run_gf --policy "$TMP/verdict.lua" diff "$TMP/a.sqlite" "$TMP/b.sqlite" -o "$TMP/v.html"
check_eq "diff.verdict gets d.loop" "10" "$rc"
check_contains "... and its reason" "$out" "REGRESSION (exit 10): Data loading"

# --step: one step of each side, the loops compared all the same
run_gf diff --step median --json "$TMP/a.sqlite" "$TMP/b.sqlite"
printf '%s\n' "$out" >"$TMP/step.json"
check_eq "--step median: the same loop as without it" "$(j "$TMP/ab.json" "d['loop']")" "$(j "$TMP/step.json" "d['loop']")"
# --marker names the steps, with or without --step
run_gf diff --marker '^step %d+$' --json "$TMP/a.sqlite" "$TMP/b.sqlite"
check_eq "--marker without --step: the loop of those ranges" "10 NVTX ranges matching ^step %d+\$ (--marker)" \
  "$rc $(python3 -c 'import json,sys; print(json.load(sys.stdin)["loop"]["before"]["rule"])' <<<"$out")"
run_gf diff --marker '^nomatch$' -o "$TMP/nm.html" "$TMP/a.sqlite" "$TMP/b.sqlite"
check_eq "--marker matching nothing: exit 0, no loop" 0 "$rc"
check_contains "... a warning names the side and why" "$err" "--marker ^nomatch\$: no loop in BEFORE ("

# sides without a loop: a capture without steps, a stats CSV
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("DELETE FROM NVTX_EVENTS"); db.commit()' "$TMP/b.sqlite"
run_gf diff --json "$TMP/a.sqlite" "$TMP/b.sqlite"
check_eq "AFTER without steps: loop null, no loop line" "None" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["loop"])' <<<"$out")"
check_not_contains "... nor on stderr" "$err" "loop:"
t_done
