#!/usr/bin/env bash
# The page code (docs/PAGES.md): JavaScript and CSS live in templates/js/ and templates/css/, inlined by
# include slots so each written page is one self-contained file. Every JS file passes `node --check`
# and ESLint (tests/lib/eslint.config.mjs, when tests/node_modules has it); no function is defined in
# two page sources; templates hold markup and include slots only. Each checker is first shown to fail
# on a planted tree.
. "$(dirname "$0")/../lib/t.sh"
cd "$TOP"
PJ="python3 tests/lib/page_js.py"
ESLINT=${GF_ESLINT:-$TOP/tests/node_modules/.bin/eslint}

# ---- the checkers catch what they are for, on a planted tree ----
plant=$TMP/tpl
mkdir -p "$plant/js" "$plant/css"
printf '<html><script>\n{{include:js/a.js}}\n</script></html>\n' >"$plant/a.html"
printf '<html><style>\n{{include:css/a.css}}\n</style><script>\nfunction inline() {}\n{{include:js/gone.js}}\n</script></html>\n' >"$plant/b.html"
printf '// comment: function notcounted(\nvar gfA = (function () { function draw() {} return draw; })();\n' >"$plant/js/a.js"
printf 'var gfB = (function () { var draw = function () {}; return draw; })();\n' >"$plant/js/b.js"
printf 'var x = (function () { return 1 + ; })();\n' >"$plant/js/c.js"
printf 'p { color: red; }\n' >"$plant/css/a.css"
res=$($PJ dups "$plant")
check_eq "checker: a function defined in two page sources is named with both" "draw: defined in js/a.js, js/b.js" "$res"
res=$($PJ inline "$plant")
check_contains "checker: inline code in a template is found" "$res" "b.html: inline code (function inline() {}"
res=$($PJ includes "$plant")
check_eq "checker: a missing include and an unincluded file are found" "b.html: includes js/gone.js, which does not exist
js/b.js: no template includes it
js/c.js: no template includes it" "$res"
if command -v node >/dev/null 2>&1; then
  if node --check "$plant/js/c.js" 2>/dev/null; then not_ok "checker: node --check fails on a syntax error" "it passed"
  else ok "checker: node --check fails on a syntax error"; fi
fi
if [ -x "$ESLINT" ]; then
  printf 'var gfD = (function () { "use strict"; return undefinedName + 1; })();\n' >"$plant/js/d.js"
  # through stdin: ESLint ignores files outside the directory it runs in
  if res=$("$ESLINT" --no-config-lookup -c tests/lib/eslint.config.mjs --stdin --stdin-filename planted.js <"$plant/js/d.js" 2>&1); then
    not_ok "checker: ESLint fails on an undefined name" "it passed"
  else check_contains "checker: ESLint fails on an undefined name" "$res" "'undefinedName' is not defined"; fi
fi

# ---- the page code itself ----
if res=$($PJ dups templates); then ok "no JS function is defined in two page sources"; else not_ok "no JS function is defined in two page sources" "$res"; fi
if res=$($PJ inline templates); then ok "templates hold no inline JS or CSS, only include slots"; else not_ok "templates hold no inline JS or CSS, only include slots" "$res"; fi
if res=$($PJ includes templates); then ok "every include exists and every js/, css/ file is included"; else not_ok "every include exists and every js/, css/ file is included" "$res"; fi
if command -v node >/dev/null 2>&1; then
  bad=""
  for f in templates/js/*.js; do node --check "$f" 2>"$TMP/check.err" || bad="$bad $f: $(head -n 5 "$TMP/check.err")"; done
  if [ -z "$bad" ]; then ok "node --check passes on every templates/js/*.js"; else not_ok "node --check passes on every templates/js/*.js" "$bad"; fi
else
  not_ok "node --check passes on every templates/js/*.js" "node is not installed (.ci/deps.sh test installs nodejs)"
fi
if [ -x "$ESLINT" ]; then
  if res=$("$ESLINT" --no-config-lookup -c tests/lib/eslint.config.mjs templates/js/*.js 2>&1); then ok "ESLint passes on every templates/js/*.js"
  else not_ok "ESLint passes on every templates/js/*.js" "$(echo "$res" | tail -20)"; fi
else
  skip "ESLint passes on every templates/js/*.js" "tests/node_modules has no eslint (cd tests && npm install)"
fi

# ---- include slots, as gpuflame expands them (lua/gpuflame/views/page.lua) ----
printf 'nsys;gpu;cuda_kernel;k1 10\nnsys;gpu;cuda_kernel;k2 5\n' >"$TMP/in.folded"
run_gf -q flamegraph "$TMP/in.folded" -o "$TMP/fg.html"
check_eq "flamegraph page written" 0 "$rc"
page=$(cat "$TMP/fg.html")
check_not_contains "written page: no slot left" "$page" "{{"
all=1
for f in templates/js/util.js templates/js/flame.js templates/js/findings.js templates/js/flamegraph.js templates/css/flame.css templates/palettes.json; do
  grep -qF -- "$(sed -n 2p "$f")" "$TMP/fg.html" || { all=0; not_ok "written page: carries $f" "its second line is not in the page"; }
done
[ $all = 1 ] && ok "written page: carries the bundled files it includes"
# a file on the search path replaces the bundled one of the same name
mkdir -p "$TMP/lp/templates/js"
{ echo "// planted-util-marker"; cat templates/js/util.js; } >"$TMP/lp/templates/js/util.js"
run_gf -q --lua-path "$TMP/lp" flamegraph "$TMP/in.folded" -o "$TMP/fg2.html"
check_contains "include: a js/ file on the search path replaces the bundled one" "$(cat "$TMP/fg2.html")" "// planted-util-marker"
# errors name the template and the line, and nothing is written
mkdir -p "$TMP/bad/templates"
printf '<html>\n<script>\n{{include:js/nothere.js}}\n</script>\n' >"$TMP/bad/templates/flamegraph.html"
run_gf -q --lua-path "$TMP/bad" flamegraph "$TMP/in.folded" -o "$TMP/fg3.html"
check_contains "include: a missing file is an error naming the template and line" "$err" "flamegraph.html:3: included file templates/js/nothere.js not found"
check "include: nothing written on error" test ! -e "$TMP/fg3.html"
printf '<html>\n{{include:flamegraph.html}}\n' >"$TMP/bad/templates/flamegraph.html"
run_gf -q --lua-path "$TMP/bad" flamegraph "$TMP/in.folded" -o "$TMP/fg3.html"
check_contains "include: a template that includes itself is an error" "$err" "includes itself"
printf '<html><script>{{include:js/util.js}}</script>\n' >"$TMP/bad/templates/flamegraph.html"
run_gf -q --lua-path "$TMP/bad" flamegraph "$TMP/in.folded" -o "$TMP/fg3.html"
check_contains "include: a slot not alone on its line is left to the renderer, which rejects it" "$err" "malformed slot '{{include:js/util.js}}'"
printf '<html>\n{{include:../policies/default.lua}}\n' >"$TMP/bad/templates/flamegraph.html"
run_gf -q --lua-path "$TMP/bad" flamegraph "$TMP/in.folded" -o "$TMP/fg3.html"
check_contains "include: a path out of templates/ is refused" "$err" "must be a path inside templates/"

# ---- one palette table: the pages draw with templates/palettes.json and the policy schema reads its names ----
mkdir -p "$TMP/pal/templates" "$TMP/pal/p" && chmod 700 "$TMP/pal/p"
python3 - "$TOP/templates/palettes.json" "$TMP/pal/templates/palettes.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["palettes"].append({"name": "teal", "rgb": [[0, 0, 0], [128, 0, 0], [128, 0, 0]]})
json.dump(t, open(sys.argv[2], "w"), indent=1)
PY
printf 'return { flamegraph = { colors = "teal" } }\n' >"$TMP/pal/p/teal.lua"
run_gf -q --policy "$TMP/pal/p/teal.lua" policy show
check_contains "palette table: without it on the search path, policy flamegraph.colors \"teal\" is refused" "$err" "flamegraph.colors must be one of hot, mem, io,"
run_gf -q --lua-path "$TMP/pal" --policy "$TMP/pal/p/teal.lua" flamegraph "$TMP/in.folded" -o "$TMP/teal.html"
check_eq "palette table: a palette added to it is accepted by the policy schema" 0 "$rc"
check_contains "palette table: the page carries the table it was checked against" "$(cat "$TMP/teal.html")" '"name": "teal"'
run_gf -q --lua-path "$TMP/pal" flamegraph "$TMP/in.folded" -o "$TMP/teal2.html" --colors teal
check_eq "palette table: and by --colors" 0 "$rc"
t_done
