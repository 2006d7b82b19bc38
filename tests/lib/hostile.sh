# hostile NAME CODE NEEDLE OUT ARGS...: runs gpuflame ARGS and checks, as ONE test line, that it exits
# CODE, prints exactly one error line (warnings aside) starting "gpuflame: " and containing NEEDLE, and
# leaves no output: OUT ("-" for stdout) does not exist and its directory has no `.NAME.tmp.*` file.
# Source after t.sh.
hostile() {
  local name=$1 code=$2 needle=$3 outp=$4 why="" first nerr
  shift 4
  [ "$outp" != - ] && rm -f "$outp"
  run_gf "$@"
  first=$(grep -v '^gpuflame: warning: ' <<<"$err" | head -1)
  nerr=$(grep -v '^gpuflame: warning: ' <<<"$err" | grep -c .)
  [ "$rc" = "$code" ] || why+="exit $rc, want $code; "
  [ "$nerr" = 1 ] || why+="$nerr error lines, want 1; "
  [[ "$first" == "gpuflame: "* ]] || why+="no 'gpuflame: ' prefix; "
  [[ "$first" == *"$needle"* ]] || why+="[$needle] not in the message; "
  if [ "$outp" != - ]; then
    [ -e "$outp" ] && why+="output $outp left behind; "
    compgen -G "$(dirname "$outp")/.$(basename "$outp").tmp.*" >/dev/null && why+="temp file left; "
  fi
  if [ -z "$why" ]; then ok "$name"; else not_ok "$name" "${why}stderr=[${err:0:300}]"; fi
}
