# Bash helpers for tests/studio_server.py. Source after t.sh.
#   studio_start DIR [server args...]  → sets STUDIO_URL, STUDIO_PID, STUDIO_DIR
#   studio_ctl PATH JSON               → POST /_control/PATH
#   studio_stop
#   studio_json N EXPR                 → python expression on record N (d = the record) of DIR/log
# The interpreter itself, not a version-manager shim (a pyenv shim costs ~0.5 s per call).
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || echo python3)
python3() { "$PY" "$@"; }
# and for scripts run with `#!/usr/bin/env python3` (the fake nsys): the interpreter first on PATH
if [ "$PY" != python3 ] && [ -n "${TMP:-}" ]; then
  mkdir -p "$TMP/.pybin" && ln -sf "$PY" "$TMP/.pybin/python3" && export PATH="$TMP/.pybin:$PATH"
fi
studio_start() {
  STUDIO_DIR=$1; shift
  mkdir -p "$STUDIO_DIR"
  # the interpreter itself in the background, not the python3 function: $! must be the server, or
  # studio_stop kills only a subshell and the server lives on until --max-seconds
  "$PY" "$TOP/tests/studio_server.py" --dir "$STUDIO_DIR" --max-seconds 300 "$@" >"$STUDIO_DIR.port" 2>"$STUDIO_DIR.err" &
  STUDIO_PID=$!
  local i
  for i in $(seq 1 100); do
    grep -q '^PORT ' "$STUDIO_DIR.port" 2>/dev/null && break
    sleep 0.1
  done
  STUDIO_PORT=$(awk '/^PORT /{print $2}' "$STUDIO_DIR.port")
  STUDIO_URL="http://127.0.0.1:$STUDIO_PORT"
}
studio_ctl() {
  python3 - "$STUDIO_URL/_control/$1" "$2" <<'PY'
import sys, urllib.request
urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), method="POST"), timeout=10).read()
PY
}
studio_stop() { kill "$STUDIO_PID" 2>/dev/null; wait "$STUDIO_PID" 2>/dev/null; }
# studio_q 'python code using recs (list of records, oldest first) and raw(rec)'
studio_q() {
  python3 - "$STUDIO_DIR" "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
names = sorted(n for n in os.listdir(os.path.join(d, "log")) if n.endswith(".json")) if os.path.isdir(os.path.join(d, "log")) else []
recs = [json.load(open(os.path.join(d, "log", n))) for n in names]
for r, n in zip(recs, names):
    r["_raw"] = os.path.join(d, "log", n[:-5] + ".raw")
def raw(r):
    return open(r["_raw"], "rb").read()
def profiles():
    return [r for r in recs if r["path"] == "/api/v2/profiles" and r["status"] == 200]
print(eval(sys.argv[2]))
PY
}
# a closed loopback port (bound, then released: nothing listens there)
closed_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
