#!/usr/bin/env bash
# gf-test: slow
# Real-nsys tier (issue 24, items 5 and 8): the export cache with the real `nsys export`, and a damaged
# report's bytes escaped in every message.
# * Two different captures with one name in one directory (report1.nsys-rep = the dlprof capture,
#   report1.qdrep = the cori-omp capture): each command reads its own capture, checked by SQL over exports
#   gpuflame did not make (the dlprof export committed upstream, nsys's own export of cori-omp); nothing is
#   written beside the reports; a second command exports nothing.
# * Three gpuflame processes exporting one report at once: the same answer each, one whole cache entry.
# * A copy of a real report whose first bytes are overwritten with control bytes: the real nsys echoes
#   them; stats, export, timeline, flamegraph and collapse (and the -v log) must print them as \xNN.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/lib.sh"
real_nsys_or_skip "real nsys: export cache and damaged reports"
DL=reports/dlprof/nsys_profile.nsys-rep CO=reports/cori-omp/report1.qdrep AL=reports/alpa/examples_jax_profile_mem.nsys-rep
if ! have_fixture $DL || ! have_fixture $CO || ! have_fixture reports/dlprof/nsys_profile.sqlite; then
  skip "real nsys: export cache" "fixtures absent ($FIX)"; exit 0
fi
export XDG_CACHE_HOME=$TMP/cache
CACHE=$XDG_CACHE_HOME/gpuflame/exports
kernels_of() { sqlite3 "$1" "SELECT DISTINCT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName" | sort; }
names_of() { python3 -c 'import csv,sys
print("\n".join(sorted({r["Name"] for r in csv.DictReader(open(sys.argv[1]))})))' "$1"; }
instances_of() { python3 -c 'import csv,sys; print(sum(int(r["Instances"]) for r in csv.DictReader(open(sys.argv[1]))))' "$1"; }

# --- the collision case: report1.nsys-rep and report1.qdrep, two captures ---
d=$TMP/coll; mkdir -p "$d"
cp "$FIX/$DL" "$d/report1.nsys-rep"; cp "$FIX/$CO" "$d/report1.qdrep"
rnsys export --type sqlite --force-overwrite true --output "$TMP/cori_ref.sqlite" "$FIX/$CO"
DL_REF=$FIX/reports/dlprof/nsys_profile.sqlite CO_REF=$TMP/cori_ref.sqlite
run_gf stats --nsys "$REAL_NSYS" -r cuda_gpu_kern_sum -o "$TMP/a" "$d/report1.nsys-rep"
check_eq "report1.nsys-rep: stats exit 0" 0 "$rc"
run_gf stats --nsys "$REAL_NSYS" -r cuda_gpu_kern_sum -o "$TMP/b" "$d/report1.qdrep"
check_eq "report1.qdrep: stats exit 0" 0 "$rc"
check_eq "report1.nsys-rep: its own kernels (the upstream export)" "$(kernels_of "$DL_REF")" \
  "$(names_of "$TMP/a_cuda_gpu_kern_sum.csv")"
check_eq "report1.qdrep: its own kernels (nsys's own export)" "$(kernels_of "$CO_REF")" \
  "$(names_of "$TMP/b_cuda_gpu_kern_sum.csv")"
check_eq "report1.qdrep: its kernel count" "$(sqlite3 "$CO_REF" 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL')" \
  "$(instances_of "$TMP/b_cuda_gpu_kern_sum.csv")"
check_eq "nothing written beside the reports" "report1.nsys-rep report1.qdrep" "$(cd "$d" && echo *)"
check_eq "two cache entries" 2 "$(ls "$CACHE" | grep -c '\.sqlite$')"
run_gf -v stats --nsys "$REAL_NSYS" -r cuda_gpu_kern_sum -o "$TMP/a2" "$d/report1.nsys-rep"
check_not_contains "report1.nsys-rep again: no second export" "$err" "exporting"
check_eq "report1.nsys-rep again: the same CSV" "$(cat "$TMP/a_cuda_gpu_kern_sum.csv")" "$(cat "$TMP/a2_cuda_gpu_kern_sum.csv")"
run_gf -v collapse --nsys "$REAL_NSYS" "$d/report1.qdrep"
check_eq "collapse report1.qdrep: exit 0" 0 "$rc"
check_not_contains "collapse report1.qdrep: the stats command's export is reused" "$err" "exporting"
check_eq "collapse report1.qdrep: its own kernels" "$(kernels_of "$CO_REF")" \
  "$(run_gf collapse --levels kernel --nsys "$REAL_NSYS" "$d/report1.qdrep"; grep -v '^\[CUDA mem' <<<"$out" | sed 's/ [0-9]*$//' | sort -u)"

# --- three processes exporting one report at once ---
if have_fixture $AL; then
  cp "$FIX/$AL" "$TMP/al.nsys-rep"
  for i in 1 2 3; do
    timeout -k 5 "$REAL_TIMEOUT" "$GF" stats --nsys "$REAL_NSYS" -r cuda_gpu_kern_sum -o "$TMP/par$i" "$TMP/al.nsys-rep" \
      2>"$TMP/par$i.err" &
  done
  wait
  check_eq "3 concurrent exports: each wrote its CSV" "3" "$(ls "$TMP"/par?_cuda_gpu_kern_sum.csv 2>/dev/null | wc -l)"
  check "3 concurrent exports: the same CSV each" cmp -s "$TMP/par1_cuda_gpu_kern_sum.csv" "$TMP/par2_cuda_gpu_kern_sum.csv"
  check "3 concurrent exports: the same CSV each (3)" cmp -s "$TMP/par1_cuda_gpu_kern_sum.csv" "$TMP/par3_cuda_gpu_kern_sum.csv"
  entry=$(ls "$CACHE"/"$(sha256sum "$TMP/al.nsys-rep" | cut -c1-64)"-*.sqlite 2>/dev/null)
  check_eq "3 concurrent exports: one whole cache entry" ok "$(sqlite3 "$entry" 'PRAGMA integrity_check' 2>&1)"
  check_eq "3 concurrent exports: no temporary directory left" "" "$(ls -A "$CACHE" | grep -v '\.sqlite$')"
else
  skip "3 concurrent exports" "fixture absent: $AL"
fi

# --- a damaged report: nsys echoes its header bytes; gpuflame escapes them ---
python3 - "$FIX/$DL" "$TMP/damaged.nsys-rep" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[0:16] = bytes([0x13, 0x01, 0x1d, 0x1b]) + b"[31mJUNK\x07\x08\xff\xfe"
open(sys.argv[2], "wb").write(d)
PY
# clean BYTES-FILE: "ok" when every byte is printable UTF-8, \n or \t (the check is independent of gpuflame)
clean() { python3 -c 'import sys, unicodedata
b = open(sys.argv[1], "rb").read()
try: t = b.decode("utf-8")
except UnicodeDecodeError as e: print("invalid UTF-8 at", e.start); sys.exit()
bad = [hex(ord(c)) for c in t if c not in "\n\t" and unicodedata.category(c) in ("Cc", "Cs")]
print("control characters " + " ".join(bad) if bad else "ok")' "$1"; }
rnsys export --type sqlite --force-overwrite true --output "$TMP/damaged_ref.sqlite" "$TMP/damaged.nsys-rep"
check_contains "the real nsys echoes the damaged bytes raw (the premise)" "$rerr$rout" $'\x13\x01\x1d\x1b[31mJUNK'
for c in "stats -r cuda_gpu_kern_sum" "export --format chrome-trace -o $TMP/dmg.json" "timeline -o $TMP/dmg.html" \
         "flamegraph -o $TMP/dmgf.html" "collapse" "-v stats -r cuda_api_sum"; do
  # shellcheck disable=SC2086
  NSYS_PATH=$REAL_NSYS "$GF" $c "$TMP/damaged.nsys-rep" >"$TMP/dmg.out" 2>"$TMP/dmg.err"; rc=$?
  check_eq "damaged report, $c: exit 6" 6 "$rc"
  check_eq "damaged report, $c: stderr is printable text" ok "$(clean "$TMP/dmg.err")"
  check_contains "damaged report, $c: the bytes escaped" "$(cat "$TMP/dmg.err")" '\x13\x01\x1D\x1B[31mJUNK\x07\x08\xFF\xFE'
done
t_done
