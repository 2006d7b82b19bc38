#!/usr/bin/env bash
# gf-test: slow
# Multi-report commands under MPI (issue 27; docs/MPI.md): bin/gpuflame-mpi under mpirun -np 3 and -np 1
# gives, byte for byte, what one gpuflame process gives for rank-skew --json, timeline -o (also --max-events N,
# where the ranks send digests: several N, reports with launch stacks, model files),
# stats, export, over reports and over model files;
# reports round-robin, or per rank with --local PATTERN; model files; a failing rank ends the job naming
# the rank and the file (never a hang); rank-skew moves only summaries. Skipped, by name, without OpenMPI.
. "$(dirname "$0")/../lib/t.sh"
MPIGF=${GPUFLAME_MPI_BIN:-$(dirname "$GF")/gpuflame-mpi}
if ! command -v mpirun >/dev/null 2>&1; then
  skip "MPI tests" "mpirun not found (OpenMPI is optional: apt-get install openmpi-bin libopenmpi-dev, then make mpi)"
  t_done
fi
if [ ! -x "$MPIGF" ]; then
  skip "MPI tests" "no $MPIGF (make mpi builds it; make test does when mpicc is installed)"
  t_done
fi
# containers often forbid the cross-memory attach OpenMPI's shared-memory transport tries first
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { # NP ARGS...: gpuflame-mpi under mpirun; sets rc, out, err (a 120 s cap: a hang fails, never blocks)
  local np=$1 o e; shift; o=$(mktemp); e=$(mktemp)
  timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" "$MPIGF" "$@" >"$o" 2>"$e" &
  local job=$! i
  # a job still running after 110 s is about to be called a hang: what its processes are and where the ranks
  # wait goes to the log first (a damaged report on rank 1 hung once in 2026-12-04's runs, not reproduced since)
  for i in $(seq 1 1100); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$job" 2>/dev/null; then
    echo "# mpi $np $*: still running after 110 s; its processes:"
    ps -eo pid,ppid,stat,etime,args | grep -E 'mpirun|prte|orted|gpuflame-mpi' | grep -v grep | sed 's/^/#   /'
    for p in $(pgrep -x gpuflame-mpi); do
      echo "#   rank process $p:"
      command -v gdb >/dev/null && timeout 20 gdb -p "$p" -batch -ex 'thread apply all bt' 2>/dev/null |
        grep -E '^#[0-9]' | head -20 | sed 's/^/#     /'
    done
    echo "#   its stderr so far: $(head -c 2000 "$e" | tr '\n' ' ')"
  fi
  wait "$job"; rc=$?; out=$(cat "$o"); err=$(cat "$e"); rm -f "$o" "$e"
}
GEN=$TOP/tests/gen/rank_exports.py
# a 20 ms skew per rank: ranks 3 and 4 start their GPU work before their own session start (negative times)
python3 "$GEN" job "$TMP/job" --ranks 5 --slow 3 --factor 1.4 --steps 4 --skew-ns 20000000
J=$TMP/job
R=("$J"/rank0.sqlite "$J"/rank1.sqlite "$J"/rank2.sqlite "$J"/rank3.sqlite "$J"/rank4.sqlite)

run_gf -q run rank-skew "${R[@]}" --json; ref=$out
check_contains "one process: the straggler is rank 3 (the planted one)" "$ref" '"stragglers":[{"iterations":4,"label":"rank 3"'
for np in 3 1; do
  mpi "$np" run rank-skew "${R[@]}" --json
  check_eq "-np $np rank-skew --json: exit 0" 0 "$rc"
  check_eq "-np $np rank-skew --json: the one-process JSON byte for byte" "$ref" "$out"
done
mpi 3 -v run rank-skew "${R[@]}" --json
check_contains "rank-skew -np 3: rank 1 sends summaries of its 2 reports" "$err" "rank 1: sent the summaries of 2 report(s) to rank 0: "
kib=$(printf '%s\n' "$err" | sed -n 's/.*rank 1: 2 report(s), \([0-9.]*\) KiB of summaries received.*/\1/p')
check "rank-skew moves kilobytes per rank, not events (rank 1: ${kib:-?} KiB)" \
  awk -v k="${kib:-999999}" 'BEGIN { exit !(k > 0 && k < 16) }'

run_gf -q timeline "${R[@]}" -o "$TMP/one.html"
mpi 3 timeline "${R[@]}" -o "$TMP/np3.html"
check_eq "-np 3 timeline: exit 0" 0 "$rc"
check "-np 3 timeline -o: the one-process page byte for byte" cmp -s "$TMP/one.html" "$TMP/np3.html"
check_contains "timeline -np 3 says the models' bytes per rank" "$err" "rank 1: 2 report(s), "
mpi 1 timeline "${R[@]}" -o "$TMP/np1.html"
check "-np 1 timeline -o: the same page" cmp -s "$TMP/one.html" "$TMP/np1.html"

run_gf -q stats -r cuda_gpu_kern_sum,cuda_api_sum,nvtx_sum "${R[@]}" -o "$TMP/s1/x"
mpi 3 stats -r cuda_gpu_kern_sum,cuda_api_sum,nvtx_sum "${R[@]}" -o "$TMP/s3/x"
check_eq "-np 3 stats: exit 0" 0 "$rc"
check_eq "-np 3 stats: the same 15 files" "$(cd "$TMP/s1" && ls | wc -l) $(cd "$TMP/s1" && ls)" "$(cd "$TMP/s3" && ls | wc -l) $(cd "$TMP/s3" && ls)"
check "-np 3 stats: every file byte for byte" diff -r "$TMP/s1" "$TMP/s3"

run_gf -q export -f chrome-trace "${R[@]}" -o "$TMP/one.json"
mpi 3 export -f chrome-trace "${R[@]}" -o "$TMP/np3.json"
check "-np 3 export -f chrome-trace: the same file" cmp -s "$TMP/one.json" "$TMP/np3.json"

# model files: imported under MPI (each rank its share), read under MPI
mpi 3 import "${R[@]}" -o "$TMP/models"
check_eq "-np 3 import: exit 0" 0 "$rc"
run_gf -q import "${R[@]}" -o "$TMP/models1"
check "-np 3 import: the models one process writes" diff -r "$TMP/models1" "$TMP/models"
mpi 3 run rank-skew "$TMP/models" --json
check_eq "-np 3 rank-skew over model files: the one-process JSON" "$ref" "$out"
for np in 3 1; do
  mpi "$np" stats -r cuda_gpu_kern_sum,cuda_api_sum,nvtx_sum "$TMP/models" -o "$TMP/sm$np/x"
  check_eq "-np $np stats over model files: exit 0" 0 "$rc"
  check "-np $np stats over model files: the one-process files of the reports, byte for byte" diff -r "$TMP/s1" "$TMP/sm$np"
done
mpi 1 stats -r cuda_gpu_kern_sum,cuda_api_sum,nvtx_sum "${R[@]}" -o "$TMP/s1np/x"
check "-np 1 stats: every file byte for byte" diff -r "$TMP/s1" "$TMP/s1np"
# the model files named one by one, as the reports are (a directory input names the page after itself)
mpi 3 timeline "$TMP"/models/rank{0,1,2,3,4}.gfmodel -o "$TMP/np3m.html"
check "-np 3 timeline over model files: the one-process page of the reports" cmp -s "$TMP/one.html" "$TMP/np3m.html"
# a bounded timeline: each rank sends digests (its reports' N longest events, their launches, and what the
# merge computes from every event), rank 0 merges them into the page one process writes from whole models
page_nums() { # PAGE: "total shown" from the page's data
  grep -o '"total":[0-9]*,"shown":[0-9]*' "$1" | head -1 | sed 's/"total":\([0-9]*\),"shown":\([0-9]*\)/\1 \2/'
}
for n in 1 60 333 100000; do
  run_gf -q timeline --max-events "$n" "${R[@]}" -o "$TMP/one$n.html"
  for np in 3 1; do
    mpi "$np" timeline --max-events "$n" "${R[@]}" -o "$TMP/np${np}_$n.html"
    check "-np $np timeline --max-events $n: the one-process page byte for byte" cmp -s "$TMP/one$n.html" "$TMP/np${np}_$n.html"
  done
  mpi 3 timeline --max-events "$n" "$TMP"/models/rank{0,1,2,3,4}.gfmodel -o "$TMP/np3m_$n.html"
  check "-np 3 timeline --max-events $n over model files: the one-process page of the reports" \
    cmp -s "$TMP/one$n.html" "$TMP/np3m_$n.html"
done
read -r total shown < <(page_nums "$TMP/one60.html")
check "--max-events 60 drops events (${shown:-?} of ${total:-?} shown)" test "${shown:-0}" -lt "${total:-0}"
# launch backtraces (CUDA_CALLCHAINS): the page's stacks and launch flame are ordered by first sight over
# every event, which the digests carry; three generated reports of 2,000-4,000 kernels
G=$TOP/bench/gen_trace_sqlite.py
mkdir -p "$TMP/st"
python3 "$G" "$TMP/st/a.sqlite" 3000 40; python3 "$G" "$TMP/st/b.sqlite" 2000 25; python3 "$G" "$TMP/st/c.sqlite" 4000 60
S=("$TMP"/st/a.sqlite "$TMP"/st/b.sqlite "$TMP"/st/c.sqlite)
said() { printf '%s\n' "$1" | grep -o '[0-9]* of [0-9]* events (longest kept), [0-9]* lanes'; }
for n in 7 100 2500; do
  run_gf timeline --max-events "$n" "${S[@]}" -o "$TMP/st1_$n.html"; said1=$(said "$err")
  for np in 3 1; do
    mpi "$np" timeline --max-events "$n" "${S[@]}" -o "$TMP/st${np}_$n.html"
    check "-np $np timeline --max-events $n, reports with launch stacks: the one-process page" \
      cmp -s "$TMP/st1_$n.html" "$TMP/st${np}_$n.html"
    check_eq "-np $np timeline --max-events $n: the same counts of events and lanes" "$said1" "$(said "$err")"
  done
done
# the trace exporters' --max-events takes the same path (their launch stacks are the merge's flame)
for f in chrome-trace launch-stacks; do
  run_gf -q export -f "$f" --max-events 50 "${S[@]}" -o "$TMP/ex1.$f"
  mpi 3 -v export -f "$f" --max-events 50 "${S[@]}" -o "$TMP/ex3.$f"
  check "-np 3 export -f $f --max-events 50: the one-process file byte for byte" cmp -s "$TMP/ex1.$f" "$TMP/ex3.$f"
  check_contains "-np 3 export -f $f --max-events 50: digests were sent" "$err" "digest(s) of the 50 longest events"
done
check_contains "the stacked reports' page has a launch flame" "$(cat "$TMP/st1_100.html")" '"launchFlame":{"unit":"ns"'
mpi 3 -v timeline --max-events 100 "${S[@]}" -o "$TMP/st3_100.html"
check_contains "-np 3 --max-events 100: rank 1 says what it sent" "$err" "rank 1: sent 1 digest(s) of the 100 longest events to rank 0: "
kib() { # "N KiB" / "N MiB" / "N B" after "rank 2: 1 report(s), " in $err, before WHAT → KiB
  printf '%s\n' "$err" | sed -n "s/.*rank 2: 1 report(s), \([0-9.]*\) \([KM]*i*B\) of $1.*/\1 \2/p" |
    awk '{ print $2 == "MiB" ? $1 * 1024 : $2 == "B" ? $1 / 1024 : $1 }'
}
dig=$(kib digest)
mpi 3 -v timeline "${S[@]}" -o "$TMP/st3_all.html"
whole=$(kib model)
check "rank 2 sends less with --max-events 100 (${dig:-?} KiB) than its whole model (${whole:-?} KiB)" \
  awk -v d="${dig:-0}" -v w="${whole:-0}" 'BEGIN { exit !(d > 0 && w > 0 && d < w / 2) }'

# --local: each rank reads the reports only it sees (node-local disks), %q{VAR} from its environment
for r in 0 1 2; do mkdir -p "$TMP/local/$r"; done
cp "${R[0]}" "${R[3]}" "$TMP/local/0/"; cp "${R[1]}" "${R[4]}" "$TMP/local/1/"; cp "${R[2]}" "$TMP/local/2/"
mpi 3 run rank-skew --local "$TMP/local/%q{OMPI_COMM_WORLD_RANK}" --json
check_eq "-np 3 --local: exit 0" 0 "$rc"
check_eq "-np 3 --local rank-skew: the one-process JSON" "$ref" "$out"
mpi 3 timeline --local "$TMP/local/%q{OMPI_COMM_WORLD_RANK}" -o "$TMP/local.html"
run_gf -q timeline "$TMP"/local/0/* "$TMP"/local/1/* "$TMP"/local/2/* -o "$TMP/local1.html"
check "-np 3 --local timeline: the page of one process over the files in rank order" cmp -s "$TMP/local1.html" "$TMP/local.html"
mpi 3 run rank-skew --local "$TMP/local/%q{NO_SUCH_VARIABLE_GF}" --json
check_eq "--local with an unset variable: exit 2" 2 "$rc"
check_contains "--local with an unset variable: names it" "$err" "NO_SUCH_VARIABLE_GF is not set"

# a failing rank ends the whole job, naming the rank and the file
head -c 8192 "${R[1]}" >"$TMP/bad.sqlite"
mpi 3 run rank-skew "${R[0]}" "$TMP/bad.sqlite" "${R[2]}" "${R[3]}" --json
check_eq "a damaged report on rank 1: the job exits 6 (not a hang: 124)" 6 "$rc"
check_contains "…naming the rank and the file" "$err" "gpuflame: rank 1 of 3: $TMP/bad.sqlite: "
check_eq "…and rank 0 printed nothing" "" "$out"
mpi 3 timeline "${R[0]}" "${R[1]}" "${R[2]}" "$TMP/bad.sqlite" -o "$TMP/bad.html"
check_eq "a damaged report on rank 0 (timeline): exit 6" 6 "$rc"
check_contains "…naming rank 0 and the file" "$err" "gpuflame: rank 0 of 3: $TMP/bad.sqlite: "
check "…and no page" test ! -e "$TMP/bad.html"
t_done
