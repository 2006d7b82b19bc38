# Real-nsys tier helpers. Source after tests/lib/t.sh:  . "$(dirname "$0")/lib.sh"
# Finds a real nsys (GF_REAL_NSYS=PATH, else PATH, else Debian's and NVIDIA's install places).
# Without one, real_nsys_or_skip prints one `skip - <tier case>: no real nsys ...` line and exits 0.
REAL_NSYS=${GF_REAL_NSYS:-}
if [ -z "$REAL_NSYS" ]; then
  for c in "$(command -v nsys 2>/dev/null)" /usr/lib/nsight-systems/bin/nsys \
           /opt/nvidia/nsight-systems/*/bin/nsys /opt/nvidia/nsight-systems-cli/*/target-linux-*/nsys; do
    if [ -n "$c" ] && [ -x "$c" ]; then REAL_NSYS=$c; break; fi
  done
fi
# Every call to the real nsys is bounded (seconds); a hung nsys fails the case, never the suite.
REAL_TIMEOUT=${GF_REAL_TIMEOUT:-120}

real_nsys_or_skip() { # NAME-OF-THE-TIER-FILE
  if [ -z "$REAL_NSYS" ] || [ ! -x "$REAL_NSYS" ]; then
    skip "$1" "no real nsys (install: .ci/deps.sh nsys, or set GF_REAL_NSYS=/path/to/nsys)"
    exit 0
  fi
}

# rnsys ARGS...: the real nsys with a timeout; sets $rout, $rerr, $rrc.
rnsys() { local o e; o=$(mktemp); e=$(mktemp)
  timeout -k 5 "$REAL_TIMEOUT" "$REAL_NSYS" "$@" >"$o" 2>"$e" </dev/null; rrc=$?
  rout=$(cat "$o"); rerr=$(cat "$e"); rm -f "$o" "$e"; }

# Processes of nsys still alive (pid + command), excluding this shell's own pipeline.
nsys_processes() { ps -eo pid=,args= | awk '$2 ~ /nsys|nsys-launcher|QdstrmImporter/ && $0 !~ /awk/' || true; }
