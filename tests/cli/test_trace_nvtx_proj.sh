#!/usr/bin/env bash
# gf-test: slow
# NVTX ranges projected onto the GPU (issue 25 item 4) in the Chrome export and the timeline page of real
# exports with NVTX: one "cat": "nvtx_gpu_proj" event per row of gpuflame's nvtx_gpu_proj_trace (the real
# tier, tests/real/test_nvtx_proj_nsys.sh, compares with the real nsys), same name, start, duration and
# RangeId, under a GPU process; the export stays a valid Chrome trace; the page carries the same ranges on
# lanes under their device and no separate sync lanes. Policy timeline.nvtx_projection = false leaves them
# out; trace CSV inputs have none.
. "$(dirname "$0")/../lib/t.sh"
TT=$TOP/tests/trace
# policy limits.threads: 1 projects in one call after the rules, 2 on a second thread while they run
# (core/trace_proj_job.c); the pages must be byte-identical
printf 'return { limits = { threads = 1 } }\n' >"$TMP/t1.lua"
printf 'return { limits = { threads = 2 } }\n' >"$TMP/t2.lua"
same_at_threads() { # name db page(written at the default, threads = 0: one per CPU)
  run_gf --policy "$TMP/t1.lua" -q timeline "$2" -o "$3.t1"
  check_eq "$1: timeline at threads = 1" 0 "$rc"
  run_gf --policy "$TMP/t2.lua" -q timeline "$2" -o "$3.t2"
  check_eq "$1: timeline at threads = 2" 0 "$rc"
  check "$1: threads = 1 and 2 give byte-identical pages" cmp -s "$3.t1" "$3.t2"
  check "$1: and the default's page" cmp -s "$3" "$3.t2"
}

n=0
for rel in real/nvfuser/report1.sqlite real/cs336-jsun012/result.sqlite real/cs336-athrun0109/result.sqlite \
           real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite reports/dlprof/nsys_profile.sqlite; do
  if ! have_fixture "$rel"; then skip "nvtx projection: $rel" "fixture absent"; continue; fi
  n=$((n + 1))
  d=$TMP/p$n
  mkdir -p "$d"
  run_gf stats -r nvtx_gpu_proj_trace --format csv "$FIX/$rel"
  printf '%s\n' "$out" >"$d/proj.csv"
  check_eq "$rel: nvtx_gpu_proj_trace runs" 0 "$rc"
  run_gf export --format chrome-trace "$FIX/$rel" -o "$d/chrome.json"
  check_eq "$rel: chrome-trace export" 0 "$rc"
  memo_check python3 "$TT/check_proj.py" "$d/chrome.json" "$d/proj.csv" "$rel: chrome" || _t_failed=$((_t_failed + 1))
  memo_check python3 "$TT/check_chrome.py" "$d/chrome.json" "$rel: chrome with projections" | grep -v '^ok' | sed 's/^/    /'
  check "$rel: the export with projections is a valid Chrome trace" memo_check python3 "$TT/check_chrome.py" "$d/chrome.json" x
  run_gf -q timeline "$FIX/$rel" -o "$d/page.html"
  check_eq "$rel: timeline page" 0 "$rc"
  python3 "$TT/check_page_proj.py" "$d/page.html" "$d/proj.csv" "$rel: page" || _t_failed=$((_t_failed + 1))
  same_at_threads "$rel" "$FIX/$rel" "$d/page.html"
done

# planted cases (issue 29): the page's projection takes the CUDA calls, their GPU work and the ranges from the
# imported trace when the import says they are the export's rows exactly (trace_types.h calls_exact, nvtx_rowid),
# and reads the export otherwise; either way its ranges are the report's rows (computed over the export; the
# Chrome export's carry their RangeId).
# Ranges that end on another thread, rowids with gaps and a named domain stay on the trace's path; an end
# before its start, a NULL correlationId, a deviceId over 65535 and a domain named twice send it to the export.
rel=real/nvfuser/report1.sqlite
if have_fixture "$rel" && command -v sqlite3 >/dev/null; then
  dom="UPDATE NVTX_EVENTS SET domainId = 7; INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text, domainId) SELECT 0, NULL, 75, globalTid, 'domA', 7 FROM NVTX_EVENTS WHERE eventType = 59 LIMIT 1"
  # issue 42 (core/trace_proj_sweep.c, the trace's path in compact records): calls of one thread that share a
  # correlation id (an API layer inside the launch, counted once per range) and calls that start together
  dup="CREATE TEMP TABLE x AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE rowid % 3 = 0 AND end - start > 2 AND correlationId IS NOT NULL; UPDATE x SET start = start + 1, end = end - 1; INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT * FROM x"
  tie="UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = start - 1 WHERE rowid % 4 = 1 AND (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.rowid = CUPTI_ACTIVITY_KIND_RUNTIME.rowid - 1 AND r.globalTid = CUPTI_ACTIVITY_KIND_RUNTIME.globalTid AND r.start = CUPTI_ACTIVITY_KIND_RUNTIME.start - 1)"
  v=0
  for sql in "UPDATE NVTX_EVENTS SET endGlobalTid = globalTid + 1 WHERE rowid % 5 = 0" \
             "DELETE FROM NVTX_EVENTS WHERE rowid % 3 = 1" \
             "$dom" \
             "$dom; ${dom/'domA'/'domB'}" \
             "UPDATE NVTX_EVENTS SET end = start - 1 WHERE rowid % 6 = 0" \
             "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = start - 10 WHERE rowid % 4 = 0" \
             "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = NULL WHERE rowid % 7 = 0" \
             "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 70000 WHERE rowid % 9 = 0" \
             "$dup" "$tie"; do
    v=$((v + 1))
    cp "$FIX/$rel" "$TMP/planted$v.sqlite"
    check "planted $v: the change applies" sqlite3 "$TMP/planted$v.sqlite" "$sql"
    run_gf stats -r nvtx_gpu_proj_trace --format csv "$TMP/planted$v.sqlite"
    printf '%s\n' "$out" >"$TMP/planted$v.csv"
    check "planted $v ($sql): the report has rows" test "$(wc -l <"$TMP/planted$v.csv")" -gt 10
    run_gf export --format chrome-trace "$TMP/planted$v.sqlite" -o "$TMP/planted$v.json"
    check_eq "planted $v: chrome-trace export" 0 "$rc"
    python3 "$TT/check_proj.py" "$TMP/planted$v.json" "$TMP/planted$v.csv" "planted $v: chrome (RangeId too)" ||
      _t_failed=$((_t_failed + 1))
    run_gf -q timeline "$TMP/planted$v.sqlite" -o "$TMP/planted$v.html"
    check_eq "planted $v: timeline page" 0 "$rc"
    python3 "$TT/check_page_proj.py" "$TMP/planted$v.html" "$TMP/planted$v.csv" "planted $v: page" ||
      _t_failed=$((_t_failed + 1))
    same_at_threads "planted $v" "$TMP/planted$v.sqlite" "$TMP/planted$v.html"
  done
fi

# more projected ranges than core/trace_proj.c take_events gives back at a time (65,536: it puts them in start
# order in place and frees them from the end as it takes them): the page's projection is still the report's
# rows, computed over the export (tests/gen/big_export.py: every range encloses GPU work)
python3 "$TOP/tests/gen/big_export.py" "$TMP/big.sqlite" --ranges 70000 >/dev/null
run_gf stats -r nvtx_gpu_proj_trace --format csv "$TMP/big.sqlite"
printf '%s\n' "$out" >"$TMP/big.csv"
check "70,000 ranges: the report has them all" test "$(grep -c . "$TMP/big.csv")" -gt 70000
run_gf -q timeline "$TMP/big.sqlite" -o "$TMP/big.html"
check_eq "70,000 ranges: timeline page" 0 "$rc"
python3 "$TT/check_page_proj.py" "$TMP/big.html" "$TMP/big.csv" "70,000 ranges: page" || _t_failed=$((_t_failed + 1))

# policy timeline.nvtx_projection = false: none
rel=real/cs336-jsun012/result.sqlite
if have_fixture "$rel"; then
  printf 'return { timeline = { nvtx_projection = false } }\n' >"$TMP/noproj.lua"
  run_gf --policy "$TMP/noproj.lua" export --format chrome-trace "$FIX/$rel" -o "$TMP/noproj.json"
  check_eq "nvtx_projection = false: export runs" 0 "$rc"
  check_not_contains "nvtx_projection = false: no nvtx_gpu_proj events" "$(cat "$TMP/noproj.json")" '"nvtx_gpu_proj"'
  run_gf --policy "$TMP/noproj.lua" -q timeline "$FIX/$rel" -o "$TMP/noproj.html"
  check_not_contains "nvtx_projection = false: no projection lanes in the page" "$(cat "$TMP/noproj.html")" '"proj":true'
fi
# --max-events N keeps the N longest projected ranges too
if have_fixture real/cs336-athrun0109/result.sqlite; then
  run_gf export --format chrome-trace --max-events 50 "$FIX/real/cs336-athrun0109/result.sqlite" -o "$TMP/max.json"
  got=$(python3 -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('cat') == 'nvtx_gpu_proj'))" "$TMP/max.json")
  check_eq "--max-events 50: the 50 longest projected ranges" 50 "$got"
fi
# an export the projection cannot read (NVTX_EVENTS without globalTid) still exports, with a warning
rel=real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
if have_fixture "$rel" && command -v sqlite3 >/dev/null; then
  cp "$FIX/$rel" "$TMP/damaged.sqlite"
  sqlite3 "$TMP/damaged.sqlite" "ALTER TABLE NVTX_EVENTS RENAME COLUMN globalTid TO gtid_x"
  run_gf export --format chrome-trace "$TMP/damaged.sqlite" -o "$TMP/damaged.json"
  check_eq "damaged NVTX table: the export is still written" 0 "$rc"
  check_contains "damaged NVTX table: a warning names the file and the column" "$err" \
    "warning: NVTX ranges not projected onto the GPU: $TMP/damaged.sqlite: table NVTX_EVENTS has no column globalTid"
fi
t_done
