#!/usr/bin/env bash
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
t_done
