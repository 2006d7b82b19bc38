# Helpers for bench/bench_*.sh. measure OUTVAR CMD... → "wall_s rss_mb" of one run (GNU time).
# The CPU time (user+sys) of the last measure is left in $LAST_CPU (the machine may be shared).
measure() {
  local __v=$1; shift
  local tf; tf=$(mktemp)
  /usr/bin/time -f '%e %M %U %S' -o "$tf" "$@" >/dev/null 2>"$tf.err" || { echo "command failed: $* ($(tail -1 "$tf.err"))" >&2; rm -f "$tf" "$tf.err"; return 1; }
  local wall kb u s; read -r wall kb u s <"$tf"
  LAST_CPU=$(awk -v a="$u" -v b="$s" 'BEGIN { printf "%.2f", a + b }')
  rm -f "$tf" "$tf.err"
  printf -v "$__v" '%s %s' "$wall" "$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')"
}
# best of N runs (lowest wall time; its RSS, and its CPU in $LAST_CPU)
best_of() {
  local __v=$1 n=$2; shift 2
  local best="" r best_cpu=""
  for _ in $(seq 1 "$n"); do
    measure r "$@" || return 1
    if [ -z "$best" ] || awk -v a="${r%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best=$r
      best_cpu=$LAST_CPU
    fi
  done
  LAST_CPU=$best_cpu
  printf -v "$__v" '%s' "$best"
}
