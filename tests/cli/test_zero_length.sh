#!/usr/bin/env bash
# Every event drawn (issue 41 item 7): zero-length rows are kept, so that the timeline page and the Chrome
# trace hold as many OS runtime events as the export's OSRT_API has rows (sqlite3 counts them), the
# zero-length ones (eventClass 31/32: where a thread's OS runtime tracing starts and finishes) included.
. "$(dirname "$0")/../lib/t.sh"
TT=$TOP/tests/trace
n=0
for rel in real/test-cuda/report1.sqlite real/nussinov-gpu/report3.sqlite real/cuda-learning/report1.sqlite \
           real/cuda-perf-sandbox/report1.sqlite real/parallel-sheet-simulator/tile_8x8.sqlite; do
  have_fixture "$rel" || { skip "$rel" "fixture absent"; continue; }
  DB=$FIX/$rel
  want=$(sqlite3 "file:$DB?mode=ro" "SELECT count(*), sum(\"end\" = start) FROM OSRT_API")
  run_gf -q export -f chrome-trace "$DB" -o "$TMP/c.json"
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
o = [e for e in ev if e.get("cat") == "osrt" and e.get("ph") == "X"]
print("%d|%d" % (len(o), sum(1 for e in o if e["dur"] == 0)))' "$TMP/c.json")
  check_eq "$rel: Chrome trace OS runtime events (all, zero-length) = OSRT_API rows (sqlite3)" "$want" "$got"
  run_gf -q --lua-path "$TT" timeline "$DB" -o "$TMP/t.html"
  got=$(python3 -c '
import sys; sys.path.insert(0, sys.argv[2]); import page_data
d = page_data.load(sys.argv[1])
o = [e for e in d["events"] if d["kinds"][e[6]] == "osrt"]
print("%d|%d %s" % (len(o), sum(1 for e in o if e[1] == 0), d["total"] == len(d["events"])))' "$TMP/t.html" "$TT")
  check_eq "$rel: the page's OS runtime events (all, zero-length) = OSRT_API rows, its stated total = its events" \
    "$want True" "$got"
  n=$((n + 1))
done
t_done
