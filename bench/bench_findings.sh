#!/usr/bin/env bash
# Findings benchmark (issue 18): every rule on a generated export with 1,000,000 kernels and their launch
# calls (tests/gen/findings_export.py bench: 2 processes x 2 GPUs x 4 streams, copies, syncs, NCCL and
# tiny kernels, idle gaps), against the real `nsys analyze` (its six rules) on the same file when an nsys
# is installed; the six rules' CSV rows are compared too (tests/real/findings_check.py).
# Standalone: bench/bench_findings.sh [KERNELS]   (GPUFLAME_BIN or bin/gpuflame; files in bench/out/)
# BENCH_SKIP_NSYS=1 skips nsys analyze.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
out=${BENCH_OUT:-$top/bench/out}
mkdir -p "$out"
n=${1:-1000000}
f=$out/findings_$n.sqlite
[ -s "$f" ] || python3 "$top/tests/gen/findings_export.py" bench "$f" --kernels "$n"
echo "# findings benchmark ($(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)), $n kernels, $(( $(stat -c %s "$f") / 1000000 )) MB"

best_of res 3 "$gf" -q findings -f csv -o "$out/findings_csv" "$f"
gw=${res%% *}
echo "RESULT|findings, all 10 rules, $n kernels|$gw|${res#* }|-|cpu $LAST_CPU s (the best run)"
best_of res 3 "$gf" -q findings -f csv -r cuda-graphs "$f"
echo "RESULT|  import + one cheap rule (cuda-graphs)|${res%% *}|${res#* }|-|the rest is the rules"
for rule in gpu-starv gpu-low-util launch-overhead gpu-busy; do
  best_of res 1 "$gf" -q findings -f csv -o "$out/findings_csv" -r cuda-graphs -r "$rule" "$f"
  echo "RESULT|  import + cuda-graphs + $rule|${res%% *}|${res#* }|-|"
done
nsys=${GF_REAL_NSYS:-$(command -v nsys || true)}
if [ -n "$nsys" ] && [ "${BENCH_SKIP_NSYS:-}" != 1 ]; then
  d=$(mktemp -d)
  cp "$f" "$d/x.sqlite"
  measure res timeout -k 5 900 "$nsys" analyze -f csv "$d/x.sqlite"
  echo "RESULT|  nsys analyze (its 6 rules + dx12), same file|${res%% *}|${res#* }|-|gpuflame all 10 rules: $gw s"
  timeout -k 5 900 "$nsys" analyze -f csv "$d/x.sqlite" >"$d/nsys.out" 2>/dev/null || true
  # -f csv of several rules: one BASE_RULE.csv each, the verdicts on stderr; rebuilt as one stream
  "$gf" findings -f csv -o "$d/gf" "$f" 2>"$d/gf.err" >/dev/null
  python3 "$top/tests/lib/findings_stream.py" "$d/gf" <"$d/gf.err" >"$d/gf.out"
  if python3 "$top/tests/real/findings_check.py" bench "$d/nsys.out" "$d/gf.out" >"$d/cmp.txt"; then
    echo "rows equal to nsys analyze: $(grep -c '^ok' "$d/cmp.txt") rules"
  else
    echo "ROWS DIFFER from nsys analyze:"; grep -v '^ok' "$d/cmp.txt"
  fi
  rm -rf "$d"
fi
