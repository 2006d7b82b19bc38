#!/usr/bin/env bash
# Installs the Debian packages gpuflame needs. `build` = libraries to compile; `test` = also what the
# test suite uses (sqlite3 shell, luacheck, Chromium + playwright-core, clang for fuzzing, OpenMPI for
# bin/gpuflame-mpi and tests/cli/test_mpi.sh);
# `nsys` = NVIDIA Nsight Systems 2022.4 from Debian's own non-free component (the real-nsys test tier).
# As root it runs apt-get; otherwise it prints the exact commands and fails.
set -euo pipefail
kind=${1:-build}
if [ "$kind" = nsys ]; then
  exec "$(dirname "$0")/deps_nsys.sh"
fi
pkgs=(gcc make pkg-config liblua5.4-dev libsqlite3-dev libcsv-dev libcurl4-openssl-dev libcjson-dev libyaml-dev zlib1g-dev libdeflate-dev python3)
if [ "$kind" = test ]; then
  pkgs+=(sqlite3 lua5.4 lua-check chromium time nodejs npm clang libclang-rt-14-dev valgrind procps openmpi-bin libopenmpi-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# nodejs from another origin may ship npm itself; do not ask apt for it then.
if [[ " ${missing[*]-} " == *" npm "* ]] && command -v npm >/dev/null 2>&1; then
  missing=("${missing[@]/npm}")
fi
if [[ " ${missing[*]-} " == *" nodejs "* ]] && command -v node >/dev/null 2>&1; then
  missing=("${missing[@]/nodejs}")
fi
read -r -a missing <<<"${missing[*]-}"
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    echo "deps: as root (e.g. with sudo or su -c), run: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
if [ "$kind" = test ]; then
  top=$(cd "$(dirname "$0")/.." && pwd)
  if [ ! -d "$top/tests/node_modules/playwright-core" ] || [ ! -d "$top/tests/node_modules/speedscope" ] ||
     [ ! -d "$top/tests/node_modules/eslint" ] || [ ! -d "$top/tests/node_modules/@modelcontextprotocol/sdk" ] ||
     [ ! -d "$top/tests/node_modules/@modelcontextprotocol/inspector" ]; then
    echo "deps: npm install playwright-core, speedscope, eslint, the MCP SDK and Inspector (tests/node_modules)" >&2
    npmlog=$(mktemp)
    if ! (cd "$top/tests" && npm install --no-audit --no-fund) >"$npmlog" 2>&1; then
      echo "deps: npm install failed; npm said:" >&2
      grep -E 'npm (ERR|error)' "$npmlog" | grep -v -E 'error +at |^npm error +[a-z]+: ' | head -n 6 | sed 's/^/deps:   /' >&2 || tail -n 12 "$npmlog" >&2
      cat >&2 <<'MSG'
deps: the browser and MCP tests need tests/node_modules (playwright-core, speedscope; eslint for the page code; @modelcontextprotocol/sdk and inspector) from the npm registry.
deps: behind a proxy set HTTPS_PROXY (or `npm config set proxy`); a TLS-intercepting proxy needs its CA in
deps: NODE_EXTRA_CA_CERTS. Then run `make test` again. Meanwhile every other test runs and the browser
deps: tests report this cause by name (skipped locally, failed under CI=true).
MSG
      rm -f "$npmlog"
      [ "${CI:-}" = true ] && exit 1
      exit 0
    fi
    rm -f "$npmlog"
  fi
fi
