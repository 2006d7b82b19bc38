#!/usr/bin/env bash
# gf-test: slow
# Where fleets run (issue 38): gpuflame under a bare environment (`env -i` with only PATH: no HOME, no
# XDG_RUNTIME_DIR, as a systemd service, a Slurm prolog or the agent's DaemonSet run it), as root and as an
# unprivileged user, with the fake nsys (tests/fake/nsys: launch/start/stop). The live state directory is
# the one docs/LIVE.md ("Where state lives") names for each case, private (0700, owned by the user), and a
# directory someone else could have placed there (a symlink, another owner, writable by others) is refused
# naming why. The same with the real nsys: tests/real/test_real_bare_env.sh.
. "$(dirname "$0")/../lib/t.sh"
W=$(mktemp -d /tmp/gf-bare.XXXXXX)
chmod 755 "$W" # the unprivileged user's cases read the fake nsys and write their captures here
mkdir -p "$W/bin" "$W/out" "$W/tmp"
chmod 1777 "$W/out" "$W/tmp"
ln -s "$FAKE_NSYS" "$W/bin/nsys"
BARE_PATH=$W/bin:/usr/bin:/bin
S=gfbare$$
LPIDS=()
trap 'for p in "${LPIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$W"' EXIT

# bare [VAR=VALUE...] -- ARGS: gpuflame with PATH and the given variables only; $AS runs it as another user
AS=()
bare() { local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env -i PATH="$BARE_PATH" "${envs[@]}" "${AS[@]}" "$GF" "$@" >"$W/o" 2>"$W/e"; rc=$?; out=$(<"$W/o"); err=$(<"$W/e"); }
registry() { python3 -c 'import json,sys; print(json.load(sys.stdin)["registry"])' <<<"$out" 2>/dev/null; }
names() { python3 -c 'import json,sys; print(" ".join(s["name"] + ":" + s["state"] for s in json.load(sys.stdin)["sessions"]))' <<<"$out" 2>/dev/null; }
owner_mode() { stat -c '%u %a' "$1" 2>/dev/null; }

# live USER-LABEL EXPECTED-REGISTRY UID [VAR=VALUE...]: launch, sessions, a --timeline window, the job's end
live() {
  local who=$1 reg=$2 uid=$3 name=$S$1 i; shift 3
  bare "$@" -- sessions --json
  check_eq "$who: sessions in a bare environment: exit 0" 0 "$rc"
  [ "$rc" = 0 ] || echo "# $err"
  check_eq "$who: the registry is where docs/LIVE.md says" "$reg" "$(registry)"
  check_eq "$who: the state directory is private (owner, mode 700)" "$uid 700" "$(owner_mode "$(dirname "$reg")")"
  check_eq "$who: the registry is private (owner, mode 700)" "$uid 700" "$(owner_mode "$reg")"
  env -i PATH="$BARE_PATH" "$@" "${AS[@]}" "$GF" launch --session "$name" -- \
    sh -c "while [ ! -e '$W/out/$name.stop' ]; do sleep 0.1; done; exit 7" >"$W/$name.out" 2>"$W/$name.err" &
  local lp=$!; LPIDS+=("$lp")
  for i in $(seq 1 150); do bare "$@" -- sessions --json; [[ " $(names) " == *" $name:waiting "* ]] && break
    kill -0 "$lp" 2>/dev/null || break; sleep 0.2; done
  check_contains "$who: launch in a bare environment: the session is listed, waiting" " $(names) " " $name:waiting "
  if have_fixture real/test-cuda/report1.sqlite; then # the fake nsys's export of the window copies it
    bare "$@" -- capture --session "$name" --duration 1 --timeline --out "$W/out/$name.w"
    check_eq "$who: a --timeline window in a bare environment: exit 0" 0 "$rc"
    [ "$rc" = 0 ] || echo "# $err" | tail -3
    check "$who: the window's timeline.html" test -s "$W/out/$name.w/timeline.html"
  else
    skip "$who: a --timeline window in a bare environment" "fixtures absent"
  fi
  touch "$W/out/$name.stop"
  wait "$lp"
  check_eq "$who: launch exits with the job's status" 7 "$?"
  bare "$@" -- sessions --json
  check_not_contains "$who: the ended session's entry is gone" " $(names) " " $name:"
}

if [ "$(id -u)" = 0 ]; then
  live root /run/gpuflame/sessions 0 TMPDIR="$W/tmp" # root's registry is under /run whatever TMPDIR is
  check_eq "root: XDG_RUNTIME_DIR, when set, is used even so" "$W/tmp/gpuflame/sessions" \
    "$(bare XDG_RUNTIME_DIR="$W/tmp" -- sessions --json; registry)"
  # someone placed the directory first: refused, naming why; nothing is written into it
  mkdir -p "$W/x1" "$W/x2/gpuflame" "$W/x3/gpuflame" "$W/x4/gpuflame" "$W/elsewhere"
  ln -s "$W/elsewhere" "$W/x1/gpuflame"
  chown 65534 "$W/x2/gpuflame"; chmod 700 "$W/x2/gpuflame"
  chmod 777 "$W/x3/gpuflame"
  chmod 755 "$W/x4/gpuflame"
  bare XDG_RUNTIME_DIR="$W/x1" -- sessions
  check_eq "a symlink as the state directory: exit 1" 1 "$rc"
  check_contains "a symlink as the state directory: says so" "$err" "$W/x1/gpuflame: refusing to keep private state there: it is a symbolic link"
  check_eq "a symlink as the state directory: nothing written through it" "" "$(ls -A "$W/elsewhere")"
  bare XDG_RUNTIME_DIR="$W/x2" -- sessions
  check_eq "a state directory of another owner: exit 1" 1 "$rc"
  check_contains "a state directory of another owner: says so" "$err" "it is owned by uid 65534, not by this user (uid 0)"
  bare XDG_RUNTIME_DIR="$W/x3" -- launch --session "${S}x" -- true
  check_eq "a state directory others can write: launch exits 1" 1 "$rc"
  check_contains "a state directory others can write: says so" "$err" "its mode is 0777: others could have placed files in it"
  check_eq "a state directory others can write: nothing written into it" "" "$(ls -A "$W/x3/gpuflame")"
  bare XDG_RUNTIME_DIR="$W/x4" -- sessions
  check_eq "a 0755 state directory of this user (a hostPath): exit 0" 0 "$rc"
  check_eq "a 0755 state directory of this user: made 0700" "0 700" "$(owner_mode "$W/x4/gpuflame")"
  # policy live.registry_dir: its parents are made, the directory itself is private and checked
  printf 'return { extends = "default", live = { registry_dir = "%s" } }\n' "$W/p/a/sessions" >"$W/reg.lua"
  bare -- --policy "$W/reg.lua" sessions --json
  check_eq "live.registry_dir: exit 0, that directory" "0 $W/p/a/sessions" "$rc $(registry)"
  check_eq "live.registry_dir: private" "0 700" "$(owner_mode "$W/p/a/sessions")"

  if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$GF"; then
    AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    live user "$W/tmp/gpuflame-65534/sessions" 65534 TMPDIR="$W/tmp"
    [ -e /tmp/gpuflame-65534 ] || trap 'for p in "${LPIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$W" /tmp/gpuflame-65534' EXIT
    bare -- sessions --json # no TMPDIR: /tmp
    check_eq "user: no TMPDIR: the registry under /tmp, named by uid" "0 /tmp/gpuflame-65534/sessions" "$rc $(registry)"
    mkdir -p "$W/t2"; chmod 1777 "$W/t2"; ln -s "$W/elsewhere" "$W/t2/gpuflame-65534"
    bare TMPDIR="$W/t2" -- sessions
    check_eq "user: a symlink planted at the temporary directory's name: exit 1" 1 "$rc"
    check_contains "user: the planted symlink: says so" "$err" "$W/t2/gpuflame-65534: refusing to keep private state there: it is a symbolic link"
    if have_fixture real/test-cuda/report1.sqlite; then # the export, and what the fake nsys exports
      cp "$FIX/real/test-cuda/report1.sqlite" "$W/out/r.sqlite" 2>/dev/null && chmod 644 "$W/out/r.sqlite"
      bare -- timeline "$W/out/r.sqlite" -o "$W/out/t.html"
      check_eq "user: timeline of an export in a bare environment: exit 0" 0 "$rc"
      echo "fake report" >"$W/out/r.nsys-rep"; chmod 644 "$W/out/r.nsys-rep"
      bare -- flamegraph "$W/out/r.nsys-rep" -o "$W/out/f.html"
      check_eq "user: flamegraph of a report in a bare environment (no HOME: no export cache): exit 0" 0 "$rc"
    else
      skip "user: timeline and flamegraph in a bare environment" "fixtures absent"
    fi
    # the agent as a user in a bare environment: /var/lib/gpuflame is root's; its state goes to the private
    # state directory (no HOME, no XDG_STATE_HOME)
    echo tok >"$W/out/tok"; chown 65534 "$W/out/tok"; chmod 600 "$W/out/tok"
    env -i PATH="$BARE_PATH" TMPDIR="$W/tmp" "${AS[@]}" "$GF" agent --server http://127.0.0.1:9 --service bare \
      --token-file "$W/out/tok" --interval 1 >"$W/agent.out" 2>"$W/agent.err" &
    ap=$!; LPIDS+=("$ap")
    # started: it names its state directory (it writes state.json only when it has something to record)
    for i in $(seq 1 150); do grep -q "state $W/tmp/gpuflame-65534/agent" "$W/agent.err" 2>/dev/null && break; kill -0 "$ap" 2>/dev/null || break; sleep 0.2; done
    kill -TERM "$ap" 2>/dev/null; wait "$ap"
    check_eq "user: the agent in a bare environment stops cleanly on SIGTERM" 0 "$?"
    check "user: the agent's state in the private state directory" grep -q "state $W/tmp/gpuflame-65534/agent" "$W/agent.err"
    check_eq "user: the agent's state directory is private" "65534 700" "$(owner_mode "$W/tmp/gpuflame-65534/agent")"
    AS=()
  else
    skip "user: bare environment" "setpriv missing, or user 65534 cannot run $GF"
  fi
else
  live user "$W/tmp/gpuflame-$(id -u)/sessions" "$(id -u)" TMPDIR="$W/tmp"
  skip "root: bare environment" "not root"
fi
t_done
