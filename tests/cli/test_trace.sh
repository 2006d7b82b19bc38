#!/usr/bin/env bash
# gf-test: slow
# CPU/GPU timeline (issues 4 and 5): trace import from CSV and SQLite, trimming, stacks, chrome-trace export.
# Pages are written with tests/trace/templates/timeline.html (the same slots as the real template) and
# checked by python3 against independent SQL.
. "$(dirname "$0")/../lib/t.sh"
TT=$TOP/tests/trace
GFT=("$GF" --lua-path "$TT")

# --- reference CSVs (gprofiler test constants: old header era, Throughput (MBps), no GreenCtx) ---
if have_fixture gprofiler/GPU_TRACE_CSV.csv; then
  run_gf --lua-path "$TT" timeline "$FIX/gprofiler/GPU_TRACE_CSV.csv" "$FIX/gprofiler/API_TRACE_CSV.csv" -o "$TMP/ref.html"
  check_eq "reference CSVs: timeline exits 0" 0 "$rc"
  res=$(python3 - "$TMP/ref.html" <<'PY'
import sys; sys.path.insert(0, "tests/trace"); import page_data
d = page_data.load(sys.argv[1])
labels = [l["label"] for l in d["lanes"]]
print("lanes=" + "|".join(labels))
k = d["kinds"]
ev = [dict(start=e[0] + d["t0"], dur=e[1], lane=labels[e[2]], corr=e[3], name=d["names"][e[4]], kind=k[e[6]]) for e in d["events"]]
g = [e for e in ev if e["corr"] == 101 and e["kind"] == "kernel"][0]
a = [e for e in ev if e["corr"] == 101 and e["kind"] == "cuda_api"][0]
print("kernel=%d,%d,%s" % (g["start"], g["dur"], g["lane"]))
print("launch=%s,%s" % (a["name"], a["lane"]))
print("counts=%d/%d gpu=%d api=%d" % (d["shown"], d["total"], sum(e["kind"] == "kernel" for e in ev), sum(e["kind"] == "cuda_api" for e in ev)))
PY
)
  check_contains "reference CSVs: GPU lane 'GPU NVIDIA A10G (0) stream 7'" "$res" "GPU NVIDIA A10G (0) stream 7"
  check_contains "reference CSVs: CPU lane 'CPU pid 4242 tid 4242' (+ thread name)" "$res" "lanes=CPU pid 4242 tid 4242"
  check_contains "reference CSVs: event 101 at start 1000, duration 5000, on the GPU lane" "$res" "kernel=1000,5000,GPU NVIDIA A10G (0) stream 7"
  check_contains "reference CSVs: event 101 linked to its cudaLaunchKernel on the CPU lane" "$res" "launch=cudaLaunchKernel,CPU pid 4242 tid 4242"
  check_contains "reference CSVs: 2 GPU + 3 API events" "$res" "counts=5/5 gpu=2 api=3"
else
  skip "reference CSVs" "fixtures absent"
fi

# --- one process, 24 threads taking turns (planted): each thread its own lane. The importer keys a row's lane
# by the raw bytes of its Pid and Tid fields in a small cache; threads of one process meet in its sets ---
python3 - "$TMP/turns_api.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n")
    for i in range(240):
        f.write("%d,50,cudaStreamSynchronize,0,%d,4242,%d,20,worker\n" % (1000 + 100 * i, 1000 + i, 5000 + (i * 7) % 24))
PY
run_gf --lua-path "$TT" timeline "$TMP/turns_api.csv" -o "$TMP/turns.html"
check_eq "24 threads taking turns: timeline exits 0" 0 "$rc"
res=$(python3 - "$TMP/turns.html" "$TMP/turns_api.csv" <<'PY'
import csv, sys; sys.path.insert(0, "tests/trace"); import page_data
d = page_data.load(sys.argv[1])
labels = [l["label"] for l in d["lanes"]]
want = {int(r["Start (ns)"]): "CPU pid %s tid %s" % (r["Pid"], r["Tid"]) for r in csv.DictReader(open(sys.argv[2]))}
bad = [(e[0] + d["t0"], labels[e[2]]) for e in d["events"] if not labels[e[2]].startswith(want[e[0] + d["t0"]])]
print("lanes=%d events=%d misplaced=%d %s" % (len(set(labels)), len(d["events"]), len(bad), bad[:3]))
PY
)
check_contains "24 threads taking turns: 24 lanes, every event on its own thread's" "$res" "lanes=24 events=240 misplaced=0 "

# --- 2025 header era: (B) columns, GreenCtx, memcpy rows ---
if have_fixture real/roboflow-inference/cuda_gpu_trace.csv; then
  run_gf --lua-path "$TT" timeline "$FIX/real/roboflow-inference/cuda_gpu_trace.csv" -o "$TMP/rf.html"
  check_eq "2025 gpu trace CSV alone: exits 0" 0 "$rc"
  res=$(python3 - "$TMP/rf.html" <<'PY'
import sys; sys.path.insert(0, "tests/trace"); import page_data
d = page_data.load(sys.argv[1])
for e in d["events"]:
    det = d["details"][e[7]] if e[7] >= 0 else {}
    print(d["kinds"][e[6]], e[3], det.get("bytes"), det.get("copy"), det.get("grid"), d["lanes"][e[2]]["label"])
PY
)
  check_contains "(B) bytes and copy kind of the H2D memcpy" "$res" "memcpy 158 1048576 Host-to-Device None GPU NVIDIA L4 (0) stream 7"
  check_contains "kernel row with grid" "$res" "kernel 168 None None [1024, 1, 1]"
  check_contains "D2H memcpy" "$res" "memcpy 178 1048576 Device-to-Host"
else
  skip "2025 gpu trace CSV" "fixtures absent"
fi

# --- every real SQLite export: counts = COUNT(*), CorrID links, lane order; --stacks warns; chrome-trace ---
n=0
for f in "$FIX"/real/*/*.sqlite; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  tag=$(basename "$(dirname "$f")")/$(basename "$f")
  kernels=$(sqlite3 "file:$f?mode=ro" "SELECT count(*) FROM sqlite_master WHERE name='CUPTI_ACTIVITY_KIND_RUNTIME'" 2>/dev/null)
  run_gf --lua-path "$TT" timeline --stacks "$f" -o "$TMP/s.html"
  if [ "$kernels" = 0 ]; then
    # the empty capture: no trace events → the flamegraph fallback, which has no data either (exit 5)
    check_contains "$tag: no events → fallback warning" "$err" "nsys timeline requested but no trace events; falling back to GPU flamegraph"
    check_eq "$tag: nothing at all to draw → exit 5" 5 "$rc"
    continue
  fi
  check_eq "$tag: --stacks renders (exit 0)" 0 "$rc"
  # only pipit was captured with --cudabacktrace (fixtures README); the others have no CUDA_CALLCHAINS rows
  chains=$(sqlite3 "file:$f?mode=ro" "SELECT count(*) FROM sqlite_master WHERE name='CUDA_CALLCHAINS'")
  [ "$chains" = 1 ] && chains=$(sqlite3 "file:$f?mode=ro" "SELECT count(*) FROM CUDA_CALLCHAINS")
  w=$(python3 -c "import sys; sys.path.insert(0,'tests/trace'); import page_data; d = page_data.load('$TMP/s.html'); print(d['warnings'], 'stacks=%s' % (len(d['stacks']) > 0), 'flame=%s' % (d['launchFlame'] is not None))")
  if [ "$chains" -gt 0 ]; then
    check_not_contains "$tag: has CUDA_CALLCHAINS rows ($chains): no missing-backtrace warning" "$err" "no launch backtraces"
    check_contains "$tag: no warnings, and the page has backtraces" "$w" "[] stacks=True"
    check_contains "$tag: ... and a launch-stack flamegraph" "$w" "flame=True"
  else
    [ "$tag" = pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite ] && not_ok "$tag: CUDA_CALLCHAINS rows" "none found"
    check_contains "$tag: --stacks warns about missing backtraces" "$err" "no launch backtraces in this capture"
    check_contains "$tag: the warning is in the page data" "$w" "CUDA_CALLCHAINS absent"
  fi
  memo_check python3 "$TT/check_sqlite.py" "$TMP/s.html" "$f" "$tag"
  run_gf -q export --format chrome-trace "$f" -o "$TMP/c.json"
  check_eq "$tag: chrome-trace export exits 0" 0 "$rc"
  memo_check python3 "$TT/check_chrome.py" "$TMP/c.json" "$tag"
done
[ "$n" -gt 0 ] || skip "real SQLite exports" "fixtures absent"

# --- launch backtraces: generated CUDA_CALLCHAINS on copies of an old and a new export ---
for rel in real/parallel-sheet-simulator/tile_8x8.sqlite real/test-cuda/report1.sqlite; do
  if ! have_fixture "$rel"; then skip "callchains $rel" "fixtures absent"; continue; fi
  tag=callchains:$(basename "$(dirname "$rel")")
  python3 "$TT/make_callchains.py" "$FIX/$rel" "$TMP/cc.sqlite" "$TMP/cc.json"
  run_gf --lua-path "$TT" --policy "$TT/exact-flame.lua" timeline --stacks "$TMP/cc.sqlite" -o "$TMP/cc.html"
  check_eq "$tag: renders" 0 "$rc"
  python3 "$TT/check_stacks.py" "$TMP/cc.html" "$TMP/cc.json" "$tag"
  # default policy: thin subtrees are folded into their parents, the total stays exact
  run_gf --lua-path "$TT" timeline --stacks "$TMP/cc.sqlite" -o "$TMP/cc2.html"
  res=$(python3 - "$TMP/cc2.html" "$TMP/cc.json" <<'PY'
import json, sys; sys.path.insert(0, "tests/trace"); import page_data
d = page_data.load(sys.argv[1]); exp = json.load(open(sys.argv[2])); lf = d["launchFlame"]
print(lf["total"] == sum(w for _, w in lf["stacks"]) == exp["kernel_total"] + exp["api_only_total"])
PY
)
  check_eq "$tag: folded thin subtrees keep the exact total" True "$res"
  run_gf export --format launch-stacks "$TMP/cc.sqlite" -o "$TMP/cc.folded"
  res=$(python3 - "$TMP/cc.folded" "$TMP/cc.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
exp = json.load(open(sys.argv[2]))
ok = all(l.rsplit(" ", 1)[1].isdigit() for l in lines)
gpu = sum(int(l.rsplit(" ", 1)[1]) for l in lines if l.rsplit(" ", 1)[0].endswith("_[G]"))
root = all(l.startswith("_start (trainer);") for l in lines)
print("ok" if ok and root and gpu == exp["kernel_total"] else "bad %s %s %d %d" % (ok, root, gpu, exp["kernel_total"]))
PY
)
  check_eq "$tag: folded launch stacks root first, kernel leaves _[G] weigh the kernels' ns" ok "$res"
done

# --- NVTX: named domains (eventType 75), registered strings (textId), nesting levels, start/end ranges ---
if have_fixture real/cuda-learning/report1.sqlite; then
  cp "$FIX/real/cuda-learning/report1.sqlite" "$TMP/nvtx.sqlite"
  python3 - "$TMP/nvtx.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
gt = db.execute("SELECT globalTid FROM NVTX_EVENTS LIMIT 1").fetchone()[0]
sid = db.execute("SELECT max(id) FROM StringIds").fetchone()[0] + 1
db.execute("INSERT INTO StringIds VALUES (?, 'cuBLAS')", (sid,))
db.execute("INSERT INTO StringIds VALUES (?, 'gemm <registered>')", (sid + 1,))
db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, domainId) VALUES (0, NULL, 75, ?, ?, 7)", (gt, sid))
db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, domainId) VALUES (1015234000, 1015235000, 59, ?, ?, 7)", (gt, sid + 1))
db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text, domainId) VALUES (5, 50, 60, ?, 'async range', 0)", (gt,))
# as nsys's own reports (nvtxpptrace.py): textId wins over text; a parent is a range that contains the child
# (a zero-length range at its parent's end is a child; a range starting where its sibling ended is not)
db.execute("INSERT INTO StringIds VALUES (?, 'registered beats inline')", (sid + 2,))
db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text, textId, domainId) VALUES (1015236000, 1015237000, 59, ?, 'inline loses', ?, 0)", (gt, sid + 2))
db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text, domainId) VALUES (1027546328, 1027546328, 59, ?, 'zero-length at its parent end', 0)", (gt,))
db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text, domainId) VALUES (1026647423, 1026648000, 59, ?, 'starts where its sibling ended', 0)", (gt,))
db.commit()
PY
  run_gf --lua-path "$TT" timeline "$TMP/nvtx.sqlite" -o "$TMP/nvtx.html"
  res=$(python3 - "$TMP/nvtx.html" <<'PY'
import sys; sys.path.insert(0, "tests/trace"); import page_data
d = page_data.load(sys.argv[1]); nv = d["kinds"].index("nvtx")
for e in d["events"]:
    if e[6] == nv:
        det = d["details"][e[7]] if e[7] >= 0 else {}
        print("%s|%s|%s|%s" % (d["names"][e[4]], det.get("domain"), det.get("nvtx_level"), d["lanes"][e[2]]["kind"]))
PY
)
  check_contains "NVTX: registered string in a named domain, level 2 (inside Kernel Execution)" "$res" "gemm <registered>|cuBLAS|2|nvtx"
  check_contains "NVTX: inline text, outermost push/pop range at level 0" "$res" "Matrix Multiplication|None|0|nvtx"
  check_contains "NVTX: start/end range has no push/pop level" "$res" "async range|None|None|nvtx"
  check_contains "NVTX: textId names a range that also has inline text (as nvtxpptrace.py)" "$res" "registered beats inline|None|2|nvtx"
  check_contains "NVTX: a zero-length range at its parent's end is its child (as nvtxpptrace.py)" "$res" "zero-length at its parent end|None|1|nvtx"
  check_contains "NVTX: a range starting where its sibling ended is that sibling's sibling" "$res" "starts where its sibling ended|None|1|nvtx"
fi

# --- trimming through the CLI: --max-events keeps the longest and their launches ---
if have_fixture real/parallel-sheet-simulator/tile_8x8.sqlite; then
  f=$FIX/real/parallel-sheet-simulator/tile_8x8.sqlite
  run_gf --lua-path "$TT" timeline --max-events 500 "$f" -o "$TMP/t.html"
  res=$(python3 - "$TMP/t.html" "$f" <<'PY'
import sqlite3, sys; sys.path.insert(0, "tests/trace"); import page_data
d = page_data.load(sys.argv[1])
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True)
durs = sorted([r[0] for t in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
        "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") for r in db.execute("SELECT end - start FROM " + t)], reverse=True)
# the CPU side counts too (issue 25): OS runtime calls (osrt_sum's rows), the running intervals of the threads
# with a lane (sched-in to the next sched-out), the zero-long samples
shown = {(l["pid"], l["tid"]) for l in d["lanes"] if l["kind"] == "cpu"}
durs += [r[0] for r in db.execute("SELECT end - start FROM OSRT_API")]  # with the start/finish marks
durs += [r[2] for r in db.execute("SELECT (globalTid >> 24) & 16777215, globalTid & 16777215, nxt - start FROM (SELECT "
         "globalTid, start, isSchedIn, lead(isSchedIn) OVER w AS nin, lead(start) OVER w AS nxt FROM SCHED_EVENTS "
         "WINDOW w AS (PARTITION BY globalTid ORDER BY start)) WHERE isSchedIn != 0 AND nin = 0") if (r[0], r[1]) in shown]
durs.sort(reverse=True)
cut = durs[499]
kk, ka = d["kinds"].index("kernel"), d["kinds"].index("cuda_api")
longest = sum(1 for e in d["events"] if e[1] >= cut)
api = {e[3] for e in d["events"] if e[6] == ka}
unlinked = sum(1 for e in d["events"] if e[6] == kk and e[3] not in api)
print("total=%d shown>=500:%s longest=%d unlinked=%d" % (d["total"], d["shown"] >= 500, longest, unlinked))
PY
)
  check_eq "--max-events 500: total kept, 500 longest shown, every kept kernel keeps its launch" \
    "total=7040 shown>=500:True longest=500 unlinked=0" "$res"
fi

# --- bad input ---
printf 'SQLite format 3\0garbage garbage garbage' >"$TMP/bad.sqlite"
head -c 4096 /dev/urandom >>"$TMP/bad.sqlite"
run_gf --lua-path "$TT" timeline "$TMP/bad.sqlite" -o "$TMP/bad.html"
check_eq "damaged SQLite: exit 6" 6 "$rc"
check_contains "damaged SQLite: the error names the file" "$err" "$TMP/bad.sqlite"
check "damaged SQLite: no page written" test ! -e "$TMP/bad.html"
if have_fixture real/test-cuda/report1.sqlite; then
  cp "$FIX/real/test-cuda/report1.sqlite" "$TMP/trunc.sqlite"
  truncate -s 200000 "$TMP/trunc.sqlite"
  run_gf --lua-path "$TT" timeline "$TMP/trunc.sqlite" -o "$TMP/trunc.html"
  check_eq "truncated real export: exit 6" 6 "$rc"
  check_contains "truncated real export: names the file and says it is damaged" "$err" "$TMP/trunc.sqlite: damaged SQLite file"
fi
echo "hello" >"$TMP/x.txt"
run_gf --lua-path "$TT" timeline "$TMP/x.txt" -o "$TMP/x.html"
check_eq "not a trace input: exit 6" 6 "$rc"
if have_fixture real/test-cuda/report1.sqlite; then
  before=$(sha256sum "$FIX/real/test-cuda/report1.sqlite")
  run_gf --lua-path "$TT" timeline "$FIX/real/test-cuda/report1.sqlite" -o "$TMP/ro.html"
  check_eq "the user's SQLite file is never written" "$before" "$(sha256sum "$FIX/real/test-cuda/report1.sqlite")"
fi
t_done
