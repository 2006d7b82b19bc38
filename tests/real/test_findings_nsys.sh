#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier: `gpuflame findings` against NVIDIA's own expert system, `nsys analyze -f csv`.
#
# For every SQLite export and every report in the fixtures (real/*/*.sqlite, reports/*/*.sqlite,
# reports/*/*.nsys-rep, reports/*/*.qdrep) and four generated exports (tests/gen/findings_export.py
# planted, quirks, collapsed, older), copied into $GF_TMP first (nsys writes a .sqlite beside a report), the
# real nsys 2022.4 runs its rules and gpuflame runs its bundled rules of the same names on
# the same file (a report is given to gpuflame as the report: it exports it through the real nsys). The
# CSVs must be equal rule by rule: header, rows, order and every value; a SKIPPED rule must be skipped
# with the same message, an empty one empty on both sides (tests/real/findings_check.py).
#
# Per input: (1) the default rule set; then in one call (2) option variants: rows (3, 0, -1), gap,
# threshold, chunks, and (3) time windows start=/end= at the quartiles of the export's GPU span and an
# inverted window;
# (4) NVTX filters on a derived copy of reports/dlprof/nsys_profile.sqlite with added ranges (a push/pop
# range on a worker thread — rows limited to that thread —, one on the main thread, a start/end range in a
# named domain, a name used twice — the first by start wins —, and a name that does not exist).
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "findings: nsys analyze vs gpuflame findings"

RT=$TOP/tests/real
W=$TMP/findings
mkdir -p "$W"
RULES=(cuda-async-memcpy cuda-sync-memcpy cuda-sync-memset cuda-sync-api gpu-starv gpu-low-util)
VARIANTS=(-r gpu-starv:gap=0 -r gpu-starv:gap=0:rows=7 -r gpu-starv:gap=1 -r gpu-starv:gap=0:rows=-1
  -r gpu-low-util:threshold=90:chunks=100 -r gpu-low-util:threshold=100:chunks=1000:rows=5
  -r gpu-low-util:chunks=7 -r gpu-low-util:chunks=1:threshold=100 -r gpu-low-util:threshold=100:chunks=1000:rows=-1
  -r cuda-sync-api:rows=3 -r cuda-sync-api:rows=0 -r cuda-sync-api:rows=-1 -r cuda-async-memcpy:rows=-1
  -r cuda-async-memcpy:rows=2 -r cuda-sync-memcpy:rows=-1 -r cuda-sync-memset:rows=-1)

inputs=()
for f in "$FIX"/real/*/*.sqlite "$FIX"/reports/*/*.sqlite "$FIX"/reports/*/*.nsys-rep "$FIX"/reports/*/*.qdrep; do
  [ -e "$f" ] && inputs+=("$f")
done
# generated exports (tests/gen/findings_export.py): planted findings, and the corners where SQLite's
# semantics decide nsys's rows (processes idle in the same gpu-low-util chunks, a correlation id two
# processes share, NULL device ids and memory kinds, ties, case-insensitive LIKE), and an nsys 2022.2
# shape (each call recorded twice, cudaMemcpy and cudaMemcpy_v3020; an empty VULKAN_WORKLOAD table)
mkdir -p "$W/gen"
for v in planted quirks collapsed older; do
  if python3 "$TOP/tests/gen/findings_export.py" "$v" "$W/gen/$v.sqlite"; then
    inputs+=("$W/gen/$v.sqlite")
  else
    not_ok "generate $v export" "tests/gen/findings_export.py failed"
  fi
done
if [ "${#inputs[@]}" -eq 0 ]; then
  skip "findings nsys" "fixtures absent"
  exit 0
fi

# compare LABEL: $W/cur/nsys.out (nsys stdout) vs $W/cur/gf.out (gpuflame stdout)
compare() {
  local res rc
  # tests/lib/t.sh memo_check: the second pass's byte-identical outputs are checked by that identity
  res=$(memo_check python3 "$RT/findings_check.py" "$1" "$W/cur/nsys.out" "$W/cur/gf.out")
  rc=$?
  [ -n "$res" ] && printf '%s\n' "$res"
  if [ "$rc" -ne 0 ]; then _t_failed=$((_t_failed + 1)); fi
  if [ -z "$res" ]; then not_ok "$1" "no rule blocks compared (nsys: $(head -c 300 "$W/cur/nsys.out"))"; fi
}

# both LABEL DIR FILE GPUFLAME-INPUT ARGS...: nsys analyze in DIR on FILE, gpuflame findings on the input
both() {
  local label=$1 d=$2 file=$3 gfin=$4
  shift 4
  mkdir -p "$W/cur"
  pushd "$d" >/dev/null || return
  rnsys analyze -f csv "$@" "$file"
  popd >/dev/null || return
  printf '%s\n' "$rout" >"$W/cur/nsys.out"
  if [ "$rrc" -ne 0 ]; then
    not_ok "$label: nsys analyze" "exit $rrc: $(tail -c 300 <<<"$rerr")"
    return
  fi
  run_findings_csv findings --nsys "$MEMO_NSYS" -f csv "$@" "$gfin"
  printf '%s\n' "$out" >"$W/cur/gf.out"
  if [ "$rc" -ne 0 ]; then
    not_ok "$label: gpuflame findings" "exit $rc: $err"
    return
  fi
  compare "$label"
}

n=0
for src in "${inputs[@]}"; do
  n=$((n + 1))
  d=$W/in$n
  mkdir -p "$d"
  cp "$src" "$d/"
  b=$(basename "$src")
  rel=${src#"$FIX/"}
  [ "$rel" = "$src" ] && rel=generated/$b
  label=${rel%/*}/$b
  # a report recorded by a newer nsys than this one: refused, by nsys and by gpuflame (exit 6)
  if report_newer_than_nsys "$d/$b"; then newer_refused "$label" "$d/$b" findings -f csv; continue; fi
  db=$d/$b
  case "$b" in
    *.sqlite) ;;
    *) # nsys analyze reads a report through <stem>.sqlite beside it, made first unless one newer is there:
       # the export nsys makes of this report (`nsys export`, the question gpuflame asks of it too, and
       # test_oracle.sh and test_stats_equal.sh: the memo answers it once for all of them)
       db=$d/${b%.*}.sqlite
       rnsys export --type sqlite --force-overwrite=true -o "$db" "$d/$b"
       if [ "$rrc" -ne 0 ]; then rm -f "$db"; echo "# nsys export of $label: exit $rrc; nsys analyze exports it"; fi ;;
  esac
  # (1) the default rules
  both "$label" "$d" "$b" "$d/$b"
  [ -e "$db" ] || { not_ok "$label" "nsys left no export $db"; continue; }
  # (2) options and (3) windows at the quartiles of the GPU span (the runtime span when there is no GPU
  # work), in one call on each side; gpuflame reads the report again through its own export
  read -r q1 mid q3 < <(python3 - "$db" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
tabs = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
lo, hi = None, None
for group in (("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"),
              ("CUPTI_ACTIVITY_KIND_RUNTIME",)):
    for t in group:
        if t in tabs:
            a, b = db.execute("SELECT min(start), max(end) FROM %s" % t).fetchone()
            if a is not None:
                lo = a if lo is None else min(lo, a)
                hi = b if hi is None else max(hi, b)
    if lo is not None:
        break
if lo is None:
    lo, hi = 0, 1000
print(lo + (hi - lo) // 4, lo + (hi - lo) // 2, lo + 3 * (hi - lo) // 4)
EOF
)
  W_ARGS=()
  for r in "${RULES[@]}"; do
    W_ARGS+=(-r "$r:start=$mid" -r "$r:end=$mid" -r "$r:start=$q1:end=$q3:rows=-1")
  done
  W_ARGS+=(-r "gpu-starv:start=$q3:end=$q1" -r "gpu-low-util:start=$q1:end=$q3:threshold=100:chunks=50"
    -r "gpu-starv:start=$q1:end=$q3:gap=0")
  both "$label [options, windows]" "$d" "$(basename "$db")" "$d/$b" "${VARIANTS[@]}" "${W_ARGS[@]}"
done

# (4) NVTX filters on a derived export
if [ -e "$FIX/reports/dlprof/nsys_profile.sqlite" ]; then
  d=$W/nvtx
  mkdir -p "$d"
  cp "$FIX/reports/dlprof/nsys_profile.sqlite" "$d/nvtx.sqlite"
  python3 - "$d/nvtx.sqlite" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
pid_tid = db.execute("SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY globalTid "
                     "ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
lo, hi = db.execute("SELECT min(s), max(e) FROM (SELECT min(start) s, max(end) e FROM CUPTI_ACTIVITY_KIND_KERNEL "
                    "UNION ALL SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_MEMCPY)").fetchone()
span = hi - lo
main = pid_tid                               # the thread that makes the CUDA calls (pid == tid here)
worker = (pid_tid & ~0xFFFFFF) | ((pid_tid & 0xFFFFFF) + 7)  # another thread of the same process
cols = "start, end, eventType, rangeId, category, color, text, globalTid, endGlobalTid, textId, domainId"
rows = [
    # push/pop on the worker thread: CPU rows are limited to that thread (none are on it)
    (lo + span // 10, lo + span // 2, 59, None, None, None, "work", worker, None, None, 0),
    # push/pop on the main thread, twice: the first by start wins
    (lo + span // 5, lo + 3 * span // 5, 59, None, None, None, "train step", main, None, None, 0),
    (lo + 4 * span // 5, hi, 59, None, None, None, "train step", main, None, None, 0),
    # a named domain and a start/end range in it
    (lo, None, 75, None, None, None, "mydom", main, None, None, 7),
    (lo + span // 3, lo + 2 * span // 3, 60, 1, None, None, "phase", main, main, None, 7),
]
db.executemany("INSERT INTO NVTX_EVENTS (%s) VALUES (%s)" % (cols, ",".join("?" * 11)), rows)
db.commit()
EOF
  N_ARGS=()
  for r in "${RULES[@]}"; do
    N_ARGS+=(-r "$r:nvtx=work" -r "$r:nvtx=train step:rows=-1" -r "$r:nvtx=phase@mydom" -r "$r:nvtx=nosuch")
  done
  N_ARGS+=(-r "gpu-starv:nvtx=train step:gap=0" -r "gpu-low-util:nvtx=phase@mydom:threshold=100:chunks=20"
    -r "gpu-starv:nvtx=phase@mydom:gap=0:start=0")
  both "derived nvtx.sqlite [nvtx]" "$d" nvtx.sqlite "$d/nvtx.sqlite" "${N_ARGS[@]}"
fi

t_done
