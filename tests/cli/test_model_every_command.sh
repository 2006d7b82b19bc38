#!/usr/bin/env bash
# gf-test: slow
# Issue 27: "gpuflame import model files feed every multi-report command, and give outputs equal to reading
# the reports themselves." One loop over every command that takes several reports: each runs once over a
# directory of reports and once over a directory of the same name holding their model files (so that the
# pages' subtitles, which name the input as given, are the same), and the outputs must be equal byte for
# byte: stdout, and every file written. A command added to gpuflame that takes several reports belongs in
# CASES (tests/cli/test_model_file.sh covers the model file itself). Commands that take one capture (a
# one-input flamegraph, the stacks exporters folded and html-flamegraph, the trace exporters) are in
# ONE_CASES, over one report and its model file under the same name; diff over two of each.
. "$(dirname "$0")/../lib/t.sh"
GEN=$TOP/tests/gen/rank_exports.py
mkdir -p "$TMP/r" "$TMP/m"
python3 "$GEN" job "$TMP/r/run7" --ranks 4 --slow 2 --factor 1.5 --steps 5 --skew-ns 3000000
run_gf -q import "$TMP/r/run7" -o "$TMP/m/run7"
check_eq "import of the reports: exit 0" 0 "$rc"

ALL=$("$GF" stats --help-reports | awk '{print $1}' | paste -sd, -)
# NAME|ARGS ({IN} the input directory, {OUT} a fresh output directory)
CASES=(
  "run rank-skew --json|run rank-skew {IN} --json"
  "run rank-skew --html|run rank-skew {IN} --html {OUT}/skew.html"
  "timeline -o|timeline {IN} -o {OUT}/t.html"
  "timeline --max-events 50|timeline --max-events 50 {IN} -o {OUT}/t.html"
  "flamegraph (several reports)|flamegraph {IN} -o {OUT}/f.html"
  "flamegraph --by-rank|flamegraph --by-rank {IN} -o {OUT}/f.html"
  "export -f chrome-trace|export -f chrome-trace {IN} -o {OUT}/x.json"
  "export -f speedscope|export -f speedscope {IN} -o {OUT}/x.json"
  "export -f launch-stacks|export -f launch-stacks {IN} -o {OUT}/x.folded"
  "stats, every report (csv)|stats -r $ALL {IN} -o {OUT}/s"
  "stats, every report (json:mem=B)|stats -r $ALL --format json:mem=B {IN} -o {OUT}/s"
)
n=0
for c in "${CASES[@]}"; do
  name=${c%%|*} args=${c#*|}
  n=$((n + 1))
  res=()
  for side in r m; do
    # the same output path on both sides (commands print it): moved aside after each run
    mkdir -p "$TMP/out"
    a=${args//\{IN\}/$TMP/$side/run7}; a=${a//\{OUT\}/$TMP/out}
    # shellcheck disable=SC2086 # ARGS are words
    run_gf -q $a
    printf '%s' "$out" >"$TMP/out/stdout"
    mv "$TMP/out" "$TMP/out_${n}_$side"
    res+=("$rc")
  done
  check_eq "$name: exit 0 from the reports and from the model files" "0 0" "${res[*]}"
  check "$name: the same stdout and the same files byte for byte" diff -r "$TMP/out_${n}_r" "$TMP/out_${n}_m"
  check "$name: …and not empty" test -n "$(cat "$TMP/out_${n}_r/stdout"; find "$TMP/out_${n}_r" -type f ! -name stdout)"
done

# one capture: a report and its model file, each named run7 (the pages name their input)
ONE_CASES=(
  "flamegraph (one input)|flamegraph {IN} -o {OUT}/f.html"
  "export -f folded (one input)|export -f folded {IN} -o {OUT}/x.folded"
  "export -f html-flamegraph (one input)|export -f html-flamegraph {IN} -o {OUT}/x.html"
  "export -f chrome-trace (one input)|export -f chrome-trace {IN} -o {OUT}/x.json"
  "export -f speedscope (one input)|export -f speedscope {IN} -o {OUT}/x.json"
)
one_inputs() { # REPORT LABEL [K...]: every ONE_CASE over REPORT and its model file (case K: exit 5, no data)
  local rep=$1 label=$2 c name args side a k=0 res want; shift 2
  rm -rf "$TMP/1r" "$TMP/1m"; mkdir -p "$TMP/1r" "$TMP/1m"
  cp "$rep" "$TMP/1r/run7"
  run_gf -q import "$rep" -o "$TMP/1m/run7"
  for c in "${ONE_CASES[@]}"; do
    name=${c%%|*} args=${c#*|} k=$((k + 1)) res=()
    for side in 1r 1m; do
      mkdir -p "$TMP/out"
      a=${args//\{IN\}/$TMP/$side/run7}; a=${a//\{OUT\}/$TMP/out}
      # shellcheck disable=SC2086 # ARGS are words
      run_gf -q $a
      # messages name the input: the same name on both sides
      printf '%s' "${out//$TMP\/$side/IN}" >"$TMP/out/stdout"; printf '%s' "${err//$TMP\/$side/IN}" >"$TMP/out/stderr"
      rm -rf "$TMP/one_${label}_${k}_$side"; mv "$TMP/out" "$TMP/one_${label}_${k}_$side"
      res+=("$rc")
    done
    want=0; case " $* " in *" $k "*) want=5 ;; esac
    check_eq "$name, $label: exit $want from the report and from its model file" "$want $want" "${res[*]}"
    check "$name, $label: the same output byte for byte" diff -r "$TMP/one_${label}_${k}_1r" "$TMP/one_${label}_${k}_1m"
  done
}
one_inputs "$TMP/r/run7/rank1.sqlite" generated
# launch backtraces and NVTX (a real capture), and a capture without GPU operations (the flat totals of the
# export's tables the model carries; speedscope, case 5, has no GPU operations to draw: exit 5 both ways)
for fx in real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite real/cuda-learning/report1.sqlite; do
  if have_fixture "$fx"; then
    one_inputs "$FIX/$fx" "$(basename "$(dirname "$fx")")" $([ "${fx#*cuda-learning}" != "$fx" ] && echo 5)
  else
    skip "one input over $fx" "fixture absent"
  fi
done

# diff: two captures (the same names on both sides: the page names them), model files against their
# reports; the slow rank 2 against rank 0 (a regression: exit 10), and pipit against itself (launch
# backtraces on both sides: their launch stacks are compared)
diff_pair() { # BEFORE AFTER LABEL EXIT (run in each side's directory: the outputs name the inputs as given)
  local side res=()
  rm -rf "$TMP/2r" "$TMP/2m"; mkdir -p "$TMP/2r/in" "$TMP/2m/in" "$TMP/2r/out" "$TMP/2m/out"
  cp "$1" "$TMP/2r/in/before"; cp "$2" "$TMP/2r/in/after"
  run_gf -q import "$1" -o "$TMP/2m/in/before"; run_gf -q import "$2" -o "$TMP/2m/in/after"
  for side in 2r 2m; do
    cd "$TMP/$side/in" || return
    run_gf -q diff before after --json -o ../out/d.html --folded ../out/d.folded
    cd - >/dev/null || return
    printf '%s' "$out" >"$TMP/$side/out/stdout"; printf '%s' "$err" >"$TMP/$side/out/stderr"
    res+=("$rc")
  done
  check_eq "diff, $3: exit $4 from the reports and from their model files" "$4 $4" "${res[*]}"
  check "diff, $3: the same JSON, page, folded file and messages" diff -r "$TMP/2r/out" "$TMP/2m/out"
}
diff_pair "$TMP/r/run7/rank0.sqlite" "$TMP/r/run7/rank2.sqlite" "rank 0 → slow rank 2" 10
if have_fixture real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite; then
  diff_pair "$FIX/real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite" "$FIX/real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite" \
    "pipit against itself" 0
  check_contains "diff, pipit: launch stacks compared" "$(tr -d ' \n' <"$TMP/2m/out/stdout")" '"launch_stacks":{"after_ns":373273080,"available":true'
else
  skip "diff over pipit" "fixture absent"
fi

# reports and model files mixed (the models of ranks 1 and 3 beside the reports of ranks 0 and 2)
mkdir -p "$TMP/x/run7"
cp "$TMP/r/run7/rank0.sqlite" "$TMP/r/run7/rank2.sqlite" "$TMP/m/run7/rank1.gfmodel" "$TMP/m/run7/rank3.gfmodel" "$TMP/x/run7/"
run_gf -q timeline "$TMP/x/run7" -o "$TMP/x.html"
check "reports and model files mixed: the timeline of the reports" cmp -s "$TMP/out_3_r/t.html" "$TMP/x.html"
run_gf -q stats -r "$ALL" "$TMP/x/run7" -o "$TMP/xs/s"
rm -f "$TMP/xs/stdout"; cp "$TMP/out_10_r/stdout" "$TMP/xs/stdout" # stdout: compared above
check "reports and model files mixed: stats writes the reports' files" diff -r "$TMP/out_10_r" "$TMP/xs"
t_done
