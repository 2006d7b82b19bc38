#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier of `gpuflame critical-path` (issue 44): on the real nersc-dl reports (`step N`, .nsys-rep and
# .qdrep, exported by the real nsys into this file's export cache), every step's span, path length, parts and
# on-path items, and the what-if lengths with the top on-path kernel halved, equal an independent computation over
# nsys's export (tests/real/critpath_check.py: its own SQL and graph code); the what-if never lengthens a step
# and shortens it by at most the time taken off its path (1 us of rounding allowed: half a ns per scaled edge).
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: critical path of the reports"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$TMP/xdg-cache}

j() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

for c in "nersc-dl/baseline.nsys-rep:59" "nersc-dl/dali_amp_apex_jit.qdrep:29"; do
  rel=reports/${c%%:*} n=${c##*:}
  name=$(basename "$rel")
  if ! have_fixture "$rel"; then skip "critical path $rel" "fixture absent ($FIX)"; continue; fi
  run_gf critical-path --nsys "$MEMO_NSYS" --json "$FIX/$rel"
  check_eq "$name: critical-path exit 0" 0 "$rc"
  printf '%s\n' "$out" >"$TMP/$name.json"
  db=$(ls "$XDG_CACHE_HOME"/gpuflame/exports/"$(sha256sum <"$FIX/$rel" | cut -c1-64)"-*.sqlite 2>/dev/null | head -1)
  check "$name: nsys's export is in the export cache" test -f "$db"
  python3 "$TOP/tests/real/critpath_check.py" "$db" 'step \d+' >"$TMP/$name.ref.json"
  check_eq "$name: every step's span, length, parts and on-path items equal the independent computation" \
    "$n $n -" "$(python3 "$TOP/tests/real/critpath_compare.py" "$TMP/$name.json" "$TMP/$name.ref.json")"
  # the kernel with the most time on the paths; none on any (dali: host- and copy-bound): the export's longest
  k=$(j "$TMP/$name.json" "max([i for s in d['steps'] for i in s['on_path'] if i['kind'] == 'kernel'] or [dict(name='', ns=0)], key=lambda i: i['ns'])['name']")
  [ -n "$k" ] || k=$(sqlite3 "file:$db?mode=ro" "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName ORDER BY k.end - k.start DESC LIMIT 1")
  run_gf critical-path --nsys "$MEMO_NSYS" --json "$FIX/$rel" --what-if "kernel=$k:0.5"
  printf '%s\n' "$out" >"$TMP/$name.wi.json"
  python3 "$TOP/tests/real/critpath_check.py" "$db" 'step \d+' --what-if-kernel "$k" 0.5 >"$TMP/$name.wi.ref.json"
  check_eq "$name: what-if (the top on-path kernel x0.5) equal the independent computation" \
    "$n $n -" "$(python3 "$TOP/tests/real/critpath_compare.py" "$TMP/$name.wi.json" "$TMP/$name.wi.ref.json" --what-if)"
  printf '%s\n' "$k" >"$TMP/k"
  check_eq "$name: the what-if shortens no step by more than the time taken off, lengthens none" "True" \
    "$(j "$TMP/$name.wi.json" "all(0 <= s['what_if']['saved_ns'] <= 0.5 * sum(i['ns'] for i in s['on_path'] if i['kind'] == 'kernel' and i['name'] == open('$TMP/k').read().strip()) + 1000 for s in d['steps'])")"
done
t_done
