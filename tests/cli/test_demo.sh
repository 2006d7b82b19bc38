#!/usr/bin/env bash
# make demo (tests/demo.sh): the sample export is generated with the real nsys schema, labelled as a sample,
# and rendered; its kernel totals match an independent sqlite3 query.
. "$(dirname "$0")/../lib/t.sh"
command -v python3 >/dev/null || { skip "demo" "python3 absent"; exit 0; }
out=$(GF_DEMO_OUT=$TMP/out bash "$TOP/tests/demo.sh" "$GF" 2>&1)
check_eq "demo: exit 0" 0 $?
check_contains "demo: prints the flamegraph path" "$out" "flamegraph:      $TMP/out/flamegraph.html"
DB=$TMP/out/sample-export.sqlite
check_contains "sample is labelled as synthetic" "$(sqlite3 -readonly "$DB" "SELECT value FROM META_DATA_EXPORT WHERE name='EXPORT_PRODUCT_NAME'")" "sample export (synthetic"
for tbl in StringIds CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_RUNTIME CUPTI_ACTIVITY_KIND_MEMCPY TARGET_INFO_GPU ThreadNames CUDA_CALLCHAINS NVTX_EVENTS; do
  check_eq "sample has $tbl rows" 1 "$(sqlite3 -readonly "$DB" "SELECT count(*) > 0 FROM $tbl")"
done
again=$TMP/again.sqlite
python3 "$TOP/tests/gen/sample_export.py" "$again"
check_eq "generator is deterministic" "$(sqlite3 "$DB" .dump | md5sum)" "$(sqlite3 "$again" .dump | md5sum)"
expected=$(sqlite3 -readonly "$DB" "SELECT s.value || ' ' || SUM(k.[end] - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value" | sort)
# the hierarchical stacks (process;NVTX…;launch;kernel, ns): the kernel leaves summed by name
got=$(grep -v '^#' "$TMP/out/gpu.folded" | python3 -c '
import sys, collections
t = collections.Counter()
for line in sys.stdin:
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    leaf = stack.split(";")[-1]
    if not leaf.startswith("[CUDA mem"):
        t[leaf] += int(count)
for k in t:
    print(k, t[k])' | sort)
check_eq "demo folded kernel totals = sqlite3 SUM(end-start) by name (ns)" "$expected" "$got"
check_not_contains "demo page: self-contained" "$(cat "$TMP/out/flamegraph.html")" "http"
t_done
