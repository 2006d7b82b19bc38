#!/usr/bin/env bash
# Offline flamegraph path: reference CSVs → exact folded lines, SQLite exports → per-kernel totals equal to
# an independent sqlite3 query, folded round trip, exporters, bad inputs with the documented exit codes.
. "$(dirname "$0")/../lib/t.sh"

G=$FIX/gprofiler
if have_fixture gprofiler/KERN_CSV.csv; then
  run_gf collapse "$G/KERN_CSV.csv"
  check_eq "KERN_CSV → reference line" "gpu;nsys;cuda_kernel;burn(float *, int, int) 28918" "$out"
  run_gf collapse "$G/API_CSV.csv"
  check_eq "API_CSV → reference lines in input order" \
    "$(printf 'gpu;nsys;cuda_api;cudaMalloc 131012\ngpu;nsys;cuda_api;cudaDeviceSynchronize 28943')" "$out"
  for f in GPU_TRACE_CSV API_TRACE_CSV; do
    run_gf collapse "$G/$f.csv"
    check_eq "$f is a timeline input, refused for stacks (exit 6)" 6 "$rc"
    check_contains "$f refusal names the report kind" "$err" "trace CSV cannot be used here"
  done
  run_gf collapse --metadata "$G/KERN_CSV.csv"
  check_contains "--metadata prints a # {json} first line" "$(head -1 <<<"$out")" '# {"countname":"us"'
  run_gf collapse --unit-ns 1 "$G/KERN_CSV.csv"
  check_eq "--unit-ns 1 gives nanoseconds" "gpu;nsys;cuda_kernel;burn(float *, int, int) 28918591" "$out"
else
  skip "reference CSVs" "fixtures absent"
fi

if have_fixture real/vernier/nsys_stats_cuda_api_sum.out; then
  run_gf collapse "$FIX/real/vernier/nsys_stats_cuda_api_sum.out"
  check_eq "captured nsys stats stdout: preamble skipped, 8 rows" 8 "$(wc -l <<<"$out")"
  check_eq "captured stdout: first row" "gpu;nsys;cuda_api;cudaMemcpy 199253" "$(head -1 <<<"$out")"
fi

if have_fixture real/roboflow-inference/cuda_gpu_kern_sum.csv; then
  run_gf collapse "$FIX/real/roboflow-inference/cuda_gpu_kern_sum.csv"
  check_eq "real 2025.1 kern sum: templated name kept whole" \
    "gpu;nsys;cuda_kernel;$(tail -1 "$FIX/real/roboflow-inference/cuda_gpu_kern_sum.csv" | sed 's/^[^"]*"//; s/"$//') 6" "$out"
fi

# Old (2020.x) header era, quoted names with ';' and commas, CRLF, BOM, a weight that does not parse
printf '\xef\xbb\xbfTime(%%),Total Time (ns),Instances,Average,Minimum,Maximum,Name\r\n' >"$TMP/old.csv"
printf '60.0,2500,3,1.0,1,1,"k<a;b>, x"\r\n40.0,n/a,1,1,1,1,tiny\r\n1.0,999,1,1,1,1,"  "\r\n' >>"$TMP/old.csv"
run_gf collapse "$TMP/old.csv"
check_eq "unparsed weight is an error by default (exit 6, file:line:col)" \
  "6|gpuflame: $TMP/old.csv:3:2 (column 'Total Time (ns)'): invalid number 'n/a'" "$rc|$err"
printf 'return { flamegraph = { bad_weight = "one" } }\n' >"$TMP/bw_one.lua"
run_gf --policy "$TMP/bw_one.lua" collapse "$TMP/old.csv"
check_eq "2020 header, ';' → ',', bad_weight=one: unparsed weight → 1, empty name skipped" \
  "$(printf 'gpu;nsys;cuda_kernel;k<a,b>, x 2\ngpu;nsys;cuda_kernel;tiny 1')" "$out"

# SQLite exports: per-kernel totals equal SUM(end-start) grouped by name, computed here with sqlite3
printf 'return { flamegraph = { unit_ns = 1 } }\n' >"$TMP/ns.lua"
n_sql=0
for db in "$FIX"/real/*/*.sqlite; do
  [ -e "$db" ] || continue
  name=${db#"$FIX/real/"}
  has_k=$(sqlite3 -readonly "$db" "SELECT count(*) FROM sqlite_master WHERE name='CUPTI_ACTIVITY_KIND_KERNEL'")
  if [ "$has_k" = 1 ]; then
    n_sql=$((n_sql + 1))
    expected=$(sqlite3 -readonly -separator $'\t' "$db" \
      "SELECT s.value, SUM(k.[end] - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value" | sort)
    run_gf --policy "$TMP/ns.lua" collapse "$db"
    got=$(sed -n 's/^gpu;nsys;cuda_kernel;\(.*\) \([0-9]*\)$/\1\t\2/p' <<<"$out" | sort)
    check_eq "$name: collapse totals = sqlite3 SUM(end-start) by name" "$expected" "$got"
    run_gf --policy "$TMP/ns.lua" -q flamegraph "$db" -o "$TMP/sql.html"
    got_html=$(python3 - "$TMP/sql.html" <<'PY'
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'<script type="application/json" id="fg-data">(.*?)</script>', html, re.S).group(1))
tot = {}
nodes = d["nodes"]
for i in range(0, len(nodes), 3):
    if nodes[i + 2] == 3:
        n = d["names"][nodes[i]]
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

# .nsys-rep input: exported to SQLite through (the fake) nsys into a temporary directory
if have_fixture real/test-cuda/report1.sqlite; then
  echo "fake report" >"$TMP/run.nsys-rep"
  FAKE_NSYS_SQLITE=real/test-cuda/report1.sqlite run_gf collapse --nsys "$FAKE_NSYS" "$TMP/run.nsys-rep"
  check_eq ".nsys-rep → nsys export → kernel totals" "gpu;nsys;cuda_kernel;add_parallel(const float *, const float *, float *, int) 536" "$out"
  check "nsys-rep: no SQLite left beside the report" test ! -e "$TMP/run.sqlite"
  FAKE_NSYS_FAIL=export:empty-output run_gf collapse --nsys "$FAKE_NSYS" "$TMP/run.nsys-rep"
  check_eq ".nsys-rep with a failing export: exit 6" 6 "$rc"
  check_contains ".nsys-rep with a failing export: says why" "$err" "nsys export --type sqlite failed: empty SQLite file"
  PATH=/usr/bin:/bin run_gf --policy "$TOP/tests/data/no_host_nsys.lua" collapse --nsys /nonexistent/nsys "$TMP/run.nsys-rep"
  check_eq ".nsys-rep without nsys: exit 3" 3 "$rc"
fi

# folded round trip (blank, comment and bad lines)
printf '# {"x":1}\n\na;b;c 5\nbad line without count\na;b 3\n# comment\na;b;c 2\nx;y 1.0\n' >"$TMP/in.folded"
run_gf collapse "$TMP/in.folded"
check_eq "folded: aggregated, first-seen order" "$(printf 'a;b;c 7\na;b 3\nx;y 1')" "$out"
check_contains "folded: bad lines counted and reported" "$err" "skipped 1 malformed line (first: line 4: the count after the last space is not a non-negative number)"
printf 'only garbage\nmore garbage\n' >"$TMP/bad.folded"
run_gf collapse "$TMP/bad.folded"
check_eq "unrecognised text: exit 6" 6 "$rc"
check_contains "unrecognised text: names the file" "$err" "$TMP/bad.folded: unrecognised input"

# bad inputs
: >"$TMP/empty.csv"
run_gf collapse "$TMP/empty.csv"
check_eq "empty file: exit 5" 5 "$rc"
printf 'Time (%%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n' >"$TMP/hdr.csv"
run_gf collapse "$TMP/hdr.csv"
check_eq "header-only kern sum: exit 5" 5 "$rc"
check_contains "header-only: says no rows" "$err" "has no rows"
printf 'Time (%%),Total Time (ns),Instances,Name\n1,2,3,"open\n' >"$TMP/unterminated.csv"
run_gf collapse "$TMP/unterminated.csv"
check_eq "unterminated quote: exit 6" 6 "$rc"
check_contains "unterminated quote: file and line" "$err" "$TMP/unterminated.csv:2: unterminated quoted field"
printf 'Time (%%),Total Time (ns),Instances,Name\n1,2,3\n' >"$TMP/short.csv"
run_gf collapse "$TMP/short.csv"
check_contains "short row: file and line" "$err" "$TMP/short.csv:2: row has 3 fields, the header has 4"
printf 'Total Time (ns),Instances,Kernel Name\n' >"$TMP/x.csv"
run_gf collapse /nonexistent/file.csv
check_eq "missing file: exit 6" 6 "$rc"
printf 'SQLite format 3\0garbage garbage garbage' >"$TMP/broken.sqlite"
run_gf collapse "$TMP/broken.sqlite"
check_eq "corrupt SQLite: exit 6" 6 "$rc"

# flamegraph page: options, escaping, self-contained
hostile='</script><img src=x onerror=alert(1)>'
printf 'gpu;nsys;cuda_kernel;%s 10\ngpu;nsys;cuda_kernel;k2 5\n' "$hostile" >"$TMP/h.folded"
run_gf flamegraph "$TMP/h.folded" -o "$TMP/h.html" --title "<T&>" --countname ms --inverted --minwidth 2 --colors io
check_eq "flamegraph: exit 0" 0 "$rc"
check_eq "flamegraph: prints the page path" "$TMP/h.html" "$out"
html=$(cat "$TMP/h.html")
check_not_contains "page: no raw hostile markup" "$html" "$hostile"
check_not_contains "page: no http:// or https://" "$html" "http"
check_contains "page: title escaped" "$html" "<title>&lt;T&amp;&gt;</title>"
check_contains "page: options embedded" "$html" '"colors":"io","countname":"ms","inverted":true,"minwidth":2'
run_gf flamegraph "$TMP/h.folded" -o "$TMP/h2.html" --colors nosuch
check_eq "unknown palette: usage error" 2 "$rc"
run_gf flamegraph "$TMP/empty.csv" -o "$TMP/none.html"
check "no page written on failure" test ! -e "$TMP/none.html"

# exporters
if have_fixture gprofiler/API_CSV.csv; then
  run_gf export --format folded "$G/API_CSV.csv" -o "$TMP/api.folded"
  check_eq "export folded" "$(printf '# {"countname":"us","generator":"gpuflame","report":"cuda_api_sum","unit_ns":1000}\ngpu;nsys;cuda_api;cudaMalloc 131012\ngpu;nsys;cuda_api;cudaDeviceSynchronize 28943')" "$(cat "$TMP/api.folded")"
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
  run_gf export --format html-flamegraph "$G/KERN_CSV.csv" -o "$TMP/k.html" --title "K"
  check_contains "export html-flamegraph" "$(cat "$TMP/k.html")" "<title>K</title>"
else
  skip "exporters on the reference CSVs" "fixtures absent"
fi
run_gf export --list
check_contains "export --list shows folded" "$out" "folded"
check_contains "export --list shows speedscope" "$out" "speedscope"
t_done
