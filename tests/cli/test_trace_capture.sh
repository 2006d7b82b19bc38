#!/usr/bin/env bash
# gf-test: slow
# capture --timeline / --stacks through the fake nsys: trace CSVs or the SQLite export → timeline.html,
# warnings in summary.json, the flamegraph fallback when the capture has no trace events.
. "$(dirname "$0")/../lib/t.sh"
# the reference path (nsys stats trace CSVs, timeline.source = csv); the export path: test_capture_export.sh
STATS_POL=$TMP/stats_path.lua
printf 'return { extends = "default", capture = { views_from = "stats" } }\n' >"$STATS_POL"
TT=$TOP/tests/trace
export PATH="$TOP/tests/fake:$PATH"
if ! have_fixture gprofiler/GPU_TRACE_CSV.csv || ! have_fixture real/test-cuda/report1.sqlite; then
  skip "capture --timeline" "fixtures absent"
  t_done
fi
summary() { python3 -c "import json,sys; d=json.load(open('$1/summary.json')); print(eval(sys.argv[1]))" "$2"; }

run_gf --lua-path "$TT" --policy "$STATS_POL" capture --timeline --out "$TMP/c1" -- /bin/true
check_eq "--timeline: exit 0" 0 "$rc"
check "--timeline: timeline.html written" test -s "$TMP/c1/timeline.html"
check_eq "--timeline: stats trace CSVs are the source (policy timeline.source = csv)" "csv 5 2" \
  "$(summary "$TMP/c1" '"%s %d %d" % (d["timeline"]["source"], d["timeline"]["shown"], d["timeline"]["lanes"])')"

run_gf --lua-path "$TT" --policy "$STATS_POL" capture --stacks --out "$TMP/c2" -- /bin/true
check_eq "--stacks: exit 0" 0 "$rc"
check_eq "--stacks: SQLite export is the source" sqlite "$(summary "$TMP/c2" 'd["timeline"]["source"]')"
check_contains "--stacks without callchains: warning in summary.json" \
  "$(summary "$TMP/c2" 'd["warnings"]')" "no launch backtraces in this capture"

python3 "$TT/make_callchains.py" "$FIX/real/test-cuda/report1.sqlite" "$TMP/cc.sqlite" "$TMP/cc.json"
FAKE_NSYS_SQLITE="$TMP/cc.sqlite" run_gf --lua-path "$TT" --policy "$STATS_POL" --policy "$TT/exact-flame.lua" capture --stacks --out "$TMP/c3" -- /bin/true
check_eq "--stacks with callchains: exit 0" 0 "$rc"
check "--stacks with callchains: launch-stacks.folded artifact" test -s "$TMP/c3/launch-stacks.folded"
check_eq "--stacks with callchains: summary counts the backtraced launches" "4" \
  "$(summary "$TMP/c3" 'd["timeline"]["launches_with_stack"]')"
python3 "$TT/check_stacks.py" "$TMP/c3/timeline.html" "$TMP/cc.json" "capture --stacks"

# A CPU-side capture (issue 38): NVTX ranges and OS runtime calls, no CUDA activity (the nsys stats trace
# and summary reports all SKIPPED, as nsys says of such a report). --timeline draws the export's NVTX ranges
# (exit 0; every range of the export, by SQL); without --timeline there is no GPU view: exit 5, as before.
plant() { # SOURCE OUT TABLE-PATTERN...: a copy of an export with the rows of the matching tables deleted
  python3 - "$@" <<'PY'
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2]); db = sqlite3.connect(sys.argv[2])
for pat in sys.argv[3:]:
    for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE ?", (pat,)).fetchall():
        db.execute('DELETE FROM "%s"' % t)
db.commit()
PY
}

# no trace events at all: the stats trace CSVs skipped and an export whose event tables are empty
plant "$FIX/real/test-cuda/report1.sqlite" "$TMP/none.sqlite" 'CUPTI%' 'CUDA%' NVTX_EVENTS OSRT_API COMPOSITE_EVENTS SCHED_EVENTS
FAKE_NSYS_SQLITE=$TMP/none.sqlite FAKE_NSYS_FAIL="stats@cuda_gpu_trace:skipped,stats@cuda_api_trace:skipped" \
  run_gf --lua-path "$TT" --policy "$STATS_POL" capture --timeline --out "$TMP/c4" -- /bin/true
check_eq "no trace events: exit 0" 0 "$rc"
check "no trace events: flamegraph fallback written" test -s "$TMP/c4/flamegraph.html"
check "no trace events: no timeline.html" test ! -e "$TMP/c4/timeline.html"
check_contains "no trace events: the reference warning" "$(summary "$TMP/c4" 'd["warnings"]')" \
  "nsys timeline requested but no trace events; falling back to GPU flamegraph"

ALL_SKIPPED="stats@cuda_gpu_trace:skipped,stats@cuda_api_trace:skipped,stats@cuda_gpu_kern_sum:skipped,stats@cuda_api_sum:skipped"
if have_fixture real/cuda-learning/report1.sqlite; then
  plant "$FIX/real/cuda-learning/report1.sqlite" "$TMP/cpu.sqlite" 'CUPTI%' 'CUDA%'
  FAKE_NSYS_SQLITE=$TMP/cpu.sqlite FAKE_NSYS_FAIL=$ALL_SKIPPED \
    run_gf --lua-path "$TT" --policy "$STATS_POL" capture --timeline --out "$TMP/c5" -- /bin/true
  check_eq "CPU-side capture --timeline: exit 0" 0 "$rc"
  check "CPU-side capture --timeline: timeline.html written" test -s "$TMP/c5/timeline.html"
  check_not_contains "CPU-side capture --timeline: no fallback warning" "$err" "falling back"
  check_eq "CPU-side capture --timeline: drawn from the SQLite export" sqlite "$(summary "$TMP/c5" 'd["timeline"]["source"]')"
  check_eq "CPU-side capture --timeline: the page's NVTX ranges are the export's (SQL)" \
    "$(sqlite3 "$TMP/cpu.sqlite" "SELECT coalesce(e.text, s.value) FROM NVTX_EVENTS e LEFT JOIN StringIds s ON e.textId = s.id
       WHERE e.end IS NOT NULL ORDER BY 1")" \
    "$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import page_data
d = page_data.load(sys.argv[2]); k = d["kinds"].index("nvtx")
print("\n".join(sorted(d["names"][e[4]] for e in d["events"] if e[6] == k)))' "$TT" "$TMP/c5/timeline.html" 2>&1)"
  FAKE_NSYS_SQLITE=$TMP/cpu.sqlite FAKE_NSYS_FAIL=$ALL_SKIPPED \
    run_gf --lua-path "$TT" --policy "$STATS_POL" capture --out "$TMP/c6" -- /bin/true
  check_eq "CPU-side capture without --timeline: exit 5 (no GPU view)" 5 "$rc"
else
  skip "CPU-side capture --timeline" "fixture real/cuda-learning/report1.sqlite absent"
fi
# gpuflame timeline on an .nsys-rep: exported to SQLite through nsys first
echo "fake report" >"$TMP/r.nsys-rep"
run_gf --lua-path "$TT" timeline "$TMP/r.nsys-rep" -o "$TMP/rep.html"
check_eq "timeline REPORT.nsys-rep: exit 0" 0 "$rc"
check_eq "timeline REPORT.nsys-rep: the export's CUDA events" 61 \
  "$(python3 -c "import sys; sys.path.insert(0,'$TT'); import page_data; d = page_data.load('$TMP/rep.html')
print(sum(d['kinds'][e[6]] not in ('osrt', 'cpu_sample', 'cpu_running') for e in d['events']))")"
echo "another fake report" >"$TMP/r2.nsys-rep" # r.nsys-rep's export is in the export cache now
FAKE_NSYS_FAIL="export:exit" run_gf --lua-path "$TT" timeline "$TMP/r2.nsys-rep" -o "$TMP/rep2.html"
check_eq "timeline REPORT.nsys-rep, export fails: exit 6" 6 "$rc"
check_contains "timeline REPORT.nsys-rep, export fails: says so" "$err" "nsys export --type sqlite failed"
t_done
