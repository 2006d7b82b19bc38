#!/usr/bin/env bash
# Installs the Debian packages gpuflame needs. `build` = libraries to compile; `test` = also what the
# test suite uses (sqlite3 shell, luacheck, Chromium + playwright-core, clang for fuzzing);
# `nsys` = NVIDIA Nsight Systems 2022.4 from Debian's own non-free component (the real-nsys test tier).
# As root it runs apt-get; otherwise it prints the exact commands and fails.
set -euo pipefail
kind=${1:-build}
if [ "$kind" = nsys ]; then
  exec "$(dirname "$0")/deps_nsys.sh"
fi
pkgs=(gcc make pkg-config liblua5.4-dev libsqlite3-dev libcsv-dev libcurl4-openssl-dev libcjson-dev libyaml-dev zlib1g-dev python3)
if [ "$kind" = test ]; then
  pkgs+=(sqlite3 lua5.4 lua-check chromium time nodejs npm clang libclang-rt-14-dev valgrind procps)
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
    echo "deps: run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
if [ "$kind" = test ]; then
  top=$(cd "$(dirname "$0")/.." && pwd)
  if [ ! -d "$top/tests/node_modules/playwright-core" ] || [ ! -d "$top/tests/node_modules/speedscope" ]; then
    echo "deps: npm install playwright-core, speedscope (tests/node_modules)" >&2
    (cd "$top/tests" && npm install --no-audit --no-fund --silent >&2)
  fi
fi
