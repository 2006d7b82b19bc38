#!/usr/bin/env bash
# Hostile inputs through the real commands (issue 8 §3): every case asserts, in one `ok` line, the
# documented exit code (docs/CONVENTIONS.md: 6 bad input, 5 no data, 1 error), exactly one error line
# on stderr ("gpuflame: ..." besides warnings) naming the file and the position where there is one,
# and that no output was left behind (neither the final name nor a `.NAME.tmp.*` in its directory).
# Inputs that must WORK (CRLF, BOM, invalid UTF-8, huge fields) assert a valid, escaped output instead.
# Everything is generated here under $GF_TMP (the 50 MB field included); nothing is committed.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/hostile.sh"

K=$TMP/k; mkdir -p "$K"
H='Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name'
O=$TMP/out; mkdir -p "$O"

# --- kern/api summary CSVs: flamegraph, collapse, export ----------------------------------------
: >"$K/empty.csv"
hostile "empty CSV (flamegraph)" 5 "$K/empty.csv: empty file" "$O/a.html" flamegraph "$K/empty.csv" -o "$O/a.html"
hostile "empty CSV (collapse)" 5 "$K/empty.csv: empty file" - collapse "$K/empty.csv"
echo "$H" >"$K/hdr.csv"
hostile "header-only kern CSV" 5 "$K/hdr.csv: cuda_gpu_kern_sum has no rows" "$O/a.html" flamegraph "$K/hdr.csv" -o "$O/a.html"
hostile "header-only kern CSV (export speedscope)" 5 "$K/hdr.csv: cuda_gpu_kern_sum has no rows" "$O/a.json" \
  export --format speedscope "$K/hdr.csv" -o "$O/a.json"
printf '%s\n50.0,100,1,1,1,1,1,0,k1\n50.0,200,1,1' "$H" >"$K/trunc.csv"
hostile "truncated last line" 6 "$K/trunc.csv:3: row has 4 fields, the header has 9" "$O/a.html" \
  flamegraph "$K/trunc.csv" -o "$O/a.html"
printf '%s\n50.0,100,1,1,1,1,1,0,k1\n50.0,200,1,1,1,1,1,0,"k2\n' "$H" >"$K/unterm.csv"
hostile "unterminated quote" 6 "$K/unterm.csv:3: unterminated quoted field" "$O/a.html" \
  flamegraph "$K/unterm.csv" -o "$O/a.html"
hostile "unterminated quote (export folded)" 6 "$K/unterm.csv:3: unterminated quoted field" "$O/a.folded" \
  export --format folded "$K/unterm.csv" -o "$O/a.folded"
printf 'Time (%%),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n50.0,1,1,1,1,1,0,k1\n' >"$K/nototal.csv"
hostile "missing Total Time column" 6 "$K/nototal.csv: unrecognised input" "$O/a.html" flamegraph "$K/nototal.csv" -o "$O/a.html"
printf 'Time (%%),Total,Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Kernel\n50.0,100,1,1,1,1,1,0,k1\n' >"$K/renamed.csv"
hostile "renamed columns (Total, Kernel)" 6 "$K/renamed.csv: unrecognised input" "$O/a.html" flamegraph "$K/renamed.csv" -o "$O/a.html"
for v in abc -5 99999999999999999999999 ''; do
  printf '%s\n50.0,100,1,1,1,1,1,0,k0\n50.0,%s,1,1,1,1,1,0,k1\n' "$H" "$v" >"$K/w.csv"
  case $v in abc) why="invalid number 'abc'" ;; -5) why="negative number '-5'" ;; '') why="missing number ''" ;;
    *) why="number out of range '$v'" ;; esac
  hostile "weight '$v' (flamegraph)" 6 "$K/w.csv:3:2 (column 'Total Time (ns)'): $why" "$O/a.html" \
    flamegraph "$K/w.csv" -o "$O/a.html"
done
printf '%s\n50.0,abc,1,1,1,1,1,0,k1\n' "$H" >"$K/nan.csv"
hostile "weight 'abc' (collapse, streamed)" 6 "$K/nan.csv:2:2 (column 'Total Time (ns)'): invalid number 'abc'" - collapse "$K/nan.csv"
hostile "weight 'abc' (export folded)" 6 "$K/nan.csv:2:2 (column 'Total Time (ns)'): invalid number 'abc'" "$O/a.folded" \
  export --format folded "$K/nan.csv" -o "$O/a.folded"
printf 'return { flamegraph = { bad_weight = "one" } }\n' >"$K/one.lua"
run_gf --policy "$K/one.lua" collapse "$K/nan.csv"
check_eq "policy flamegraph.bad_weight = \"one\": the reference behaviour (count 1)" "0|gpu;nsys;cuda_kernel;k1 1" "$rc|$out"
printf 'return { flamegraph = { bad_weight = "zero" } }\n' >"$K/bw.lua"
run_gf policy check "$K/bw.lua"
check_contains "bad_weight is validated" "$err" "flamegraph.bad_weight"
printf 'k1,100\n' >"$K/noheader.csv"
hostile "CSV without a header" 6 "$K/noheader.csv: unrecognised input" "$O/a.html" flamegraph "$K/noheader.csv" -o "$O/a.html"
printf '%s\n50.0,100,1,1,1,1,1,0,"k\0nul"\n' "$H" >"$K/nul.csv"
hostile "NUL byte in a name: refused as binary, no crash" 6 "$K/nul.csv: unrecognised binary file" "$O/a.html" \
  flamegraph "$K/nul.csv" -o "$O/a.html"
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

# CRLF and BOM must work (same folded lines as the LF file)
printf '%s\n50.0,2500000,3,1,1,1,1,0,"k<a;b>, x"\n40.0,1000,1,1,1,1,1,0,tiny\n' "$H" >"$K/lf.csv"
{ printf '\xef\xbb\xbf'; sed 's/$/\r/' "$K/lf.csv"; } >"$K/crlf.csv"
run_gf collapse "$K/lf.csv"; lf=$out
run_gf collapse "$K/crlf.csv"
check_eq "CRLF + BOM kern CSV works and equals the LF file" "0|$lf" "$rc|$out"

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

# --- folded stacks ---------------------------------------------------------------------------------
printf 'a;b 9000000000000000000\nc;d 9000000000000000000\n' >"$K/sum.folded"
hostile "folded: total weight overflows int64" 6 "$K/sum.folded:2: the total weight exceeds 2^63-1" "$O/a.html" \
  flamegraph "$K/sum.folded" -o "$O/a.html"
printf '# only a comment\n\n' >"$K/c.folded"
hostile "folded: only comments" 6 "$K/c.folded: unrecognised input" "$O/a.html" flamegraph "$K/c.folded" -o "$O/a.html"
printf 'a;b 5\nc;d 99999999999999999999999\n' >"$K/ovf.folded"
run_gf flamegraph "$K/ovf.folded" -o "$O/ovf.html"
check_eq "folded: an out-of-range count is skipped with a warning naming the line (flamegraph.pl behaviour)" \
  "0|gpuflame: warning: $K/ovf.folded: skipped 1 malformed line (first: line 2: the count after the last space is out of range)" \
  "$rc|$(head -1 <<<"$err")"

# --- trace CSVs (timeline, export chrome-trace) ----------------------------------------------------
GH='Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name'
AH='Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name'
printf '%s\n500,300,cudaLaunchKernel,0,101,4242,4242,20,python3\n' "$AH" >"$K/api.csv"
for v in abc -5 99999999999999999999999; do
  printf '%s\n1000,5000,101,160,1,1,256,1,1,32,0.000,0.000,,,,,GPU (0),1,7,"burn"\n1000,%s,102,160,1,1,256,1,1,32,0.000,0.000,,,,,GPU (0),1,7,"burn"\n' \
    "$GH" "$v" >"$K/gpu_trace.csv"
  case $v in abc) why="invalid integer 'abc'" ;; -5) why="negative duration '-5'" ;; *) why="invalid integer '$v'" ;; esac
  hostile "trace CSV duration '$v' (timeline)" 6 "$K/gpu_trace.csv:3:2 (column 'Duration (ns)'): $why" "$O/t.html" \
    timeline "$K/gpu_trace.csv" "$K/api.csv" -o "$O/t.html"
done
hostile "trace CSV bad duration (export chrome-trace)" 6 "$K/gpu_trace.csv:3:2 (column 'Duration (ns)')" "$O/t.json" \
  export --format chrome-trace "$K/gpu_trace.csv" "$K/api.csv" -o "$O/t.json"
printf '%s\n1000,5000,101,160,1,1,256,1,1,32,0.000,0.000,,,,,GPU (0),1,7,"burn\n' "$GH" >"$K/gpu_unterm.csv"
hostile "trace CSV unterminated quote" 6 "$K/gpu_unterm.csv:2: unterminated quoted field" "$O/t.html" \
  timeline "$K/gpu_unterm.csv" "$K/api.csv" -o "$O/t.html"
# a file cut off in its last row: fewer fields than the header, the used columns among the missing ones
printf '%s\n1000,5000,101,160,1,1,256,1,1,32,0.000,0.000,,,,,GPU (0),1,7,"burn"\n9000,4000,102,160,1,1,256,1,1,32,0.000,0.000,,,,,GPU' \
  "$GH" >"$K/gpu_cut.csv"
hostile "trace CSV cut short in its last row (GPU)" 6 "$K/gpu_cut.csv:3: row ends after 17 of 20 fields; missing Name, Strm" \
  "$O/t.html" timeline "$K/gpu_cut.csv" "$K/api.csv" -o "$O/t.html"
printf '%s\n500,300,cudaLaunchKernel,0,101,4242,4242,20,python3\n900,300,cudaLaunch' "$AH" >"$K/api_cut.csv"
printf '%s\n1000,5000,101,160,1,1,256,1,1,32,0.000,0.000,,,,,GPU (0),1,7,"burn"\n' "$GH" >"$K/gpu_ok.csv"
hostile "trace CSV cut short in its last row (API)" 6 "$K/api_cut.csv:3: row ends after 3 of 9 fields; missing CorrID, Pid, Tid" \
  "$O/t.json" export --format chrome-trace "$K/gpu_ok.csv" "$K/api_cut.csv" -o "$O/t.json"
sed 's/Duration (ns)/Dur/' <<<"$GH" >"$K/gpu_ren.csv"
hostile "trace CSV with a renamed duration column" 6 "$K/gpu_ren.csv: unrecognised input" "$O/t.html" \
  timeline "$K/gpu_ren.csv" "$K/api.csv" -o "$O/t.html"
hostile "timeline of a kern_sum CSV" 6 "$K/hdr.csv: not a timeline input" "$O/t.html" timeline "$K/hdr.csv" -o "$O/t.html"

# --- SQLite exports ----------------------------------------------------------------------------------
printf 'not sqlite at all\n' >"$K/fake.sqlite"
hostile "a .sqlite that is text" 6 "$K/fake.sqlite: unrecognised input" "$O/a.html" flamegraph "$K/fake.sqlite" -o "$O/a.html"
printf 'SQLite format 3\0garbage-after-the-magic' >"$K/magic.sqlite"
hostile "SQLite magic then garbage (flamegraph)" 6 "$K/magic.sqlite: not a readable SQLite database" "$O/a.html" \
  flamegraph "$K/magic.sqlite" -o "$O/a.html"
hostile "SQLite magic then garbage (timeline)" 6 "$K/magic.sqlite: not an SQLite database" "$O/t.html" \
  timeline "$K/magic.sqlite" -o "$O/t.html"
DB=$FIX/real/test-cuda/report1.sqlite
if [ -e "$DB" ] && command -v sqlite3 >/dev/null; then
  cp "$DB" "$K/miss.sqlite"; chmod 644 "$K/miss.sqlite"
  sqlite3 "$K/miss.sqlite" "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;"
  hostile "SQLite export missing the kernel and runtime tables" 5 \
    "$K/miss.sqlite: no GPU data in this export (kernels: no CUPTI_ACTIVITY_KIND_KERNEL table" "$O/a.html" \
    flamegraph "$K/miss.sqlite" -o "$O/a.html"
  cp "$DB" "$K/nostr.sqlite"; chmod 644 "$K/nostr.sqlite"; sqlite3 "$K/nostr.sqlite" "DROP TABLE StringIds;"
  hostile "SQLite export missing StringIds" 5 "$K/nostr.sqlite: no GPU data in this export (kernels: no StringIds table" \
    "$O/a.html" flamegraph "$K/nostr.sqlite" -o "$O/a.html"
  cp "$DB" "$K/none.sqlite"; chmod 644 "$K/none.sqlite"
  for t in $(sqlite3 "$K/none.sqlite" "SELECT name FROM sqlite_master WHERE type='table' AND (name LIKE 'CUPTI%' OR name LIKE 'NVTX%' OR name LIKE 'OSRT%')"); do
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
  hostile "SQLite export with corrupted pages (flamegraph)" 6 "$K/corrupt.sqlite: not a readable SQLite database" \
    "$O/a.html" flamegraph "$K/corrupt.sqlite" -o "$O/a.html"
  hostile "SQLite export with corrupted pages (timeline)" 6 "$K/corrupt.sqlite: damaged SQLite file" "$O/t.html" \
    timeline "$K/corrupt.sqlite" -o "$O/t.html"
  hostile "SQLite export with corrupted pages (export chrome-trace)" 6 "$K/corrupt.sqlite: damaged SQLite file" \
    "$O/t.json" export --format chrome-trace "$K/corrupt.sqlite" -o "$O/t.json"
  hostile "SQLite export with corrupted pages (collapse)" 6 "$K/corrupt.sqlite: not a readable SQLite database" - \
    collapse "$K/corrupt.sqlite"
  head -c 200000 "$DB" >"$K/cut.sqlite"
  hostile "SQLite export cut at 200 kB" 6 "$K/cut.sqlite:" "$O/t.html" timeline "$K/cut.sqlite" -o "$O/t.html"
else
  skip "SQLite hostile cases" "fixtures absent (or no sqlite3)"
fi

# --- unreadable inputs ---------------------------------------------------------------------------------
# The tests run as root, which ignores mode bits: a directory, a FIFO, and (when runuser works) a
# chmod 000 file read as the user nobody.
# a directory is a set of reports since issue 14 (one per rank): one with none is an error naming it
mkdir -p "$K/noreports"
hostile "input is a directory without reports" 6 "$K/noreports: a directory with no .sqlite/.nsys-rep reports" "$O/a.html" flamegraph "$K/noreports" -o "$O/a.html"
mkfifo "$K/fifo.csv"
hostile "input is a FIFO (not opened, no hang)" 6 "$K/fifo.csv: not a regular file" - collapse "$K/fifo.csv"
hostile "input does not exist" 6 "$K/nope.csv: no such file" "$O/a.html" flamegraph "$K/nope.csv" -o "$O/a.html"
printf '%s\n50.0,100,1,1,1,1,1,0,k1\n' "$H" >"$K/unr.csv"; chmod 000 "$K/unr.csv"; chmod 755 "$TMP" "$K"
if runuser -u nobody -- test -x "$GF" 2>/dev/null && runuser -u nobody -- test -r "$TOP/lua" 2>/dev/null; then
  o=$(mktemp); e=$(mktemp)
  runuser -u nobody -- "$GF" collapse "$K/unr.csv" >"$o" 2>"$e"; rc=$?; err=$(cat "$e"); rm -f "$o" "$e"
  check_eq "chmod 000 file read as nobody: exit 6, one line, no doubled path" \
    "6|gpuflame: $K/unr.csv: cannot read: Permission denied" "$rc|$err"
else
  skip "chmod 000 file read as nobody" "runuser -u nobody cannot run the binary here"
fi

# --- analyze --no-export and report -------------------------------------------------------------------
RF=$FIX/real/roboflow-inference
if [ -e "$RF/nvtx_pushpop_trace.csv" ]; then
  mkrun() {
    rm -rf "$1"; mkdir -p "$1/stats"; cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$1/manifest.yaml"
    cp "$RF/nvtx_pushpop_trace.csv" "$1/stats/nsys_nvtx_pushpop_trace.csv"
    cp "$RF/nvtx_gpu_proj_trace.csv" "$1/stats/nsys_nvtx_gpu_proj_trace.csv"
  }
  P=stats/nsys_nvtx_pushpop_trace.csv
  R=$TMP/r1; mkrun "$R"; : >"$R/$P"
  hostile "analyze: empty pushpop CSV" 5 "Nsight report contains no rows: $R/$P" "$R/analysis.json" analyze --run-dir "$R" --no-export
  R=$TMP/r2; mkrun "$R"; (head -1 "$RF/nvtx_pushpop_trace.csv"; tail -n +2 "$RF/nvtx_pushpop_trace.csv" | sed '2s/^[0-9]*,/abc,/') >"$R/$P"
  hostile "analyze: non-numeric Start" 6 "Invalid integer in $R/$P column 'Start (ns)': 'abc'" "$R/analysis.json" \
    analyze --run-dir "$R" --no-export
  R=$TMP/r3; mkrun "$R"; (head -1 "$RF/nvtx_pushpop_trace.csv" | sed 's/Start (ns)/Begin/'; tail -n +2 "$RF/nvtx_pushpop_trace.csv") >"$R/$P"
  hostile "analyze: renamed Start column" 6 "Nsight report $R/$P is missing required columns: Start (ns)" "$R/analysis.json" \
    analyze --run-dir "$R" --no-export
  R=$TMP/r4; mkrun "$R"; printf 'profile_name: x\n\0\0\0\n' >"$R/manifest.yaml"
  hostile "analyze: NUL bytes in manifest.yaml" 6 "$R/manifest.yaml" "$R/analysis.json" analyze --run-dir "$R" --no-export
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
RP=$TMP/rp; mkdir -p "$RP"
printf '{"schema_version": 1, "iterations": [' >"$RP/analysis.json"
hostile "report: truncated analysis.json" 6 "$RP/analysis.json:1:37: invalid JSON" "$RP/report.html" report --run-dir "$RP" --html
printf '<html>' >"$RP/analysis.json"
hostile "report: not JSON" 6 "$RP/analysis.json:1:1: invalid JSON" "$RP/r.md" report "$RP/analysis.json" -o "$RP/r.md"
: >"$RP/analysis.json"
hostile "report: empty analysis.json" 6 "$RP/analysis.json: empty" "$RP/r.md" report "$RP/analysis.json" -o "$RP/r.md"
printf '{"schema_version": 1, "summary": "x", "ranges": 5, "iterations": "y"}' >"$RP/analysis.json"
hostile "report: wrong shapes" 6 "$RP/analysis.json: not an NVTX analysis" "$RP/r.html" report "$RP/analysis.json" --html -o "$RP/r.html"

t_done
