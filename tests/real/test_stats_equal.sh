#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier: `gpuflame stats` (reports computed in C, docs/REPORTS.md) equals the real `nsys stats`.
#
# For every SQLite export and report in the fixtures (real/*/*.sqlite, reports/*/*.sqlite,
# reports/*/*.nsys-rep, reports/*/*.qdrep; a report is exported once with `nsys export`, and gpuflame is
# given the report itself, so the export cache is exercised), plus the derived NVTX edge
# export of test_oracle.sh and the exports of tests/gen/stats_edges.py and tests/gen/stats_nvtx_edges.py,
# both tools write every report both know:
#   --format csv:mem=B  gpukernsum (+ :base, :mangled), cudaapisum, gputrace, cudaapitrace, gpumemtimesum,
#                       gpumemsizesum, nvtxsum, nvtxpptrace, nvtxgpuproj  (nsys 2022.4 names; gpuflame the
#                       current ones)
#   --format csv        gputrace, gpumemsizesum (MB columns)
#   --format json       cudaapisum, gputrace, nvtxgpuproj
# and tests/real/stats_equal.py compares them after the documented per-version normalisations (its
# docstring: NULL as `None`, memcpy labels, Throughput/GreenCtx headers, the ':' of default-domain NVTX
# names; kern sums grouped by grid/block, push/pop row order). One case per input × report × format.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "stats equal: gpuflame stats vs nsys stats"

RT=$TOP/tests/real
# OLD: lib.sh NS_STATS_CSV (test_oracle.sh reads six of them from the same call: ns_stats_csv)
NEW=cuda_gpu_kern_sum,cuda_gpu_kern_sum:base,cuda_gpu_kern_sum:mangled,cuda_api_sum,cuda_gpu_trace,cuda_api_trace,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,nvtx_sum,nvtx_pushpop_trace,nvtx_gpu_proj_trace
W=$TMP/stats_equal
mkdir -p "$W"

inputs=()
for f in "$FIX"/real/*/*.sqlite "$FIX"/reports/*/*.sqlite "$FIX"/reports/*/*.nsys-rep "$FIX"/reports/*/*.qdrep; do
  [ -e "$f" ] && inputs+=("${f#"$FIX/"}")
done
if [ "${#inputs[@]}" -eq 0 ]; then
  skip "stats equal" "fixtures absent"
  exit 0
fi

# one_case LABEL DIR INPUT: DIR/x.sqlite is what nsys reads; INPUT is what gpuflame is given
one_case() {
  local label=$1 d=$2 input=$3 log="" noproj= json=cudaapisum,gputrace,nvtxgpuproj present=
  if proj_too_heavy "$d/x.sqlite"; then
    # nsys's projection of this export runs past the bound (lib.sh proj_too_heavy): every other report compared
    noproj=--no-proj json=cudaapisum,gputrace present=--present-only
    skip "stats equal $label: nvtxgpuproj" "nsys 2022.4's own projection of this export takes minutes (lib.sh proj_too_heavy)"
  fi
  ns_stats_csv "$d" $noproj
  log+="$rout"$'\n'"$rerr"$'\n'
  if [ "$rrc" -ne 0 ]; then not_ok "stats equal $label: nsys stats" "exit $rrc: $(tail -c 300 <<<"$rerr")"; return; fi
  rnsys stats --format csv --force-overwrite=true -o "$d/nsmb" --report gputrace,gpumemsizesum "$d/x.sqlite"
  log+="$rout"$'\n'"$rerr"$'\n'
  rnsys stats --format json --force-overwrite=true -o "$d/nsj" --report "$json" "$d/x.sqlite"
  log+="$rout"$'\n'"$rerr"$'\n'
  printf '%s' "$log" >"$d/stats.log"
  local fmt prefix reps
  for fmt in "csv:mem=B gf $NEW" "csv gfmb cuda_gpu_trace,cuda_gpu_mem_size_sum" \
             "json gfj cuda_api_sum,cuda_gpu_trace,nvtx_gpu_proj_trace"; do
    read -r f prefix reps <<<"$fmt"
    run_gf stats --nsys "$MEMO_NSYS" --format "$f" -o "$d/$prefix" -r "$reps" "$input"
    # exit 5: no report had a row (nsys: every one SKIPPED); compared per report below
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; then
      not_ok "stats equal $label: gpuflame stats --format $f" "exit $rc: $err"
      return
    fi
  done
  memo_check python3 "$RT/stats_equal.py" "$d" "stats= $label" $present || _t_failed=$((_t_failed + 1))
}

n=0
for rel in "${inputs[@]}"; do
  n=$((n + 1))
  d=$W/$n
  mkdir -p "$d"
  # never run either tool on the fixture itself: both write an SQLite export beside a report
  cp "$FIX/$rel" "$d/"
  base=${rel##*/}
  case "$rel" in
    *.sqlite)
      mv "$d/$base" "$d/x.sqlite"
      one_case "$rel" "$d" "$d/x.sqlite" ;;
    *)
      # a report recorded by a newer nsys than this one: refused, by nsys and by gpuflame (exit 6)
      if report_newer_than_nsys "$d/$base"; then newer_refused "stats equal $rel" "$d/$base" stats -r cuda_gpu_kern_sum -o "$d/gf"; continue; fi
      rnsys export --type sqlite --force-overwrite=true -o "$d/x.sqlite" "$d/$base"
      if [ "$rrc" -ne 0 ] || [ ! -s "$d/x.sqlite" ]; then
        not_ok "stats equal $rel: nsys export --type sqlite" "exit $rrc: $(tail -c 300 <<<"$rerr")"
        continue
      fi
      one_case "$rel" "$d" "$d/$base"
      # the report's export is in the export cache (nothing beside it) and reused: a second run exports nothing
      stem=${base%.*}
      check "stats equal $rel: no export beside the report" test ! -e "$d/$stem.sqlite"
      entry=$XDG_CACHE_HOME/gpuflame/exports/$(sha256sum "$d/$base" | cut -c1-64)-nsys$("$REAL_NSYS" --version | grep -o '20[0-9][0-9]\.[0-9.]*' | head -1).sqlite
      if [ -s "$entry" ]; then
        before=$(stat -c %Y.%s "$entry")
        run_gf -v stats --nsys "$MEMO_NSYS" -r cuda_api_sum -o "$d/again" "$d/$base"
        check_contains "stats equal $rel: the cached export is used" "$err" "is cached as $entry"
        check_not_contains "stats equal $rel: no second nsys export" "$err" "exporting"
        check_eq "stats equal $rel: the cached export is not rewritten" "${before#*.}" "$(stat -c %s "$entry")"
      else
        not_ok "stats equal $rel: export in the cache" "no $entry"
      fi ;;
  esac
done

# Derived inputs: the NVTX edge cases of test_oracle.sh (from the dlprof export) and stats_edges.py
src=reports/dlprof/nsys_profile.sqlite
if have_fixture "$src" && command -v sqlite3 >/dev/null; then
  d=$W/derived
  mkdir -p "$d"
  cp "$FIX/$src" "$d/x.sqlite"
  chmod u+w "$d/x.sqlite"
  if derive_nvtx_edges "$d/x.sqlite"; then
    one_case "derived/dlprof-nvtx-edges.sqlite" "$d" "$d/x.sqlite"
  else
    not_ok "stats equal derived/dlprof-nvtx-edges.sqlite: build" "$(cat "$d/x.sqlite.err")"
  fi
else
  skip "stats equal derived/dlprof-nvtx-edges.sqlite" "fixtures or the sqlite3 CLI absent"
fi
d=$W/edges
mkdir -p "$d"
if python3 "$TOP/tests/gen/stats_edges.py" "$d/x.sqlite" 2>"$d/gen.err"; then
  one_case "generated/stats_edges.sqlite" "$d" "$d/x.sqlite"
else
  not_ok "stats equal generated/stats_edges.sqlite: build" "$(cat "$d/gen.err")"
fi
# tests/gen/stats_nvtx_edges.py: NVTX parent ties, duplicate correlation ids, a parent nsys 2022.4's float32
# R-tree misses (V4). What nsys itself says on the planted cases (the known answers of tests/cli/test_stats.sh
# are gpuflame's; they differ only where V4 says):
d=$W/nvtx_edges
mkdir -p "$d"
if python3 "$TOP/tests/gen/stats_nvtx_edges.py" "$d/x.sqlite" 2>"$d/gen.err"; then
  one_case "generated/stats_nvtx_edges.sqlite" "$d" "$d/x.sqlite"
  pp=$(cat "$d/ns_nvtxpptrace.csv" 2>/dev/null)
  pj=$(cat "$d/ns_nvtxgpuproj.csv" 2>/dev/null)
  check_contains "nsys on stats_nvtx_edges: a zero-length range at a sibling seam goes to the lower rowid" "$pp" \
    "2000,2000,0,0,0,zero at the seam,4343,4343,1,0,3,1,:1:3,"
  check_contains "nsys on stats_nvtx_edges: crossing start/end ranges of equal tightness: the lower rowid" "$pj" \
    "in both,18000,300,15000,2000,PushPop,4343,4343,1,1,0,6,4,:4:6"
  check_contains "nsys on stats_nvtx_edges: NumGPUOps counts correlation ids, not calls" "$pj" \
    "dup corr,50000,3500,30000,10000,PushPop,4343,4343,3,0,1,7,None,:7"
  check_contains "nsys on stats_nvtx_edges: a range around the inner call of a pair counts it" "$pj" \
    "se inner,50000,400,31090,3860,StartEnd,4343,4343,1,2,0,9,8,:7:8:9"
  check_contains "nsys on stats_nvtx_edges: a call on another thread with the pair's id counts there" "$pj" \
    "other thread,50000,400,31000,4000,PushPop,4343,4344,1,0,0,13,None,:13"
  check_contains "nsys on stats_nvtx_edges: 2022.4's float32 R-tree gives the late child its grandparent (V4)" "$pj" \
    "late child,9027220420,901303,9027183414,39609,PushPop,4343,4343,1,1,0,12,10,:10:12"
else
  not_ok "stats equal generated/stats_nvtx_edges.sqlite: build" "$(cat "$d/gen.err")"
fi
t_done
