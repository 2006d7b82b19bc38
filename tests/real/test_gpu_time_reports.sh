#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier of docs/SEMANTICS.md's time breakdown: each real report in the fixtures (nsys 2020.3 .qdrep
# to 2022.1 .nsys-rep) exported by the real `nsys export`; `findings -r gpu-busy` on the report itself
# equals, per device and to the ns, SQL over nsys's own export (tests/real/breakdown_check.py).
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
  "$GF" -q --policy "$P/comm.lua" findings --nsys "$REAL_NSYS" -r gpu-busy -f json "$in" >"$d/busy.json" 2>"$d/err"
  check_eq "$name: gpu-busy on the report: exit 0" 0 "$?"
  res=$(python3 "$TOP/tests/real/breakdown_check.py" "$d/ref.sqlite" "$d/busy.json" "%nccl%" 2>&1)
  check_eq "$name: the breakdown equals SQL over nsys's export, per device" 0 "$?"
  check_contains "$name: a device checked" "$res" "device 0: ok"
done
t_done
