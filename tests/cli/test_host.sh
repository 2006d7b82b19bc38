#!/usr/bin/env bash
# The host: a policy that loops forever is stopped within its time budget (a timing check). Version,
# help, exit codes, the other policy errors, shadowing and `run` scripts are in tests/cases/host.cases.
. "$(dirname "$0")/../lib/t.sh"

printf 'local n = 0\nwhile true do n = n + 1 end\n' >"$TMP/loop.lua"
start=$(date +%s)
run_gf --policy "$TMP/loop.lua" policy show
check_eq "endless loop: exit 1" 1 "$rc"
check_contains "endless loop is stopped with a clear message" "$err" "$TMP/loop.lua:2: script ran longer than its time budget"
check "endless loop stopped within 15 s" [ $(( $(date +%s) - start )) -lt 15 ]
t_done
