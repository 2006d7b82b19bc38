#!/usr/bin/env bash
# gf-test: lane=nsys-profile no-gpuflame slow
# Contract test of the fake nsys (tests/fake/nsys): the command lines gpuflame issues (lua/gpuflame/
# capture.lua, analyze.lua, discover.lua) run once against the real nsys and once against the fake set to
# the real one's version, each in its own copy of the same inputs; the SHAPE must agree: exit status,
# files written (names, 0 bytes or not), stdout and stderr lines (after normalising the reports
# directory, progress bars and temp names), CSV header lines. The data differ by design (the fake copies
# recorded CSVs whatever the input), so a case that depends on what the input holds configures the fake
# to have (or lack) the same reports as the real input, with FAKE_NSYS_FAIL=stats@R:skipped.
#
# Recorded against Debian 12's nsys 2022.4.2 (the fake's "2022.4 mode", any FAKE_NSYS_VERSION before
# 2023.1). With another real nsys only the version case runs.
#
# Inherently different, documented here rather than compared:
# * nsys profile: Debian's split layout has no QdstrmImporter beside the nsys binary, so the real one leaves
#   PREFIX.qdstrm, prints "Importer error status: The importer binary and its dependencies were not found."
#   and "Unable to retrieve the importer version: skipping importation of the QDSTRM file." on stderr, and
#   "Generated: .../PREFIX.qdstrm" on stdout (exit status still the app's). The fake emulates a complete
#   install and writes PREFIX.nsys-rep. The cases below import the .qdstrm with host-linux-x64/QdstrmImporter
#   and then compare; the stderr of profile is compared only when the real one imported by itself.
#   With the one-symlink fix that `gpuflame discover` prints (a complete install), the real one imports the
#   .qdstrm itself and draws the import's progress bar ("\r[1/1] [==...100%] prof.nsys-rep"), as the fake
#   does; in the split layout the fake's progress line is dropped before stdout is compared. Both layouts
#   pass.
# * The fake never profiles: its report is a small text file, and the stats/export of it are the recorded
#   CSVs / FAKE_NSYS_SQLITE. What a capture of a real program contains is not part of the contract.
# * Damaged inputs: the real nsys recognises them by content; the fake cannot (tests hand it empty or
#   arbitrary files as reports), so the damaged-input cases run the fake with FAKE_NSYS_FAIL=...:damaged-input.
# * The reports directory in "Processing [DB] with [<dir>/reports/R.py]" is the install's; it is normalised.
# * Real nsys profile sometimes leaves an `nsys --start-agent` daemon behind; the ones this test started
#   (session name profile-gfcontract_*) are stopped by PID after each profile.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "fake contract"

REP=reports/dlprof/nsys_profile.nsys-rep
if ! have_fixture "$REP" || ! have_fixture real/test-cuda/report1.sqlite; then
  skip "fake contract" "fixtures absent"; exit 0
fi
unset FAKE_NSYS_FAIL FAKE_NSYS_STATS_MAP FAKE_NSYS_SQLITE FAKE_NSYS_LOG FAKE_NSYS_PROFILE_SLEEP FAKE_NSYS_VERSION
export GPUFLAME_FIXTURES=$FIX
t0=$(date +%s)

# ---- helpers -------------------------------------------------------------------------------------------
# pair NAME FILE...: fresh $R (real) and $F (fake) directories holding copies of the fixture FILEs
pair() { local n=$1; shift; R=$TMP/$n/real; F=$TMP/$n/fake; mkdir -p "$R" "$F"
  local f; for f in "$@"; do cp "$FIX/$f" "$R/"; cp "$FIX/$f" "$F/"; done
  chmod u+w "$R"/* "$F"/* 2>/dev/null; true; }
# real_in DIR ARGS...: the real nsys in DIR → DIR.out DIR.err, $rrc
real_in() { local d=$1; shift
  (cd "$d" && timeout -k 5 "$REAL_TIMEOUT" "$REAL_NSYS" "$@" >"$d.out" 2>"$d.err" </dev/null); rrc=$?; }
# fake_in DIR [VAR=value...] -- ARGS...: the fake (at the real version) in DIR → DIR.out DIR.err, $frc
fake_in() { local d=$1; shift; local envs=("FAKE_NSYS_VERSION=$RV")
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  (cd "$d" && env "${envs[@]}" timeout -k 5 60 "$FAKE_NSYS" "$@" >"$d.out" 2>"$d.err" </dev/null); frc=$?; }
# both NAME [VAR=value...] -- ARGS...: the same command line against the real nsys and the fake
both() { local n=$1; shift; local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  real_in "$TMP/$n/real" "$@"; fake_in "$TMP/$n/fake" "${envs[@]}" -- "$@"; }
# norm FILE: the text with progress bars dropped, the reports dir, temp report names and the case's
# directories replaced; <EOF> keeps trailing blank lines visible
norm() { tr '\r' '\n' <"$1" | grep -v '^Exporting [0-9]* events: ' | sed -E \
    -e 's#^(\[[0-9]+/[0-9]+\]) \[[= ]*[0-9]+%[ ]*\] #\1 [PROGRESS] #' \
    -e 's#with \[[^]]*/reports/([A-Za-z0-9_]+)\.py\]#with [REPORTS/\1.py]#g' \
    -e 's#nsys-report-[0-9a-z]+\.qdstrm#nsys-report-XXXX.qdstrm#g' \
    -e "s#$TMP/[^/]*/(real|fake)#DIR#g" | uniq; echo "<EOF>"; }
# listing DIR: one line per file, "name" or "name (0 bytes)"
listing() { (cd "$1" && for f in $(ls -A | LC_ALL=C sort); do
  if [ -s "$f" ]; then echo "$f"; else echo "$f (0 bytes)"; fi; done) }
# same_shape CASE [out|err|rc|files]...: compares the listed aspects of case CASE
same_shape() { local n=$1; shift; local a; for a in "$@"; do case $a in
  rc) check_eq "$n: exit status" "$rrc" "$frc" ;;
  out) check_eq "$n: stdout" "$(norm "$TMP/$n/real.out")" "$(norm "$TMP/$n/fake.out")" ;;
  err) check_eq "$n: stderr" "$(norm "$TMP/$n/real.err")" "$(norm "$TMP/$n/fake.err")" ;;
  files) check_eq "$n: files written" "$(listing "$TMP/$n/real")" "$(listing "$TMP/$n/fake")" ;;
  esac; done; }
# same_header CASE FILE: first line of FILE in both directories
same_header() { check_eq "$1: header of $2" "$(head -n 1 "$TMP/$1/real/$2" 2>&1)" "$(head -n 1 "$TMP/$1/fake/$2" 2>&1)"; }
# agents this test started (profile sessions are named profile-<app>-<pid>; our apps are gfcontract_*)
stop_our_agents() { local p; sleep 0.5
  for p in $(pgrep -f -- '--start-agent --session-name=profile-gfcontract_' 2>/dev/null); do kill "$p" 2>/dev/null; done; }

# ---- nsys --version --------------------------------------------------------------------------------------
pair version
real_in "$TMP/version/real" --version
RV=$(sed -n 's/.*[Vv]ersion[[:space:]]*//p' "$TMP/version/real.out" | head -n 1)
fake_in "$TMP/version/fake" -- --version
same_shape version rc out err
case $RV in
  2022.4.*) ;;
  *) skip "fake contract" "recorded against nsys 2022.4; this nsys is '$RV' (only the version case ran)"; t_done ;;
esac

# ---- nsys stats, data present (capture.stats_report: one --report, -o PREFIX) ----------------------------
S=(--format csv -o out --force-export=true --force-overwrite=true)
pair present "$REP"
both present -- stats --report gpukernsum "${S[@]}" nsys_profile.nsys-rep
same_shape present rc out err files
same_header present out_gpukernsum.csv

# every report the fake has a 2022.4 recording for, as one comma list (dlprof has no OS runtime data)
pair headers "$REP"
both headers FAKE_NSYS_FAIL=stats@osrtsum:skipped -- stats \
  --report gpukernsum,cudaapisum,gputrace,cudaapitrace,gpumemtimesum,gpumemsizesum,nvtxsum,nvtxppsum,nvtxpptrace,osrtsum \
  "${S[@]}" nsys_profile.nsys-rep
same_shape headers rc out err files
for r in gpukernsum cudaapisum gputrace cudaapitrace gpumemtimesum gpumemsizesum nvtxsum nvtxppsum nvtxpptrace; do
  same_header headers "out_$r.csv"
done
# the values 2022.4 writes in cells that do not apply: `None`, not empty (gputrace grid of a memcpy,
# nvtxpptrace ParentId of a root)
check_eq "headers: gputrace fills n/a cells with None" "$(grep -c ',None,None,' "$TMP/headers/real/out_gputrace.csv" | sed 's/[1-9][0-9]*/some/')" \
  "$(grep -c ',None,None,' "$TMP/headers/fake/out_gputrace.csv" | sed 's/[1-9][0-9]*/some/')"
root_parent() { python3 -c 'import csv, sys
print(next((r["ParentId"] for r in csv.DictReader(open(sys.argv[1])) if r["Lvl"] == "0"), "no root"))' "$1" 2>&1; }
check_eq "headers: nvtxpptrace root ParentId is None" \
  "$(root_parent "$TMP/headers/real/out_nvtxpptrace.csv")" "$(root_parent "$TMP/headers/fake/out_nvtxpptrace.csv")"

# analyze.lua's schema-2 form: two --report, --format csv:mem=B, --output, --force-overwrite before --force-export
pair memB "$REP"
both memB -- stats --report gputrace --report cudaapitrace --format csv:mem=B --output stats_nsys \
  --force-overwrite=true --force-export=true nsys_profile.nsys-rep
same_shape memB rc out err files
same_header memB stats_nsys_gputrace.csv

# no -o: the CSV on stdout after the Processing line
pair stdout "$REP"
both stdout -- stats --report gpukernsum --format csv --force-export=true nsys_profile.nsys-rep
same_shape stdout rc err files
check_eq "stdout: Processing line and header" "$(norm "$TMP/stdout/real.out" | head -n 3)" "$(norm "$TMP/stdout/fake.out" | head -n 3)"
check_eq "stdout: ends with one blank line" "$(norm "$TMP/stdout/real.out" | tail -n 2)" "$(norm "$TMP/stdout/fake.out" | tail -n 2)"

# ---- a report without data: SKIPPED ------------------------------------------------------------------------
pair skipped "$REP"
both skipped FAKE_NSYS_FAIL=stats@osrtsum:skipped -- stats --report osrtsum "${S[@]}" nsys_profile.nsys-rep
same_shape skipped rc out err files

# an SQLite export as input (no export step); NVTX but no GPU work: nvtxgpuproj and gpukernsum are skipped
pair sqlite real/cuda-learning/report1.sqlite
both sqlite FAKE_NSYS_FAIL=stats@gpukernsum:skipped -- stats --report nvtxgpuproj --report gpukernsum \
  --format csv -o out --force-overwrite=true report1.sqlite
same_shape sqlite rc out err files

# ---- unknown report names: an old one, and the new (>= 2023.1) names gpuflame's analyze asks for -----------
pair unknown "$REP"
both unknown -- stats --report bogus_report "${S[@]}" nsys_profile.nsys-rep
same_shape unknown rc out err files
pair newnames "$REP"
both newnames -- stats --report cuda_gpu_kern_sum --report nvtx_pushpop_trace --report nvtx_gpu_proj_trace \
  "${S[@]}" nsys_profile.nsys-rep
same_shape newnames rc out err files

# a report with arguments: BASE_R_ARG.csv
pair args real/test-cuda/report1.sqlite
both args -- stats --report gpukernsum:base --format csv -o out --force-overwrite=true report1.sqlite
same_shape args rc out err files

# ---- failures --------------------------------------------------------------------------------------------
pair missing
both missing -- stats --report gpukernsum "${S[@]}" nope.nsys-rep
same_shape missing rc out err files

pair damaged
head -c 5000 "$FIX/$REP" >"$TMP/damaged/real/damaged.nsys-rep"; cp "$TMP/damaged/real/damaged.nsys-rep" "$TMP/damaged/fake/"
both damaged FAKE_NSYS_FAIL=stats:damaged-input -- stats --report gpukernsum --report osrtsum "${S[@]}" damaged.nsys-rep
same_shape damaged rc out err files

pair sqliteforce real/test-cuda/report1.sqlite
both sqliteforce -- stats --report gpukernsum "${S[@]}" report1.sqlite
same_shape sqliteforce rc out err files

# a stale export beside the report, no --force-export: 2022.4 reuses it silently (2025.3.2 refuses, exit 1;
# the fake's stale-sqlite mode) — the CSV is the stale export's (test-cuda's, which the fake's recording is)
pair stale "$REP"
for d in real fake; do cp "$FIX/real/test-cuda/report1.sqlite" "$TMP/stale/$d/nsys_profile.sqlite"
  touch -d '2020-01-01 00:00:00' "$TMP/stale/$d/nsys_profile.sqlite"; done
both stale -- stats --report gpukernsum --format csv -o out --force-overwrite=true nsys_profile.nsys-rep
same_shape stale rc out err files
check_eq "stale: the CSV comes from the stale export" "$(cat "$TMP/stale/real/out_gpukernsum.csv")" "$(cat "$TMP/stale/fake/out_gpukernsum.csv")"
check_eq "stale: the export is left alone" "$(stat -c %Y "$TMP/stale/real/nsys_profile.sqlite")" "$(stat -c %Y "$TMP/stale/fake/nsys_profile.sqlite")"

# an existing CSV without --force-overwrite: SKIPPED, file untouched
pair exists "$REP"
for d in real fake; do echo "old" >"$TMP/exists/$d/out_gpukernsum.csv"; done
both exists -- stats --report gpukernsum --format csv -o out --force-export=true nsys_profile.nsys-rep
same_shape exists rc out err files
check_eq "exists: CSV untouched" "$(cat "$TMP/exists/real/out_gpukernsum.csv")" "$(cat "$TMP/exists/fake/out_gpukernsum.csv")"

# ---- nsys export (capture.export_sqlite) --------------------------------------------------------------------
pair export "$REP"
both export -- export --type sqlite --force-overwrite true --output out.sqlite nsys_profile.nsys-rep
same_shape export rc out err files
pair exportname "$REP"
both exportname -- export --type sqlite --force-overwrite true --output out nsys_profile.nsys-rep
same_shape exportname rc out err files
pair exportexists "$REP"
for d in real fake; do echo "old" >"$TMP/exportexists/$d/out.sqlite"; done
both exportexists -- export --type sqlite --output out.sqlite nsys_profile.nsys-rep
same_shape exportexists rc out err files
pair exportmissing
both exportmissing -- export --type sqlite --force-overwrite true --output out.sqlite nope.nsys-rep
same_shape exportmissing rc out err files
pair exportdamaged
head -c 5000 "$FIX/$REP" >"$TMP/exportdamaged/real/damaged.nsys-rep"; cp "$TMP/exportdamaged/real/damaged.nsys-rep" "$TMP/exportdamaged/fake/"
both exportdamaged FAKE_NSYS_FAIL=export:damaged-input -- export --type sqlite --force-overwrite true --output out.sqlite damaged.nsys-rep
same_shape exportdamaged rc out err files
# a report recorded by a newer nsys (2023.4.4: its first line names that version): "Version number is invalid"
NEWER=reports/alcf-2023/lineprofiling_seq_parallel_fp32-ranks8-nodes2-T1_0.nsys-rep
if have_fixture "$NEWER"; then
  pair exportnewer "$NEWER"
  both exportnewer -- export --type sqlite --force-overwrite true --output out.sqlite "${NEWER##*/}"
  same_shape exportnewer rc out err files
  pair statsnewer "$NEWER"
  both statsnewer -- stats --report gpukernsum "${S[@]}" "${NEWER##*/}"
  same_shape statsnewer rc out err files
else
  skip "exportnewer" "fixture absent: $NEWER"
fi

# ---- nsys profile of a tiny CPU program -----------------------------------------------------------------------
IMPORTER=
for c in "$(dirname "$(readlink -f "$REAL_NSYS")")/../host-linux-x64/QdstrmImporter" \
         /usr/lib/nsight-systems/host-linux-x64/QdstrmImporter; do
  [ -x "$c" ] && { IMPORTER=$c; break; }
done
BIN=$TMP/bin; mkdir -p "$BIN"
printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' '#include <string.h>' '#include <unistd.h>' \
  'int main(int c, char **v) { volatile unsigned long s = 0; for (unsigned long i = 0; i < 3000000UL; i++) s += i;' \
  '  printf("tiny %lu\n", s); fflush(stdout);' \
  '  if (c > 2 && !strcmp(v[1], "sleep")) sleep(atoi(v[2]));' \
  '  if (c > 2 && !strcmp(v[1], "exit")) return atoi(v[2]);' \
  '  return 0; }' >"$BIN/tiny.c"
if ! cc -O0 -o "$BIN/gfcontract_tiny" "$BIN/tiny.c" 2>"$BIN/cc.err"; then
  skip "profile cases" "no C compiler: $(head -n 1 "$BIN/cc.err")"; t_done
fi
P=(profile -o prof --force-overwrite=true -t "nvtx,osrt" -s none --cpuctxsw=none)
# profile_case NAME APP-ARGS...: real (bounded at 60 s) and fake; the real .qdstrm imported when left
profile_case() { local n=$1; shift; pair "$n"
  for _ in 1 2; do  # once more when collection did not even start (an agent left by someone else)
    (cd "$TMP/$n/real" && timeout -k 5 60 "$REAL_NSYS" "${P[@]}" "$@" >"$TMP/$n/real.out" 2>"$TMP/$n/real.err" </dev/null)
    rrc=$?; stop_our_agents
    # nsys 2022.4's own start-up failure under parallel load (a QuadDCommon/ProcessWaiter exception, sem_open
    # ENOENT, docs/PERFORMANCE.md "Live sessions"): not the behaviour being compared, so once more
    if grep -q 'QuadDCommon\|ProcessWaiter' "$TMP/$n/real.err"; then
      echo "# $n: the real nsys failed to start ($(grep -o 'SystemException[^]]*' "$TMP/$n/real.err" | head -1)); once more"
      continue
    fi
    grep -q '^Generated:' "$TMP/$n/real.out" || grep -q '^No such file or directory' "$TMP/$n/real.err" && break
    [ "$rrc" -eq 124 ] || [ "$rrc" -eq 137 ] && break
  done
  fake_in "$TMP/$n/fake" -- "${P[@]}" "$@"
  if [ "$rrc" -eq 124 ] || [ "$rrc" -eq 137 ]; then return 1; fi
  qd=0
  if [ -e "$TMP/$n/real/prof.qdstrm" ] && [ ! -e "$TMP/$n/real/prof.nsys-rep" ]; then
    qd=1
    [ -n "$IMPORTER" ] && timeout -k 5 60 "$IMPORTER" -i "$TMP/$n/real/prof.qdstrm" >/dev/null 2>&1
    rm -f "$TMP/$n/real/prof.qdstrm"
  fi
  return 0; }
# the report path nsys prints: the real's .qdstrm (when it left one) stands for the .nsys-rep
qd_out() { if [ "$qd" = 1 ]; then sed -i 's#prof\.qdstrm$#prof.nsys-rep#' "$TMP/$1/real.out"
  sed -i '/^\r\[[0-9]*\/[0-9]*\] \[/d' "$TMP/$1/fake.out"; fi; }

if profile_case profile "$BIN/gfcontract_tiny"; then
  qd_out profile
  same_shape profile rc out
  if [ "$qd" = 1 ]; then
    skip "profile: stderr" "the real nsys could not import its .qdstrm (Debian's split layout; see the header)"
  else same_shape profile err; fi
  if [ "$qd" = 1 ] && [ -z "$IMPORTER" ]; then
    skip "profile: files written" "the real nsys left a .qdstrm and no QdstrmImporter was found"
  else
    same_shape profile files
    # stats on the captured report: OS runtime data, no NVTX, no CUDA
    for d in real fake; do mkdir -p "$TMP/pstats/$d"; cp "$TMP/profile/$d/prof.nsys-rep" "$TMP/pstats/$d/"; done
    both pstats FAKE_NSYS_FAIL=stats@nvtxsum:skipped,stats@gpukernsum:skipped -- stats --report osrtsum \
      --report nvtxsum --report gpukernsum "${S[@]}" prof.nsys-rep
    same_shape pstats rc out err files
    same_header pstats out_osrtsum.csv
  fi
else
  skip "profile" "the real nsys profile did not finish within 60 s (known to hang on Debian's split layout)"
fi

# the app's exit status is nsys profile's
if profile_case profexit "$BIN/gfcontract_tiny" exit 3; then qd_out profexit; same_shape profexit rc out
else skip "profexit" "the real nsys profile did not finish within 60 s"; fi
# --duration stops the app with SIGTERM: exit status 143
if profile_case profduration --duration 1 "$BIN/gfcontract_tiny" sleep 20; then qd_out profduration; same_shape profduration rc out
else skip "profduration" "the real nsys profile did not finish within 60 s"; fi
# an app that does not exist
if profile_case profmissing "$BIN/gfcontract_missing"; then same_shape profmissing rc out err files
else skip "profmissing" "the real nsys profile did not finish within 60 s"; fi

echo "# fake contract: $(( $(date +%s) - t0 )) s"
t_done
