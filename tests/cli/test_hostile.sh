#!/usr/bin/env bash
# Hostile inputs through the real commands (issue 8 §3): every case asserts, in one `ok` line, the
# documented exit code (docs/CONVENTIONS.md: 6 bad input, 5 no data, 1 error), exactly one error line
# on stderr ("gpuflame: ..." besides warnings) naming the file and the position where there is one,
# and that no output was left behind (neither the final name nor a `.NAME.tmp.*` in its directory).
# Inputs that must WORK (invalid UTF-8, huge fields) assert a valid, escaped output instead.
# Everything is generated here under $GF_TMP (the 50 MB field included); nothing is committed.
# The single-command cases with small inline inputs are in tests/cases/hostile.cases; what stays here
# needs generated or edited inputs (random bytes, 50 MB, edited SQLite exports, FIFOs, other users).
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/hostile.sh"

K=$TMP/k; mkdir -p "$K"
H='Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name'
O=$TMP/out; mkdir -p "$O"

# --- kern/api summary CSVs: flamegraph, collapse, export ----------------------------------------
dd if=/dev/urandom of="$K/random.bin" bs=1k count=64 status=none
hostile "random bytes" 6 "$K/random.bin: unrecognised" "$O/a.html" flamegraph "$K/random.bin" -o "$O/a.html"

# invalid UTF-8 in names: must work, and the page/JSON must be valid UTF-8
printf '%s\n50.0,200000,1,1,1,1,1,0,"bad\xff\xfeutf\xc3 <b>"\n50.0,100000,1,1,1,1,1,0,ok\n' "$H" >"$K/utf.csv"
run_gf flamegraph "$K/utf.csv" -o "$O/utf.html"
check_eq "invalid UTF-8 name: flamegraph works" 0 "$rc"
check "invalid UTF-8 name: the page is valid UTF-8" python3 -c 'open(__import__("sys").argv[1], "rb").read().decode("utf-8")' "$O/utf.html"
check_not_contains "invalid UTF-8 name: the <b> is escaped" "$(cat "$O/utf.html" 2>/dev/null)" "utf <b>"
run_gf export --format speedscope "$K/utf.csv" -o "$O/utf.json"
check "invalid UTF-8 name: speedscope JSON parses" python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$O/utf.json"

# a NUL byte and invalid UTF-8 after the 64 KiB sniffing window: parsed, no crash, pages valid UTF-8 without NUL
python3 - "$K/nul2.csv" "$K/gnul.csv" "$H" <<'PY'
import sys
rows = "".join("1.0,%d,1,1,1,1,1,0,k%d\n" % (1000 + i, i) for i in range(5000))
open(sys.argv[1], "wb").write((sys.argv[3] + "\n" + rows).encode() + b'1.0,99999,1,1,1,1,1,0,"nul\x00in<b>side\xff"\n')
g = ("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),"
     "Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n")
rows = "".join("%d,50,%d,1,1,1,1,1,1,32,0.000,0.000,,,,,GPU (0),1,7,k%d\n" % (1000 + i * 100, i, i) for i in range(2000))
open(sys.argv[2], "wb").write((g + rows).encode() + b'999999,5000,9999,1,1,1,1,1,1,32,0.000,0.000,,,,,GPU (0),1,7,"nul\x00in<b>side\xff"\n')
PY
printf 'Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n500,300,cudaLaunchKernel,0,1,42,42,20,p\n' >"$K/api1.csv"
valid_page() { python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); b.decode("utf-8"); sys.exit(b"\0" in b or b"in<b>side" in b)' "$1"; }
run_gf flamegraph "$K/nul2.csv" -o "$O/nul2.html"
check "NUL + invalid UTF-8 in a kern CSV name past 64 KiB: flamegraph works, page valid UTF-8, no NUL, markup escaped" \
  bash -c "[ $rc = 0 ] && $(declare -f valid_page); valid_page '$O/nul2.html'"
run_gf timeline "$K/gnul.csv" "$K/api1.csv" -o "$O/gnul.html"
check "NUL + invalid UTF-8 in a trace CSV name: timeline works, page valid UTF-8, no NUL, markup escaped" \
  bash -c "[ $rc = 0 ] && $(declare -f valid_page); valid_page '$O/gnul.html'"

# a 50 MB single field (generated now, never committed): works, bounded time (no quadratic scans)
python3 - "$K/big.csv" "$H" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n50.0,100000,1,1,1,1,1,0,\"" + "x" * (50 << 20) + "\"\n50.0,5000,1,1,1,1,1,0,small\n")
PY
s0=$(date +%s)
n=$("$GF" collapse "$K/big.csv" 2>"$K/big.err" | wc -l)
check_eq "50 MB name field: collapse works (2 stacks)" "2|" "$n|$(cat "$K/big.err")"
check "50 MB name field: under 60 s on a loaded machine (was quadratic: minutes)" [ $(( $(date +%s) - s0 )) -lt 60 ]
rm -f "$K/big.csv"

# --- SQLite exports ----------------------------------------------------------------------------------
DB=$FIX/real/test-cuda/report1.sqlite
if [ -e "$DB" ] && command -v sqlite3 >/dev/null; then
  cp "$DB" "$K/miss.sqlite"; chmod 644 "$K/miss.sqlite"
  sqlite3 "$K/miss.sqlite" "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;
    DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY;"
  hostile "SQLite export missing the kernel, copy and runtime tables" 5 \
    "$K/miss.sqlite: no GPU data in this export (kernels: no CUPTI_ACTIVITY_KIND_KERNEL table" "$O/a.html" \
    flamegraph "$K/miss.sqlite" -o "$O/a.html"
  cp "$DB" "$K/nostr.sqlite"; chmod 644 "$K/nostr.sqlite"; sqlite3 "$K/nostr.sqlite" "DROP TABLE StringIds;"
  # the hierarchical flamegraph reads the export as the timeline does: GPU work without names is drawn as "?"
  run_gf collapse "$K/nostr.sqlite"
  check_eq "SQLite export missing StringIds: the GPU work drawn, its names unknown (?)" "0|1" \
    "$rc|$([[ $out == *";?;? "* ]] && echo 1)"
  cp "$DB" "$K/none.sqlite"; chmod 644 "$K/none.sqlite"
  for t in $(sqlite3 "$K/none.sqlite" "SELECT name FROM sqlite_master WHERE type='table' AND (name LIKE 'CUPTI%' OR name LIKE 'NVTX%' OR name LIKE 'OSRT%' OR name IN ('COMPOSITE_EVENTS', 'SAMPLING_CALLCHAINS', 'SCHED_EVENTS'))"); do
    sqlite3 "$K/none.sqlite" "DROP TABLE $t"
  done
  hostile "SQLite export without any activity table (timeline → flamegraph fallback → no data)" 5 \
    "$K/none.sqlite: no GPU data in this export" "$O/t.html" timeline "$K/none.sqlite" -o "$O/t.html"
  # corrupted pages: every 7th 4 KiB page from the 4th on overwritten with random bytes
  cp "$DB" "$K/corrupt.sqlite"; chmod 644 "$K/corrupt.sqlite"
  python3 - "$K/corrupt.sqlite" <<'PY'
import os, random, sys
random.seed(8)
n = os.path.getsize(sys.argv[1]) // 4096
with open(sys.argv[1], "r+b") as f:
    for k in range(3, n - 3, 7):
        f.seek(k * 4096)
        f.write(bytes(random.getrandbits(8) for _ in range(4096)))
PY
  hostile "SQLite export with corrupted pages (flamegraph)" 6 "$K/corrupt.sqlite: damaged SQLite file" \
    "$O/a.html" flamegraph "$K/corrupt.sqlite" -o "$O/a.html"
  hostile "SQLite export with corrupted pages (timeline)" 6 "$K/corrupt.sqlite: damaged SQLite file" "$O/t.html" \
    timeline "$K/corrupt.sqlite" -o "$O/t.html"
  hostile "SQLite export with corrupted pages (export chrome-trace)" 6 "$K/corrupt.sqlite: damaged SQLite file" \
    "$O/t.json" export --format chrome-trace "$K/corrupt.sqlite" -o "$O/t.json"
  hostile "SQLite export with corrupted pages (collapse)" 6 "$K/corrupt.sqlite: damaged SQLite file" - \
    collapse "$K/corrupt.sqlite"
  head -c 200000 "$DB" >"$K/cut.sqlite"
  hostile "SQLite export cut at 200 kB" 6 "$K/cut.sqlite:" "$O/t.html" timeline "$K/cut.sqlite" -o "$O/t.html"
else
  skip "SQLite hostile cases" "fixtures absent (or no sqlite3)"
fi

# --- unreadable inputs ---------------------------------------------------------------------------------
# The tests run as root, which ignores mode bits: a FIFO, and (when runuser works) a chmod 000 file
# read as the user nobody (a directory and a missing file are in tests/cases/hostile.cases).
mkfifo "$K/fifo.csv"
hostile "input is a FIFO (not opened, no hang)" 6 "$K/fifo.csv: not a regular file" - collapse "$K/fifo.csv"
printf '%s\n50.0,100,1,1,1,1,1,0,k1\n' "$H" >"$K/unr.csv"; chmod 000 "$K/unr.csv"; chmod 755 "$TMP" "$K"
if runuser -u nobody -- test -x "$GF" 2>/dev/null && runuser -u nobody -- test -r "$TOP/lua" 2>/dev/null; then
  o=$(mktemp); e=$(mktemp)
  runuser -u nobody -- "$GF" collapse "$K/unr.csv" >"$o" 2>"$e"; rc=$?; err=$(cat "$e"); rm -f "$o" "$e"
  check_eq "chmod 000 file read as nobody: exit 6, one line, no doubled path" \
    "6|gpuflame: $K/unr.csv: cannot read: Permission denied" "$rc|$err"
else
  skip "chmod 000 file read as nobody" "runuser -u nobody cannot run the binary here"
fi

# --- analyze --no-export on edited reports ----------------------------------------------------------
RF=$FIX/real/roboflow-inference
if [ -e "$RF/nvtx_pushpop_trace.csv" ]; then
  mkrun() {
    rm -rf "$1"; mkdir -p "$1/stats"; cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$1/manifest.yaml"
    cp "$RF/nvtx_pushpop_trace.csv" "$1/stats/nsys_nvtx_pushpop_trace.csv"
    cp "$RF/nvtx_gpu_proj_trace.csv" "$1/stats/nsys_nvtx_gpu_proj_trace.csv"
  }
  P=stats/nsys_nvtx_pushpop_trace.csv
  R=$TMP/r2; mkrun "$R"; (head -1 "$RF/nvtx_pushpop_trace.csv"; tail -n +2 "$RF/nvtx_pushpop_trace.csv" | sed '2s/^[0-9]*,/abc,/') >"$R/$P"
  hostile "analyze: non-numeric Start" 6 "Invalid integer in $R/$P column 'Start (ns)': 'abc'" "$R/analysis.json" \
    analyze --run-dir "$R" --no-export
  R=$TMP/r3; mkrun "$R"; (head -1 "$RF/nvtx_pushpop_trace.csv" | sed 's/Start (ns)/Begin/'; tail -n +2 "$RF/nvtx_pushpop_trace.csv") >"$R/$P"
  hostile "analyze: renamed Start column" 6 "Nsight report $R/$P is missing required columns: Start (ns)" "$R/analysis.json" \
    analyze --run-dir "$R" --no-export
  R=$TMP/r5; mkrun "$R"
  python3 - "$RF/nvtx_pushpop_trace.csv" "$R/$P" <<'PY'
import sys
rows = open(sys.argv[1], "rb").read().split(b"\n")
rows[2] = rows[2].replace(b"iteration", b"iter\xff\xfe", 1)
open(sys.argv[2], "wb").write(b"\xef\xbb\xbf" + b"\r\n".join(rows))
PY
  run_gf analyze --run-dir "$R" --no-export
  check_eq "analyze: CRLF + BOM + invalid UTF-8 in a range name works" 0 "$rc"
  check "analyze: analysis.json is valid UTF-8 JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$R/analysis.json"
else
  skip "analyze hostile cases" "fixtures absent"
fi
t_done
