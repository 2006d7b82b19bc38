#!/usr/bin/env bash
# Replays every fuzz target's saved regression inputs and seed files through the normal build (so
# `make test`, SAN=1 and VALGRIND=1 cover them without clang). Seeds from the fixtures are included.
. "$(dirname "$0")/../lib/t.sh"
found=0
for bin in "$GF_BUILD"/tests/replay_*; do
  [ -x "$bin" ] || continue
  found=1
  t=${bin##*/replay_}
  corpus="$TMP/corpus_$t"; mkdir -p "$corpus"
  "$TOP/tests/fuzz/seeds.sh" "$t" "$corpus" "$FIX"
  runner=()
  [ "${VALGRIND:-}" = 1 ] && runner=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
  if res=$("${runner[@]}" "$bin" "$corpus" 2>&1); then
    ok "fuzz target $t replays its seeds and regression inputs ($(echo "$res" | tail -1))"
  else
    not_ok "fuzz target $t replays its seeds and regression inputs" "$(echo "$res" | tail -5)"
  fi
done
[ $found = 1 ] || not_ok "fuzz replay binaries exist" "none under $GF_BUILD/tests"
t_done
