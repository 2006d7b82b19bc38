#!/usr/bin/env bash
# nsys discovery: explicit path, NSYS_PATH, PATH, glob sources with several versions (newest by
# version number wins), non-executable files, garbage --version output; `discover` explains each.
. "$(dirname "$0")/../lib/t.sh"

mk_nsys() { # mk_nsys PATH "version line"
  mkdir -p "$(dirname "$1")"
  printf '#!/bin/sh\n[ "$1" = --version ] && echo "%s" && exit 0\nexit 1\n' "$2" >"$1"
  chmod +x "$1"
}
emptyp="$TMP/emptybin"; mkdir -p "$emptyp"; ln -sf "$(command -v sh)" "$emptyp/sh"
base_path="$emptyp"
# A policy whose glob sources point into the test's temp dir instead of /opt and /usr/local.
cat >"$TMP/sources.lua" <<LUA
return { extends = "default", discover = { sources = {
  cuda = { "$TMP/cuda*/bin/nsys" }, opt = { "$TMP/opt/nvidia/nsight-systems/*/bin/nsys" },
  target = { "$TMP/opt/nvidia/nsight-systems/*/target-linux-*/nsys" }, distro = { "$TMP/distro/nsys" },
  ["nsight-compute"] = { "$TMP/ncu/*/host/target-linux-*/nsys" } } } }
LUA
disc() { run_gf_env PATH="$base_path" -- --policy "$TMP/sources.lua" discover "$@"; }

disc
check_eq "nothing found: exit 3" 3 "$rc"
check_contains "nothing found: says how to install or point to nsys" "$err" "NSYS_PATH"

mk_nsys "$TMP/opt/nvidia/nsight-systems/2025.6.1/bin/nsys" "NVIDIA Nsight Systems version 2025.6.1.154-256137418295v0"
mk_nsys "$TMP/opt/nvidia/nsight-systems/2025.10.2/bin/nsys" "NVIDIA Nsight Systems version 2025.10.2.11-1"
mk_nsys "$TMP/opt/nvidia/nsight-systems/2024.6.2/bin/nsys" "NVIDIA Nsight Systems version 2024.6.2.225-246235244400v0"
disc --json
check_eq "glob source: found (exit 0)" 0 "$rc"
check_contains "glob source: newest by version number wins (2025.10 > 2025.6)" "$out" '"version": "2025.10.2.11"'
check_contains "glob source: older candidates explained" "$out" "older than"

mk_nsys "$TMP/cuda-12.4/bin/nsys" "NVIDIA Nsight Systems version 2023.4.4.54-234433681190v0"
disc --json
check_contains "cuda wrapper comes before /opt in the default order" "$out" '"version": "2023.4.4.54"'

mkdir -p "$TMP/pathbin"
mk_nsys "$TMP/pathbin/nsys" "NVIDIA Nsight Systems version 2026.1.3.425-261338342291v0"
base_path="$TMP/pathbin:$emptyp"
disc --json
check_contains "PATH comes before the globs" "$out" '"source": "path"'

mk_nsys "$TMP/env/nsys" "NVIDIA Nsight Systems version 2020.5.1.85-5ee086b"
NSYS_PATH="$TMP/env/nsys" disc --json
check_contains "NSYS_PATH comes before PATH" "$out" '"version": "2020.5.1.85"'

mk_nsys "$TMP/explicit/nsys" "NVIDIA Nsight Systems version 2025.1.1.0"
NSYS_PATH="$TMP/env/nsys" disc --json --nsys "$TMP/explicit/nsys"
check_contains "--nsys comes first (Nsight Compute style version, no hash)" "$out" '"version": "2025.1.1.0"'

# Rejections, each with its reason; the search goes on.
printf '#!/bin/sh\necho hello\n' >"$TMP/noexec"; chmod -x "$TMP/noexec"
disc --nsys "$TMP/noexec"
check_eq "non-executable explicit path falls through to later candidates" 0 "$rc"
check_contains "non-executable is explained" "$out" "not executable"
check_contains "the rejected explicit path is logged" "$err" "$TMP/noexec"

mk_nsys "$TMP/garbage/nsys" "this is not a version"
disc --nsys "$TMP/garbage/nsys"
check_contains "garbage --version is rejected with the output quoted" "$out" "does not parse"
disc --nsys "$TMP/does/not/exist"
check_contains "missing explicit path is explained" "$out" "does not exist"
mkdir -p "$TMP/adir"
disc --nsys "$TMP/adir"
check_contains "a directory is not a regular file" "$out" "not a regular file"

# Symlinks are resolved and duplicates skipped.
ln -sf "$TMP/pathbin/nsys" "$TMP/explicit/link-nsys"
disc --json --nsys "$TMP/explicit/link-nsys"
check_contains "symlink resolved" "$out" "\"resolved\": \"$TMP/pathbin/nsys\""
ln -sf "$TMP/garbage/nsys" "$TMP/explicit/bad-link"
NSYS_PATH="$TMP/garbage/nsys" disc --json --nsys "$TMP/explicit/bad-link"
check_contains "the same binary reached twice is tried once (duplicate)" "$out" "duplicate of an earlier candidate"

# A fleet policy reorders discovery with a literal path.
cat >"$TMP/fleet.lua" <<LUA
return { extends = "$TMP/sources.lua", discover = { order = { "$TMP/opt/nvidia/nsight-systems/2024.6.2/bin/nsys", "path" } } }
LUA
run_gf_env PATH="$base_path" -- --policy "$TMP/fleet.lua" discover --json
check_contains "fleet policy order with a literal path" "$out" '"version": "2024.6.2.225"'

# Every nsys found is listed with its version (issue 38: fleets mix versions), not only the chosen one:
# PATH's 2026.1.3 is chosen by discover.order, and the cuda and /opt installs (found by the globs above) are
# listed too. The expected list is what this file installed.
disc --json
found=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%s:%s:%s" % (f["source"], f["version"], f["chosen"]) for f in d["found"]))' <<<"$out")
check_eq "discover --json: every nsys found, with its version and source, the chosen one marked" \
  "path:2026.1.3.425:True cuda:2023.4.4.54:False opt:2025.10.2.11:False opt:2025.6.1.154:False opt:2024.6.2.225:False" "$found"
disc
check_contains "discover: the nsys found listed with versions" "$out" "  2023.4.4.54  $TMP/cuda-12.4/bin/nsys [cuda]"

# discover.prefer = "newest": the newest version anywhere wins over the order of the sources; a usable
# --nsys still wins
mk_nsys "$TMP/opt/nvidia/nsight-systems/2027.1.1/bin/nsys" "NVIDIA Nsight Systems version 2027.1.1.5-1"
cat >"$TMP/newest.lua" <<LUA
return { extends = "$TMP/sources.lua", discover = { prefer = "newest" } }
LUA
run_gf_env PATH="$base_path" -- --policy "$TMP/newest.lua" discover --json
check_contains "prefer newest: /opt's 2027.1.1 wins over PATH's 2026.1.3" "$out" '"version": "2027.1.1.5"'
check_contains "prefer newest: PATH's is explained" "$out" "older than $TMP/opt/nvidia/nsight-systems/2027.1.1/bin/nsys"
disc --json
check_contains "prefer order (the default): PATH's 2026.1.3 still wins" "$out" '"source": "path"'
run_gf_env PATH="$base_path" -- --policy "$TMP/newest.lua" discover --json --nsys "$TMP/explicit/nsys"
check_contains "prefer newest: a usable --nsys still wins" "$out" '"version": "2025.1.1.0"'
run_gf_env PATH="$base_path" -- --policy "$TMP/newest.lua" capture --out "$TMP/cap" --nsys "$TMP/garbage/nsys" \
  --duration 1 -- /bin/true
check_contains "prefer newest: a capture runs the newest (summary.json; the stand-in then refuses to profile)" \
  "$(cat "$TMP/cap/summary.json")" "\"path\": \"$TMP/opt/nvidia/nsight-systems/2027.1.1/bin/nsys\""
rm -rf "$TMP/opt/nvidia/nsight-systems/2027.1.1"

disc
check_contains "text output names the chosen nsys" "$out" "nsys: $TMP/pathbin/nsys"
check_contains "text output lists candidates" "$out" "candidates tried:"
t_done
