#!/usr/bin/env bash
# Live sessions (docs/LIVE.md): what running under `gpuflame launch` (nsys launch) costs a CPU job with
# NVTX ranges — plain, under nsys with collection off, and during a capture window — in wall time and ns
# per NVTX range (the job times itself: the same work without and with one range per iteration).
# Needs the real nsys and libnvToolsExt.so.1; best of BENCH_LIVE_RUNS (default 3) per mode.
. "$(dirname "$0")/lib.sh"
GF=${GPUFLAME_BIN:?}
NSYS=$(command -v nsys) || { echo "no nsys: skipped"; exit 0; }
OUT=$BENCH_OUT/live; rm -rf "$OUT"; mkdir -p "$OUT/run"
export XDG_RUNTIME_DIR=$OUT/run
cc -O2 -o "$OUT/job" "$GF_TOP/bench/live_overhead.c" -l:libnvToolsExt.so.1 || { echo "cannot build (libnvtoolsext1?)"; exit 0; }
N=${BENCH_LIVE_RANGES:-2000000}; W=${BENCH_LIVE_WORK:-100}; RUNS=${BENCH_LIVE_RUNS:-3}
printf 'return { extends = "default", capture = { trace = "nvtx,osrt", cpuctxsw = "none" } }\n' >"$OUT/pol.lua"
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2" | head -1; }
# one run of MODE → "<nvtx_ns> <work_ns>"
run_mode() {
  local mode=$1 d=$OUT/$1.$2; mkdir -p "$d"
  case $mode in
    plain) touch "$d/go" "$d/quit"; "$OUT/job" "$N" "$W" "$d/go" "$d/quit" >"$d/out" ;;
    off) touch "$d/go" "$d/quit"
      "$GF" --policy "$OUT/pol.lua" launch --session "gfbench-off-$2" -- "$OUT/job" "$N" "$W" "$d/go" "$d/quit" >"$d/out" 2>"$d/err" ;;
    window)
      "$GF" --policy "$OUT/pol.lua" launch --session "gfbench-w-$2" -- "$OUT/job" "$N" "$W" "$d/go" "$d/quit" >"$d/out" 2>"$d/err" &
      local lp=$! i
      for i in $(seq 1 300); do "$GF" sessions --json | grep -q "\"gfbench-w-$2\"" && break; sleep 0.1; done
      "$GF" --policy "$OUT/pol.lua" -q capture --session "gfbench-w-$2" --duration 60 --out "$d/w" >/dev/null 2>"$d/cap.err" &
      local cp=$!
      # collection is on once nsys start has returned: the registry's window note then has its start time
      for i in $(seq 1 600); do grep -q '"since":"20' "$OUT/run/gpuflame/sessions/gfbench-w-$2.window.json" 2>/dev/null && break; sleep 0.05; done
      touch "$d/go"
      for i in $(seq 1 1200); do [ -s "$d/out" ] && break; sleep 0.05; done
      kill -INT "$cp"; wait "$cp"; touch "$d/quit"; wait "$lp" ;;
  esac
  echo "$(field nvtx_ns "$d/out") $(field work_ns "$d/out")"
}
declare -A best
for mode in plain off window; do
  for r in $(seq 1 "$RUNS"); do
    res=$(run_mode "$mode" "$r"); nv=${res% *}
    [ -n "$nv" ] || { echo "$mode run $r: no result"; continue; }
    if [ -z "${best[$mode]:-}" ] || [ "$nv" -lt "${best[$mode]%% *}" ]; then best[$mode]=$res; fi
  done
done
base=${best[plain]%% *}
for mode in plain off window; do
  [ -n "${best[$mode]:-}" ] || continue
  nv=${best[$mode]%% *}; wk=${best[$mode]##* }
  note=$(awk -v nv="$nv" -v wk="$wk" -v b="$base" -v n="$N" \
    'BEGIN { printf "%.1f ns per NVTX range; wall %+.1f%% vs plain", (nv - wk) / n, (nv - b) * 100 / b }')
  echo "RESULT|live: $N ranges, $mode|$(awk -v x="$nv" 'BEGIN { printf "%.3f", x / 1e9 }')|-|-|$note"
done
