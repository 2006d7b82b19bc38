#!/usr/bin/env bash
# gf-test: slow
# Policy as the only source of defaults (`policy show` has every knob; the file names a capture writes
# come from policy outputs) and the trust model: as root gpuflame refuses a policy or search-path file
# another user could change (docs/ARCHITECTURE.md, Trust).
. "$(dirname "$0")/../lib/t.sh"
json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$@"; }

# --- every knob in `policy show` --------------------------------------------------------------------------
run_gf policy show
check_eq "policy show: exit 0" 0 "$rc"
check_eq "policy show: outputs" "summary.json flamegraph.html timeline.html capture.sqlite nsys-profile.log" \
  "$(echo "$out" | json '" ".join(d["outputs"][k] for k in ("summary", "flamegraph", "timeline", "sqlite", "profile_log"))')"
check_eq "policy show: timeline reports, retried statuses, backends, validated nsys" \
  "cuda_api_trace,cuda_gpu_trace 5xx,408,429 nsys,perf 2025.1" \
  "$(echo "$out" | json '"%s %s %s %s" % (",".join(d["timeline"]["reports"]), ",".join(map(str, d["deliver"]["retry"]["statuses"])), ",".join(d["agent"]["backends"]), d["analyze"]["validated_version"])')"
printf 'return { extends = "default", outputs = { summary = "a/b.json" } }\n' >"$TMP/badname.lua"
run_gf policy check "$TMP/badname.lua"
check_eq "outputs names are plain file names" "1|policy $TMP/badname.lua: outputs.summary must be a file name (not empty, no /) (got \"a/b.json\")" "$rc|${err#gpuflame: }"

# --- file names from policy outputs ----------------------------------------------------------------------
if have_fixture gprofiler/KERN_CSV.csv; then
  unset NSYS_PATH FAKE_NSYS_FAIL FAKE_NSYS_VERSION
  cat >"$TMP/names.lua" <<'EOF'
return { extends = "default", outputs = { summary = "run.json", flamegraph = "gpu.html", gpu_folded = "k.folded",
  profile_log = "profile.txt" } }
EOF
  run_gf -q --policy "$TMP/names.lua" capture --nsys "$FAKE_NSYS" --out "$TMP/c1" -- true
  check_eq "capture with renamed outputs: exit 0" 0 "$rc"
  check_eq "capture writes the policy's file names" "run.json gpu.html k.folded profile.txt" \
    "$(for f in run.json gpu.html k.folded profile.txt; do [ -s "$TMP/c1/$f" ] && printf '%s ' "$f"; done | sed 's/ $//')"
  check "no default-named files" test ! -e "$TMP/c1/summary.json" -a ! -e "$TMP/c1/flamegraph.html"
  check_eq "summary names the renamed artifacts" "$TMP/c1/gpu.html $TMP/c1/run.json" \
    "$(json 'd["artifacts"]["html"] + " " + d["artifacts"]["summary"]' <"$TMP/c1/run.json")"
  mkdir -p "$TMP/cwd" && (cd "$TMP/cwd" && "$GF" -q --policy "$TMP/names.lua" flamegraph "$FIX/gprofiler/KERN_CSV.csv" >/dev/null)
  check "flamegraph without -o writes policy outputs.flamegraph" test -s "$TMP/cwd/gpu.html"
else
  skip "file names from policy outputs" "fixtures absent"
fi
if have_fixture gprofiler/GPU_TRACE_CSV.csv && have_fixture real/test-cuda/report1.sqlite; then
  cat >"$TMP/tnames.lua" <<'EOF'
return { extends = "default", outputs = { timeline = "tl.html", sqlite = "export.sqlite", summary = "s.json" },
  timeline = { output_names = { cuda_api_trace = "a", cuda_gpu_trace = "g" } } }
EOF
  PATH="$TOP/tests/fake:$PATH" run_gf -q --lua-path "$TOP/tests/trace" --policy "$TMP/tnames.lua" capture --timeline \
    --out "$TMP/t1" -- /bin/true
  check_eq "capture --timeline with renamed outputs and trace CSV names" "0|tl.html a_cuda_api_trace.csv g_cuda_gpu_trace.csv s.json" \
    "$rc|$(cd "$TMP/t1" && for f in tl.html a_cuda_api_trace.csv g_cuda_gpu_trace.csv s.json; do [ -s "$f" ] && printf '%s ' "$f"; done | sed 's/ $//')"
  PATH="$TOP/tests/fake:$PATH" run_gf -q --lua-path "$TOP/tests/trace" --policy "$TMP/tnames.lua" capture --stacks \
    --out "$TMP/t2" -- /bin/true
  check_eq "capture --stacks: the SQLite export under outputs.sqlite" "0|yes|no" \
    "$rc|$([ -s "$TMP/t2/export.sqlite" ] && echo yes || echo no)|$([ -e "$TMP/t2/capture.sqlite" ] && echo yes || echo no)"
else
  skip "timeline file names from policy" "fixtures absent"
fi

# --- one way to reach policy: a --policy file's nsys.report_eras reaches every command that resolves report
# names (issue 23). The alias below makes `cuda_api_sum` an old spelling of cuda_gpu_kern_sum and
# `cuda_api_trace` one of cuda_gpu_trace: an API summary CSV is then read as the kernel summary, an API trace CSV
# as a GPU trace. Before, flamegraph, collapse, diff and the input loaders ignored it (the default eras).
if have_fixture gprofiler/API_CSV.csv && have_fixture gprofiler/API_TRACE_CSV.csv && have_fixture gprofiler/GPU_TRACE_CSV.csv \
    && have_fixture real/test-cuda/report1.sqlite; then
  cat >"$TMP/alias.lua" <<'EOF'
return { extends = "default", nsys = { report_eras = {
  { since = "2023.1", names = {} },
  { since = "0", names = {
    cuda_gpu_kern_sum = "gpukernsum", cuda_api_sum = "cudaapisum", cuda_gpu_trace = "gputrace",
    cuda_api_trace = "cudaapitrace", nvtx_sum = "nvtxsum", nvtx_pushpop_trace = "nvtxpptrace",
    nvtx_pushpop_sum = "nvtxppsum", nvtx_gpu_proj_trace = "nvtxgpuproj", osrt_sum = "osrtsum",
    cuda_gpu_mem_time_sum = "gpumemtimesum", cuda_gpu_mem_size_sum = "gpumemsizesum",
    nvtx_kern_sum = "nvtxkernsum", cuda_kern_exec_sum = "kernexecsum", cuda_kern_exec_trace = "kernexectrace",
  } },
  { since = "0", names = { cuda_gpu_kern_sum = "cuda_api_sum", cuda_gpu_trace = "cuda_api_trace" } },
} } }
EOF
  API=$FIX/gprofiler/API_CSV.csv
  prefix_of() { grep -v '^#' | head -1 | grep -o '^gpu;nsys;cuda_[a-z]*;'; }
  run_gf collapse "$API"
  check_eq "without the alias: the API summary is the API summary" "0|gpu;nsys;cuda_api;" "$rc|$(echo "$out" | prefix_of)"
  run_gf --policy "$TMP/alias.lua" collapse "$API"
  check_eq "report alias reaches collapse" "0|gpu;nsys;cuda_kernel;" "$rc|$(echo "$out" | prefix_of)"
  run_gf -q --policy "$TMP/alias.lua" flamegraph "$API" -o "$TMP/alias.html"
  check_eq "report alias reaches flamegraph" "0|cuda_kernel" \
    "$rc|$(grep -o 'cuda_kernel\|cuda_api' "$TMP/alias.html" | sort -u | tr '\n' ' ' | sed 's/ $//')"
  run_gf -q --policy "$TMP/alias.lua" export --format folded "$API" -o "$TMP/alias.folded"
  check_eq "report alias reaches the input loaders (export)" "0|gpu;nsys;cuda_kernel;" "$rc|$(prefix_of <"$TMP/alias.folded")"
  run_gf --policy "$TMP/alias.lua" diff "$API" "$API" --json
  check_eq "report alias reaches diff" "0|kernels kernels" "$rc|$(echo "$out" | json 'd["before"]["kind"] + " " + d["after"]["kind"]')"
  run_gf -q timeline "$FIX/gprofiler/API_TRACE_CSV.csv" -o "$TMP/alias-t0.html"
  run_gf -q --policy "$TMP/alias.lua" timeline "$FIX/gprofiler/API_TRACE_CSV.csv" -o "$TMP/alias-t.html"
  check_eq "report alias reaches timeline (the API trace CSV is no longer read as an API trace)" "yes|no" \
    "$(grep -q '"kind":"cpu"' "$TMP/alias-t0.html" && echo yes || echo no)|$(grep -q '"kind":"cpu"' "$TMP/alias-t.html" 2>/dev/null && echo yes || echo no)"
  run_gf stats -r cuda_gpu_kern_sum -o - "$FIX/real/test-cuda/report1.sqlite"; want=$out
  run_gf --policy "$TMP/alias.lua" stats -r cuda_api_sum -o - "$FIX/real/test-cuda/report1.sqlite"
  check_eq "report alias reaches stats (cuda_api_sum names the kernel summary)" "0|same" \
    "$rc|$([ -n "$want" ] && [ "$out" == "$want" ] && echo same || echo differs)"
else
  skip "report aliases from --policy" "fixtures absent"
fi

# --- trust: as root, files other users could change are refused -----------------------------------------
if [ "$(id -u)" -ne 0 ]; then
  skip "trust model as root" "not running as root"
  t_done
fi
T=$TMP/trust
mkdir -p "$T/ok" && chmod 755 "$TMP" "$T" "$T/ok"
POL='return { extends = "default", timeline = { local_max_events = 7 } }'
printf '%s\n' "$POL" >"$T/ok/p.lua" && chmod 644 "$T/ok/p.lua"
refused() { # NAME FILE-SHOWN REASON ARGS...
  local name=$1 file=$2 why=$3; shift 3
  run_gf "$@" policy show
  check_eq "$name: exit 1" 1 "$rc"
  check_contains "$name: the error names the file" "$err" "$file: refusing to load as root: $why"
}
run_gf --policy "$T/ok/p.lua" policy show
check_eq "root-owned 0644 policy in a 0755 directory: accepted" "0|7" "$rc|$(echo "$out" | json 'd["timeline"]["local_max_events"]')"

cp "$T/ok/p.lua" "$T/ok/ww.lua" && chmod 666 "$T/ok/ww.lua"
refused "world-writable policy file" "$T/ok/ww.lua" "it is world-writable (mode 0666)" --policy "$T/ok/ww.lua"
cp "$T/ok/p.lua" "$T/ok/gw.lua" && chmod 664 "$T/ok/gw.lua"
refused "group-writable policy file" "$T/ok/gw.lua" "it is group-writable (mode 0664)" --policy "$T/ok/gw.lua"
cp "$T/ok/p.lua" "$T/ok/other.lua" && chown 65534 "$T/ok/other.lua"
refused "policy file owned by another user" "$T/ok/other.lua" "it is owned by uid 65534, not root" --policy "$T/ok/other.lua"

mkdir -p "$T/wwdir" && cp "$T/ok/p.lua" "$T/wwdir/p.lua" && chmod 777 "$T/wwdir"
refused "policy in a world-writable directory" "$T/wwdir/p.lua" "its directory $T/wwdir is world-writable (mode 0777)" \
  --policy "$T/wwdir/p.lua"
mkdir -p "$T/sticky" && cp "$T/ok/p.lua" "$T/sticky/p.lua" && chmod 1777 "$T/sticky"
refused "policy directly in a sticky world-writable directory (like /tmp)" "$T/sticky/p.lua" \
  "its directory $T/sticky is world-writable (mode 1777)" --policy "$T/sticky/p.lua"
mkdir -p "$T/sticky/inner" && chmod 755 "$T/sticky/inner" && cp "$T/ok/p.lua" "$T/sticky/inner/p.lua"
run_gf --policy "$T/sticky/inner/p.lua" policy show
check_eq "a root-owned sticky directory above a root-owned 0755 one: accepted (like mktemp -d in /tmp)" 0 "$rc"
mkdir -p "$T/gdir" && cp "$T/ok/p.lua" "$T/gdir/p.lua" && chown 65534 "$T/gdir"
refused "policy in a directory owned by another user" "$T/gdir/p.lua" "its directory $T/gdir is owned by uid 65534, not root" \
  --policy "$T/gdir/p.lua"
ln -s "$T/ok/ww.lua" "$T/ok/link.lua"
refused "a symlink is judged by its target" "$T/ok/link.lua ($T/ok/ww.lua)" "it is world-writable (mode 0666)" \
  --policy "$T/ok/link.lua"
printf 'return { extends = "ww.lua" }\n' >"$T/ok/ext.lua" && chmod 644 "$T/ok/ext.lua"
refused "a file of the extends chain" "$T/ok/ww.lua" "it is world-writable (mode 0666)" --policy "$T/ok/ext.lua"

# the search path: --lua-path, GPUFLAME_PATH (policies by name, modules, scripts)
mkdir -p "$T/lp/policies" "$T/lp/scripts" "$T/lp/gpuflame" && cp "$T/ok/p.lua" "$T/lp/policies/fleet.lua"
printf 'print("hello from the search path")\n' >"$T/lp/scripts/hello.lua"
printf 'return { max_events = 9 }\n' >"$T/lp/gpuflame/trusttest.lua"
printf 'return { extends = "default", timeline = { local_max_events = require("gpuflame.trusttest").max_events } }\n' >"$T/ok/req.lua"
chmod 755 "$T/lp" "$T/lp/policies" "$T/lp/scripts" "$T/lp/gpuflame"
run_gf --lua-path "$T/lp" --policy fleet --policy "$T/ok/req.lua" policy show
check_eq "trusted search path: policy by name and a required module load" "0|9" "$rc|$(echo "$out" | json 'd["timeline"]["local_max_events"]')"
chmod 777 "$T/lp/policies"
refused "--policy NAME from a world-writable search directory" "$T/lp/policies/fleet.lua" \
  "its directory $T/lp/policies is world-writable (mode 0777)" --lua-path "$T/lp" --policy fleet
chmod 755 "$T/lp/policies"
chmod 666 "$T/lp/gpuflame/trusttest.lua"
refused "a module required from the search path (package.searchers)" "$T/lp/gpuflame/trusttest.lua" \
  "it is world-writable (mode 0666)" --lua-path "$T/lp" --policy "$T/ok/req.lua"
chmod 777 "$T/lp"
run_gf_env GPUFLAME_PATH="$T/lp" -- run hello
check_eq "GPUFLAME_PATH script below a world-writable directory: exit 1" 1 "$rc"
check_contains "... names the file and the directory" "$err" \
  "gpuflame: $T/lp/scripts/hello.lua: refusing to load as root: the directory $T/lp above it is world-writable (mode 0777)"
chmod 755 "$T/lp"
run_gf_env GPUFLAME_PATH="$T/lp" -- run hello
check_eq "the same script once the directory is fixed" "0|hello from the search path" "$rc|$out"

# not root: nothing is checked; `policy check` warns about what root would refuse
if runuser -u nobody -- test -x "$GF" 2>/dev/null; then
  o=$(mktemp); e=$(mktemp); chmod 644 "$o" "$e"
  runuser -u nobody -- "$GF" --policy "$T/ok/ww.lua" policy show >"$o" 2>"$e"; rc=$?
  check_eq "not root: a world-writable policy loads" "0|7" "$rc|$(json 'd["timeline"]["local_max_events"]' <"$o")"
  runuser -u nobody -- "$GF" policy check "$T/ok/ww.lua" >"$o" 2>"$e"; rc=$?
  check_eq "not root: policy check passes" 0 "$rc"
  check_contains "not root: policy check warns that root would refuse it" "$(cat "$e")" \
    "warning: $T/ok/ww.lua: refusing to load as root: it is world-writable (mode 0666)"
  rm -f "$o" "$e"
else
  skip "trust model not as root" "runuser -u nobody cannot run the binary here"
fi
t_done
