#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier: the NVTX GPU projection that the Chrome export (and the timeline page) carries equals the
# real `nsys stats --report nvtxgpuproj` (nvtx_gpu_proj_trace): for every real export with NVTX ranges
# and CUDA work, one "cat": "nvtx_gpu_proj" event per row, with its name, projected start and duration
# and RangeId (tests/trace/check_proj.py; default-domain names compared without nsys 2022.4's missing ':').
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "nvtx projection vs nsys"
TT=$TOP/tests/trace

n=0
for rel in real/nvfuser/report1.sqlite real/cs336-jsun012/result.sqlite real/cs336-athrun0109/result.sqlite \
           real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite reports/dlprof/nsys_profile.sqlite; do
  if ! have_fixture "$rel"; then skip "nvtx projection vs nsys: $rel" "fixture absent"; continue; fi
  n=$((n + 1))
  d=$TMP/n$n
  mkdir -p "$d"
  cp "$FIX/$rel" "$d/x.sqlite" # never run nsys on the fixture itself
  rnsys stats --format csv --force-overwrite=true -o "$d/ns" --report nvtxgpuproj "$d/x.sqlite"
  if [ "$rrc" -ne 0 ] || [ ! -s "$d/ns_nvtxgpuproj.csv" ]; then
    not_ok "nvtx projection vs nsys: $rel: nsys stats" "exit $rrc: $(tail -c 300 <<<"$rerr")"
    continue
  fi
  run_gf export --format chrome-trace "$d/x.sqlite" -o "$d/chrome.json"
  check_eq "nvtx projection vs nsys: $rel: chrome-trace export" 0 "$rc"
  memo_check python3 "$TT/check_proj.py" "$d/chrome.json" "$d/ns_nvtxgpuproj.csv" "nvtx projection vs nsys: $rel" ||
    _t_failed=$((_t_failed + 1))
done
t_done
