#!/usr/bin/env bash
# gf-test: slow
# Offline flamegraph path, the multi-step checks: SQLite exports → per-kernel totals equal to an independent
# sqlite3 query (collapse and the page's data), the speedscope export parsed and checked. The single-command
# cases (reference CSVs, folded text, bad inputs with their exit codes, page options, exporters) are in
# tests/cases/flamegraph.cases.
. "$(dirname "$0")/../lib/t.sh"

G=$FIX/gprofiler

# SQLite exports: per-kernel totals (the leaves of `--levels kernel`; copies and memsets are leaves of their
# own) equal SUM(end-start) grouped by name, computed here with sqlite3, in integer ns
n_sql=0
for db in "$FIX"/real/*/*.sqlite; do
  [ -e "$db" ] || continue
  name=${db#"$FIX/real/"}
  has_k=$(sqlite3 -readonly "$db" "SELECT count(*) FROM sqlite_master WHERE name='CUPTI_ACTIVITY_KIND_KERNEL'")
  if [ "$has_k" = 1 ]; then
    n_sql=$((n_sql + 1))
    expected=$(sqlite3 -readonly -separator $'\t' "$db" \
      "SELECT s.value, SUM(k.[end] - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value" | sort)
    run_gf collapse --levels kernel "$db"
    got=$(grep -v '^\[CUDA mem' <<<"$out" | sed -n 's/^\(.*\) \([0-9]*\)$/\1\t\2/p' | sort)
    check_eq "$name: collapse totals = sqlite3 SUM(end-start) by name" "$expected" "$got"
    run_gf -q flamegraph --levels kernel "$db" -o "$TMP/sql.html"
    got_html=$(python3 - "$TMP/sql.html" <<'PY'
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'<script type="application/json" id="fg-data">(.*?)</script>', html, re.S).group(1))
tot = {}
nodes = d["nodes"]
for i in range(0, len(nodes), 3):
    n = d["names"][nodes[i]]
    if nodes[i + 2] == 0 and not n.startswith("[CUDA mem"):
        tot[n] = tot.get(n, 0) + nodes[i + 1]
for n in sorted(tot):
    print("%s\t%d" % (n, tot[n]))
PY
)
    check_eq "$name: flamegraph page totals = sqlite3 SUM(end-start) by name" "$expected" "$(sort <<<"$got_html")"
  else
    has_r=$(sqlite3 -readonly "$db" "SELECT count(*) FROM sqlite_master WHERE name='CUPTI_ACTIVITY_KIND_RUNTIME'")
    run_gf collapse "$db"
    if [ "$has_r" = 1 ]; then
      check_eq "$name (no kernels): falls back to CUDA API totals" 0 "$rc"
      check_contains "$name: API frames" "$out" "gpu;nsys;cuda_api;cudaMalloc "
    else
      check_eq "$name (no CUDA data): exit 5" 5 "$rc"
      check_contains "$name: says no GPU data and why" "$err" "no GPU data in this export (kernels: no CUPTI_ACTIVITY_KIND_KERNEL table"
    fi
  fi
done
[ "$n_sql" -gt 0 ] || skip "SQLite exports" "fixtures absent"

# exporters
if have_fixture gprofiler/API_CSV.csv; then
  run_gf export --format speedscope "$G/API_CSV.csv" -o "$TMP/api.speedscope.json"
  got=$(python3 - "$TMP/api.speedscope.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
p = d["profiles"][0]
assert p["type"] == "sampled" and len(p["samples"]) == len(p["weights"])
assert p["endValue"] == sum(p["weights"])
names = [f["name"] for f in d["shared"]["frames"]]
print(";".join(names[i] for i in p["samples"][0]), p["weights"][0], p["unit"])
PY
  )
  check_eq "export speedscope: valid sampled profile" "gpu;nsys;cuda_api;cudaMalloc 131012 microseconds" "$got"
else
  skip "export speedscope on the reference CSVs" "fixtures absent"
fi
t_done
