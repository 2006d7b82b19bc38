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
    "cuda_api=2448 kernel=2402 memcpy=19 osrt=1022 sync=2 total=5893 shown=5893" "$(kinds "$TMP/osrt.html")"
  # bounded pages: the CPU side counts toward --max-events like any event (longest kept: samples, zero
  # long, go first), and the page's total counts them all
  # (without the launch partners of kept GPU work, which a page keeps beyond the cap)
  printf 'return { timeline = { keep_partners = false } }\n' >"$TMP/nopartners.lua"
  run_gf -q --policy "$TMP/nopartners.lua" timeline "$FIX/$TILE" --max-events 3000 -o "$TMP/b.html"
  check_eq "--max-events 3000: exit 0" 0 "$rc"
  got=$(kinds "$TMP/b.html")
  check_contains "--max-events 3000: 3000 events shown of all 7037 (CPU side counted)" "$got" "total=7037 shown=3000"
  check_not_contains "--max-events 3000: zero-length samples are the first left out" "$got" "cpu_sample="
  # policy timeline.cpu.max_samples: at most that many samples, evenly spread; the page counts them all and says so
  printf 'return { timeline = { cpu = { max_samples = 100 } } }\n' >"$TMP/cap.lua"
  run_gf --policy "$TMP/cap.lua" timeline "$FIX/$TILE" -o "$TMP/cap.html"
  check_eq "max_samples 100: exit 0" 0 "$rc"
  check_contains "max_samples 100: 100 samples in the page, the page's total counts all 7037 events" \
    "$(kinds "$TMP/cap.html")" "cpu_running=221 cpu_sample=100 cuda_api=2448 kernel=2402 memcpy=19 osrt=1022 sync=2 total=7037 shown=6214"
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
