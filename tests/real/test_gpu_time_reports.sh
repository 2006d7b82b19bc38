#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier of docs/SEMANTICS.md's time breakdown: each real report in the fixtures (nsys 2020.3 .qdrep
# to 2022.1 .nsys-rep) exported by the real `nsys export`; `findings -r gpu-busy` on the report itself
# equals, per device and to the ns, SQL over nsys's own export (tests/real/breakdown_check.py). Then capture's
# views of a real report with the real nsys (the steps after `nsys profile`, as a live window runs them):
# summary.json's gpu_time equals the same SQL, and its flamegraph is the hierarchical one in ns (the kernel
# leaves equal SQL per name).
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: GPU time breakdown of the reports"
P=$TMP/policies
mkdir -p "$P"
chmod 755 "$P"
printf 'return { gpu_time = { communication = { "%%nccl%%" } } }\n' >"$P/comm.lua"

for rel in reports/cori-omp/report1.qdrep reports/alpa/examples_jax_profile_mem.nsys-rep \
           reports/dlprof/nsys_profile.nsys-rep reports/abacus/report1.qdrep; do
  if ! have_fixture "$rel"; then skip "report $rel" "fixture absent ($FIX)"; continue; fi
  name=$(basename "$(dirname "$rel")")
  d=$TMP/$name; mkdir -p "$d"
  cp "$FIX/$rel" "$d/"                       # nsys writes beside its input: never into the fixtures
  in=$d/$(basename "$rel")
  rnsys export --type sqlite --force-overwrite true --output "$d/ref.sqlite" "$in"
  "$GF" -q --policy "$P/comm.lua" findings --nsys "$MEMO_NSYS" -r gpu-busy -f json "$in" >"$d/busy.json" 2>"$d/err"
  check_eq "$name: gpu-busy on the report: exit 0" 0 "$?"
  res=$(python3 "$TOP/tests/real/breakdown_check.py" "$d/ref.sqlite" "$d/busy.json" "%nccl%" 2>&1)
  check_eq "$name: the breakdown equals SQL over nsys's export, per device" 0 "$?"
  check_contains "$name: a device checked" "$res" "device 0: ok"
done

# capture's views of a real report (the real nsys exports it): gpu_time and the hierarchical flamegraph
rel=reports/dlprof/nsys_profile.nsys-rep
if have_fixture "$rel"; then
  C=$TMP/cap; mkdir -p "$C"
  cp "$FIX/$rel" "$C/capture.nsys-rep"
  cat >"$TMP/views.lua" <<EOF
local ctx = require("gpuflame.cli").script_context()
local capture = require("gpuflame.capture")
local state = capture.new_state("$C", capture.find_nsys("$REAL_NSYS", ctx.policy()), ctx.policy())
state.report = "$C/capture.nsys-rep"
capture.views(state, {}, ctx)
EOF
  "$GF" -q --policy "$P/comm.lua" run "$TMP/views.lua" 2>"$TMP/views.err"
  check_eq "capture views of a real report: exit 0" 0 "$?"
  res=$(python3 "$TOP/tests/real/breakdown_check.py" "$C/capture.sqlite" "$C/summary.json" "%nccl%" 2>&1)
  check_eq "capture views: summary.json's gpu_time equals SQL over nsys's export" 0 "$?"
  check_contains "capture views: a device checked" "$res" "device 0: ok"
  res=$(python3 - "$C/capture.sqlite" "$C/gpu.folded" "$C/summary.json" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
want = dict(db.execute("SELECT COALESCE(d.value, s.value), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                       "LEFT JOIN StringIds d ON d.id = k.demangledName LEFT JOIN StringIds s ON s.id = k.shortName "
                       "GROUP BY 1"))
got = {}
for line in open(sys.argv[2]):
    stack, w = line.rstrip("\n").rsplit(" ", 1)
    leaf = stack.split(";")[-1]
    if not leaf.startswith("[CUDA mem"):
        got[leaf] = got.get(leaf, 0) + int(w)
fg = json.load(open(sys.argv[3]))["flamegraph"]
print(got == want, fg["report"], fg["unit_ns"], fg["levels"])
PY
)
  check_eq "capture views: the flamegraph is the export's hierarchical one, kernel leaves in ns equal SQL" \
    "True export 1 process,nvtx,api,kernel" "$res"
else
  skip "capture views of a real report" "fixture absent ($FIX)"
fi
t_done
