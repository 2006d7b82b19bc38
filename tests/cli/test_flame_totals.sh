#!/usr/bin/env bash
# gf-test: slow
# One number in every view (issue 24 item 6): on every real SQLite export with GPU work, the GPU time in
# integer ns agrees across `stats` (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum), the flamegraph page's data,
# the folded output, the speedscope export's sampled profile (and its stacks are the folded stacks), and
# `diff --json` of the export against itself; each against independent SQL over the export: the kernels'
# SUM(end - start), and that plus the copies' and memsets'. No µs truncation anywhere. The speedscope
# export's evented profiles (one per stream) nest properly, never go back in time and hold every operation.
. "$(dirname "$0")/../lib/t.sh"
command -v sqlite3 >/dev/null || { skip "flame totals" "no sqlite3 CLI"; exit 0; }

n=0
for f in "$FIX"/real/*/*.sqlite "$FIX"/reports/*/*.sqlite; do
  [ -e "$f" ] || continue
  k=$(sqlite3 -readonly "$f" "SELECT coalesce(sum(end - start), 0) FROM CUPTI_ACTIVITY_KIND_KERNEL" 2>/dev/null) || continue
  [ -n "$k" ] && [ "$k" != 0 ] || continue
  m=0
  for t in CUPTI_ACTIVITY_KIND_MEMCPY CUPTI_ACTIVITY_KIND_MEMSET; do
    v=$(sqlite3 -readonly "$f" "SELECT coalesce(sum(end - start), 0) FROM $t" 2>/dev/null) && m=$((m + v))
  done
  g=$((k + m))
  ops=0
  for t in CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_MEMCPY CUPTI_ACTIVITY_KIND_MEMSET; do
    v=$(sqlite3 -readonly "$f" "SELECT count(*) FROM $t" 2>/dev/null) && ops=$((ops + v))
  done
  n=$((n + 1)); d=$TMP/$n; mkdir -p "$d"
  label=${f#"$FIX/"}
  run_gf stats -r cuda_gpu_kern_sum,cuda_gpu_mem_time_sum -o "$d/st" "$f"
  sk=$(python3 -c "import csv,sys; print(sum(int(r['Total Time (ns)']) for r in csv.DictReader(open(sys.argv[1]))))" \
    "$d/st_cuda_gpu_kern_sum.csv" 2>&1)
  sm=0
  [ -s "$d/st_cuda_gpu_mem_time_sum.csv" ] && sm=$(python3 -c "import csv,sys
print(sum(int(r['Total Time (ns)']) for r in csv.DictReader(open(sys.argv[1]))))" "$d/st_cuda_gpu_mem_time_sum.csv" 2>&1)
  run_gf collapse "$f"
  printf '%s\n' "$out" >"$d/gf.folded"
  run_gf flamegraph "$f" -o "$d/fg.html"
  run_gf export -f speedscope "$f" -o "$d/ss.json"
  run_gf diff --json "$f" "$f"
  printf '%s\n' "$out" >"$d/diff.json"
  got=$(python3 - "$d" <<'PY'
import json, re, sys
d = sys.argv[1]
lines = [l.rstrip("\n").rsplit(" ", 1) for l in open(d + "/gf.folded") if l.strip()]
folded = sum(int(c) for _, c in lines)
folded_k = sum(int(c) for s, c in lines if not s.split(";")[-1].startswith("[CUDA mem"))
html = open(d + "/fg.html").read()
page = json.loads(re.search(r'id="fg-data">(.*?)</script>', html, re.S).group(1))["total"]
ss = json.load(open(d + "/ss.json"))
sp = ss["profiles"][0]
frames = [f["name"] for f in ss["shared"]["frames"]]
same = sorted((";".join(frames[i] for i in s), w) for s, w in zip(sp["samples"], sp["weights"])) == \
    sorted((s, int(c)) for s, c in lines)
# the evented profiles (one per stream): opens and closes nest, time never goes back, every op is there
ev_ok, n_ops = True, 0
for p in ss["profiles"][1:]:
    st, at = [], None
    ev_ok = ev_ok and p["type"] == "evented" and p["unit"] == "nanoseconds"
    for e in p["events"]:
        ev_ok = ev_ok and (at is None or e["at"] >= at)
        at = e["at"]
        if e["type"] == "O":
            st.append(e["frame"])
        else:
            ev_ok = ev_ok and bool(st) and st.pop() == e["frame"]
            n_ops += not st
    ev_ok = ev_ok and not st
same = same and ev_ok
df = json.load(open(d + "/diff.json"))
diff_k = sum(r["before"]["total_ns"] for r in df["kernels"] if not r["name"].startswith("[CUDA mem"))
print(folded, folded_k, page, sum(sp["weights"]), sp["unit"], same, n_ops, df["total"]["before_ns"], diff_k)
PY
)
  want="$g $k $g $g nanoseconds True $ops $g $k"
  check_eq "flame totals $label: folded, its kernels, page, speedscope (ns, same stacks; per-stream evented profiles nest and hold every op), diff, its kernels" "$want" "$got"
  check_eq "flame totals $label: stats cuda_gpu_kern_sum + cuda_gpu_mem_time_sum" "$k $m" "$sk $sm"
done
[ "$n" -gt 0 ] || skip "flame totals" "fixtures absent"
t_done
