#!/usr/bin/env bash
# The CPU side of the timeline (issue 25): OS runtime calls (OSRT_API), CPU samples (COMPOSITE_EVENTS +
# SAMPLING_CALLCHAINS) and running intervals (SCHED_EVENTS) in the Chrome trace and the timeline page of
# real exports, counted against SQL on the export (tests/trace/check_cpu_side.py: osrt_sum's query for the
# calls, one sample per COMPOSITE_EVENTS row with its callchain rows as its stack, sched-in → sched-out by a
# window query); the policy switch; bounded pages (--max-events) counting them as events; model files.
. "$(dirname "$0")/../lib/t.sh"
CHECK=$TOP/tests/trace/check_cpu_side.py

side() { # FIXTURE: every check of check_cpu_side.py on its Chrome trace and page
  local f=$1 name
  if ! have_fixture "$f"; then skip "$f: CPU side" "fixtures absent"; return; fi
  run_gf -q export --format chrome-trace "$FIX/$f" -o "$TMP/c.json"
  check_eq "$f: chrome-trace export exit 0" 0 "$rc"
  run_gf -q timeline "$FIX/$f" -o "$TMP/p.html"
  check_eq "$f: timeline exit 0" 0 "$rc"
  while IFS='|' read -r name exp got; do
    check_eq "$f: $name" "$exp" "$got"
  done < <(python3 "$CHECK" "$FIX/$f" "$TMP/c.json" "$TMP/p.html" 2>&1 || echo "check_cpu_side.py|ran|failed")
}

# OS runtime calls: every export with OSRT_API rows; samples: every one with SAMPLING_CALLCHAINS
for f in real/parallel-sheet-simulator/tile_8x8.sqlite real/nussinov-gpu/report3.sqlite real/cuda-learning/report1.sqlite \
  real/cuda-perf-sandbox/report1.sqlite real/test-cuda/report1.sqlite real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite \
  real/cs336-jsun012/result.sqlite; do
  side "$f"
done

# A planted export with known answers: an OS runtime call whose nameId has no string ("?", as osrt_sum's LEFT
# JOIN gives NULL), a zero-length mark of eventClass 31 (kept: OSRT start), a sample without callchain ("CPU sample"), a sample
# whose chain is 2 frames (named by depth 0, the innermost), a thread whose sched-in repeats (the interval starts
# at the first), a sched-out without sched-in, a thread with scheduling rows only (no lane: no running row).
G=$((100 * 16777216 + 100)); H=$((100 * 16777216 + 101)); J=$((100 * 16777216 + 102))
sqlite3 "$TMP/plant.sqlite" <<SQL
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER, callchainId INTEGER NOT NULL);
CREATE TABLE COMPOSITE_EVENTS (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, cpu INTEGER, threadState INTEGER,
  globalTid INTEGER, cpuCycles INTEGER NOT NULL);
CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
  unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));
CREATE TABLE SCHED_EVENTS (start INTEGER NOT NULL, cpu INTEGER NOT NULL, isSchedIn INTEGER NOT NULL, globalTid INTEGER);
INSERT INTO StringIds VALUES (1, 'pthread_mutex_lock'), (2, 'inner_fn'), (3, 'outer_fn'), (4, '/lib/libapp.so'), (5, 'worker');
INSERT INTO ThreadNames VALUES (5, 0, $H);
INSERT INTO OSRT_API VALUES (1000, 5000, 27, $G, 1, 0, 0, 0), (6000, 6500, 27, $G, 99, 0, 0, 0), (7000, 7000, 31, $G, 1, 0, 0, 0);
INSERT INTO COMPOSITE_EVENTS VALUES (1, 2000, 0, 1, $G, 0), (2, 3000, 0, 1, $H, 0);
INSERT INTO SAMPLING_CALLCHAINS VALUES (2, 2, 4, 0, NULL, 0), (2, 3, 4, 0, NULL, 1);
INSERT INTO SCHED_EVENTS VALUES (500, 0, 0, $G), (900, 0, 1, $G), (950, 1, 1, $G), (5200, 1, 0, $G),
  (2500, 0, 1, $H), (3500, 0, 0, $H), (100, 0, 1, $J), (200, 0, 0, $J);
SQL
run_gf -q export --format chrome-trace "$TMP/plant.sqlite" -o "$TMP/plant.json"
check_eq "planted: export exit 0" 0 "$rc"
res=$(python3 -c 'import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") in ("osrt", "cpu_sample", "cpu_running")]
for e in sorted(ev, key=lambda e: (e["cat"], e["ts"])):
    print("%s|%s|%s|%d|%d|%s" % (e["cat"], e["name"], e["ph"], round(e["ts"] * 1000), round(e.get("dur", 0) * 1000),
          ",".join(e.get("args", {}).get("stack", []))))' "$TMP/plant.json")
check_eq "planted: OS runtime calls (eventClass 27; a name missing from StringIds is ?; the eventClass 31 mark kept, zero-length), samples (a missing callchain: CPU sample; else the innermost frame, the stack innermost first), running (first sched-in to sched-out; threads with a lane only)" \
"cpu_running|running|X|900|4300|
cpu_running|running|X|2500|1000|
cpu_sample|CPU sample|i|2000|0|
cpu_sample|inner_fn (libapp.so)|i|3000|0|inner_fn (libapp.so),outer_fn (libapp.so)
osrt|pthread_mutex_lock|X|1000|4000|
osrt|?|X|6000|500|
osrt|OSRT start|X|7000|0|" "$res"
run_gf -q timeline "$TMP/plant.sqlite" -o "$TMP/plant.html"
res=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[2]); import page_data
d = page_data.load(sys.argv[1]); print(" ".join("%s%s" % (l["label"], "") for l in d["lanes"]))' "$TMP/plant.html" "$TOP/tests/trace")
check_eq "planted: lanes: the thread's calls, samples and running rows; the named worker's samples and running" \
  "CPU pid 100 tid 100 CPU pid 100 tid 100 samples CPU pid 100 tid 100 running CPU pid 100 tid 101 worker samples CPU pid 100 tid 101 worker running" "$res"

kinds() { # PAGE → "kind count" lines of its events
  python3 -c 'import sys, collections; sys.path.insert(0, sys.argv[2]); import page_data
d = page_data.load(sys.argv[1]); c = collections.Counter(d["kinds"][r[6]] for r in d["events"])
print(" ".join("%s=%d" % kv for kv in sorted(c.items())), "total=%d shown=%d" % (d["total"], d["shown"]))' "$1" "$TOP/tests/trace"
}

TILE=real/parallel-sheet-simulator/tile_8x8.sqlite
if have_fixture "$TILE"; then
  # the policy turns each part off; off, the page is what it was before the CPU side (CUDA events only)
  printf 'return { timeline = { cpu = { osrt = false, samples = false, running = false } } }\n' >"$TMP/off.lua"
  run_gf -q --policy "$TMP/off.lua" timeline "$FIX/$TILE" -o "$TMP/off.html"
  check_eq "policy timeline.cpu off: exit 0" 0 "$rc"
  check_eq "policy timeline.cpu off: CUDA events only" "cuda_api=2448 kernel=2402 memcpy=19 sync=2 total=4871 shown=4871" \
    "$(kinds "$TMP/off.html")"
  printf 'return { timeline = { cpu = { osrt = true, samples = false, running = false } } }\n' >"$TMP/osrt.lua"
  run_gf -q --policy "$TMP/osrt.lua" timeline "$FIX/$TILE" -o "$TMP/osrt.html"
  check_eq "policy timeline.cpu.osrt alone: the calls, no samples or running rows" \
    "cuda_api=2448 kernel=2402 memcpy=19 osrt=1025 sync=2 total=5896 shown=5896" "$(kinds "$TMP/osrt.html")"
  # bounded pages: the CPU side counts toward --max-events like any event (longest kept: samples, zero
  # long, go first), and the page's total counts them all
  # (without the launch partners of kept GPU work, which a page keeps beyond the cap)
  printf 'return { timeline = { keep_partners = false } }\n' >"$TMP/nopartners.lua"
  run_gf -q --policy "$TMP/nopartners.lua" timeline "$FIX/$TILE" --max-events 3000 -o "$TMP/b.html"
  check_eq "--max-events 3000: exit 0" 0 "$rc"
  got=$(kinds "$TMP/b.html")
  check_contains "--max-events 3000: 3000 events shown of all 7040 (CPU side counted)" "$got" "total=7040 shown=3000"
  check_not_contains "--max-events 3000: zero-length samples are the first left out" "$got" "cpu_sample="
  # policy timeline.cpu.max_samples: at most that many samples, evenly spread; the page counts them all and says so
  printf 'return { timeline = { cpu = { max_samples = 100 } } }\n' >"$TMP/cap.lua"
  run_gf --policy "$TMP/cap.lua" timeline "$FIX/$TILE" -o "$TMP/cap.html"
  check_eq "max_samples 100: exit 0" 0 "$rc"
  check_contains "max_samples 100: 100 samples in the page, the page's total counts all 7040 events" \
    "$(kinds "$TMP/cap.html")" "cpu_running=221 cpu_sample=100 cuda_api=2448 kernel=2402 memcpy=19 osrt=1025 sync=2 total=7040 shown=6217"
  check_contains "max_samples 100: the warning names both counts" "$err" \
    "CPU samples: 923 in the export, 100 of them kept, evenly spread (policy timeline.cpu.max_samples)"
  spread=$(python3 -c 'import sys, sqlite3; sys.path.insert(0, sys.argv[3]); import page_data
d = page_data.load(sys.argv[1]); db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True)
rows = [r[0] for r in db.execute("SELECT start FROM COMPOSITE_EVENTS")]
want = sorted(rows[k] for k in range(len(rows)) if (k + 1) * 100 // len(rows) > k * 100 // len(rows))
got = sorted(d["t0"] + r[0] for r in d["events"] if d["kinds"][r[6]] == "cpu_sample")
print(got == want)' "$TMP/cap.html" "$FIX/$TILE" "$TOP/tests/trace")
  check_eq "max_samples 100: the kept samples are every 923/100-th row of COMPOSITE_EVENTS" True "$spread"
  # a model file (gpuflame import) carries the CPU side: the same page as from the export
  run_gf -q import "$FIX/$TILE" -o "$TMP/tile.gfmodel"
  check_eq "import: exit 0" 0 "$rc"
  run_gf -q timeline "$TMP/tile.gfmodel" -o "$TMP/m.html"
  run_gf -q timeline "$FIX/$TILE" -o "$TMP/r.html"
  check_eq "model file: the same events by kind as the export" "$(kinds "$TMP/r.html")" "$(kinds "$TMP/m.html")"
  # the findings do not change with the CPU side (rules read CUDA events only)
  run_gf -q findings "$FIX/$TILE" --format json
  ref=$out
  run_gf -q --policy "$TMP/off.lua" findings "$FIX/$TILE" --format json
  check_eq "findings: the same with and without the CPU side" "$ref" "$out"
else
  skip "CPU side: policy, bounded pages, model files" "fixtures absent"
fi
t_done
