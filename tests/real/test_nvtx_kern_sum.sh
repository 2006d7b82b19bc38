#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier (issue 25 item 2): the hierarchical GPU flamegraph equals nsys's own attribution. For
# every real fixture with NVTX ranges and kernels (SQLite exports, and the dlprof report given to gpuflame
# as the .nsys-rep itself), plus the dlprof export with planted NVTX edge cases (a domain, a range named by
# textId, a start/end range around three launches, a zero-length range at its parent's end, an unended
# outermost range), the (range, kernel) sums of `gpuflame collapse --levels nvtx,kernel` equal the real
# `nsys stats --report nvtxkernsum` Total Time summed over PID/TID (tests/real/nvtx_kern_check.py), and the
# default stacks put NVTX frames between the process and the kernel with the same total.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "nvtx_kern_sum: flamegraph vs nsys"
command -v sqlite3 >/dev/null || { skip "nvtx_kern_sum" "no sqlite3 CLI"; exit 0; }

RT=$TOP/tests/real
W=$TMP/nvtx_kern
mkdir -p "$W"

# one_case LABEL DIR INPUT: DIR/x.sqlite is what nsys reads; INPUT is what gpuflame is given
one_case() {
  local label=$1 d=$2 input=$3
  rnsys stats --format csv --force-overwrite=true -o "$d/ns" --report nvtxkernsum "$d/x.sqlite"
  if [ "$rrc" -ne 0 ] || [ ! -s "$d/ns_nvtxkernsum.csv" ]; then
    not_ok "nvtx_kern_sum $label: nsys stats" "exit $rrc: $(tail -c 300 <<<"$rerr")"
    return
  fi
  run_gf collapse --nsys "$MEMO_NSYS" --levels nvtx,kernel "$input"
  if [ "$rc" -ne 0 ]; then not_ok "nvtx_kern_sum $label: gpuflame collapse" "exit $rc: $err"; return; fi
  printf '%s\n' "$out" >"$d/gf.folded"
  python3 "$RT/nvtx_kern_check.py" "nvtx_kern_sum $label" "$d/ns_nvtxkernsum.csv" "$d/gf.folded" "$d/x.sqlite" ||
    _t_failed=$((_t_failed + 1))
  run_gf collapse --nsys "$MEMO_NSYS" "$input"
  printf '%s\n' "$out" >"$d/default.folded"
  local why
  why=$(python3 - "$d/default.folded" "$d/gf.folded" "$d/ns_nvtxkernsum.csv" <<'PY'
import csv, sys
def load(p):
    out = []
    for line in open(p):
        if line.strip() and not line.startswith("#"):
            s, c = line.rstrip("\n").rsplit(" ", 1)
            out.append((s.split(";"), int(c)))
    return out
dflt, lv = load(sys.argv[1]), load(sys.argv[2])
ranges = {r["NVTX Range"].replace(";", ",") for r in csv.DictReader(open(sys.argv[3])) if r["NVTX Range"] != "None"}
if sum(c for _, c in dflt) != sum(c for _, c in lv):
    print("totals differ: default %d, --levels nvtx,kernel %d" % (sum(c for _, c in dflt), sum(c for _, c in lv)))
elif not any(len(f) >= 4 and f[1] in ranges for f, _ in dflt):
    print("no default stack has an NVTX frame right under its process")
PY
)
  if [ -z "$why" ]; then ok "nvtx_kern_sum $label: default stacks: process;NVTX…;api;kernel, same total"
  else not_ok "nvtx_kern_sum $label: default stacks" "$why"; fi
}

has_nvtx_kernels() { # DB
  [ "$(sqlite3 "$1" "SELECT (SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71)) > 0 AND
    (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) > 0" 2>/dev/null)" = 1 ]
}

n=0
for f in "$FIX"/real/*/*.sqlite "$FIX"/reports/*/*.sqlite; do
  [ -e "$f" ] || continue
  has_nvtx_kernels "$f" || continue
  n=$((n + 1)); d=$W/$n; mkdir -p "$d"
  cp "$f" "$d/x.sqlite"
  one_case "${f#"$FIX/"}" "$d" "$d/x.sqlite"
done
if [ "$n" -eq 0 ]; then skip "nvtx_kern_sum" "fixtures absent"; exit 0; fi

# the report itself: gpuflame exports it through the real nsys
rep=reports/dlprof/nsys_profile.nsys-rep
if have_fixture "$rep"; then
  d=$W/rep; mkdir -p "$d"; cp "$FIX/$rep" "$d/"
  rnsys export --type sqlite --force-overwrite=true -o "$d/x.sqlite" "$d/nsys_profile.nsys-rep"
  if [ "$rrc" -eq 0 ] && has_nvtx_kernels "$d/x.sqlite"; then one_case "$rep" "$d" "$d/nsys_profile.nsys-rep"
  else not_ok "nvtx_kern_sum $rep: nsys export" "exit $rrc: $(tail -c 300 <<<"$rerr")"; fi
fi

# PyTorch emit_nvtx names (issue 40): the aiprof report, ~19k `aten::…, seq = N` ranges, given as the report;
# its NVTX frames are the grouped names (policy nvtx.group) and each grouped (range, kernel) total is the sum of
# nsys's rows whose ranges group to it (nvtx_kern_check.py groups them with its own regular expression)
rep=reports/aiprof/baseline_nvtx.nsys-rep
if have_fixture "$rep"; then
  d=$W/aiprof; mkdir -p "$d"; cp "$FIX/$rep" "$d/"
  rnsys export --type sqlite --force-overwrite=true -o "$d/x.sqlite" "$d/baseline_nvtx.nsys-rep"
  if [ "$rrc" -eq 0 ] && has_nvtx_kernels "$d/x.sqlite"; then
    one_case "$rep" "$d" "$d/baseline_nvtx.nsys-rep"
    raw=$(sqlite3 "$d/x.sqlite" "SELECT count(DISTINCT coalesce(text, (SELECT value FROM StringIds WHERE id = textId)))
      FROM NVTX_EVENTS WHERE eventType = 59")
    frames=$(sed 's/ [0-9]*$//' "$d/gf.folded" | tr ';' '\n' | sort -u | grep -c ', seq = ') || true
    if [ "$frames" -eq 0 ] && [ "$raw" -gt 1000 ]; then ok "nvtx_kern_sum $rep: no \`seq = \` frame left ($raw raw names)"
    else not_ok "nvtx_kern_sum $rep: grouped frames" "$frames frames with ', seq = ' ($raw raw names)"; fi
  else not_ok "nvtx_kern_sum $rep: nsys export" "exit $rrc: $(tail -c 300 <<<"$rerr")"; fi
fi

# planted NVTX edge cases on the dlprof export (as tests/real/test_stats_equal.sh derives them)
src=reports/dlprof/nsys_profile.sqlite
if have_fixture "$src"; then
  d=$W/derived; mkdir -p "$d"; cp "$FIX/$src" "$d/x.sqlite"; chmod u+w "$d/x.sqlite"
  if derive_nvtx_edges "$d/x.sqlite"; then
    one_case "derived/dlprof-nvtx-edges.sqlite" "$d" "$d/x.sqlite"
    check_contains "nvtx_kern_sum derived: a start/end range is a frame" "$(cat "$d/gf.folded")" \
      "derived: start/end around launches;"
  else
    not_ok "nvtx_kern_sum derived export" "$(cat "$d/x.sqlite.err")"
  fi
fi
t_done
