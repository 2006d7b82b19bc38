#!/usr/bin/env bash
# gf-test: no-gpuflame
# tests/real/nsys_memo.py, the real tier's memo of nsys's answers: a repeated call is replayed with the
# files it wrote and its paths moved to the new directories; a new nsys, a changed input byte or a failed
# call runs nsys again. A stand-in nsys counts its runs.
. "$(dirname "$0")/../lib/t.sh"
MEMO=$TOP/tests/real/nsys_memo.py
W=$TMP/memo
mkdir -p "$W/a" "$W/b" "$W/bin"
runs=$W/runs
cat >"$W/bin/nsys" <<'SH'
#!/bin/sh
case $1 in
  --version) echo "NVIDIA Nsight Systems version 2099.1.1-stand-in"; exit 0 ;;
esac
echo run >>"$NSYS_RUNS"
case " $* " in *" --fail "*) echo "no" >&2; exit 3 ;; esac
case " $* " in *" --gone "*) rm -rf "$(dirname "$3")"; exit 0 ;; esac
case $1 in
  stats) out=$3; in=$4; cat "$in" >"${out}_r.csv"; echo "Processing [$in] to [${out}_r.csv]"; exit 0 ;;
  analyze) in=$2; cp "$in" "${in%.*}.sqlite"; echo "rule on $in"; echo "warn $in" >&2; exit 0 ;;
  export) out=; while [ $# -gt 1 ]; do case $1 in -o|--output) out=$2; shift ;; esac; shift; done
    case $out in *.sqlite) ;; *) out=$out.sqlite ;; esac
    cp "$1" "$out"; echo "Exporting $1 to $out"; exit 0 ;;
esac
SH
chmod +x "$W/bin/nsys"
export NSYS_RUNS=$runs
nsys_runs() { grep -c '^run$' "$runs" 2>/dev/null || echo 0; }
# one call: memo DIR, then the arguments; sets $mout, $merr, $mrc
m() { local d=$1; shift
  mout=$(python3 "$MEMO" "$d" "$W/bin/nsys" "$@" 2>"$W/err"); mrc=$?; merr=$(cat "$W/err"); }

printf 'kernels\n' >"$W/a/x.sqlite"
cp "$W/a/x.sqlite" "$W/b/x.sqlite"
m "$W/memo" stats -o "$W/a/ns" "$W/a/x.sqlite"
before=$(nsys_runs)
check_eq "first call: nsys ran" 0 "$mrc"
check_eq "first call: its output file" "kernels" "$(cat "$W/a/ns_r.csv")"
m "$W/memo" stats -o "$W/b/ns" "$W/b/x.sqlite"
check_eq "same bytes elsewhere: nsys not run again" "$before" "$(nsys_runs)"
check_eq "replayed: the output file in the new directory" "kernels" "$(cat "$W/b/ns_r.csv" 2>/dev/null)"
check_eq "replayed: paths in stdout are the new ones" "Processing [$W/b/x.sqlite] to [$W/b/ns_r.csv]" "$mout"
printf 'kernels2\n' >"$W/b/x.sqlite"
m "$W/memo" stats -o "$W/b/ns" "$W/b/x.sqlite"
check_eq "a changed input byte: nsys runs" "$((before + 1))" "$(nsys_runs)"
check_eq "a changed input byte: the new answer" "kernels2" "$(cat "$W/b/ns_r.csv")"

# a report's export written beside it is part of the answer
printf 'rep\n' >"$W/a/r.nsys-rep"; cp "$W/a/r.nsys-rep" "$W/b/r.nsys-rep"
m "$W/memo" analyze "$W/a/r.nsys-rep"
n=$(nsys_runs)
m "$W/memo" analyze "$W/b/r.nsys-rep"
check_eq "analyze replayed" "$n" "$(nsys_runs)"
check_eq "analyze replayed: the export beside the report" "rep" "$(cat "$W/b/r.sqlite" 2>/dev/null)"
check_eq "analyze replayed: stderr with the new path" "warn $W/b/r.nsys-rep" "$merr"

# an export is one answer whatever its output is called and however the options are spelt: the test's own
# `-o DIR/x.sqlite` and gpuflame's `--force-overwrite true --output CACHE/export.sqlite` of the same report
mkdir -p "$W/c"; cp "$W/a/r.nsys-rep" "$W/c/r.nsys-rep"
m "$W/memo" export --type sqlite --force-overwrite=true -o "$W/a/x.sqlite" "$W/a/r.nsys-rep"
n=$(nsys_runs)
m "$W/memo" export --type sqlite --force-overwrite true --output "$W/c/export.sqlite" "$W/c/r.nsys-rep"
check_eq "export under another name: nsys not run again" "$n" "$(nsys_runs)"
check_eq "export replayed: the file under the new name" "rep" "$(cat "$W/c/export.sqlite" 2>/dev/null)"
check_eq "export replayed: stdout names the new file" "Exporting $W/c/r.nsys-rep to $W/c/export.sqlite" "$mout"
check "export replayed: nothing under the first name" test ! -e "$W/c/x.sqlite"
m "$W/memo" export --type sqlite --force-overwrite true --output "$W/c/noext" "$W/c/r.nsys-rep"
check_eq "an output without .sqlite is another question (nsys adds the extension)" "$((n + 1))" "$(nsys_runs)"
check_eq "an output without .sqlite: nsys's file" "rep" "$(cat "$W/c/noext.sqlite" 2>/dev/null)"

# a directory removed under a running call (its test file ended by the time limit): the answer is not kept
mkdir -p "$W/gone"; printf 'x\n' >"$W/gone/x.sqlite"
n=$(nsys_runs)
m "$W/memo" stats -o "$W/gone/ns" --gone
mkdir -p "$W/gone"
m "$W/memo" stats -o "$W/gone/ns" --gone
check_eq "an answer whose directory went away is not kept" "$((n + 2))" "$(nsys_runs)"

# failures are never kept; an empty memo directory turns the memo off; other commands are not memoised
n=$(nsys_runs)
m "$W/memo" stats --fail; m "$W/memo" stats --fail
check_eq "a failed call runs each time" "$((n + 2))" "$(nsys_runs)"
check_eq "a failed call: its status" 3 "$mrc"
n=$(nsys_runs)
m "" stats -o "$W/a/ns" "$W/a/x.sqlite"
check_eq "no memo directory: nsys runs" "$((n + 1))" "$(nsys_runs)"
n=$(nsys_runs)
m "$W/memo" profile -o "$W/a/p" true; m "$W/memo" profile -o "$W/a/p" true
check_eq "profile is never memoised" "$((n + 2))" "$(nsys_runs)"
# another nsys build (its --version) is a new key
sed -i 's/2099.1.1/2099.1.2/' "$W/bin/nsys"
n=$(nsys_runs)
m "$W/memo" stats -o "$W/a/ns" "$W/a/x.sqlite"
check_eq "another nsys: nsys runs" "$((n + 1))" "$(nsys_runs)"
t_done
