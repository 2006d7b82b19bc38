#!/usr/bin/env bash
# Multi-report analysis under MPI (issue 27): BENCH_MPI_REPORTS generated reports (default 256; the real
# schema, tests/gen/rank_exports.py, 7 kernels a step: BENCH_MPI_STEPS 7143 = ~50k kernels each) through
# `run rank-skew --json` by one gpuflame process (ranks.workers = 1: the reference) and by bin/gpuflame-mpi
# under mpirun -np 1, 2, 4 (BENCH_MPI_NP; each rank imports its share, only per-rank summaries reach rank 0);
# every run's JSON must equal the reference's. Also the per-report import rate (`gpuflame import`, one
# process) and the bytes moved per rank (from -v). Each configuration runs once (its measured run writes the
# JSON). Skipped when OpenMPI or bin/gpuflame-mpi is missing (`make mpi`).
set -eu
top=${GF_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/bench/lib.sh"
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
mgf=${GPUFLAME_MPI_BIN:-$(dirname "$gf")/gpuflame-mpi}
out=${BENCH_OUT:-$top/bench/out}
n=${BENCH_MPI_REPORTS:-256}
steps=${BENCH_MPI_STEPS:-7143}
if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$mgf" ]; then
  echo "skipped: no mpirun or no $mgf (apt-get install openmpi-bin libopenmpi-dev; make mpi)"
  exit 0
fi
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
# the generated reports are cached under build/ (256 x 5.2 MB; ~3.5 minutes to generate on 2 cores)
job=${BENCH_MPI_CACHE:-$top/build/bench-mpi}/mpi${n}_$steps
mkdir -p "$out" "$(dirname "$job")"
[ -s "$job/rank$((n - 1)).sqlite" ] || python3 "$top/tests/gen/rank_exports.py" job "$job" --ranks "$n" --steps "$steps" --slow 3 --factor 1.2
printf 'return { ranks = { workers = 1 } }\n' >"$out/mpi_w1.lua"
kernels=$(sqlite3 "$job/rank0.sqlite" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
echo "$n reports x $kernels kernels, $(du -sm "$job" | cut -f1) MB of exports; $(nproc) CPUs"

# CMD... with its stdout to $1 and stderr to $2, as one command for `measure` (each configuration runs once)
into=(bash -c 'f=$1 e=$2; shift 2; exec "$@" >"$f" 2>"$e"' into)
if [ "${BENCH_MPI_REUSE_REF:-0}" = 1 ] && [ -s "$out/mpi_ref.json" ]; then
  echo "import and reference rows skipped: BENCH_MPI_REUSE_REF=1 compares with the existing $out/mpi_ref.json"
else
  rm -rf "$out/mpi_models"
  measure imp "$gf" -q --policy "$out/mpi_w1.lua" import "$job" -o "$out/mpi_models"
  rate=$(awk -v n="$n" -v w="${imp%% *}" 'BEGIN { printf "%.1f", n / w }')
  cpu=$(awk -v n="$n" -v c="$LAST_CPU" 'BEGIN { printf "%.2f", c / n }')
  echo "RESULT|import $n reports (model files), 1 process|${imp% *}|${imp#* }|-|$rate reports/s, $cpu s CPU per report; $(du -sm "$out/mpi_models" | cut -f1) MB of models (trace + stats tables)"
  measure ref "${into[@]}" "$out/mpi_ref.json" /dev/null "$gf" -q --policy "$out/mpi_w1.lua" run rank-skew "$job" --json
  echo "RESULT|rank-skew, $n reports, 1 process (reference)|${ref% *}|${ref#* }|-|ranks.workers = 1; CPU ${LAST_CPU} s"
fi
refwall=${ref:-}; refwall=${refwall%% *}
for np in ${BENCH_MPI_NP:-1 2 4}; do
  rm -f "$out/mpi_np$np.json"
  measure t "${into[@]}" "$out/mpi_np$np.json" "$out/mpi_np$np.err" \
    mpirun --allow-run-as-root --bind-to none -np "$np" "$mgf" -v run rank-skew "$job" --json
  same=$(cmp -s "$out/mpi_ref.json" "$out/mpi_np$np.json" && echo "same JSON" || echo "DIFFERENT JSON")
  moved=$(sed -n 's/.*rank 1: \([0-9]* report(s), [0-9.]* [KM]*i*B\) of summaries received.*/\1/p' "$out/mpi_np$np.err")
  echo "RESULT|rank-skew, $n reports, mpirun -np $np|${t% *}|${t#* }|${refwall:--}|$same; RSS: the largest process; CPU ${LAST_CPU} s; rank 1 sent ${moved:-nothing}"
done

# A bounded timeline (`--max-events`, BENCH_MPI_TL_EVENTS, default 20000) of the first BENCH_MPI_TL_REPORTS
# (default 12) reports under `mpirun -np 3`: each rank sends digests (its reports' N longest events and their
# launches, with the counts, launch flame and first-seen order of every event: core/trace_digest.c), not whole
# models; the page must equal one process's, and the bytes rank 1 sent are the number to read (the whole
# models' bytes are the unbounded timeline's, measured alongside).
tln=${BENCH_MPI_TL_REPORTS:-12}
tlev=${BENCH_MPI_TL_EVENTS:-20000}
tl=$out/mpi_tl
rm -rf "$tl"; mkdir -p "$tl/in"
for k in $(seq 0 $((tln - 1))); do ln -s "$job/rank$k.sqlite" "$tl/in/rank$k.sqlite"; done
measure t1 "$gf" -q timeline --max-events "$tlev" "$tl/in" -o "$tl/one.html"
echo "RESULT|timeline --max-events $tlev, $tln reports, 1 process|${t1% *}|${t1#* }|-|CPU ${LAST_CPU} s"
for how in "--max-events $tlev" ""; do
  # shellcheck disable=SC2086 # the option is two words or none
  measure t "${into[@]}" /dev/null "$tl/np3.err" mpirun --allow-run-as-root --bind-to none -np 3 "$mgf" -v \
    timeline $how "$tl/in" -o "$tl/np3.html"
  moved=$(sed -n 's/.*rank 1: \([0-9]* report(s), [0-9.]* [KM]*i*B\) of \([a-z]*\).*received.*/\1 of \2s/p' "$tl/np3.err")
  if [ -n "$how" ]; then
    same=$(cmp -s "$tl/one.html" "$tl/np3.html" && echo "same page" || echo "DIFFERENT PAGE")
  else
    same="every event (whole models)"
  fi
  echo "RESULT|timeline ${how:-(no --max-events)}, $tln reports, mpirun -np 3|${t% *}|${t#* }|${t1%% *}|$same; RSS: the largest process; CPU ${LAST_CPU} s; rank 1 sent ${moved:-nothing}"
done
