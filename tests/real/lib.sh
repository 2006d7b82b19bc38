# Real-nsys tier helpers. Source after tests/lib/t.sh:  . "$(dirname "$0")/lib.sh"
# Finds a real nsys (GF_REAL_NSYS=PATH, else PATH, else Debian's and NVIDIA's install places).
# Without one, real_nsys_or_skip prints one `skip - <tier case>: no real nsys ...` line and exits 0.
REAL_NSYS=${GF_REAL_NSYS:-}
if [ -z "$REAL_NSYS" ]; then
  for c in "$(command -v nsys 2>/dev/null)" /usr/lib/nsight-systems/bin/nsys \
           /opt/nvidia/nsight-systems/*/bin/nsys /opt/nvidia/nsight-systems-cli/*/target-linux-*/nsys; do
    if [ -n "$c" ] && [ -x "$c" ]; then REAL_NSYS=$c; break; fi
  done
fi
# Every call to the real nsys is bounded (seconds); a hung nsys fails the case, never the suite.
REAL_TIMEOUT=${GF_REAL_TIMEOUT:-120}

real_nsys_or_skip() { # NAME-OF-THE-TIER-FILE
  if [ -z "$REAL_NSYS" ] || [ ! -x "$REAL_NSYS" ]; then
    skip "$1" "no real nsys (install: .ci/deps.sh nsys, or set GF_REAL_NSYS=/path/to/nsys)"
    exit 0
  fi
}

# The answers of `nsys stats|analyze|export` are kept in $GF_NSYS_MEMO (default build/nsys-memo, gone with
# `make clean`; empty to turn it off) and replayed when the same nsys is asked the same of the same bytes:
# the sanitizer pass checks gpuflame again, not nsys (tests/real/nsys_memo.py says what is kept).
NSYS_MEMO=${GF_NSYS_MEMO-${GF_TOP:-$TOP}/build/nsys-memo}
NSYS_MEMO_PY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/nsys_memo.py # absolute: test files cd around

# MEMO_NSYS: an nsys for gpuflame itself (`--nsys "$MEMO_NSYS"`): a script in $TMP that runs the real nsys
# through the same memo, so that gpuflame's own `nsys export` of a report (into its export cache) is done by
# the real nsys once per run and replayed in every other file and pass that gives gpuflame the same report.
# gpuflame still finds it (`--version`), runs it, waits for it and reads the export it wrote: only nsys's
# work is shared. The files that test the export itself (test_real_export_cache.sh, captures) use $REAL_NSYS.
MEMO_NSYS=$REAL_NSYS
if [ -n "$NSYS_MEMO" ] && [ -n "$REAL_NSYS" ] && [ -x "$REAL_NSYS" ]; then
  MEMO_NSYS=$TMP/memo-nsys/nsys
  mkdir -p "$TMP/memo-nsys"
  printf '#!/bin/sh\n# the real nsys through tests/real/nsys_memo.py (tests/real/lib.sh MEMO_NSYS)\nexec %s %s %s %s "$@"\n' \
    "'$(command -v python3)'" "'$NSYS_MEMO_PY'" "'$NSYS_MEMO'" "'$REAL_NSYS'" >"$MEMO_NSYS"
  chmod +x "$MEMO_NSYS"
fi

# rnsys ARGS...: the real nsys with a timeout; sets $rout, $rerr, $rrc.
rnsys() { local o=$_T_IO/ro.$BASHPID e=$_T_IO/re.$BASHPID # tests/lib/t.sh: files of this shell
  timeout -k 5 "$REAL_TIMEOUT" python3 "$NSYS_MEMO_PY" "$NSYS_MEMO" "$REAL_NSYS" "$@" \
    >"$o" 2>"$e" </dev/null; rrc=$?
  rout=$(<"$o"); rerr=$(<"$e"); }

# The 2022.4 `nsys stats --format csv:mem=B` reports that test_stats_equal.sh compares, asked in one call
# (ns_stats_csv); test_oracle.sh reads six of them from the very same call, so the memo answers the second
# file with the first's nsys work (the same question of the same bytes) instead of nsys running its report
# scripts over every export twice. nvtxgpuproj is left out of an export where it is too heavy (proj_too_heavy).
NS_STATS_CSV=gpukernsum,gpukernsum:base,gpukernsum:mangled,cudaapisum,gputrace,cudaapitrace,gpumemtimesum,gpumemsizesum,nvtxsum,nvtxpptrace,nvtxgpuproj
# ns_stats_csv DIR [--no-proj]: rnsys stats of NS_STATS_CSV over DIR/x.sqlite into DIR/ns_<report>.csv
ns_stats_csv() { local reports=$NS_STATS_CSV
  [ "${2:-}" = --no-proj ] && reports=${NS_STATS_CSV%,nvtxgpuproj}
  rnsys stats --format csv:mem=B --force-overwrite=true -o "$1/ns" --report "$reports" "$1/x.sqlite"; }

# Processes of nsys still alive (pid + command), excluding this shell's own pipeline.
nsys_processes() { ps -eo pid=,args= | awk '$2 ~ /nsys|nsys-launcher|QdstrmImporter/ && $0 !~ /awk/' || true; }

# derive_nvtx_edges DB: edits a copy of reports/dlprof/nsys_profile.sqlite in place into the NVTX cases no
# fixture has (a named domain, a range named by textId, a range with both textId and text, a start/end range
# around launches, a zero-length range at its parent's end, an unended outermost range). Errors go to
# DB.err; the status is sqlite3's. All on the one thread that has NVTX ranges; rowids 1..6 are the first
# three parent/child pairs.
derive_nvtx_edges() {
  chmod u+w "$1"
  sqlite3 "$1" "
    CREATE TEMP TABLE g AS SELECT globalTid AS t FROM NVTX_EVENTS WHERE rowid = 1;
    INSERT INTO StringIds(id, value) VALUES (100000, 'derived: range named by textId'),
                                            (100001, 'derived: textId beside text');
    INSERT INTO NVTX_EVENTS(start, end, eventType, globalTid, domainId, text)
      VALUES (100, NULL, 75, (SELECT t FROM g), 7, 'DerivedDomain');
    UPDATE NVTX_EVENTS SET domainId = 7 WHERE rowid = 2;
    UPDATE NVTX_EVENTS SET text = NULL, textId = 100000 WHERE rowid = 4;
    UPDATE NVTX_EVENTS SET textId = 100001 WHERE rowid = 6;
    INSERT INTO NVTX_EVENTS(start, end, eventType, globalTid, domainId, text)
      SELECT min(start) - 1000, max(end) + 1000, 60, (SELECT t FROM g), 0, 'derived: start/end around launches'
      FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IN (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL
        ORDER BY start LIMIT 3);
    INSERT INTO NVTX_EVENTS(start, end, eventType, globalTid, domainId, text)
      SELECT end, end, 59, globalTid, 0, 'derived: zero-length at parent end' FROM NVTX_EVENTS WHERE rowid = 1;
    INSERT INTO NVTX_EVENTS(start, end, eventType, globalTid, domainId, text)
      SELECT min(start) - 1000, NULL, 59, (SELECT t FROM g), 0, 'derived: unended outermost' FROM NVTX_EVENTS
      WHERE eventType = 59;" 2>"$1.err"
}
# nsys 2022.4's own start-up failure under load: a QuadDCommon/ProcessWaiter SystemException (sem_open
# ENOENT) or "Agent launcher failed" before the workload starts (docs/PERFORMANCE.md "Live sessions"). No
# gpuflame behaviour is being tested then, so a capture that met it is run again (up to three times).
nsys_startup_failed() { grep -q 'QuadDCommon\|ProcessWaiter\|sem_open\|Agent launcher failed' <<<"$1"; }
# capture_gf OUTDIR ARGS...: run_gf ARGS (a capture into OUTDIR); again, OUTDIR removed first, 2, 4 and 6 s
# later while nsys failed to start (a race inside nsys that load makes likelier: docs/RELIABILITY.md); what it
# said is printed
capture_gf() { local outdir=$1 k; shift; run_gf "$@"
  for k in 1 2 3; do
    [ "$rc" != 0 ] && nsys_startup_failed "$err" || return 0
    echo "# nsys failed to start (exit $rc: $(grep -o 'SystemException[^]]*\|Agent launcher failed' <<<"$err" | head -1)); again in $((2 * k)) s"
    rm -rf "$outdir"; sleep $((2 * k)); run_gf "$@"
  done; }

# A report recorded by an nsys newer than the real one (issue 38, reports/alcf-2023: nsys 2023.4.4). From
# 2023.4 on the report's first line names the nsys that recorded it ("NVIDIA Tegra Profiler Report
# 2023@4@4@54-234433681190v0."); before, it says "Report 1." (and none of those fixtures is newer than 2022.4).
# report_newer_than_nsys FILE: 0 when FILE is such a report; sets NEWER_V and REAL_V ("Y.R.P").
report_newer_than_nsys() {
  NEWER_V=$(head -c 96 "$1" | LC_ALL=C sed -n 's/^NVIDIA Tegra Profiler Report \([0-9]\{4\}\)@\([0-9]*\)@\([0-9]*\)@.*/\1.\2.\3/p' | head -n 1)
  [ -n "$NEWER_V" ] || return 1
  REAL_V=$("$REAL_NSYS" --version | sed -n 's/.*[Vv]ersion \([0-9]\{4\}\.[0-9]*\.[0-9]*\).*/\1/p' | head -n 1)
  [ "$NEWER_V" != "$REAL_V" ] && [ "$(printf '%s\n%s\n' "$NEWER_V" "$REAL_V" | sort -V | tail -n 1)" = "$NEWER_V" ]
}
# newer_refused LABEL FILE GPUFLAME-ARGS...: FILE (a copy) is newer than the real nsys: nsys's own export fails
# ("Version number is invalid"), and gpuflame given it exits 6 (an unreadable input) naming both versions.
newer_refused() {
  local label=$1 file=$2; shift 2
  rnsys export --type sqlite --force-overwrite=true -o "$file.nsys.sqlite" "$file"
  if [ "$rrc" -eq 0 ]; then
    not_ok "$label: nsys $REAL_V reads a report of $NEWER_V" "exit 0 (update report_newer_than_nsys)"; return
  fi
  ok "$label: nsys $REAL_V cannot read this report of nsys $NEWER_V (its export exits $rrc)"
  run_gf "$@" --nsys "$REAL_NSYS" "$file"
  check_eq "$label: gpuflame $1 exits 6 (an unreadable input)" 6 "$rc"
  check_contains "$label: gpuflame $1 names both versions and the fix" "$err" \
    "recorded by nsys $NEWER_V; the nsys used here ($REAL_V, $REAL_NSYS) cannot read newer reports: use an nsys ≥ ${NEWER_V%.*}"
}

# nsys 2022.4's own nvtx_gpu_proj_trace (reports/nvtxgpuproj.py) joins every NVTX range to every CUDA call of
# its thread in Python-driven SQL: on reports/aiprof/baseline_nvtx (19,289 ranges, 9,345 kernels) it took 119 s
# of CPU (measured at load 10, issue 38), past REAL_TIMEOUT, and the suite asks it twice a report. Such an export
# is still checked against every other report; gpuflame's projection of it is checked against the rule itself
# (test_nvtx_proj_nsys.sh covers nsys's report on the exports where nsys answers in time).
# proj_too_heavy DB: 0 when NVTX ranges x kernels exceed GF_REAL_PROJ_MAX (default 5e7: dali_amp_apex_jit,
# 7.5e7, and both aiprof runs, 1.8e8 and 2.5e8, are over; nersc-dl baseline, 6.8e6, and every smaller export under).
proj_too_heavy() {
  local n
  n=$(sqlite3 "file:$1?immutable=1" "SELECT
        (SELECT count(*) FROM NVTX_EVENTS) * (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL)" 2>/dev/null) || return 1
  [ -n "$n" ] && [ "$n" -gt "${GF_REAL_PROJ_MAX:-50000000}" ]
}
