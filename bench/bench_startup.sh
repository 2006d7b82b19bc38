#!/usr/bin/env bash
# Start-up CPU of gpuflame (issue 39 item 1: which requires stay inside functions, tests/lib/lua_requires.allow):
# CPU ms per start (perf stat -r N, task-clock: user + system of the process) of --version, --help,
# `stats --help` and three small real commands on fixtures/real/test-cuda (a 0.6 MB export), for one or more
# binaries (e.g. a copy of bin/gpuflame built before a change), interleaved over ROUNDS rounds; prints the
# lowest and the median round's mean per command and binary (the lowest is the least disturbed by other load).
# Standalone: bench/bench_startup.sh [BIN...]   (BENCH_RUNS=100, BENCH_ROUNDS=3; needs perf)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=("${GPUFLAME_BIN:-$top/bin/gpuflame}")
n=${BENCH_RUNS:-100}
rounds=${BENCH_ROUNDS:-3}
fix=${GF_FIXTURES:-$top/../shared/fixtures}/real/test-cuda/report1.sqlite
command -v perf >/dev/null || { echo "skip - bench_startup: perf absent"; exit 0; }
[ -f "$fix" ] || { echo "skip - bench_startup: $fix absent"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmds=("--version" "--help" "stats --help" "stats -r cuda_gpu_kern_sum $fix" "collapse $fix" "flamegraph -o $tmp/fg.html $fix")
for c in "${cmds[@]}"; do
  for _ in $(seq "$rounds"); do
    for b in "${bins[@]}"; do
      # shellcheck disable=SC2086 # the command's words
      ms=$(perf stat -r "$n" -x, -e task-clock "$b" $c 2>&1 >/dev/null | grep task-clock | cut -d, -f1)
      echo "$b|$c|$ms"
    done
  done
done | sed "s|$fix|FIX|; s|$tmp/||" | python3 -c '
import sys, collections
d = collections.OrderedDict()
for l in sys.stdin:
    b, c, ms = l.rstrip("\n").split("|")
    d.setdefault(c, collections.OrderedDict()).setdefault(b, []).append(float(ms))
print("CPU ms per start (lowest / median of the rounds):")
for c, bs in d.items():
    print("  %-36s " % c + "  ".join("%s %.2f / %.2f" % (b.rsplit("/", 1)[-1], min(v), sorted(v)[len(v) // 2])
                                     for b, v in bs.items()))
'
