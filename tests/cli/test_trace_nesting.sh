#!/usr/bin/env bash
# Overlapping CUDA calls on one CPU thread (nesting rows on the timeline page, a track per nesting row in the
# Chrome trace) and launch backtraces whose callchainId is numbered from 0 (nsys 2022.2): planted exports
# with known answers, then the real pipit capture (CUDA+MPI, 296 CUDA_CALLCHAINS rows) against SQL.
. "$(dirname "$0")/../lib/t.sh"
TT=$TOP/tests/trace
PIPIT=real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite

# A planted export: one thread (pid 100, tid 100), CUDA calls A ⊃ B, C overlapping A and B partially, D alone;
# kernels for A and D. Rows by hand (first row where a call fits): A 0, B 1, C 2, D 0.
plant() { # OUT SHIFT: callchainId = chain id - SHIFT (1: nsys 2022.2's numbering)
  rm -f "$1"
  sqlite3 "$1" <<SQL
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER,
  blockZ INTEGER, registersPerThread INTEGER);
CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
  unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaMalloc'), (3, 'cudaMemcpy_v3020'),
  (4, 'cudaLaunchKernel'), (5, 'kA'), (6, 'kD'), (7, '/usr/lib/libcudart.so.11'), (8, '/app/bin/app'),
  (9, 'launch_a()'), (10, 'launch_d()'), (11, 'main');
-- chains 1 (A) and 2 (D), depth 0 innermost
INSERT INTO CUDA_CALLCHAINS VALUES (1, 4, 7, NULL, 11, 0), (1, 9, 8, NULL, 12, 1), (1, 11, 8, NULL, 13, 2),
  (2, 4, 7, NULL, 21, 0), (2, 10, 8, NULL, 22, 1), (2, 11, 8, NULL, 23, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (1000, 2000, 1, 100 * 16777216 + 100, 1, 1, 0, 1 - $2),
  (1100, 1500, 1, 100 * 16777216 + 100, 2, 2, 0, NULL),
  (1400, 2500, 1, 100 * 16777216 + 100, 3, 3, 0, NULL),
  (3000, 3100, 1, 100 * 16777216 + 100, 4, 1, 0, 2 - $2);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2600, 2900, 0, 7, 1, 100 * 16777216, 5, 5, 1, 1, 1, 32, 1, 1, 8),
  (3200, 3300, 0, 7, 4, 100 * 16777216, 6, 6, 1, 1, 1, 32, 1, 1, 8);
SQL
}

# rows, lane depth and backtraces of the planted page (independent answers written out above)
page_facts() {
  python3 - "$1" <<'PY'
import sys; sys.path.insert(0, "tests/trace"); import page_data
d = page_data.load(sys.argv[1])
cpu = [i for i, l in enumerate(d["lanes"]) if l["kind"] == "cpu"]
print("cpu lanes=%d depth=%s" % (len(cpu), d["lanes"][cpu[0]].get("depth")))
for e in d["events"]:
    det = d["details"][e[7]] if e[7] >= 0 else {}
    st = " < ".join(d["stacks"][e[5]]) if e[5] >= 0 else "-"
    print("%s@%d row=%s stack=%s" % (d["names"][e[4]], e[0] + d["t0"], det.get("row", 0), st))
PY
}

for shift in 0 1; do
  tag="planted (callchainId = id - $shift)"
  plant "$TMP/p$shift.sqlite" $shift
  run_gf timeline "$TMP/p$shift.sqlite" -o "$TMP/p$shift.html"
  check_eq "$tag: renders" 0 "$rc"
  res=$(page_facts "$TMP/p$shift.html")
  check_contains "$tag: one CPU lane of 3 rows" "$res" "cpu lanes=1 depth=3"
  check_contains "$tag: A (encloses B) on row 0" "$res" "cudaLaunchKernel@1000 row=0"
  check_contains "$tag: B (inside A) on row 1" "$res" "cudaMalloc@1100 row=1"
  check_contains "$tag: C (overlaps A and B partially) on row 2" "$res" "cudaMemcpy@1400 row=2"
  check_contains "$tag: D (after them) back on row 0" "$res" "cudaLaunchKernel@3000 row=0"
  check_contains "$tag: kernel kA has A's backtrace, innermost first" "$res" \
    "kA@2600 row=0 stack=cudaLaunchKernel (libcudart.so.11) < launch_a() (app) < main (app)"
  check_contains "$tag: kernel kD has D's backtrace" "$res" \
    "kD@3200 row=0 stack=cudaLaunchKernel (libcudart.so.11) < launch_d() (app) < main (app)"
  run_gf -q export --format chrome-trace "$TMP/p$shift.sqlite" -o "$TMP/p$shift.json"
  check_eq "$tag: chrome-trace exits 0" 0 "$rc"
  memo_check python3 "$TT/check_chrome.py" "$TMP/p$shift.json" "$tag" flows
  res=$(python3 - "$TMP/p$shift.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
for e in ev:
    if e["ph"] == "X" and e["cat"] == "cuda_api":
        print("%s@%.3f on [%s]" % (e["name"], e["ts"], names[(e["pid"], e["tid"])]))
PY
)
  check_contains "$tag: chrome: A on the thread's track" "$res" "cudaLaunchKernel@1.000 on [CPU pid 100 tid 100]"
  check_contains "$tag: chrome: B on the row-2 track" "$res" "cudaMalloc@1.100 on [CPU pid 100 tid 100 (nested calls, row 2)]"
  check_contains "$tag: chrome: C on the row-3 track" "$res" "cudaMemcpy@1.400 on [CPU pid 100 tid 100 (nested calls, row 3)]"
  check_contains "$tag: chrome: D on the thread's track" "$res" "cudaLaunchKernel@3.000 on [CPU pid 100 tid 100]"
done

# --- the real capture ---
if ! have_fixture "$PIPIT"; then skip "pipit" "fixtures absent"; t_done; fi
F=$FIX/$PIPIT
run_gf timeline --stacks "$F" -o "$TMP/pipit.html"
check_eq "pipit: renders" 0 "$rc"
# The launch of each kernel and its chain from SQL alone: the chain that holds the launch call's own function
# (name without _vNNNN) as a frame; frames by stackDepth, depth 0 innermost, "symbol (module file name)".
res=$(python3 - "$TMP/pipit.html" "$F" <<'PY'
import os, re, sqlite3, sys; sys.path.insert(0, "tests/trace"); import page_data
d = page_data.load(sys.argv[1])
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True)
kinds = d["kinds"]
kern = {e[3]: e for e in d["events"] if kinds[e[6]] == "kernel"}
sql = {}
for corr, name, cc in db.execute("""SELECT r.correlationId, s.value, r.callchainId FROM CUPTI_ACTIVITY_KIND_RUNTIME r
        JOIN StringIds s ON s.id = r.nameId JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId
        WHERE r.callchainId IS NOT NULL"""):
    ids = [i for (i,) in db.execute("""SELECT DISTINCT c.id FROM CUDA_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol
                                       WHERE s.value = ?""", (re.sub(r"_v\d{4}$", "", name),))]
    near = [i for i in ids if i in (cc, cc + 1)]  # the chain recorded for this call, whichever numbering
    frames = [f"{s} ({os.path.basename(m)})" for s, m in db.execute("""SELECT s.value, m.value FROM CUDA_CALLCHAINS c
        JOIN StringIds s ON s.id = c.symbol JOIN StringIds m ON m.id = c.module WHERE c.id = ? ORDER BY c.stackDepth""",
        (near[0],))] if len(near) == 1 else None
    sql[corr] = frames
print("kernels=%d with_sql_chain=%d" % (len(kern), sum(v is not None for v in sql.values())))
bad = [c for c, fr in sql.items() if c not in kern or kern[c][5] < 0 or d["stacks"][kern[c][5]] != fr]
print("mismatch=%s" % bad)
k = kern.get(140)
print("corr140=" + (" < ".join(d["stacks"][k[5]]) if k and k[5] >= 0 else "none"))
PY
)
check_contains "pipit: every kernel's launch has a chain found by SQL" "$res" "kernels=5 with_sql_chain=5"
check_contains "pipit: each kernel's backtrace equals its SQL chain, innermost first" "$res" "mismatch=[]"
check_contains "pipit: the first saxpy launch (CorrID 140) starts in cudaLaunchKernel, ends in _start" "$res" \
  "corr140=0x7fd990700588 (libcupti.so.11.7) < 0x7fd99070283c (libcupti.so.11.7) < 0x7fd99b6226b6 (libcuda.so.525.105.17) < cudaLaunchKernel (libcudart.so.11.7.60) <"
check_contains "pipit: ... through saxpy and main" "$res" "saxpy(double*, double*, double*, double, int) (saxpy-mpi-cuda) < main (saxpy-mpi-cuda) < __libc_start_main (libc-2.31.so) < _start (saxpy-mpi-cuda)"
# nsys 2022.2 records each runtime call twice (cudaMalloc around cudaMalloc_v3020, same CorrID): the wrapper
# is on row 0, the call inside on row 1 (from SQL: the longer of each pair encloses the shorter)
res=$(python3 - "$TMP/pipit.html" "$F" <<'PY'
import sqlite3, sys; sys.path.insert(0, "tests/trace"); import page_data
d = page_data.load(sys.argv[1])
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True)
want = {}
for corr, in db.execute("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY globalTid, correlationId HAVING count(*) = 2"):
    (s1, e1), (s2, e2) = db.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = ? ORDER BY end - start DESC", (corr,)).fetchall()
    assert s1 <= s2 and e2 <= e1
    want[(s1, corr)] = 0
    want[(s2, corr)] = 1
got = {}
for e in d["events"]:
    if d["lanes"][e[2]]["kind"] == "cpu":
        det = d["details"][e[7]] if e[7] >= 0 else {}
        got[(e[0] + d["t0"], e[3])] = det.get("row", 0)
print("pairs=%d rows_ok=%s depth=%s" % (len(want) // 2, all(got.get(k) == v for k, v in want.items()),
      [l.get("depth") for l in d["lanes"] if l["kind"] == "cpu" and not l.get("sub")]))
PY
)
check_contains "pipit: wrapper calls on row 0, the calls they wrap on row 1" "$res" "rows_ok=True"
check_contains "pipit: the CPU lane has 2 rows" "$res" "depth=[2]"
run_gf -q export --format chrome-trace "$F" -o "$TMP/pipit.json"
memo_check python3 "$TT/check_chrome.py" "$TMP/pipit.json" "pipit" flows
t_done
