#!/usr/bin/env bash
# gf-test: slow
# Bounded means bounded (issue 29 item 6): `timeline --max-events N` (and the agent's upload retrim, which
# passes it) imports with the streaming top-N, so its peak RSS follows N, not the input. Measured with GNU
# time on generated inputs 10x apart (trace CSVs: bench/gen_trace_csv.py; an export: tests/gen/big_export.py):
# the larger input may cost the bounded run little more than the smaller one, where keeping every event
# costs at least 20 bytes per event more (the model alone is ~49 bytes per event). The page's events are
# those a trimming import keeps, compared with the same page from the whole import trimmed afterwards.
. "$(dirname "$0")/../lib/t.sh"
[ -x /usr/bin/time ] || { skip "bounded memory" "/usr/bin/time (GNU time) missing"; t_done; }

# rss_kb CMD...: peak RSS of one run in KiB
rss_kb() { /usr/bin/time -f '%M' -o "$TMP/rss" "$@" >/dev/null 2>"$TMP/rss.err" || { cat "$TMP/rss.err" >&2; echo 0; return; }; tail -1 "$TMP/rss"; }
# rss_within NAME SMALL BIG: BIG is less than 3,500 KiB above SMALL. Not under the sanitizers: ASan's
# allocator keeps freed memory in quarantine and adds shadow memory, so peak RSS does not follow the
# program's own memory there (the plain pass measures it).
rss_within() {
  if [ "${SAN:-}" = 1 ]; then skip "$1" "peak RSS is the sanitizer allocator's under SAN=1 (measured in the plain pass)"; return; fi
  check "$1" [ $(($2 > 0 && $3 > 0 && $3 - $2 < 3500)) = 1 ]
}
# data FILE: the page's event data
data() {
  python3 - "$1" <<'PY'
import re, sys
m = re.search(r'<script[^>]*id="gf-data"[^>]*>(.*?)</script>', open(sys.argv[1], encoding="utf-8").read(), re.S)
print(m.group(1) if m else "none")
PY
}

for n in 20000 200000; do python3 "$TOP/bench/gen_trace_csv.py" "$n" "$TMP/csv$n" >/dev/null; done
small=$(rss_kb "$GF" -q timeline --max-events 1000 "$TMP/csv20000/cuda_gpu_trace.csv" "$TMP/csv20000/cuda_api_trace.csv" -o "$TMP/s.html")
big=$(rss_kb "$GF" -q timeline --max-events 1000 "$TMP/csv200000/cuda_gpu_trace.csv" "$TMP/csv200000/cuda_api_trace.csv" -o "$TMP/b.html")
# 360,000 more events: a whole import would hold >= 7,000 KiB more
rss_within "CSV, --max-events 1000: 20k+20k rows $small KiB, 200k+200k rows $big KiB (less than 3,500 KiB apart)" "$small" "$big"
check_contains "CSV, --max-events 1000: the findings panel says why it is empty" "$(grep -o '"note":"Findings not run[^"]*' "$TMP/b.html")" "--max-events 1000"
printf 'return { timeline = { local_max_events = 1000 } }\n' >"$TMP/max1000.lua"
"$GF" -q --policy "$TMP/max1000.lua" timeline "$TMP/csv200000/cuda_gpu_trace.csv" "$TMP/csv200000/cuda_api_trace.csv" -o "$TMP/w.html"
check "CSV: the bounded page's events are the whole import's trimmed to the same N" [ "$(data "$TMP/b.html")" == "$(data "$TMP/w.html")" ]

# Both exports big enough that their large tables are read by two readers (core/sqlite_prefetch.c's split holds
# twice a single reader's chunks, ~2 MiB, whatever the table's size): only memory that grows with the events
# tells them apart.
for n in 40000 200000; do python3 "$TOP/tests/gen/big_export.py" "$TMP/e$n.sqlite" --ranges $((n / 2)) >/dev/null; done
small=$(rss_kb "$GF" -q timeline --max-events 1000 "$TMP/e40000.sqlite" -o "$TMP/es.html")
big=$(rss_kb "$GF" -q timeline --max-events 1000 "$TMP/e200000.sqlite" -o "$TMP/eb.html")
# 240,000 more events
rss_within "SQLite, --max-events 1000: 60k events $small KiB, 300k events $big KiB (less than 3,500 KiB apart)" "$small" "$big"
check_contains "SQLite, --max-events 1000: the page says why it has no NVTX projection" "$(data "$TMP/eb.html")" \
  "NVTX ranges not projected onto the GPU: --max-events 1000 reads with memory bounded by N"
# the whole import's page, trimmed to the same N, without the projection (a bounded run cannot have it)
printf 'return { timeline = { local_max_events = 1000, nvtx_projection = false } }\n' >"$TMP/max1000np.lua"
"$GF" -q --policy "$TMP/max1000np.lua" timeline "$TMP/e200000.sqlite" -o "$TMP/ew.html"
"$GF" -q --policy "$TMP/max1000np.lua" timeline --max-events 1000 "$TMP/e200000.sqlite" -o "$TMP/eb2.html"
check "SQLite: the bounded page's events are the whole import's trimmed to the same N" [ "$(data "$TMP/eb2.html")" == "$(data "$TMP/ew.html")" ]
t_done
