#!/usr/bin/env bash
# gf-test: no-gpuflame
# Lua code is luacheck-clean (no globals, no unused variables).
. "$(dirname "$0")/../lib/t.sh"
cd "$TOP"
if command -v luacheck >/dev/null 2>&1; then
  dirs=()
  for d in lua policies tests/lua bench; do [ -d "$d" ] && dirs+=("$d"); done
  if res=$(luacheck -q --no-color "${dirs[@]}" 2>&1); then ok "luacheck clean"; else not_ok "luacheck clean" "$(echo "$res" | tail -20)"; fi
else
  not_ok "luacheck clean" "luacheck is not installed (apt-get install lua-check; .ci/deps.sh test does it)"
fi

# core/ layout (docs/ARCHITECTURE.md "Where Lua may appear"): Lua headers only in core/host/ and core/bind/,
# no C function over 150 lines. The checker is first shown to catch both on a planted tree.
plant=$GF_TMP/core
mkdir -p "$plant/bind" "$plant/host"
printf '#include <lua.h>\n' >"$plant/bind/l_x.c"
printf '#include "x.h"\n#include <lauxlib.h>\n' >"$plant/x.c"
{ printf 'static int\nlong_one(int a,\n         int b)\n{\n'; for i in $(seq 148); do printf '    a += b;\n'; done; printf '}\n'; } >"$plant/y.c"
res=$(python3 tests/lib/c_layout.py lua-includes "$plant")
check_eq "layout checker: a Lua header outside host/ and bind/ is found" "$plant/x.c:2: includes #include <lauxlib.h> (only core/host/ and core/bind/ may)" "$res"
res=$(python3 tests/lib/c_layout.py long-functions "$plant" 150)
check_eq "layout checker: a 153-line function is found with its name" "$plant/y.c:1: long_one is 153 lines (max 150)" "$res"
if res=$(python3 tests/lib/c_layout.py lua-includes core); then ok "no Lua header in core/ outside core/host/ and core/bind/"; else not_ok "no Lua header in core/ outside core/host/ and core/bind/" "$res"; fi
if res=$(python3 tests/lib/c_layout.py long-functions core 150); then ok "no C function in core/ over 150 lines"; else not_ok "no C function in core/ over 150 lines" "$res"; fi
t_done
