#!/usr/bin/env bash
# gf-test: slow
# Capture failure modes with the fake nsys: stats reports exhausted → exit 5, old report names, nsys profile
# failures and hangs → exit 4 with the process group killed, no nsys → exit 3.
. "$(dirname "$0")/../lib/t.sh"
# these cases test the `nsys stats` path of the views (the default is one export: capture.views_from)
STATS_POL=$TMP/stats_path.lua
printf 'return { extends = "default", capture = { views_from = "stats" } }\n' >"$STATS_POL"

if ! have_fixture gprofiler/KERN_CSV.csv; then skip "capture tests" "fixtures absent"; exit 0; fi
export FAKE_NSYS_LOG=$TMP/nsys.log
unset NSYS_PATH FAKE_NSYS_FAIL FAKE_NSYS_VERSION
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# 3. empty CSV, then non-zero exit: all exhausted → exit 5 listing each
FAKE_NSYS_FAIL=stats@cuda_gpu_kern_sum:empty-output,stats@cuda_api_sum:exit run_gf --policy "$STATS_POL" capture --nsys "$FAKE_NSYS" --out "$TMP/c3" -- true
check_eq "all reports exhausted: exit 5" 5 "$rc"
check_contains "exhausted: first report and why" "$err" "cuda_gpu_kern_sum: empty CSV"
check_contains "exhausted: second report and why" "$err" "cuda_api_sum: exit 1: fake nsys: stats cuda_api_sum failed"
check_eq "exhausted: summary status" no-data "$(json "$TMP/c3/summary.json" 'd["status"]')"
check "exhausted: no flamegraph.html" test ! -e "$TMP/c3/flamegraph.html"
FAKE_NSYS_FAIL=stats:stale-sqlite run_gf --policy "$STATS_POL" capture --nsys "$FAKE_NSYS" --out "$TMP/c3b" -- true
check_contains "stale SQLite refusal: reported" "$err" "WARNING: Existing SQLite export found"
FAKE_NSYS_FAIL=stats@cuda_gpu_kern_sum:missing-output run_gf --policy "$STATS_POL" -q capture --nsys "$FAKE_NSYS" --out "$TMP/c3c" -- true
check_eq "missing CSV → next report" 0 "$rc"

# 4. old nsys: pre-2023.1 report names
: >"$FAKE_NSYS_LOG"
FAKE_NSYS_VERSION=2022.1.3.3-1c7b5f7 run_gf --policy "$STATS_POL" -q capture --nsys "$FAKE_NSYS" --out "$TMP/c4" -- true
check_contains "nsys 2022.1 → gpukernsum" "$(cat "$FAKE_NSYS_LOG")" '"--report", "gpukernsum"'
check "old names: CSV" test -s "$TMP/c4/kern_gpukernsum.csv"

# 6. a hang is killed at duration + timeout_extra → exit 4, the whole group gone
printf 'return { capture = { timeout_extra = 1, kill_grace = 1 } }\n' >"$TMP/fast.lua"
start=$(date +%s)
run_gf --policy "$STATS_POL" --policy "$TMP/fast.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/c6" --duration 1 -- sleep 31791
check_eq "timeout: exit 4" 4 "$rc"
check_contains "timeout: says so" "$err" "nsys profile did not finish within 2 s (duration 1 + 1 s); it was stopped with every process it started"
check "timeout: stopped promptly" test $(( $(date +%s) - start )) -lt 20
sleep 0.3
check "timeout: workload killed with nsys" bash -c '! pgrep -f "^sleep 3179[1]" >/dev/null'
check_eq "timeout: summary status" failed "$(json "$TMP/c6/summary.json" 'd["status"]')"
FAKE_NSYS_FAIL=profile:hang run_gf --policy "$STATS_POL" --policy "$TMP/fast.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/c6b" --duration 1 -- true
check_eq "hanging nsys: exit 4" 4 "$rc"

# 7. nsys profile failures
FAKE_NSYS_FAIL=profile:exit run_gf --policy "$STATS_POL" capture --nsys "$FAKE_NSYS" --out "$TMP/c7" -- true
check_eq "profile exit 1: exit 4" 4 "$rc"
check_contains "profile exit 1: status and output" "$err" "nsys profile exited with status 1; last output: fake nsys: profile failed"
FAKE_NSYS_FAIL=profile:missing-output run_gf --policy "$STATS_POL" capture --nsys "$FAKE_NSYS" --out "$TMP/c7b" -- true
check_eq "no report: exit 4" 4 "$rc"
check_contains "no report: names what was looked for" "$err" "wrote no report (looked for $TMP/c7b/capture.nsys-rep"

# 8. no nsys → exit 3 (the policy hides a real nsys this host may have)
PATH=/usr/bin:/bin run_gf --policy "$TOP/tests/data/no_host_nsys.lua" capture --nsys /nonexistent/nsys --out "$TMP/c8" -- true
check_eq "nsys not found: exit 3" 3 "$rc"
check "nsys not found: no capture dir" test ! -e "$TMP/c8"

t_done
