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
# The build itself keeps primitives Lua-free: core/*.c compile with the primitives' flags (make passes them
# as GF_PRIM_CFLAGS), under which a Lua header reached through any include does not compile.
if [ -n "${GF_PRIM_CFLAGS:-}" ]; then
  printf '#include "interrupt.h"\n#include "host.h"\nint f(void) { return gf_interrupted; }\n' >"$plant/z.c"
  # even with host.h itself on the path, the lua.h it includes is not
  if ${CC:-cc} $GF_PRIM_CFLAGS -I"$TOP/core" -I"$TOP/core/host" -fsyntax-only "$plant/z.c" 2>"$plant/z.err"; then
    not_ok "build: a primitive that reaches lua.h through host.h does not compile" "it compiled"
  else check_contains "build: a primitive that reaches lua.h through host.h does not compile" "$(cat "$plant/z.err")" "lua.h"; fi
  printf '#include "interrupt.h"\nint f(void) { return gf_interrupted; }\n' >"$plant/w.c"
  if ${CC:-cc} $GF_PRIM_CFLAGS -I"$TOP/core" -fsyntax-only "$plant/w.c" 2>"$plant/w.err"; then
    ok "build: a primitive reaches the interrupt flag without Lua"
  else not_ok "build: a primitive reaches the interrupt flag without Lua" "$(head -n 3 "$plant/w.err")"; fi
else
  skip "build: primitives compile without Lua" "GF_PRIM_CFLAGS not set (run through make test)"
fi
if res=$(python3 tests/lib/c_layout.py long-functions core 150); then ok "no C function in core/ over 150 lines"; else not_ok "no C function in core/ over 150 lines" "$res"; fi

# File sizes (issue 39, docs/CONVENTIONS.md): no C file over 1,000 lines, no Lua module over 500, no page
# source (templates/js/*.js, templates/css/*.css) over 800. The checker is first shown to catch a long file.
too_long() { # LIMIT FILE...: "FILE: N lines (max LIMIT)" for each FILE over LIMIT lines
  local limit=$1; shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    local nl; nl=$(wc -l <"$f")
    [ "$nl" -gt "$limit" ] && echo "$f: $nl lines (max $limit)"
  done
  return 0
}
seq 801 >"$plant/long.js"; seq 800 >"$plant/ok.js"
check_eq "size checker: an 801-line file is found, an 800-line one is not" "$plant/long.js: 801 lines (max 800)" \
  "$(too_long 800 "$plant/long.js" "$plant/ok.js")"
res=$(too_long 1000 $(find core -name '*.c' | sort))
check_eq "no C file in core/ over 1,000 lines" "" "$res"
res=$(too_long 500 $(find lua -name '*.lua' | sort))
check_eq "no Lua module in lua/ over 500 lines" "" "$res"
res=$(too_long 800 templates/js/*.js templates/css/*.css)
check_eq "no page source (templates/js/*.js, templates/css/*.css) over 800 lines" "" "$res"

# One growth rule (issue 39 item 3): arrays in core/ grow through mem.h (gf_grow, GF_GROW, gf_grow_cols,
# gf_resize). A realloc call, or a capacity doubled by hand (`cap * 2`, `nc *= 2`), is allowed only at the
# sites listed: the hash tables, the allocators handed to libraries, and two sizes gf_grow cannot take.
# The counter is first shown to catch both forms on a planted file.
hand_grown() { # FILE...: "FILE COUNT" for each file with realloc calls or hand-doubled capacities
  grep -cE '(^|[^_[:alnum:]])realloc\(|[a-z_]*(cap|nc)[a-z_]* \*= ?2\b|[a-z_]*cap[a-z_]* \* 2\b' "$@" /dev/null |
    grep -v ':0$' | grep -v '^/dev/null' | sed 's/:\([0-9]*\)$/ \1/' | sort
}
printf 'void *f(void *p, size_t cap)\n{\n    size_t nc = cap ? cap * 2 : 8;\n    return realloc(p, nc);\n}\nstatic void *geo_realloc(void *p);\n' >"$plant/g.c"
check_eq "growth counter: a realloc and a hand-doubled capacity are counted" "$plant/g.c 2" "$(hand_grown "$plant/g.c")"
grown_allowed="core/csv.c 2
core/hmap.c 2
core/host/host.c 1
core/http.c 1
core/stacks.c 1
core/trace_build.c 1"
# core/csv.c: libcsv's realloc hook (a capacity header, doubled); core/hmap.c (grow, gf_hmap_reserve),
# core/stacks.c (rehash): hash tables; core/host/host.c: Lua's allocator; core/http.c: gunzip's buffer,
# doubled up to the output limit; core/trace_build.c: the model's event columns, doubled through resize_events
# (which maps their pages)
check_eq "arrays in core/ grow through mem.h: no realloc or hand-doubled capacity outside the allowed sites" \
  "$grown_allowed" "$(hand_grown $(find core -name '*.c' -o -name '*.h' | grep -v '^core/mem\.[ch]$' | sort))"

# No circles in core/ (issue 39 item 4): a file and its header are one unit, and no unit includes its way back
# to itself; in the trace_* family each header declares only what its own .c defines (types headers and
# private ones declare no function), so no split half calls back into its parent. The checkers are first shown
# to catch both on a planted tree. Known circles outside the family: nvtx.h holds the NVTX analysis's types and
# API, which nvtx_json.h includes for the types; critpath_int.h (the builder's state) includes critpath.h.
iplant=$GF_TMP/iplant
mkdir -p "$iplant"
printf '#include "b.h"\n' >"$iplant/a.c"; printf '#include "a.h"\n' >"$iplant/b.c"
printf 'int a(void);\n' >"$iplant/a.h"; printf 'int b(void);\n' >"$iplant/b.h"
printf '#include "trace_types.h"\nint trace_x_run(int n);\nint trace_y_run(void);\nstatic inline int ok(void) { return 0; }\n' >"$iplant/trace_x.h"
printf 'typedef int gf_t;\nvoid trace_types_init(gf_t *t);\n' >"$iplant/trace_types.h"
printf '#include "trace_x.h"\nint trace_x_run(int n)\n{\n    return n;\n}\n' >"$iplant/trace_x.c"
printf '#include "trace_x.h"\nint trace_y_run(void)\n{\n    return 1;\n}\n' >"$iplant/trace_y.c"
check_eq "include checker: a circle of two units is found" "a -> b -> a" "$(python3 tests/lib/c_includes.py cycles "$iplant")"
check_eq "include checker: a header declaring another file's function, or a types header declaring one, is found" \
  "$iplant/trace_types.h:2: trace_types_init is defined in no trace file
$iplant/trace_x.h:3: trace_y_run is defined in trace_y.c" "$(python3 tests/lib/c_includes.py own-api "$iplant" trace)"
check_eq "no include circle among core/'s files and headers (but nvtx -> nvtx_json, critpath -> critpath_int)" \
  "critpath -> critpath_int -> critpath
nvtx -> nvtx_json -> nvtx" \
  "$(python3 tests/lib/c_includes.py cycles core)"
if res=$(python3 tests/lib/c_includes.py own-api core trace); then ok "each trace_* header declares only its own file's functions"
else not_ok "each trace_* header declares only its own file's functions" "$res"; fi

# One way to reach policy (issue 23): code gets the command's effective policy (ctx.policy(), or a policy
# argument); `defaults()` (the default policy alone, which ignores --policy files) appears nowhere but in
# lua/gpuflame/policy.lua. Comments do not count. The checker is first shown to catch it on a planted tree.
defaults_users() { # ROOT: `defaults()` calls in ROOT/{lua,policies,bench} outside lua/gpuflame/policy.lua
  local root=$1
  find "$root/lua" "$root/policies" "$root/bench" -name '*.lua' 2>/dev/null | sort | while read -r f; do
    [ "$f" = "$root/lua/gpuflame/policy.lua" ] && continue
    awk -v f="${f#"$root"/}" '{ code = $0; sub(/--.*/, "", code); if (index(code, "defaults()")) print f ":" NR }' "$f"
  done
}
dplant=$GF_TMP/dplant
mkdir -p "$dplant/lua/gpuflame" "$dplant/policies"
printf 'local M = {}\nfunction M.defaults() return {} end\nlocal d = M.defaults()\nreturn d\n' >"$dplant/lua/gpuflame/policy.lua"
printf 'local x = 1\n-- a comment may name policy.defaults()\nlocal p = require("gpuflame.policy").defaults()\nreturn p, x\n' \
  >"$dplant/lua/gpuflame/x.lua"
printf 'return { extends = "default" } -- defaults() in a comment\n' >"$dplant/policies/ok.lua"
check_eq "defaults() checker: a call outside policy.lua is found, comments and policy.lua are not" "lua/gpuflame/x.lua:3" \
  "$(defaults_users "$dplant")"
res=$(defaults_users .)
check_eq "no defaults() outside lua/gpuflame/policy.lua (lua/, policies/, bench/)" "" "$res"
# Every document the code cites exists (issue 23 item 6): a `NAME.md` in a comment or string of core/, lua/,
# templates/, policies/ or bench/ is a path from the top (docs/…, README.md) or a file in docs/ or docs/spec/.
missing_docs() { # ROOT: "file:line: NAME.md" for each cited document that is not there
  local root=$1
  (cd "$root" && grep -rnoE '[A-Za-z0-9_./-]*[A-Z][A-Z_]*\.md' core lua templates policies bench 2>/dev/null) |
    while IFS=: read -r f n doc; do
      case "$doc" in [A-Z]*_RULE.md|BASE.md) continue ;; esac # findings' output names (BASE_RULE.md), not documents
      [ -f "$root/$doc" ] || [ -f "$root/docs/$doc" ] || [ -f "$root/docs/spec/$doc" ] || echo "$f:$n: $doc"
    done
}
cplant=$GF_TMP/cplant
mkdir -p "$cplant/lua" "$cplant/docs/spec"
: >"$cplant/docs/spec/NSYS.md"; : >"$cplant/docs/LIVE.md"
printf -- '-- see docs/spec/NSYS.md and LIVE.md\n-- and STUDIO_PROTOCOL.md\n' >"$cplant/lua/x.lua"
check_eq "cited-docs checker: a cited document that is absent is found, present ones are not" "lua/x.lua:2: STUDIO_PROTOCOL.md" \
  "$(missing_docs "$cplant")"
check_eq "every document cited in core/, lua/, templates/, policies/ and bench/ exists" "" "$(missing_docs .)"
# libcurl is loaded on the first HTTP request (core/http.c), not linked: linked, its ~30 libraries cost
# every start about 30 ms of CPU (docs/PERFORMANCE.md, "Start-up")
if command -v ldd >/dev/null 2>&1 && [ -x "$GF" ]; then
  check "the gpuflame binary does not link libcurl" bash -c "! ldd '$GF' | grep -q libcurl"
fi


# ctx (or policy) is the last parameter of a Lua function, and required (docs/CONVENTIONS.md "Policy values"):
# a parameter named ctx, policy or pol anywhere else in a signature under lua/ is found. The checker is first
# shown to catch it on a planted tree (one-line and multi-line signatures, a method), and to pass a comment,
# a ctx that is last and a name that only contains ctx.
cplant=$GF_TMP/cplant
mkdir -p "$cplant/lua/gpuflame"
cat >"$cplant/lua/gpuflame/x.lua" <<'LUA'
local M = {}
-- M.old(policy, a) was the signature once: comments do not count
function M.ok(a, opts, ctx) return a, opts, ctx end
function M.bad(policy, a) return policy, a end
local function spread(a,
                      ctx,
                      b)
  return a, ctx, b
end
function M:method(pol, x) return pol, x, spread end
M.anon = function(ctx_name, ctx) return ctx_name, ctx end
return M
LUA
res=$(python3 tests/lib/lua_ctx_last.py "$cplant/lua")
check_eq "ctx-last checker: policy/ctx/pol before another parameter is found, with its line" \
  "$cplant/lua/gpuflame/x.lua:4: M.bad(policy, a)
$cplant/lua/gpuflame/x.lua:5: spread(a, ctx, b)
$cplant/lua/gpuflame/x.lua:10: M:method(pol, x)" "$res"
# The policy travels only as that last parameter, never inside an options table (issue 23 item 2): reading
# `opts.policy` (any table's `.policy` or `["policy"]` field) under lua/ is found; only a capture's `state` and
# a rule's `model`, which hold a session's policy, may be read so. The checker is first shown to catch it on a
# planted tree, and to pass a comment, a string, a ctx.policy() call, state.policy and a policy_files field.
oplant=$GF_TMP/oplant
mkdir -p "$oplant/lua/gpuflame"
cat >"$oplant/lua/gpuflame/y.lua" <<'LUA'
local M = {}
-- M.load(paths, opts) read opts.policy once: comments do not count
function M.load(paths, opts, policy)
  local p = opts.policy or policy
  local q = opts["policy"]
  local r = load_opts(paths).policy
  local s = require("gpuflame.policy").need(policy, "M.load (opts.policy)")
  return p, q, r, s, opts.ctx.policy(), opts.state.policy, opts.policy_files
end
function M.other(o, model) return o . policy, model.policy end
return M
LUA
res=$(python3 tests/lib/lua_ctx_last.py "$oplant/lua")
check_eq "options-policy checker: a table's policy read is found, with its line; holders, calls, comments and strings are not" \
  "$oplant/lua/gpuflame/y.lua:4: opts.policy read (a table carrying the policy: pass the policy, or ctx, as the last argument)
$oplant/lua/gpuflame/y.lua:5: opts[\"policy\"] read (a table carrying the policy: pass the policy, or ctx, as the last argument)
$oplant/lua/gpuflame/y.lua:6: ).policy read (a table carrying the policy: pass the policy, or ctx, as the last argument)
$oplant/lua/gpuflame/y.lua:10: o.policy read (a table carrying the policy: pass the policy, or ctx, as the last argument)" "$res"
if res=$(python3 tests/lib/lua_ctx_last.py lua); then
  ok "ctx (or policy) is the last parameter of every function in lua/, and no table carries the policy (no opts.policy)"
else not_ok "ctx (or policy) is the last parameter of every function in lua/, and no table carries the policy (no opts.policy)" "$res"; fi
# One style of override (issue 39 item 5): command-line overrides are passed explicitly (flamegraph.settings, a
# view's spec), never written into the policy table; only the context sets ctx._policy. The checker is first
# shown to catch a direct write, a write through a local alias and ctx._policy, and to pass reads, a local
# named like a field, a comment and a string.
wplant=$GF_TMP/wplant
mkdir -p "$wplant/gpuflame"
cat >"$wplant/gpuflame/w.lua" <<'LUA'
local M = {}
function M.run(opts, ctx)
  ctx.policy().flamegraph.unit_ns = opts.unit_ns
  local p = ctx.policy().flamegraph
  p.levels = { "kernel" }
  local levels = p.levels
  local s = "ctx.policy().diff.group_by = 1" -- policy.diff.group_by = opts.group_by
  self.ctx._policy = nil
  return levels, s, opts.policy_files
end
return M
LUA
check_eq "policy-write checker: a write, a write through an alias and ctx._policy are found; reads, comments and strings are not" \
  "$wplant/gpuflame/w.lua:3: writes ctx.policy().flamegraph.unit_ns into the policy
$wplant/gpuflame/w.lua:5: writes p.levels into the policy
$wplant/gpuflame/w.lua:8: sets ctx._policy (reach the policy through ctx.policy() / ctx.reload_policy())" \
  "$(python3 tests/lib/lua_policy_writes.py "$wplant")"
if res=$(python3 tests/lib/lua_policy_writes.py lua); then ok "no Lua code writes into the effective policy (overrides are passed explicitly)"
else not_ok "no Lua code writes into the effective policy (overrides are passed explicitly)" "$res"; fi

# The Lua require graph (issue 39, docs/ARCHITECTURE.md "The require graph"): no cycle, and no require of a
# gpuflame module inside a function body but those tests/lib/lua_requires.allow lists, each with its reason
# (kept for start-up time). The checker is first shown to find a cycle closed by an in-function require on a
# planted tree, to pass comments and strings, and to fail a planted require and a planted cycle in lua/.
rplant=$GF_TMP/rplant
mkdir -p "$rplant/gpuflame"
cat >"$rplant/gpuflame/a.lua" <<'LUA'
local b = require("gpuflame.b")
-- require("gpuflame.c") in a comment is no edge
local s = "require('gpuflame.c') in a string is no edge either"
local M = {}
function M.f() return b, s end
return M
LUA
cat >"$rplant/gpuflame/b.lua" <<'LUA'
local M = {}
if M then M.x = 1 end
function M.g()
  for _ = 1, 2 do end
  return require("gpuflame.a")
end
M.h = pcall(require, "gpuflame.c")
return M
LUA
printf 'local M = {}\nreturn M\n' >"$rplant/gpuflame/c.lua"
check_eq "require-graph checker: a cycle is found with its modules" \
  "gpuflame.a -> gpuflame.b -> gpuflame.a   (2 modules tied: gpuflame.a gpuflame.b)" \
  "$(python3 tests/lib/lua_requires.py cycles "$rplant")"
check_eq "require-graph checker: a require inside a function is found with its line; top-level ones are not" \
  "$rplant/gpuflame/b.lua:5: requires gpuflame.a inside a function" \
  "$(python3 tests/lib/lua_requires.py in-function "$rplant")"
printf '# allowed\ngpuflame/b.lua gpuflame.a  # a reason\n' >"$rplant/allow"
check_eq "require-graph checker: an allow-listed in-function require passes" "" \
  "$(python3 tests/lib/lua_requires.py in-function "$rplant" "$rplant/allow")"
printf 'gpuflame/b.lua gpuflame.a\ngpuflame/a.lua gpuflame.c  # no longer there\n' >"$rplant/allow"
check_eq "require-graph checker: an allow line without its reason, and one that matches no require, fail" \
  "$rplant/allow:1: an allow line is \"FILE MOD  # why\" (the reason is required)
$rplant/gpuflame/b.lua:5: requires gpuflame.a inside a function
$rplant/allow:2: gpuflame/a.lua gpuflame.c is allowed but no longer required inside a function (drop the line)" \
  "$(python3 tests/lib/lua_requires.py in-function "$rplant" "$rplant/allow")"
# the real tree with one require planted inside a function of a module (gpuflame.log, head-required
# everywhere), and with one cycle planted (log requiring trace, which reaches log): both fail the lint
rtree=$GF_TMP/rtree
cp -r lua "$rtree"
printf 'local function late() return require("gpuflame.errors") end\nreturn late\n' >"$rtree/gpuflame/zz_planted.lua"
check_eq "require-graph lint: a require planted inside a function in lua/ fails" \
  "$rtree/gpuflame/zz_planted.lua:1: requires gpuflame.errors inside a function" \
  "$(python3 tests/lib/lua_requires.py in-function "$rtree" tests/lib/lua_requires.allow)"
rm "$rtree/gpuflame/zz_planted.lua"
printf 'local _ = require("gpuflame.trace")\n' | cat - lua/gpuflame/log.lua >"$rtree/gpuflame/log.lua"
if res=$(python3 tests/lib/lua_requires.py cycles "$rtree"); then not_ok "require-graph lint: a cycle planted in lua/ fails" "none found"
else check_eq "require-graph lint: a cycle planted in lua/ fails" "1" "$(printf '%s\n' "$res" | grep -c 'gpuflame.log')"; fi
if res=$(python3 tests/lib/lua_requires.py cycles lua); then ok "no cycle in the require graph of lua/"
else not_ok "no cycle in the require graph of lua/" "$res"; fi
if res=$(python3 tests/lib/lua_requires.py in-function lua tests/lib/lua_requires.allow); then
  ok "no require of a gpuflame module inside a function in lua/ but the allow-listed ones"
else not_ok "no require of a gpuflame module inside a function in lua/ but the allow-listed ones" "$res"; fi
t_done
