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
# ranges per run; a window records every one, and nsys 2022.4 then costs ~28 µs a range here: fewer
N=${BENCH_LIVE_RANGES:-1000000}; NW=${BENCH_LIVE_WINDOW_RANGES:-100000}; W=${BENCH_LIVE_WORK:-100}
RUNS=${BENCH_LIVE_RUNS:-3}; MODES=${BENCH_LIVE_MODES:-plain off window}
printf 'return { extends = "default", capture = { trace = "nvtx,osrt", cpuctxsw = "none" } }\n' >"$OUT/pol.lua"
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2" | head -1; }
# one run of MODE → "<nvtx_ns> <work_ns> <ranges>"
run_mode() {
  local mode=$1 d=$OUT/$1.$2 N=$N; mkdir -p "$d"
  [ "$mode" = window ] && N=$NW
  case $mode in
    plain) touch "$d/go" "$d/quit"; "$OUT/job" "$N" "$W" "$d/go" "$d/quit" >"$d/out" ;;
    off) touch "$d/go" "$d/quit"
      "$GF" --policy "$OUT/pol.lua" launch --session "gfbench-off-$2" -- "$OUT/job" "$N" "$W" "$d/go" "$d/quit" >"$d/out" 2>"$d/err" ;;
    window)
      "$GF" --policy "$OUT/pol.lua" launch --session "gfbench-w-$2" -- "$OUT/job" "$N" "$W" "$d/go" "$d/quit" >"$d/out" 2>"$d/err" &
      local lp=$! i
      for i in $(seq 1 300); do
        "$GF" sessions --json | grep -q "\"gfbench-w-$2\"" && break
        kill -0 "$lp" 2>/dev/null || { echo "window run $2: launch failed: $(tail -1 "$d/err")" >&2; return; }
        sleep 0.1
      done
      "$GF" --policy "$OUT/pol.lua" -q capture --session "gfbench-w-$2" --duration 60 --out "$d/w" >/dev/null 2>"$d/cap.err" &
      local cp=$!
      # collection is on once nsys start has returned: the registry's window note then has its start time
      for i in $(seq 1 600); do grep -q '"since":"20' "$OUT/run/gpuflame/sessions/gfbench-w-$2.window.json" 2>/dev/null && break; sleep 0.05; done
      touch "$d/go"
      for i in $(seq 1 1200); do [ -s "$d/out" ] && break; sleep 0.05; done
      kill -INT "$cp"; wait "$cp"; touch "$d/quit"; wait "$lp" ;;
  esac
  echo "$(field nvtx_ns "$d/out") $(field work_ns "$d/out") $N"
}
declare -A best
for mode in $MODES; do
  for r in $(seq 1 "$RUNS"); do
    res=$(run_mode "$mode" "$r"); nv=${res%% *}
    # nsys 2022.4's launch fails now and then (ProcessWaiter: sem_open ENOENT): one more try
    [ -n "$nv" ] || { res=$(run_mode "$mode" "$r.retry"); nv=${res%% *}; }
    [ -n "$nv" ] || { echo "$mode run $r: no result"; continue; }
    if [ -z "${best[$mode]:-}" ] || [ "$nv" -lt "${best[$mode]%% *}" ]; then best[$mode]=$res; fi
  done
done
# wall % compares the timed loop per range with plain's (window runs record fewer ranges)
read -r bnv _ bn <<<"${best[plain]:-0 0 1}"
for mode in $MODES; do
  [ -n "${best[$mode]:-}" ] || continue
  read -r nv wk n <<<"${best[$mode]}"
  note=$(awk -v nv="$nv" -v wk="$wk" -v n="$n" -v b="$bnv" -v bn="$bn" \
    'BEGIN { w = (b > 0) ? (nv / n - b / bn) * 100 / (b / bn) : 0
            printf "%.1f ns per NVTX range; wall per iteration %+.1f%% vs plain", (nv - wk) / n, w }')
  echo "RESULT|live: $mode, $n ranges|$(awk -v x="$nv" 'BEGIN { printf "%.3f", x / 1e9 }')|-|-|$note"
done
