# Helpers for bench/bench_*.sh. measure OUTVAR CMD... → "wall_s rss_mb" of one run (GNU time).
measure() {
  local __v=$1; shift
  local tf; tf=$(mktemp)
  /usr/bin/time -f '%e %M' -o "$tf" "$@" >/dev/null 2>"$tf.err" || { echo "command failed: $* ($(tail -1 "$tf.err"))" >&2; rm -f "$tf" "$tf.err"; return 1; }
  local wall kb; read -r wall kb <"$tf"
  rm -f "$tf" "$tf.err"
  printf -v "$__v" '%s %s' "$wall" "$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')"
}
# best of N runs (lowest wall time; its RSS)
best_of() {
  local __v=$1 n=$2; shift 2
  local best="" r
  for _ in $(seq 1 "$n"); do
    measure r "$@" || return 1
    if [ -z "$best" ] || awk -v a="${r%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then best=$r; fi
  done
  printf -v "$__v" '%s' "$best"
}
