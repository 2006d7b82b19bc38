#!/usr/bin/env bash
# Machine formats stay pure (issue 24 item 7): every folded file gpuflame writes is `stack count` lines and
# nothing else (difffolded: `stack BEFORE AFTER`), its metadata in the sidecar FILE.json, so flamegraph.pl,
# inferno and pandas read it without options. Checked by a strict reader written here (not gpuflame's) and,
# when it is found (FLAMEGRAPH_PL=/path/to/flamegraph.pl, or flamegraph.pl on PATH), by the real
# flamegraph.pl, which says "Ignored N lines with invalid format" for a line it cannot read. gpuflame reads
# the sidecar back (speedscope's unit), and still reads an older file with a `# {json}` first line.
. "$(dirname "$0")/../lib/t.sh"

TC=$FIX/real/test-cuda/report1.sqlite
if ! have_fixture real/test-cuda/report1.sqlite || ! have_fixture gprofiler/KERN_CSV.csv; then
  skip "folded files are pure" "fixtures absent"; t_done
fi
# strict FILE [2]: "ok N" when FILE has N > 0 lines, each `stack count` (or `stack before after` with 2),
# the stack not starting with '#', no blank line, a final newline or none
strict() { python3 -c 'import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
lines = text.split("\n")
if lines and lines[-1] == "": lines.pop()
pat = re.compile(r"^([^#\s][^\n]*?) (\d+)$" if sys.argv[2] == "1" else r"^([^#\s][^\n]*?) (\d+) (\d+)$")
bad = [i + 1 for i, l in enumerate(lines) if not pat.match(l)]
print("line %d is not a folded line: %r" % (bad[0], lines[bad[0] - 1][:80]) if bad else "ok %d" % len(lines) if lines else "empty")' "$1" "${2:-1}"; }
FG=${FLAMEGRAPH_PL:-$(command -v flamegraph.pl 2>/dev/null || true)}
# flamegraph_pl NAME FILE: the real flamegraph.pl reads FILE without a complaint
flamegraph_pl() {
  if [ -z "$FG" ] || [ ! -f "$FG" ]; then
    skip "$1: flamegraph.pl" "flamegraph.pl absent (set FLAMEGRAPH_PL=/path/to/FlameGraph/flamegraph.pl)"; return
  fi
  perl "$FG" "$2" >"$TMP/fg.svg" 2>"$TMP/fg.err"
  check_eq "$1: flamegraph.pl reads it without a complaint" "0|" "$?|$(cat "$TMP/fg.err")"
  check_contains "$1: flamegraph.pl drew it" "$(cat "$TMP/fg.svg")" "<svg"
}

# --- every writer ---
run_gf export --format folded "$TC" -o "$TMP/e.folded"
check_eq "export --format folded: exit 0" 0 "$rc"
# an export: the hierarchical GPU stacks (one line per stack), weights in ns
check_eq "export --format folded: pure folded lines" "ok" "$(strict "$TMP/e.folded" | cut -d' ' -f1)"
check_eq "export --format folded: the metadata in the sidecar" "gpu 1" \
  "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["report"], d["unit_ns"])' "$TMP/e.folded.json")"
flamegraph_pl "export --format folded" "$TMP/e.folded"
run_gf export --format folded "$FIX/gprofiler/KERN_CSV.csv" -o "$TMP/k.folded"
check_eq "export --format folded of a stats CSV: pure folded lines" "ok 1" "$(strict "$TMP/k.folded")"
run_gf collapse --metadata "$FIX/gprofiler/KERN_CSV.csv"
printf '%s\n' "$out" >"$TMP/c.folded"
check_eq "collapse --metadata (a streamed CSV): stdout pure" "ok 1" "$(strict "$TMP/c.folded")"
check_contains "collapse --metadata: the metadata on stderr" "$err" '"unit_ns":1000'
run_gf collapse --metadata "$TC"
printf '%s\n' "$out" >"$TMP/c2.folded"
check_eq "collapse --metadata (an export): stdout pure" "ok" "$(strict "$TMP/c2.folded" | cut -d' ' -f1)"
flamegraph_pl "collapse" "$TMP/c2.folded"
if have_fixture real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite; then
  run_gf export --format launch-stacks "$FIX/real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$TMP/l.folded"
  check_eq "export --format launch-stacks: pure folded lines" "ok" "$(strict "$TMP/l.folded" | cut -d' ' -f1)"
  flamegraph_pl "export --format launch-stacks" "$TMP/l.folded"
fi
cp "$TC" "$TMP/before.sqlite"
run_gf diff "$TMP/before.sqlite" "$TC" --folded "$TMP/d.folded" -o "$TMP/d.html"
check_eq "diff --folded: exit 0" 0 "$rc"
check_eq "diff --folded: pure two-column lines" "ok" "$(strict "$TMP/d.folded" 2 | cut -d' ' -f1)"
check_contains "diff --folded: the metadata in the sidecar" "$(cat "$TMP/d.folded.json")" '"format":"difffolded"'
flamegraph_pl "diff --folded" "$TMP/d.folded"
printf 'return { extends = "default", flamegraph = { folded_metadata = false } }\n' >"$TMP/nometa.lua"
run_gf --policy "$TMP/nometa.lua" export --format folded "$TC" -o "$TMP/e.folded"
check "folded_metadata = false: no sidecar (an earlier one of gpuflame's removed)" test ! -e "$TMP/e.folded.json"

# --- read back: the sidecar is the metadata (a stats CSV's stacks: counts in µs, unit_ns 1000) ---
run_gf export --format folded "$FIX/gprofiler/KERN_CSV.csv" -o "$TMP/e.folded"
run_gf export --format speedscope "$TMP/e.folded" -o "$TMP/e.speedscope.json"
check_eq "speedscope of a folded file: the unit from its sidecar" microseconds \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profiles"][0]["unit"])' "$TMP/e.speedscope.json")"
cp "$TMP/e.folded" "$TMP/bare.folded"
run_gf export --format speedscope "$TMP/bare.folded" -o "$TMP/bare.speedscope.json"
check_eq "speedscope of a folded file without a sidecar: unit unknown" none \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profiles"][0]["unit"])' "$TMP/bare.speedscope.json")"
run_gf flamegraph "$TMP/d.folded" -o "$TMP/d2.html"
check_eq "flamegraph of the two-column file: read as a diff through its sidecar" "0|$TMP/d2.html" "$rc|$out"
{ printf '# %s\n' "$(cat "$TMP/e.folded.json")"; cat "$TMP/e.folded"; } >"$TMP/old.folded"
run_gf export --format speedscope "$TMP/old.folded" -o "$TMP/old.speedscope.json"
check_eq "an older file with a '# {json}' first line is still read" microseconds \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profiles"][0]["unit"])' "$TMP/old.speedscope.json")"
t_done
