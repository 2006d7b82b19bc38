#!/usr/bin/env bash
# The host: version/help, exit codes, policy errors (syntax, runtime, type, endless loop, memory),
# shadowing of the embedded default policy through GPUFLAME_PATH, `run` scripts.
. "$(dirname "$0")/../lib/t.sh"

run_gf --version
check_eq "--version exits 0" 0 "$rc"
check_contains "--version prints the version" "$out" "gpuflame 0."

run_gf
check_eq "no command is a usage error (exit 2)" 2 "$rc"
check_contains "no command prints help" "$out" "commands:"

run_gf no-such-command
check_eq "unknown command exits 2" 2 "$rc"
check_contains "unknown command is named" "$err" "unknown command 'no-such-command'"

run_gf policy --help
check_contains "per-command help" "$out" "usage: gpuflame policy"

# --- policies that go wrong ------------------------------------------------------------------
printf 'return { capture = { duration = 1 }\n' >"$TMP/syntax.lua"
run_gf --policy "$TMP/syntax.lua" policy show
check_eq "syntax error: exit 1" 1 "$rc"
check_contains "syntax error names file and line" "$err" "$TMP/syntax.lua:2:"
check_eq "syntax error is one line" 1 "$(printf '%s\n' "$err" | wc -l)"

printf 'local cfg = nil\nreturn { capture = { duration = cfg.x } }\n' >"$TMP/runtime.lua"
run_gf --policy "$TMP/runtime.lua" policy show
check_eq "runtime error: exit 1" 1 "$rc"
check_contains "runtime error names file and line" "$err" "$TMP/runtime.lua:2:"
check_eq "runtime error is one line without -v" 1 "$(printf '%s\n' "$err" | wc -l)"
run_gf -v --policy "$TMP/runtime.lua" policy show
check_contains "runtime error has a traceback with -v" "$err" "stack traceback:"

printf 'return { extends = "default", capture = { duration = "abc" } }\n' >"$TMP/fleet.lua"
run_gf policy check "$TMP/fleet.lua"
check_eq "wrong type: exit 1" 1 "$rc"
check_eq "wrong type message" "gpuflame: policy $TMP/fleet.lua: capture.duration must be a number > 0 (got \"abc\")" "$err"

printf 'return { captuer = {} }\n' >"$TMP/typo.lua"
run_gf policy check "$TMP/typo.lua"
check_contains "unknown field is reported" "$err" "unknown field captuer"

printf 'local n = 0\nwhile true do n = n + 1 end\n' >"$TMP/loop.lua"
start=$(date +%s)
run_gf --policy "$TMP/loop.lua" policy show
check_eq "endless loop: exit 1" 1 "$rc"
check_contains "endless loop is stopped with a clear message" "$err" "$TMP/loop.lua:2: script ran longer than its time budget"
check "endless loop stopped within 15 s" [ $(( $(date +%s) - start )) -lt 15 ]

printf 'local t = {}\nfor i = 1, 1e9 do t[i] = string.rep("x", 4096) .. i end\n' >"$TMP/alloc.lua"
GPUFLAME_LUA_MEM_MB=64 run_gf --policy "$TMP/alloc.lua" policy show
check_eq "unbounded allocation: exit 1" 1 "$rc"
check_contains "unbounded allocation message" "$err" "Lua memory limit"

printf 'return { extends = "default", limits = { function_budget = 3 } }\n' >"$TMP/ok.lua"
run_gf policy check "$TMP/ok.lua"
check_eq "valid policy checks ok" 0 "$rc"

# --- shadowing the embedded default policy ----------------------------------------------------
mkdir -p "$TMP/path/policies"
printf 'return { capture = { duration = 7, trace = "cuda" }, discover = { order = { "path" } } }\n' \
  >"$TMP/path/policies/default.lua"
GPUFLAME_PATH="$TMP/path" run_gf policy show
check_contains "GPUFLAME_PATH default.lua replaces the embedded one" "$out" '"duration": 7'
check_not_contains "shadowed default has none of the embedded fields" "$out" '"timeout_extra"'
rm -rf "$TMP/path/policies"
GPUFLAME_PATH="$TMP/path" run_gf policy show
check_contains "removing it restores the embedded default" "$out" '"duration": 60'
run_gf --lua-path "$TMP/nothing" policy show
check_eq "--lua-path with no files falls back to the bundle" 0 "$rc"

# --- run scripts --------------------------------------------------------------------------------
cat >"$TMP/hello.lua" <<'LUA'
local core = require("gpuflame.core")
local a, b = ...
io.write("args:", a, ",", b, " json:", core.json.encode({ x = 1, y = { 1, 2 } }), "\n")
return 3
LUA
run_gf run "$TMP/hello.lua" one two
check_eq "run passes args and returns the exit code" 3 "$rc"
check_contains "run script output" "$out" 'args:one,two json:{"x":1,"y":[1,2]}'

printf 'return { extends = "default", capture = { duration = 33 } }\n' >"$TMP/p33.lua"
printf 'print(require("gpuflame.policy").effective({}).capture.duration)\n' >"$TMP/showdur.lua"
run_gf --policy "$TMP/p33.lua" run "$TMP/showdur.lua"
check_eq "--policy applies to scripts run with gpuflame run" "33" "$out"
run_gf run --list
check_eq "run --list works" 0 "$rc"
t_done
