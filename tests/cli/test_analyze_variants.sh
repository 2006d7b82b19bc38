#!/usr/bin/env bash
# gpuflame analyze on the spec's variants (NVTX_ANALYSIS_SPEC.md §6, §7, §11, §13): every warning with its
# exact text and order, hierarchy over names, scoped names, CPU-only captures, names with commas,
# quotes and domains, CRLF files, the old synthetic GPU row.
. "$(dirname "$0")/../lib/t.sh"

RF=real/roboflow-inference
if ! have_fixture "$RF/nvtx_pushpop_trace.csv"; then skip "analyze variants" "fixtures absent"; t_done; fi
RF=$FIX/$RF
GOLD=$TOP/tests/data/nvtx_roboflow_analysis.json
EDIT="python3 $TOP/tests/lib/nvtx_edit.py"
V2025="NVIDIA Nsight Systems version 2025.1.3"
R=$TMP/run H=$TMP/run/stats/nsys_nvtx_pushpop_trace.csv P=$TMP/run/stats/nsys_nvtx_gpu_proj_trace.csv

mkrun() {
  rm -rf "$R"; mkdir -p "$R/stats"
  cp "$TOP/tests/data/nvtx_minimal_manifest.yaml" "$R/manifest.yaml"
  cp "$RF/nvtx_pushpop_trace.csv" "$H"
  cp "$RF/nvtx_gpu_proj_trace.csv" "$P"
}
analyze() { run_gf analyze --run-dir "$R" --no-export --nsys-version "${VERSION:-$V2025}"; }
# q EXPR: a Python expression over the analysis `d` (and the golden `g`), printed as JSON
q() { python3 - "$R/analysis.json" "$GOLD" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); g = json.load(open(sys.argv[2]))
def host(n): return [r for r in d["host_ranges"] if r["name"] == n]
def gpu(n): return [r for r in d["gpu_projected_ranges"] if r["name"] == n]
print(json.dumps(eval(sys.argv[3]), sort_keys=True))
PY
}

# --- warnings ---------------------------------------------------------------------------------------
mkrun
VERSION="NVIDIA Nsight Systems version 2026.2.0.123-261338342291v0" analyze
check_eq "2026.2: exactly one warning" \
  '["NVIDIA Nsight Systems version 2026.2.0.123-261338342291v0 has not been validated; report parsing is validated against Nsight Systems 2025.1."]' \
  "$(q 'd["warnings"]')"
VERSION="NVIDIA Nsight Systems version 2025.10.1" analyze
check_eq "2025.10 is not 2025.1" '"NVIDIA Nsight Systems version 2025.10.1 has not been validated; report parsing is validated against Nsight Systems 2025.1."' \
  "$(q 'd["warnings"][0]')"
VERSION="NVIDIA Nsight Systems version 2025.1.1.0" analyze
check_eq "2025.1.1.0 (Nsight Compute's nsys) validated" '[]' "$(q 'd["warnings"]')"
VERSION="nsys 12025.1" analyze
check_eq "no \\b(\\d{4})\\.(\\d+)\\b match: cannot determine" \
  '["Could not determine the Nsight Systems version; report parsing is validated against Nsight Systems 2025.1."]' "$(q 'd["warnings"]')"

mkrun; sed -i 's/iterations: 2,/iterations: 3,/' "$R/manifest.yaml"
analyze
check_eq "iterations: 3 → missing [2]" '["Missing expected iteration indexes: [2]."]' "$(q 'd["warnings"]')"
check_eq "iterations: 3 → workload copied verbatim" '{"iterations": 3, "record_loading": "eager", "warmup": 1}' \
  "$(q 'd["run"]["workload"]')"

mkrun; $EDIT "$H" rename 7 ":iteration 2"; $EDIT "$P" rename 7 ":iteration 2"
analyze
check_eq "RangeId 7 renamed iteration 2: missing then unexpected" \
  '["Missing expected iteration indexes: [1].", "Unexpected iteration indexes: [2]."]' "$(q 'd["warnings"]')"
check_eq "RangeId 7 renamed iteration 2: indexes" '[0, 2]' "$(q '[i["index"] for i in d["iterations"]]')"

for kind in zero headeronly; do
  mkrun
  if [ $kind = zero ]; then : >"$P"; else $EDIT "$P" headeronly; fi
  analyze
  check_eq "CPU-only capture ($kind GPU report): exit 0" 0 "$rc"
  check_eq "CPU-only capture ($kind): warnings" \
    "[\"Missing GPU projections for iterations: [0, 1].\", \"GPU projection report does not contain capture range 'profile-target'.\"]" \
    "$(q 'd["warnings"]')"
  check_eq "CPU-only capture ($kind): GPU data null or empty, never zero" \
    '[[], null, 0, [null, null]]' \
    "$(q '[d["gpu_projected_ranges"], d["iteration_summary"]["gpu_projected"], d["iteration_summary"]["gpu_projected_iterations"], [i["gpu_projection"] for i in d["iterations"]]]')"
  check_eq "CPU-only capture ($kind): host data unchanged" 'true' \
    "$(q 'd["host_ranges"] == g["host_ranges"] and d["iteration_summary"]["host_inclusive"] == g["iteration_summary"]["host_inclusive"]')"
done

# warning order with several at once: version, missing expected, GPU projections, capture range
mkrun; : >"$P"; sed -i 's/iterations: 2,/iterations: 3,/' "$R/manifest.yaml"
VERSION="unknown" analyze
check_eq "warnings in the spec's order" \
  "[\"Could not determine the Nsight Systems version; report parsing is validated against Nsight Systems 2025.1.\", \"Missing expected iteration indexes: [2].\", \"Missing GPU projections for iterations: [0, 1].\", \"GPU projection report does not contain capture range 'profile-target'.\"]" \
  "$(q 'd["warnings"]')"
# Warnings 3 (missing host ranges) and 5 (host report lacks the capture range) cannot fire under §6/§7
# (GPU iterations come from host keys; the capture range is always a host range) — the spec says so.

# GPU iteration without its own row: only iteration 1's projection removed
mkrun; $EDIT "$P" drop 7
analyze
check_eq "GPU row of iteration 1 missing" '["Missing GPU projections for iterations: [1]."]' "$(q 'd["warnings"]')"
check_eq "GPU summary over the one projection" '[1, 191620]' \
  "$(q '[d["iteration_summary"]["gpu_projected_iterations"], d["iteration_summary"]["gpu_projected"]["total_ns"]]')"

# --- hierarchy, not names ------------------------------------------------------------------------------
mkrun; $EDIT "$H" rename 3 ":iteration 0"; $EDIT "$P" rename 3 ":iteration 0"
analyze
check_eq "nested 'iteration 0' is an ordinary range: iterations unchanged" '[0, 1]' "$(q '[i["index"] for i in d["iterations"]]')"
check_eq "nested 'iteration 0': host range, 1 instance, 210176" '[1, 210176]' \
  "$(q '[host("iteration 0")[0]["instances"], host("iteration 0")[0]["inclusive"]["total_ns"]]')"
check_eq "nested 'iteration 0': GPU range projected 2112" '2112' "$(q 'gpu("iteration 0")[0]["projected"]["total_ns"]')"
check_eq "nested 'iteration 0': iteration values from the harness ranges" '[431993, 191620]' \
  "$(q '[d["iterations"][0]["host"]["inclusive_ns"], d["iterations"][0]["gpu_projection"]["projected_ns"]]')"
check_eq "nested 'iteration 0': no warnings" '[]' "$(q 'd["warnings"]')"

# a top-level `iteration 5` on another thread, and a child on that thread: ordinary ranges with scope
mkrun
printf '1,2,1,0,1,:iteration 5,2124,77,0,1,50,,,\n3,4,1,0,1,:other,2124,77,0,1,51,,,\n5,6,1,0,1,:child,2124,77,1,0,52,51,,\n' >>"$H"
analyze
check_eq "another thread: iteration 5 is ordinary; other.child scoped" '[[0, 1], 1, 1, 1]' \
  "$(q '[[i["index"] for i in d["iterations"]], len(host("iteration 5")), len(host("other")), len(host("other.child"))]')"

# --- scoped names ------------------------------------------------------------------------------------
mkrun
for f in "$H" "$P"; do
  $EDIT "$f" rename 3 ":preprocessing"; $EDIT "$f" rename 8 ":preprocessing"
  $EDIT "$f" rename 5 ":postprocessing"; $EDIT "$f" rename 10 ":postprocessing"
  for rid in 4 6 9 11; do $EDIT "$f" rename $rid ":resize"; done
  $EDIT "$f" set 4 ParentId 3; $EDIT "$f" set 9 ParentId 8; $EDIT "$f" set 6 ParentId 5; $EDIT "$f" set 11 ParentId 10
done
for rid in 3 5 8 10; do $EDIT "$P" drop $rid; done
analyze
check_eq "host preprocessing.resize: 2 instances, 87805" '[2, 87805]' \
  "$(q '[host("preprocessing.resize")[0]["instances"], host("preprocessing.resize")[0]["inclusive"]["total_ns"]]')"
check_eq "host postprocessing.resize: 2 instances, 43903" '[2, 43903]' \
  "$(q '[host("postprocessing.resize")[0]["instances"], host("postprocessing.resize")[0]["inclusive"]["total_ns"]]')"
check_eq "GPU rows keep their scope through the host path: 8192 / 8000" '[8192, 8000]' \
  "$(q '[gpu("preprocessing.resize")[0]["projected"]["total_ns"], gpu("postprocessing.resize")[0]["projected"]["total_ns"]]')"
check_eq "no bare 'resize' group" '[[], []]' "$(q '[host("resize"), gpu("resize")]')"
check_eq "groups sorted by path" '["postprocessing", "postprocessing.resize", "preprocessing", "preprocessing.resize", "profile-target"]' \
  "$(q '[r["name"] for r in d["host_ranges"]]')"

# --- names ---------------------------------------------------------------------------------------------
mkrun
for f in "$H" "$P"; do
  $EDIT "$f" rename 3 'TSL:XlaModule:jit_step(a, b) "fused"'
  $EDIT "$f" rename 5 '::double colon, kept'
  $EDIT "$f" rename 8 ':héllo ✓ 🚀'
done
analyze
check_eq "names with commas, quotes, domains" \
  '[":double colon, kept", "TSL:XlaModule:jit_step(a, b) \"fused\"", "h\u00e9llo \u2713 \ud83d\ude80", "profile-target", "smoke multiply", "smoke reduction"]' \
  "$(python3 -c 'import json,sys; print(json.dumps(sorted([r["name"] for r in json.load(open(sys.argv[1]))["host_ranges"]]), sort_keys=True))' "$R/analysis.json")"
check_contains "one leading ':' stripped: '::x' → ':x'" "$(cat "$R/analysis.json")" '"name": ":double colon, kept"'
check_contains "named domain kept, quotes escaped" "$(cat "$R/analysis.json")" '"name": "TSL:XlaModule:jit_step(a, b) \"fused\""'
check_contains "non-ASCII as \\u escapes, surrogate pair above U+FFFF" "$(cat "$R/analysis.json")" '"name": "h\u00e9llo \u2713 \ud83d\ude80"'
check "output is ASCII only" python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("ascii")' "$R/analysis.json"

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
mkrun; python3 - "$H" <<'PY'
import sys
p = sys.argv[1]; lines = open(p).read().split("\n")
h = lines[0].split(","); order = list(reversed(range(len(h))))
out = [",".join(l.split(",")[i] for i in order) if l else l for l in lines]
open(p, "w").write("\n".join(out))
PY
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
check_eq "manifest: YAML 1.1 typing like PyYAML, absent fields null, no record_ids → 0" \
  '[{"synchronize_before_capture": false, "synchronize_each_iteration": true}, null, 1234567, "0123", 0, null, {"iterations": 2, "note": null, "seed": 1500.0, "validate_output": true, "warmup": 16}]' \
  "$(q '[d["run"][k] for k in ["cuda", "device", "git_commit", "profile_name", "record_count", "run_id", "workload"]]')"
printf 'capture_range: profile-target\nworkload: [1, 2]\ncuda: 7\n' >"$R/manifest.yaml"
analyze
check_eq "manifest: workload/cuda not mappings → {}" '[{}, {}, []]' "$(q '[d["run"]["workload"], d["run"]["cuda"], d["warnings"]]')"
t_done
