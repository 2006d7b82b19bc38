#!/usr/bin/env bash
# gpuflame analyze on the spec's variants (docs/spec/NVTX_ANALYSIS.md §6, §7, §11, §13): every warning with its
# exact text and order, hierarchy over names, scoped names, CPU-only captures, names with commas,
# quotes and domains, CRLF files, the old synthetic GPU row.
. "$(dirname "$0")/../lib/t.sh"

RF=real/roboflow-inference
if ! have_fixture "$RF/nvtx_pushpop_trace.csv"; then skip "analyze variants" "fixtures absent"; t_done; fi
RF=$FIX/$RF
GOLD=$TOP/tests/data/nvtx_roboflow_analysis.json
EDIT="$GF run $TOP/tests/lib/nvtx_csv.lua"
V2025="NVIDIA Nsight Systems version 2025.1.3"
R=$TMP/run H=$TMP/run/stats/nsys_nvtx_pushpop_trace.csv P=$TMP/run/stats/nsys_nvtx_gpu_proj_trace.csv

mkrun() {
  flush
  rm -rf "$R"; mkdir -p "$R/stats"
  cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$R/manifest.yaml"
  cp "$RF/nvtx_pushpop_trace.csv" "$H"
  cp "$RF/nvtx_gpu_proj_trace.csv" "$P"
}
# expect NAME WANT EXPR: checked in one Python run per analysis (flush)
_names=() _wants=() _exprs=()
expect() { _names+=("$1"); _wants+=("$2"); _exprs+=("$3"); }
flush() {
  [ ${#_exprs[@]} -eq 0 ] && return 0
  q "${_exprs[@]}"
  for i in "${!_names[@]}"; do check_eq "${_names[$i]}" "${_wants[$i]}" "${res[$i]:-}"; done
  _names=() _wants=() _exprs=()
}
analyze() { flush; run_gf analyze --run-dir "$R" --no-export --nsys-version "${VERSION:-$V2025}"; }
# expect NAME WANT EXPR: a Python expression over the analysis `d` (and the golden `g`) compared as JSON.
# flush snapshots analysis.json; all expressions run in one Python process at the end (finish).
_names=() _wants=() _exprs=() _files=() _pending=() _snap=0
expect() { _pending+=("$1"$'\x1f'"$2"$'\x1f'"$3"); }
flush() {
  [ ${#_pending[@]} -eq 0 ] && return 0
  _snap=$((_snap + 1)); cp "$R/analysis.json" "$TMP/snap$_snap.json"
  local p
  for p in "${_pending[@]}"; do
    IFS=$'\x1f' read -r n w e <<<"$p"
    _names+=("$n"); _wants+=("$w"); _exprs+=("$e"); _files+=("$TMP/snap$_snap.json")
  done
  _pending=()
}
finish() {
  flush
  local args=() i
  for i in "${!_exprs[@]}"; do args+=("${_files[$i]}" "${_exprs[$i]}"); done
  mapfile -t res < <(python3 - "$GOLD" "${args[@]}" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
a = sys.argv[2:]
for f, e in zip(a[0::2], a[1::2]):
    d = json.load(open(f))
    host = lambda n: [r for r in d["host_ranges"] if r["name"] == n]
    gpu = lambda n: [r for r in d["gpu_projected_ranges"] if r["name"] == n]
    try:
        print(json.dumps(eval(e), sort_keys=True))
    except Exception as x:
        print("error: %r" % x)
PY
)
  for i in "${!_names[@]}"; do check_eq "${_names[$i]}" "${_wants[$i]}" "${res[$i]:-}"; done
}
analyze() { flush; run_gf analyze --run-dir "$R" --no-export --nsys-version "${VERSION:-$V2025}"; }

# --- warnings ---------------------------------------------------------------------------------------
mkrun
VERSION="NVIDIA Nsight Systems version 2026.2.0.123-261338342291v0" analyze
expect "2026.2: exactly one warning" \
  '["NVIDIA Nsight Systems version 2026.2.0.123-261338342291v0 has not been validated; report parsing is validated against Nsight Systems 2025.1."]' \
  'd["warnings"]'
VERSION="NVIDIA Nsight Systems version 2025.10.1" analyze
expect "2025.10 is not 2025.1" '"NVIDIA Nsight Systems version 2025.10.1 has not been validated; report parsing is validated against Nsight Systems 2025.1."' \
  'd["warnings"][0]'
VERSION="NVIDIA Nsight Systems version 2025.1.1.0" analyze
expect "2025.1.1.0 (Nsight Compute's nsys) validated" '[]' 'd["warnings"]'
VERSION="nsys 12025.1" analyze
expect "no \\b(\\d{4})\\.(\\d+)\\b match: cannot determine" \
  '["Could not determine the Nsight Systems version; report parsing is validated against Nsight Systems 2025.1."]' 'd["warnings"]'

mkrun; sed -i 's/iterations: 2,/iterations: 3,/' "$R/manifest.yaml"
analyze
expect "iterations: 3 → missing [2]" '["Missing expected iteration indexes: [2]."]' 'd["warnings"]'
expect "iterations: 3 → workload copied verbatim" '{"iterations": 3, "record_loading": "eager", "warmup": 1}' \
  'd["run"]["workload"]'

mkrun; $EDIT "$H" rename 7 ":iteration 2"; $EDIT "$P" rename 7 ":iteration 2"
analyze
expect "RangeId 7 renamed iteration 2: missing then unexpected" \
  '["Missing expected iteration indexes: [1].", "Unexpected iteration indexes: [2]."]' 'd["warnings"]'
expect "RangeId 7 renamed iteration 2: indexes" '[0, 2]' '[i["index"] for i in d["iterations"]]'

for kind in zero headeronly; do
  mkrun
  if [ $kind = zero ]; then : >"$P"; else $EDIT "$P" headeronly; fi
  analyze
  check_eq "CPU-only capture ($kind GPU report): exit 0" 0 "$rc"
  expect "CPU-only capture ($kind): warnings" \
    "[\"Missing GPU projections for iterations: [0, 1].\", \"GPU projection report does not contain capture range 'profile-target'.\"]" \
    'd["warnings"]'
  expect "CPU-only capture ($kind): GPU data null or empty, never zero" \
    '[[], null, 0, [null, null]]' \
    '[d["gpu_projected_ranges"], d["iteration_summary"]["gpu_projected"], d["iteration_summary"]["gpu_projected_iterations"], [i["gpu_projection"] for i in d["iterations"]]]'
  expect "CPU-only capture ($kind): host data unchanged" 'true' \
    'd["host_ranges"] == g["host_ranges"] and d["iteration_summary"]["host_inclusive"] == g["iteration_summary"]["host_inclusive"]'
done

# warning order with several at once: version, missing expected, GPU projections, capture range
mkrun; : >"$P"; sed -i 's/iterations: 2,/iterations: 3,/' "$R/manifest.yaml"
VERSION="unknown" analyze
expect "warnings in the spec's order" \
  "[\"Could not determine the Nsight Systems version; report parsing is validated against Nsight Systems 2025.1.\", \"Missing expected iteration indexes: [2].\", \"Missing GPU projections for iterations: [0, 1].\", \"GPU projection report does not contain capture range 'profile-target'.\"]" \
  'd["warnings"]'
# Warnings 3 (missing host ranges) and 5 (host report lacks the capture range) cannot fire under §6/§7
# (GPU iterations come from host keys; the capture range is always a host range) — the spec says so.

# GPU iteration without its own row: only iteration 1's projection removed
mkrun; $EDIT "$P" drop 7
analyze
expect "GPU row of iteration 1 missing" '["Missing GPU projections for iterations: [1]."]' 'd["warnings"]'
expect "GPU summary over the one projection" '[1, 191620]' \
  '[d["iteration_summary"]["gpu_projected_iterations"], d["iteration_summary"]["gpu_projected"]["total_ns"]]'

# --- hierarchy, not names ------------------------------------------------------------------------------
mkrun; $EDIT "$H" rename 3 ":iteration 0"; $EDIT "$P" rename 3 ":iteration 0"
analyze
expect "nested 'iteration 0' is an ordinary range: iterations unchanged" '[0, 1]' '[i["index"] for i in d["iterations"]]'
expect "nested 'iteration 0': host range, 1 instance, 210176" '[1, 210176]' \
  '[host("iteration 0")[0]["instances"], host("iteration 0")[0]["inclusive"]["total_ns"]]'
expect "nested 'iteration 0': GPU range projected 2112" '2112' 'gpu("iteration 0")[0]["projected"]["total_ns"]'
expect "nested 'iteration 0': iteration values from the harness ranges" '[431993, 191620]' \
  '[d["iterations"][0]["host"]["inclusive_ns"], d["iterations"][0]["gpu_projection"]["projected_ns"]]'
expect "nested 'iteration 0': no warnings" '[]' 'd["warnings"]'

# a top-level `iteration 5` on another thread, and a child on that thread: ordinary ranges with scope
mkrun
printf '1,2,1,0,1,:iteration 5,2124,77,0,1,50,,,\n3,4,1,0,1,:other,2124,77,0,1,51,,,\n5,6,1,0,1,:child,2124,77,1,0,52,51,,\n' >>"$H"
analyze
expect "another thread: iteration 5 is ordinary; other.child scoped" '[[0, 1], 1, 1, 1]' \
  '[[i["index"] for i in d["iterations"]], len(host("iteration 5")), len(host("other")), len(host("other.child"))]'

# RangeIds reused on another thread: keys are (PID, TID, RangeId), never RangeId alone
mkrun
printf '3,4,1,0,1,:other2,2124,78,0,1,3,,,\n5,6,1,0,1,:kid,2124,78,1,0,4,3,,\n' >>"$H"
analyze
expect "same RangeIds on another thread: separate trees" '[1, 1, 4, 4, [0, 1]]' \
  '[len(host("other2")), len(host("other2.kid")), host("smoke multiply")[0]["instances"], host("smoke reduction")[0]["instances"], [i["index"] for i in d["iterations"]]]'
expect "same RangeIds on another thread: GPU rows still join the right thread" 'true' 'd["gpu_projected_ranges"] == g["gpu_projected_ranges"]'

# --- scoped names ------------------------------------------------------------------------------------
mkrun
for f in "$H" "$P"; do
  $EDIT "$f" rename 3 ":preprocessing" + rename 8 ":preprocessing" + rename 5 ":postprocessing" + rename 10 ":postprocessing" \
    + rename 4 ":resize" + rename 6 ":resize" + rename 9 ":resize" + rename 11 ":resize" \
    + set 4 ParentId 3 + set 9 ParentId 8 + set 6 ParentId 5 + set 11 ParentId 10
done
$EDIT "$P" drop 3 + drop 5 + drop 8 + drop 10
analyze
expect "host preprocessing.resize: 2 instances, 87805" '[2, 87805]' \
  '[host("preprocessing.resize")[0]["instances"], host("preprocessing.resize")[0]["inclusive"]["total_ns"]]'
expect "host postprocessing.resize: 2 instances, 43903" '[2, 43903]' \
  '[host("postprocessing.resize")[0]["instances"], host("postprocessing.resize")[0]["inclusive"]["total_ns"]]'
expect "GPU rows keep their scope through the host path: 8192 / 8000" '[8192, 8000]' \
  '[gpu("preprocessing.resize")[0]["projected"]["total_ns"], gpu("postprocessing.resize")[0]["projected"]["total_ns"]]'
expect "no bare 'resize' group" '[[], []]' '[host("resize"), gpu("resize")]'
expect "groups sorted by path" '["postprocessing", "postprocessing.resize", "preprocessing", "preprocessing.resize", "profile-target"]' \
  '[r["name"] for r in d["host_ranges"]]'

# --- names ---------------------------------------------------------------------------------------------
mkrun
for f in "$H" "$P"; do
  $EDIT "$f" rename 3 'TSL:XlaModule:jit_step(a, b) "fused"' + rename 5 '::double colon, kept' + rename 8 ':héllo ✓ 🚀'
done
analyze
expect "names with commas, quotes, domains" \
  '[":double colon, kept", "TSL:XlaModule:jit_step(a, b) \"fused\"", "h\u00e9llo \u2713 \ud83d\ude80", "profile-target", "smoke multiply", "smoke reduction"]' \
  'sorted([r["name"] for r in d["host_ranges"]])'
check_contains "one leading ':' stripped: '::x' → ':x'" "$(cat "$R/analysis.json")" '"name": ":double colon, kept"'
check_contains "named domain kept, quotes escaped" "$(cat "$R/analysis.json")" '"name": "TSL:XlaModule:jit_step(a, b) \"fused\""'
check_contains "non-ASCII as \\u escapes, surrogate pair above U+FFFF" "$(cat "$R/analysis.json")" '"name": "h\u00e9llo \u2713 \ud83d\ude80"'
check "output is ASCII only" bash -c '! LC_ALL=C grep -q "[^[:print:][:space:]]" "$1"' _ "$R/analysis.json"

# --- file shapes -------------------------------------------------------------------------------------
mkrun; $EDIT "$H" crlf; $EDIT "$P" crlf
analyze
check "CRLF reports parse to the same analysis" cmp -s "$GOLD" "$R/analysis.json"
mkrun; $EDIT "$P" prepend ',,,,,,,,,,,,,'
analyze
check "old synthetic GPU row (empty Name/RangeId) skipped without warning" cmp -s "$GOLD" "$R/analysis.json"
mkrun; printf '\xef\xbb\xbf' | cat - "$RF/nvtx_pushpop_trace.csv" >"$H"
analyze
check "UTF-8 BOM tolerated" cmp -s "$GOLD" "$R/analysis.json"
mkrun; awk -F, -v OFS=, '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? OFS : ORS) }' "$RF/nvtx_pushpop_trace.csv" >"$H"
analyze
check "columns looked up by name, not position" cmp -s "$GOLD" "$R/analysis.json"

# --- manifest typing ---------------------------------------------------------------------------------
mkrun
cat >"$R/manifest.yaml" <<'YAML'
capture_range: profile-target
profile_name: "0123"
git_commit: 1234567
workload:
  iterations: 2
  warmup: 0x10
  seed: 1.5e+3
  validate_output: yes
  note: ~
cuda:
  synchronize_each_iteration: true
  synchronize_before_capture: off
YAML
analyze
expect "manifest: YAML 1.1 typing like PyYAML, absent fields null, no record_ids → 0" \
  '[{"synchronize_before_capture": false, "synchronize_each_iteration": true}, null, 1234567, "0123", 0, null, {"iterations": 2, "note": null, "seed": 1500.0, "validate_output": true, "warmup": 16}]' \
  '[d["run"][k] for k in ["cuda", "device", "git_commit", "profile_name", "record_count", "run_id", "workload"]]'
printf 'capture_range: profile-target\nworkload: [1, 2]\ncuda: 7\n' >"$R/manifest.yaml"
analyze
expect "manifest: workload/cuda not mappings → {}" '[{}, {}, []]' '[d["run"]["workload"], d["run"]["cuda"], d["warnings"]]'
finish
t_done
