#!/usr/bin/env bash
# Timeline benchmark, SQLite path (issues 4 and 5): an export with 1,000,000 kernels + 1,000,000 runtime calls
# (and one with 100,000 distinct launch stacks of depth up to 64) → timeline(+launch flamegraph) HTML,
# against the sqlite3 shell's time for the underlying joins on the same file (the floor) and a Python
# sqlite3 reference (dicts keyed by correlationId, bench/ref_timeline_sqlite.py).
# Standalone: bench/bench_timeline_sqlite.sh   (GPUFLAME_BIN or bin/gpuflame; files in bench/out/)
# BENCH_SKIP_PY=1 skips the Python reference; BENCH_SKIP_FULL_JOIN=1 skips the (slow) full callchain join.
set -eu
# result CASE REF_WALL NOTE: a bench/run table line for the last measure
result() {
  local w u s r; read -r w u s r <"$out/last.txt"
  echo "RESULT|$1|$w|$(awk -v k="$r" 'BEGIN { printf "%.1f", k / 1024 }')|$2|cpu $(awk -v a="$u" -v b="$s" 'BEGIN { printf "%.2f", a + b }') s; $3"
}
top=$(cd "$(dirname "$0")/.." && pwd)
gf=${GPUFLAME_BIN:-$top/bin/gpuflame}
out=$top/bench/out
mkdir -p "$out"
tmpl=$top/tests/trace/templates/timeline.html
lp=()
[ -e "$top/templates/timeline.html" ] || lp=(--lua-path "$top/tests/trace")

measure() {
  local label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/err.txt" || { cat "$out/err.txt"; return 1; }
  read -r wall user sys rss <"$out/time.txt"
  python3 -c "import sys; w,u,s,r=map(float,sys.argv[2:]); print('%-34s wall %7.2f s  cpu %7.2f s  peak RSS %7.1f MB' % (sys.argv[1], w, u+s, r/1024))" \
    "$label" "$wall" "$user" "$sys" "$rss"
  echo "$wall $user $sys $rss" >"$out/last.txt"
}

echo "# timeline SQLite benchmark ($(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
for spec in "t1m_nostacks 0" "t1m 100000"; do
  set -- $spec
  f=$out/$1.sqlite
  [ -s "$f" ] || python3 "$top/bench/gen_trace_sqlite.py" "$f" 1000000 "$2"
  echo "## $1: 1,000,000 kernels + 1,000,000 runtime calls, $2 distinct stacks ($(( $(stat -c %s "$f") / 1000000 )) MB)"
  flags=()
  [ "$2" = 0 ] || flags=(--stacks)
  measure "gpuflame timeline ${flags[*]:-}" "$gf" -q "${lp[@]}" timeline --max-events 20000 "${flags[@]}" "$f" -o "$out/$1.html"
  read -r gw _ <"$out/last.txt"
  result "timeline sqlite 1M+1M ${flags[*]:-} -> html" - "$2 stacks"
  measure "sqlite3: kernel JOIN runtime" sqlite3 "file:$f?immutable=1" "SELECT count(*), sum(k.end - k.start) FROM
    CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId
    AND (r.globalTid >> 24) = (k.globalPid >> 24)"
  read -r fw _ <"$out/last.txt"
  echo "RESULT|  floor: sqlite3 kernel JOIN runtime|$fw|-|$gw|ref column = gpuflame wall; target ratio <= 2"
  if [ "$2" != 0 ] && [ "${BENCH_SKIP_FULL_JOIN:-}" != 1 ]; then
    measure "sqlite3: runtime JOIN callchain JOIN kernel" sqlite3 "file:$f?immutable=1" "SELECT count(*),
      sum(k.end - k.start), sum(length(s.value)) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
      ON r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24)
      JOIN CUDA_CALLCHAINS c ON c.id = r.callchainId JOIN StringIds s ON s.id = c.symbol"
    read -r fw _ <"$out/last.txt"
    echo "RESULT|  floor: sqlite3 runtime JOIN callchain JOIN kernel|$fw|-|$gw|ref column = gpuflame wall"
  fi
  if [ "${BENCH_SKIP_PY:-}" != 1 ] && [ "$2" != 0 ]; then
    measure "python sqlite3 reference" python3 "$top/bench/ref_timeline_sqlite.py" "$f" "$tmpl" "$out/$1.ref.html"
    read -r pw _ <"$out/last.txt"
    echo "RESULT|  python sqlite3 reference (dicts by corr)|$pw|-|-|gpuflame is $(awk -v a="$pw" -v b="$gw" 'BEGIN { printf "%.1f", a / b }')x faster (wall)"
  fi
done
