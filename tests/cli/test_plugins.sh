#!/usr/bin/env bash
# Exporter plug-ins and scripts dropped onto the search path work with the already-built binary.
. "$(dirname "$0")/../lib/t.sh"

mkdir -p "$TMP/plug/exporters" "$TMP/plug/scripts"
cat >"$TMP/plug/exporters/linecount.lua" <<'LUA'
-- Counts the lines of any input file: a minimal exporter a fleet could drop in.
local core = require("gpuflame.core")
return {
  name = "linecount",
  description = "number of lines in the input",
  accepts = { "path" },
  write = function(path, out)
    local n = 0
    for _ in core.fs.read(path):gmatch("[^\n]*\n") do n = n + 1 end
    core.fs.write_atomic(out, string.format('{"lines": %d}\n', n))
  end,
}
LUA
printf 'a\nb\nc\n' >"$TMP/input.txt"

run_gf export --list
check_not_contains "the plug-in is not there before it is on the search path" "$out" "linecount"

GPUFLAME_PATH="$TMP/plug" run_gf export --list
check_contains "export --list shows the dropped-in exporter" "$out" "linecount"
check_contains "export --list shows its description" "$out" "number of lines in the input"

GPUFLAME_PATH="$TMP/plug" run_gf export --format linecount "$TMP/input.txt" -o "$TMP/lines.json"
check_eq "the dropped-in exporter runs (exit 0)" 0 "$rc"
check_eq "the dropped-in exporter wrote its output" '{"lines": 3}' "$(cat "$TMP/lines.json" 2>/dev/null)"

run_gf --lua-path "$TMP/plug" export --format linecount "$TMP/input.txt" -o "$TMP/lines2.json"
check_eq "--lua-path works like GPUFLAME_PATH" 0 "$rc"

mkdir -p "$TMP/xdg/gpuflame/exporters"
cp "$TMP/plug/exporters/linecount.lua" "$TMP/xdg/gpuflame/exporters/"
XDG_CONFIG_HOME="$TMP/xdg" run_gf export --list
check_contains "~/.config/gpuflame (XDG_CONFIG_HOME) is on the search path" "$out" "linecount"

run_gf export --format no-such-format "$TMP/input.txt" -o "$TMP/x"
check_eq "unknown exporter is a usage error" 2 "$rc"
check_contains "unknown exporter lists the available ones" "$err" "available:"

cat >"$TMP/plug/exporters/broken.lua" <<'LUA'
return { name = "broken" }
LUA
GPUFLAME_PATH="$TMP/plug" run_gf export --format broken "$TMP/input.txt" -o "$TMP/y"
check_eq "a broken exporter is an error, not a crash" 1 "$rc"
check_contains "a broken exporter is explained" "$err" "write"
check "a broken exporter writes nothing" [ ! -e "$TMP/y" ]

cat >"$TMP/plug/scripts/hello.lua" <<'LUA'
-- says hello with its argument
local who = ...
print("hello " .. tostring(who))
return 0
LUA
GPUFLAME_PATH="$TMP/plug" run_gf run --list
check_contains "run --list shows a dropped-in script with its description" "$out" "says hello with its argument"
GPUFLAME_PATH="$TMP/plug" run_gf run hello world
check_eq "run NAME finds scripts/NAME.lua" "hello world" "$out"

# A module on the search path shadows the embedded one with the same logical name.
mkdir -p "$TMP/plug/gpuflame"
cat >"$TMP/plug/gpuflame/nsys.lua" <<'LUA'
local real = {}
function real.parse_version() return { string = "shadowed" } end
return real
LUA
cat >"$TMP/use.lua" <<'LUA'
print(require("gpuflame.nsys").parse_version("x").string)
LUA
GPUFLAME_PATH="$TMP/plug" run_gf run "$TMP/use.lua"
check_eq "a module on the search path shadows the embedded one" "shadowed" "$out"
t_done
