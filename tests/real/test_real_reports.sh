#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier: flamegraph, timeline and export of the real GPU reports in the fixtures (nsys 2020.3
# .qdrep to 2022.1 .nsys-rep), each exported once through the real `nsys export`; and a real
# 2022.4 `gpukernsum` CSV (with its GridXYZ/BlockXYZ columns) read back by `flamegraph`.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: reports"
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

for rel in reports/cori-omp/report1.qdrep reports/alpa/examples_jax_profile_mem.nsys-rep \
           reports/dlprof/nsys_profile.nsys-rep reports/abacus/report1.qdrep; do
  if ! have_fixture "$rel"; then skip "report $rel" "fixture absent ($FIX)"; continue; fi
  name=$(basename "$(dirname "$rel")")
  d=$TMP/$name; mkdir -p "$d"
  cp "$FIX/$rel" "$d/"                       # nsys writes beside its input: never into the fixtures
  in=$d/$(basename "$rel")
  # The reference: kernels in nsys's own export of the same report.
  rnsys export --type sqlite --force-overwrite true --output "$d/ref.sqlite" "$in"
  kernels=$(sqlite3 "$d/ref.sqlite" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL" 2>/dev/null || echo 0)
  run_gf flamegraph --nsys "$MEMO_NSYS" "$in" -o "$d/flame.html"
  check_eq "$name: flamegraph exit 0" 0 "$rc"
  check "$name: flamegraph page" test -s "$d/flame.html"
  check "$name: no export left beside the report" test -z "$(ls "$d"/*.sqlite 2>/dev/null | grep -v ref.sqlite)"
  run_gf_env NSYS_PATH="$MEMO_NSYS" -- timeline "$in" -o "$d/timeline.html"
  check_eq "$name: timeline exit 0" 0 "$rc"
  check_contains "$name: timeline page names the input" "$(cat "$d/timeline.html")" "\"source\":\"$(basename "$rel")\""
  check_not_contains "$name: not the temporary export" "$(cat "$d/timeline.html")" "export.sqlite"
  run_gf_env NSYS_PATH="$MEMO_NSYS" -- export --format chrome-trace "$in" -o "$d/trace.json"
  check_eq "$name: chrome-trace exit 0" 0 "$rc"
  got=$(python3 - "$d/trace.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
print(sum(1 for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"))
PY
)
  check_eq "$name: chrome-trace has every kernel of nsys's export ($kernels)" "$kernels" "$got"
done

# A real 2022.4 kern sum CSV (GridXYZ/BlockXYZ columns, one row per name+grid+block) → flamegraph totals.
if have_fixture real/parallel-sheet-simulator/tile_8x8.sqlite; then
  cp "$FIX/real/parallel-sheet-simulator/tile_8x8.sqlite" "$TMP/tile.sqlite"
  rnsys stats --report gpukernsum --format csv --force-overwrite=true -o "$TMP/k" "$TMP/tile.sqlite"
  check_contains "2022.4 gpukernsum: GridXYZ column present" "$(head -1 "$TMP/k_gpukernsum.csv")" "GridXYZ"
  run_gf collapse --unit-ns 1 "$TMP/k_gpukernsum.csv"
  from_csv=$(grep -v '^#' <<<"$out" | sort)
  # the export's hierarchical stacks with only the kernel level: one line per kernel, in ns
  run_gf collapse --levels kernel "$TMP/tile.sqlite"
  from_sqlite=$(grep -v '^\[CUDA mem' <<<"$out" | sed 's/^/gpu;nsys;cuda_kernel;/' | sort)
  check_eq "2022.4 gpukernsum CSV: per-kernel totals equal the export's" "$from_sqlite" "$from_csv"
fi
# gpuflame diff: a report (exported here by the real nsys) against the export committed with it — all zero,
# the same recording nsys (from the install path, not the exporting version), exit 0.
if have_fixture reports/dlprof/nsys_profile.nsys-rep && have_fixture reports/dlprof/nsys_profile.sqlite; then
  mkdir -p "$TMP/dd" && cp "$FIX/reports/dlprof/nsys_profile.nsys-rep" "$TMP/dd/"
  run_gf diff --nsys "$MEMO_NSYS" "$TMP/dd/nsys_profile.nsys-rep" "$FIX/reports/dlprof/nsys_profile.sqlite" --json
  check_eq "diff report vs its export: exit 0" 0 "$rc"
  printf '%s\n' "$out" >"$TMP/dd.json"
  check_eq "diff report vs its export: all zero, no caveat, recorded by 2022.1.3 on both sides" "0|0|2022.1.3 2022.1.3" \
    "$(json "$TMP/dd.json" 'd["total"]["delta_ns"]')|$(json "$TMP/dd.json" 'len(d["caveats"])')|$(json "$TMP/dd.json" 'd["before"]["meta"]["recorded_version"] + " " + d["after"]["meta"]["recorded_version"]')"
  check "diff: no export left beside the report" test -z "$(ls "$TMP/dd"/*.sqlite 2>/dev/null)"
fi
t_done
