#!/usr/bin/env bash
# gf-test: slow
# Data-driven CLI cases (like jq's tests/jq.test): runs every tests/cases/*.cases file and prints one line
# per case: `ok - FILE: NAME`, `not ok - FILE: NAME: why` or `skip - FILE: NAME: why`.
# GF_CASES=SUBSTRING runs only the case files whose name contains it; GF_UPDATE_GOLDEN=1 (re)writes the
# golden files of `output ... golden:` from this run instead of comparing.
#
# Case file format (one gpuflame invocation per case; `#` lines and blank lines between directives are
# ignored):
#
#   === NAME                     starts a case; NAME is the rest of the line, unique within the file
#   args: WORDS                  the arguments to gpuflame (required). Words split on blanks; '...' and "..."
#                                quote, \ escapes one character; no other shell syntax
#   env: NAME=VALUE              an environment variable for gpuflame (repeatable); VALUE = rest of the line
#   needs: PATH                  a fixture (relative to $FIX) the case needs; absent → `skip - ...` (repeatable).
#                                `copy` sources and `args` words under $FIX are checked without saying so
#   file NAME <<EOF              an input file $TMP/NAME: the lines up to the line `EOF`, each ending in "\n".
#   ...                          <<'EOF' keeps the body verbatim (no placeholders). Any word may replace EOF
#   EOF
#   file NAME: TEXT              appends TEXT with printf %b escapes (\n \r \t \\ \xHH \0NNN), no newline
#                                added; `file NAME:` alone makes an empty file. Every `file` appends, in order
#   copy NAME: SOURCE            copies the file SOURCE to $TMP/NAME (parent directories are made); inputs
#                                shared by several cases live in tests/cases/data/
#   exit: N                      the expected exit status (default 0)
#   stdout: TEXT                 stdout is exactly TEXT (`stdout:` alone: empty). stdout, stderr and output
#                                files are compared with their trailing newlines removed (golden: byte for byte)
#   stdout <<EOF ... EOF         stdout is exactly these lines
#   stdout contains: TEXT        TEXT occurs in stdout;  `stdout lacks: TEXT`: it does not
#   stdout matches: ERE          bash =~ on the whole stdout (^ and $ anchor the whole text, . matches a
#                                newline; \n in the ERE stands for a newline, so [^\n]* stays on one line)
#   stderr ...                   the same five forms for stderr
#   output PATH exists           PATH exists after the run (PATH relative to $TMP unless absolute)
#   output PATH absent           PATH does not exist, nor a `.BASENAME.tmp.*` beside it (atomic writer)
#   output PATH golden: NAME     PATH equals tests/cases/golden/NAME byte for byte
#   output PATH contains: TEXT   TEXT occurs in PATH;  `output PATH lacks: TEXT`: it does not
#
# Placeholders, expanded in every value except <<'EOF' bodies and single-quoted words: $TMP (this case's
# own fresh directory, also the working directory gpuflame runs in), $FIX (GPUFLAME_FIXTURES),
# $FAKE_NSYS (tests/fake/nsys), $TOP (the repository); ${TMP} etc. too. Any other `$` is literal.
# gpuflame's stdin is /dev/null; a case runs at most GF_CASE_TIMEOUT seconds (default 300).
#
# Example:
#   === unterminated quote: exit 6, file:line
#   file u.csv <<'EOF'
#   Time (%),Total Time (ns),Instances,Name
#   1,2,3,"open
#   EOF
#   args: collapse $TMP/u.csv
#   exit: 6
#   stderr contains: gpuflame: $TMP/u.csv:2: unterminated quoted field
. "$(dirname "$0")/../lib/t.sh"

CASES_DIR=${GF_CASES_DIR:-$TOP/tests/cases}
GOLDEN_DIR=$CASES_DIR/golden
ROOT_TMP=$TMP
TIMEOUT_BIN=$(command -v timeout) # found before a case's env: line sets another PATH
declare -A PV=([TMP]="" [FIX]="$FIX" [TOP]="$TOP" [FAKE_NSYS]="$FAKE_NSYS")
n_cases=0 n_checks=0

# _ph S: S starts with '$'; when it starts with a placeholder, sets PH_VAL and PH_LEN
_ph() {
  local s=$1 n nx
  for n in FAKE_NSYS TMP FIX TOP; do
    if [[ $s == "\${$n}"* ]]; then PH_VAL=${PV[$n]}; PH_LEN=$((${#n} + 3)); return 0; fi
    if [[ $s == "\$$n"* ]]; then
      nx=${s:${#n}+1:1}
      if [[ ! $nx =~ [A-Za-z0-9_] ]]; then PH_VAL=${PV[$n]}; PH_LEN=$((${#n} + 1)); return 0; fi
    fi
  done
  return 1
}
# expand S → EXP (placeholders replaced)
expand() {
  local s=$1 out="" pre
  while [[ $s == *'$'* ]]; do
    pre=${s%%\$*}; out+=$pre; s=${s:${#pre}}
    if _ph "$s"; then out+=$PH_VAL; s=${s:PH_LEN}; else out+='$'; s=${s:1}; fi
  done
  EXP=$out$s
}
# split_words S → WORDS (quotes, backslash, placeholders); returns 1 on an unterminated quote
split_words() {
  local s=$1 i=0 n=${#1} c w="" have=0 q=""
  WORDS=()
  while ((i < n)); do
    c=${s:i:1}
    if [ "$q" = "'" ]; then
      if [ "$c" = "'" ]; then q=""; else w+=$c; fi
    elif [ "$q" = '"' ]; then
      if [ "$c" = '"' ]; then q=""
      elif [ "$c" = '\' ] && [[ ${s:i+1:1} == [\"\\\$] ]]; then i=$((i + 1)); w+=${s:i:1}
      elif [ "$c" = '$' ] && _ph "${s:i}"; then w+=$PH_VAL; i=$((i + PH_LEN - 1))
      else w+=$c; fi
    else
      case $c in
        ' ' | $'\t') if [ $have = 1 ]; then WORDS+=("$w"); w="" have=0; fi ;;
        "'" | '"') q=$c have=1 ;;
        '\') i=$((i + 1)); w+=${s:i:1} have=1 ;;
        '$') if _ph "${s:i}"; then w+=$PH_VAL; i=$((i + PH_LEN - 1)); else w+=$c; fi; have=1 ;;
        *) w+=$c have=1 ;;
      esac
    fi
    i=$((i + 1))
  done
  [ -z "$q" ] || return 1
  [ $have = 1 ] && WORDS+=("$w")
  return 0
}

# --- one case: state filled by the parser, run by run_case ------------------------------------------
reset_case() {
  C_NAME=$1 C_LINE=$2 C_ARGS="" C_HAVE_ARGS=0 C_EXIT=0 C_ERR=""
  C_ENV=() C_NEEDS=() OP_KIND=() OP_NAME=() OP_DATA=() EX_SUBJ=() EX_OP=() EX_VAL=() EX_RAW=()
}
# where PATH: absolute, or relative to the case directory
# (ABS, and FILE_TEXT below, are set in place of printed: the suite runs this file twice, and each
# command substitution costs a fork)
abspath() { case $1 in /*) ABS=$1 ;; *) ABS=$CASE_TMP/$1 ;; esac; }
# file_text PATH → FILE_TEXT: the file's bytes less its trailing newlines, as $(cat PATH) gives them
file_text() {
  FILE_TEXT=""
  IFS= read -r -d '' FILE_TEXT <"$1"
  while [[ $FILE_TEXT == *$'\n' ]]; do FILE_TEXT=${FILE_TEXT%$'\n'}; done
}

run_case() {
  local label="$CF: $C_NAME" why="" i p words=() miss="" k
  n_cases=$((n_cases + 1))
  if [ -n "$C_ERR" ]; then not_ok "$label" "$C_ERR"; return; fi
  [ "$C_HAVE_ARGS" = 1 ] || { not_ok "$label" "line $C_LINE: the case has no args: line"; return; }
  if [ -n "${SEEN[$C_NAME]:-}" ]; then not_ok "$label" "line $C_LINE: duplicate case name (also line ${SEEN[$C_NAME]})"; return; fi
  SEEN[$C_NAME]=$C_LINE
  CASE_TMP=$ROOT_TMP/$CSTEM/$n_cases; PV[TMP]=$CASE_TMP
  [ ! -e "$CASE_TMP" ] || rm -rf "$CASE_TMP"
  mkdir -p "$CASE_TMP"
  # fixtures: needs:, copy sources and args words under $FIX
  for p in "${C_NEEDS[@]}"; do [ -e "$FIX/$p" ] || miss=$p; done
  for i in "${!OP_KIND[@]}"; do
    if [ "${OP_KIND[$i]}" = copy ]; then expand "${OP_DATA[$i]}"; [[ $EXP == "$FIX/"* && ! -e $EXP ]] && miss=${EXP#"$FIX/"}; fi
  done
  split_words "$C_ARGS" || { not_ok "$label" "line $C_LINE: unterminated quote in args"; return; }
  words=("${WORDS[@]}")
  for p in "${words[@]}"; do [[ $p == "$FIX/"* && ! -e $p ]] && miss=${p#"$FIX/"}; done
  if [ -n "$miss" ]; then skip "$label" "fixture absent: $miss"; return; fi
  # inputs, in order
  for i in "${!OP_KIND[@]}"; do
    expand "${OP_NAME[$i]}"; abspath "$EXP"; p=$ABS
    mkdir -p "${p%/*}"
    case ${OP_KIND[$i]} in
      body) printf '%s' "${OP_DATA[$i]}" >>"$p" ;;
      bodyx) expand "${OP_DATA[$i]}"; printf '%s' "$EXP" >>"$p" ;;
      text) expand "${OP_DATA[$i]}"; printf '%b' "$EXP" >>"$p" ;;
      copy) expand "${OP_DATA[$i]}"; cp "$EXP" "$p" 2>/dev/null || { not_ok "$label" "copy: cannot copy $EXP"; return; } ;;
    esac
  done
  local envs=("XDG_CACHE_HOME=$CASE_TMP/.cache") # each case its own export cache (an env: line may set another)
  for k in "${C_ENV[@]}"; do expand "$k"; envs+=("$EXP"); done
  local o=$ROOT_TMP/$CSTEM/$n_cases.stdout e=$ROOT_TMP/$CSTEM/$n_cases.stderr rc out err
  (cd "$CASE_TMP" && export "${envs[@]}" && exec "$TIMEOUT_BIN" -k 5 "${GF_CASE_TIMEOUT:-300}" "$GF" "${words[@]}") >"$o" 2>"$e" </dev/null
  rc=$?
  file_text "$o"; out=$FILE_TEXT
  file_text "$e"; err=$FILE_TEXT
  n_checks=$((n_checks + 1))
  [ "$rc" = "$C_EXIT" ] || why+="exit $rc, want $C_EXIT; "
  local subj op val got f re
  for i in "${!EX_OP[@]}"; do
    n_checks=$((n_checks + 1))
    subj=${EX_SUBJ[$i]} op=${EX_OP[$i]}
    if [ "${EX_RAW[$i]}" = 1 ]; then val=${EX_VAL[$i]}; else expand "${EX_VAL[$i]}"; val=$EXP; fi
    case $subj in
      stdout) got=$out ;;
      stderr) got=$err ;;
      output:*)
        expand "${subj#output:}"; abspath "$EXP"; f=$ABS; subj="output ${subj#output:}"
        case $op in
          exists) [ -e "$f" ] || why+="$subj: does not exist; "; continue ;;
          absent)
            [ -e "$f" ] && why+="$subj: left behind; "
            compgen -G "${f%/*}/.${f##*/}.tmp.*" >/dev/null && why+="$subj: temp file left beside it; "
            continue ;;
          golden)
            if [ "${GF_UPDATE_GOLDEN:-}" = 1 ] && [ -f "$f" ]; then mkdir -p "$GOLDEN_DIR"; cp "$f" "$GOLDEN_DIR/$val"; continue; fi
            if [ ! -f "$GOLDEN_DIR/$val" ]; then why+="$subj: golden file tests/cases/golden/$val missing (GF_UPDATE_GOLDEN=1 writes it); "
            elif ! cmp -s "$GOLDEN_DIR/$val" "$f"; then why+="$subj: differs from tests/cases/golden/$val; "; fi
            continue ;;
        esac
        [ -f "$f" ] || { why+="$subj: does not exist; "; continue; }
        file_text "$f"; got=$FILE_TEXT ;;
    esac
    case $op in
      exact)
        while [[ $val == *$'\n' ]]; do val=${val%$'\n'}; done
        [ "$got" == "$val" ] || why+="$subj: expected [${val:0:300}] got [${got:0:300}]; " ;;
      contains) [[ $got == *"$val"* ]] || why+="$subj: [${val:0:200}] not in [${got:0:300}]; " ;;
      lacks) [[ $got != *"$val"* ]] || why+="$subj: [${val:0:200}] unexpectedly present; " ;;
      matches)
        re=${val//\\n/$'\n'}
        [[ $got =~ $re ]] || why+="$subj: no match for /${val:0:200}/ in [${got:0:300}]; " ;;
    esac
  done
  if [ -z "$why" ]; then ok "$label"; else
    not_ok "$label" "${why%; }"
    [ "$rc" = "$C_EXIT" ] || echo "#   (stderr: ${err:0:400})"
  fi
}

# --- parser ------------------------------------------------------------------------------------------
re_case='^===[[:space:]]+(.*[^[:space:]])[[:space:]]*$'
re_heredoc='^(file[[:space:]]+([^[:space:]]+)|stdout|stderr)[[:space:]]*<<[[:space:]]*(.+)$'
re_args='^args:[[:space:]]?(.*)$'
re_env='^env:[[:space:]]*([A-Za-z_][A-Za-z0-9_]*=.*)$'
re_needs='^needs:[[:space:]]*(.*[^[:space:]])[[:space:]]*$'
re_file='^file[[:space:]]+([^[:space:]:]+):[[:space:]]?(.*)$'
re_copy='^copy[[:space:]]+([^[:space:]:]+):[[:space:]]*(.*[^[:space:]])[[:space:]]*$'
re_exit='^exit:[[:space:]]*([0-9]+)[[:space:]]*$'
re_stream='^(stdout|stderr)(| contains| lacks| matches):[[:space:]]?(.*)$'
re_outflag='^output[[:space:]]+([^[:space:]]+)[[:space:]]+(exists|absent)[[:space:]]*$'
re_outop='^output[[:space:]]+([^[:space:]]+)[[:space:]]+(golden|contains|lacks|matches):[[:space:]]?(.*)$'

shopt -s nullglob
files=("$CASES_DIR"/*.cases)
[ ${#files[@]} -gt 0 ] || { skip "cases" "no tests/cases/*.cases files"; t_done; }
for CFILE in "${files[@]}"; do
  CF=$(basename "$CFILE"); CSTEM=${CF%.cases}
  [ -n "${GF_CASES:-}" ] && [[ $CF != *"$GF_CASES"* ]] && continue
  mapfile -t L <"$CFILE"
  declare -A SEEN=()
  in_case=0 ln=0 nl=${#L[@]}
  while ((ln < nl)); do
    line=${L[ln]}; ln=$((ln + 1))
    if [[ $line =~ $re_case ]]; then
      next=${BASH_REMATCH[1]}
      [ $in_case = 1 ] && run_case
      reset_case "$next" "$ln"; in_case=1; continue
    fi
    [[ -z ${line//[[:space:]]/} || $line == '#'* ]] && continue
    if [ $in_case = 0 ]; then not_ok "$CF: line $ln" "a directive before the first === NAME line: $line"; continue; fi
    if [[ $line =~ $re_heredoc ]]; then
      head=${BASH_REMATCH[1]} fname=${BASH_REMATCH[2]} tag=${BASH_REMATCH[3]} verbatim=0
      tag=${tag%"${tag##*[![:space:]]}"}
      if [[ $tag == \'*\' ]]; then tag=${tag:1:${#tag}-2}; verbatim=1; fi
      start=$ln body="" closed=0
      while ((ln < nl)); do
        bl=${L[ln]}; ln=$((ln + 1))
        [ "$bl" = "$tag" ] && { closed=1; break; }
        body+=$bl$'\n'
      done
      if [ $closed = 0 ]; then C_ERR="line $start: no closing $tag"; continue; fi
      case $head in
        file*) OP_KIND+=("$([ $verbatim = 1 ] && echo body || echo bodyx)"); OP_NAME+=("$fname"); OP_DATA+=("$body") ;;
        *) EX_SUBJ+=("$head"); EX_OP+=(exact); EX_VAL+=("$body"); EX_RAW+=("$verbatim") ;;
      esac
    elif [[ $line =~ $re_args ]]; then
      C_ARGS=${BASH_REMATCH[1]} C_HAVE_ARGS=$((C_HAVE_ARGS + 1))
      [ "$C_HAVE_ARGS" = 1 ] || C_ERR="line $ln: a second args: line"
    elif [[ $line =~ $re_env ]]; then C_ENV+=("${BASH_REMATCH[1]}")
    elif [[ $line =~ $re_needs ]]; then C_NEEDS+=("${BASH_REMATCH[1]}")
    elif [[ $line =~ $re_file ]]; then OP_KIND+=(text); OP_NAME+=("${BASH_REMATCH[1]}"); OP_DATA+=("${BASH_REMATCH[2]}")
    elif [[ $line =~ $re_copy ]]; then OP_KIND+=(copy); OP_NAME+=("${BASH_REMATCH[1]}"); OP_DATA+=("${BASH_REMATCH[2]}")
    elif [[ $line =~ $re_exit ]]; then C_EXIT=${BASH_REMATCH[1]}
    elif [[ $line =~ $re_stream ]]; then
      op=${BASH_REMATCH[2]# }
      EX_SUBJ+=("${BASH_REMATCH[1]}"); EX_OP+=("${op:-exact}"); EX_VAL+=("${BASH_REMATCH[3]}"); EX_RAW+=(0)
    elif [[ $line =~ $re_outflag ]]; then EX_SUBJ+=("output:${BASH_REMATCH[1]}"); EX_OP+=("${BASH_REMATCH[2]}"); EX_VAL+=(""); EX_RAW+=(0)
    elif [[ $line =~ $re_outop ]]; then EX_SUBJ+=("output:${BASH_REMATCH[1]}"); EX_OP+=("${BASH_REMATCH[2]}"); EX_VAL+=("${BASH_REMATCH[3]}"); EX_RAW+=(0)
    else
      C_ERR=${C_ERR:-"line $ln: unknown directive: $line"}
    fi
  done
  [ $in_case = 1 ] && run_case
  unset SEEN
done
echo "# $n_cases cases, $n_checks expectations (exit statuses included)"
t_done
