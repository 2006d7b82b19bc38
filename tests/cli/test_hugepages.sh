#!/usr/bin/env bash
# Huge pages for glibc's malloc (policy limits.huge_pages, lua/gpuflame/hugepages.lua, core/host/hugepages.c):
# none by default; a listed command on inputs of at least min_input_bytes re-executes gpuflame with glibc.malloc.hugetlb=1
# where THP is in `madvise` mode (its large blocks are then advised: VmFlags `hg` in /proc/self/smaps), with
# the same arguments; nothing it starts inherits the tunable or the variable that carried it, and the user's
# own GLIBC_TUNABLES reaches children as it was. Small inputs, an unlisted command, GPUFLAME_HUGEPAGES=0,
# LD_PRELOAD, the user's own hugetlb setting and a sanitizer build leave gpuflame as it is. Freed memory kept
# (policy limits.keep_freed_memory, core/mem.h gf_mem_keep_freed): a listed command on inputs that large takes
# its large blocks from the heap ([heap] in /proc/self/smaps holds the 16 MiB block), others do not.
. "$(dirname "$0")/../lib/t.sh"

cat >"$TMP/probe.lua" <<'LUA'
local core = require("gpuflame.core")
local f = assert(io.open("/proc/self/environ", "rb")); local env = "\0" .. f:read("a"); f:close()
local block = string.rep("x", 16 * 1024 * 1024) -- a block of its own (over the mmap threshold)
local smaps = assert(io.open("/proc/self/smaps")); local sm = smaps:read("a"); smaps:close()
local hinted = 0
for flags in sm:gmatch("VmFlags:([^\n]*)") do if flags:find(" hg") then hinted = hinted + 1 end end
local heap_kb = tonumber(sm:match("%[heap%]\nSize:%s*(%d+) kB") or "0")
local child = core.proc.run({ argv = { "sh", "-c", 'printf "%s|%s" "${GLIBC_TUNABLES-unset}" "${GPUFLAME_SAVED_GLIBC_TUNABLES-unset}"' },
  timeout = 10 })
-- the exec's own environment (glibc writes a NUL after each tunable's value there, so only the first shows)
io.stdout:write("re-executed: ", env:find("%zGPUFLAME_SAVED_GLIBC_TUNABLES=") and "yes" or "no", "\n",
  "host says: ", tostring(core.host.huge_pages()), "\n",
  "getenv: ", os.getenv("GLIBC_TUNABLES") or "unset", "\n",
  "child: ", child.stdout or "?", "\n",
  "hinted: ", hinted > 0 and "yes" or "no", " (", #block, ")\n",
  "heap holds the block: ", heap_kb >= 16 * 1024 and "yes" or "no", "\n",
  "args: ", table.concat({ ... }, "|"), "\n")
return 0
LUA
BIG=$TMP/big.bin
truncate -s 100M "$BIG" # sparse: 100 MB of input that takes no disk
printf 'return { limits = { huge_pages = { commands = {} } } }\n' >"$TMP/none.lua"
printf 'return { limits = { huge_pages = { commands = { "run" } } } }\n' >"$TMP/on.lua"
printf 'return { limits = { huge_pages = { commands = { "run" }, min_input_bytes = 0 } } }\n' >"$TMP/any.lua"
printf 'return { limits = { keep_freed_memory = { commands = { "run" }, min_input_bytes = 64 * 1024 * 1024 } } }\n' \
  >"$TMP/keep.lua"
probe() { out=$(env "$@" "$GF" -v run "$TMP/probe.lua" 2>&1); rc=$?; }
field() { sed -n "s/^$1: //p" <<<"$out"; }
clean=(-u GLIBC_TUNABLES -u GPUFLAME_HUGEPAGES -u LD_PRELOAD)

probe "${clean[@]}"
check_eq "a small input: the probe runs" 0 "$rc"
check_eq "a small input: not re-executed" "no" "$(field re-executed)"
check_eq "a small input: the host says so" "false" "$(field 'host says')"
check_eq "a child sees no tunable and no saved value" "unset|unset" "$(field child)"

mode=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
big() { out=$(env "$@" "$GF" -v --policy "$TMP/on.lua" run "$TMP/probe.lua" "$BIG" "a b" --token "s3cret" 2>&1); rc=$?; }
out=$(env "${clean[@]}" "$GF" -v run "$TMP/probe.lua" "$BIG" 2>&1)
check_eq "the default policy lists no command: a 100 MB input is not re-executed" "no" "$(field re-executed)"
check_contains "... and no block is advised" "$(field hinted)" "no"
check_contains "... and -v says why" "$out" "huge pages: not used for run (policy limits.huge_pages does not list it"
big "${clean[@]}"
check_eq "a 100 MB input: the probe runs" 0 "$rc"
check_eq "a 100 MB input: the arguments come through as given" "$BIG|a b|--token|s3cret" "$(field args)"
check_eq "a 100 MB input: a child sees no tunable and no saved value" "unset|unset" "$(field child)"
check_eq "a 100 MB input: gpuflame's getenv sees the environment as given" "unset" "$(field getenv)"
check_eq "run is not listed for freed memory kept: its large block is a mapping of its own" "no" \
  "$(field 'heap holds the block')"
check_not_contains "... and -v says nothing of it" "$out" "freed memory kept"
if [ -n "${SAN:-}" ]; then
  check_eq "a sanitizer build is not re-executed" "no" "$(field re-executed)"
  check_contains "... and -v says why" "$out" "huge pages: not used for run (not glibc's allocator"
  t_done
fi
if [[ "$mode" != *"[madvise]"* ]]; then
  check_eq "THP not in madvise mode ($mode): not re-executed" "no" "$(field re-executed)"
  check_contains "... and -v says why" "$out" "transparent huge pages are not in madvise mode"
  skip "huge pages in use" "THP is not in madvise mode here ($mode)"
  t_done
fi
check_eq "a 100 MB input: re-executed" "yes" "$(field re-executed)"
check_eq "... the host says so" "true" "$(field 'host says')"
check_contains "... -v says so" "$out" "huge pages: on for run (glibc.malloc.hugetlb=1)"
check_contains "... its large blocks are advised for huge pages" "$(field hinted)" "yes"

out=$(env "${clean[@]}" "$GF" --policy "$TMP/none.lua" run "$TMP/probe.lua" "$BIG" 2>&1)
check_eq "policy commands = {}: a 100 MB input is not re-executed" "no" "$(field re-executed)"
check_contains "... and no block is advised" "$(field hinted)" "no"
out=$(env "${clean[@]}" "$GF" --policy "$TMP/any.lua" run "$TMP/probe.lua" 2>&1)
check_eq "policy min_input_bytes = 0: a small input is re-executed" "yes" "$(field re-executed)"

big -u GPUFLAME_HUGEPAGES -u LD_PRELOAD GLIBC_TUNABLES=glibc.malloc.check=0
check_contains "the user's tunables and the setting added: large blocks advised" "$(field hinted)" "yes"
check_eq "the user's tunables reach a child as they were" "glibc.malloc.check=0|unset" "$(field child)"
check_eq "... and gpuflame's getenv" "glibc.malloc.check=0" "$(field getenv)"

big -u GPUFLAME_HUGEPAGES -u LD_PRELOAD GLIBC_TUNABLES=
check_eq "an empty GLIBC_TUNABLES stays set and empty for a child" "|unset" "$(field child)"

big -u GPUFLAME_HUGEPAGES -u LD_PRELOAD GLIBC_TUNABLES=glibc.malloc.hugetlb=0
check_eq "the user's own hugetlb setting wins: not re-executed" "no" "$(field re-executed)"
check_contains "... and no block advised" "$(field hinted)" "no"

big -u GLIBC_TUNABLES -u LD_PRELOAD GPUFLAME_HUGEPAGES=0
check_eq "GPUFLAME_HUGEPAGES=0: not re-executed" "no" "$(field re-executed)"
check_contains "... -v says why" "$out" "huge pages: not used for run (GPUFLAME_HUGEPAGES=0)"

libm=$(ldconfig -p 2>/dev/null | sed -n 's/.*libm\.so\.6 (libc6,x86-64) => //p' | head -n 1)
if [ -n "$libm" ]; then
  big -u GLIBC_TUNABLES -u GPUFLAME_HUGEPAGES LD_PRELOAD="$libm"
  check_eq "LD_PRELOAD set: not re-executed" "no" "$(field re-executed)"
  check_eq "LD_PRELOAD set: the child's environment as given" "unset|unset" "$(field child)"
else
  skip "LD_PRELOAD" "no x86-64 libm.so.6 in ldconfig's cache to preload"
fi

out=$(env "${clean[@]}" "$GF" -v --policy "$TMP/keep.lua" run "$TMP/probe.lua" "$BIG" 2>&1)
check_eq "keep_freed_memory lists run: its large block comes from the heap" "yes" "$(field 'heap holds the block')"
check_contains "... and -v says so" "$out" "freed memory kept for later blocks in run: yes"
out=$(env "${clean[@]}" "$GF" -v --policy "$TMP/keep.lua" run "$TMP/probe.lua" 2>&1)
check_eq "... but not for a small input" "no" "$(field 'heap holds the block')"

# a failing command on a large input: the same exit code and message with the re-execution as without
run_gf timeline "$BIG" -o "$TMP/t.html"
rc_on=$rc err_on=$err
run_gf_env GPUFLAME_HUGEPAGES=0 -- timeline "$BIG" -o "$TMP/t.html"
check_eq "a failing command: its exit code through the re-execution" "$rc" "$rc_on"
check_eq "... and its message" "$err" "$err_on"
check "... and no page written" test ! -e "$TMP/t.html"
t_done
