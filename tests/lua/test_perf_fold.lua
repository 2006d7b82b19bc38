-- `perf script` folding in C (core/stacks_perf.c, core.stacks.from_perf_script) against hand-checked
-- expected output and, on generated inputs, against the former Lua loop (bench/ref_perf_fold.lua).
local top = os.getenv("GF_TOP") or "."
local t = dofile(top .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local ref = dofile(top .. "/bench/ref_perf_fold.lua")
local tmp = t.tmp()

local function c_fold(path, opts)
  local S, st = core.stacks.from_perf_script(path, opts)
  return S:write_folded(nil, { meta = false }), S:count(), st
end
-- the reference's text as the C writer prints it (one '\n' after every line)
local function ref_fold(path)
  local text, n = ref.fold(path)
  return n > 0 and text .. "\n" or "", n
end

-- Symbols with spaces and parentheses, [unknown] with and without a dso, no dso, kernel frames
-- (kallsyms, [kernel.*]), ';' in names, comm with a space, CRLF, '#' lines, a header with no frames,
-- frames before any header, non-UTF-8 bytes, a last sample with neither blank line nor final newline.
local TRICKY = table.concat({
  "\t    7f0000009000 orphan_before_any_header+0x1 (/lib/x.so)",   -- dropped: no header yet
  "# ========",
  "# captured on: somewhere",
  "Web Content 1234/1235 [002] 100.000001:     250000 cycles:u: \r",
  "\t    7f0000001000 operator new(unsigned long)+0x1c (/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)\r",
  "\t    7f0000002000 std::vector<int, std::allocator<int> >::push_back(int const&) (/opt/my app/bin/app (deleted))\r",
  "\t    7f0000003000 [unknown] (/opt/app/lib/libfoo.so)\r",
  "# a comment inside a sample changes nothing\r",
  "\t    7f0000004000 main;with;semicolons+0x10 (/opt/app/bin/app)\r",
  "\r",
  "kworker/u8:2-ev 77/77 [000] 100.1: 1 cycles:",
  "\tffffffff81a00000 [unknown] ([kernel.kallsyms])",
  "\tffffffff81b00000 entry_SYSCALL_64_after_hwframe+0x44 ([kernel.vmlinux])",
  "\tffffffff81c00000 do_syscall_64+0x5d (/lib/modules/6.1/kernel.kallsyms)",
  "\t55d000000000 nodso_symbol+0x5",
  "\t55d000000001 [unknown]",
  "\t55d000000002 [unknown] ([unknown])",
  "\t55d000000003 [unknown] (/usr/lib/)",
  "\tnot-an-address frame_is_skipped (/lib/y.so)",
  "",
  "swapper     0 [000] 1.0:   1 cycles:",
  "\tffffffff81000000 native_safe_halt+0xe ([kernel.kallsyms])",
  "   \t  ",
  "py\xff\xfe\xc3 4242/4243 [001] 2.0: 1 cycles:",
  "\t 55d1 caf\xe9_latin1+0x3 (/opt/\xff\xfe/libx.so)",
  "\t 55d2 sym+0xZZ (/opt/a.so)",
  "\t 55d3 (anonymous namespace)::f() (/opt/a.so)",
  "\t 55d4  (only_dso)",
  "\t 55d5 trailing+0x0   ",
  "lonelyheader",
  "Web Content 1234/1235 [002] 100.000002:     250000 cycles:u: \r",
  "\t    7f0000001000 operator new(unsigned long)+0x1c (/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)\r",
  "\t    7f0000002000 std::vector<int, std::allocator<int> >::push_back(int const&) (/opt/my app/bin/app (deleted))\r",
  "\t    7f0000003000 [unknown] (/opt/app/lib/libfoo.so)\r",
  "\t    7f0000004000 main;with;semicolons+0x10 (/opt/app/bin/app)\r",
  "\r",
  "python3 4242/4242 [001] 2.0: 1 cycles:",
  "\t    55d1e2f3a000 main+0x80 (/opt/app/cuda_burn)",
  "\t    7f3a1b000000 __libc_start_main+0xf3 (/usr/lib/x86_64-linux-gnu/libc.so.6)",  -- truncated: no blank line, no final newline
}, "\n")
local EXPECTED = table.concat({
  "Web Content;main,with,semicolons;[libfoo.so];std::vector<int, std::allocator<int> >::push_back(int const&);" ..
    "operator new(unsigned long) 2",
  "kworker/u8:2-ev;[/usr/lib/];[unknown];[unknown];nodso_symbol;do_syscall_64_[k];" ..
    "entry_SYSCALL_64_after_hwframe_[k];[[kernel.kallsyms]]_[k] 1",
  "swapper;native_safe_halt_[k] 1",
  "py\xff\xfe\xc3;trailing;;(anonymous namespace)::f();sym+0xZZ;caf\xe9_latin1 1",
  "lonelyheader 1",
  "python3;__libc_start_main;main 1",
  "" }, "\n")

local p = tmp .. "/tricky.script"
core.fs.write_atomic(p, TRICKY)
local got, n, st = c_fold(p)
t.eq("tricky perf script → expected folded text", EXPECTED, got)
t.eq("tricky: 6 unique stacks", 6, n)
t.eq("tricky: the former Lua loop gives the same text", EXPECTED, (ref_fold(p)))
t.check("tricky: stats (39 lines, 7 samples, 23 frames, 1 skipped, 1 orphan)",
  st.lines == 39 and st.samples == 7 and st.frames == 23 and st.skipped_frames == 1 and st.orphan_frames == 1,
  string.format("%d lines, %d samples, %d frames, %d skipped, %d orphan", st.lines, st.samples, st.frames,
    st.skipped_frames, st.orphan_frames))

-- the tests/fake/perf text (the agent's path) through the backend
local perf = dofile(top .. "/lua/backends/perf.lua")
local out = core.proc.run({ argv = { top .. "/tests/fake/perf", "script", "-i", "x" } })
core.fs.write_atomic(tmp .. "/fake.script", out.stdout)
local S = perf.fold(tmp .. "/fake.script")
t.eq("backend fold of the fake perf text = the former Lua loop", (ref_fold(tmp .. "/fake.script")),
  S:write_folded(nil, { meta = false }))

-- The one intended difference: a CR inside a name becomes a space (the collapse table's rule; the Lua
-- loop kept it, and a lone CR inside a folded line confuses CRLF-aware readers).
core.fs.write_atomic(tmp .. "/cr.script", "a\rb 1/1 [0] 1: 1 c:\n\t 1f x\ry (/l.so)\n")
t.eq("CR inside names → space", "a b;x y 1\n", (c_fold(tmp .. "/cr.script")))

-- empty, comment-only and frame-only inputs: no stacks
for name, text in pairs({ empty = "", comments = "# a\n# b\n", frames = "\t 1 f (x)\n\n\t 2 g\n", blank = "\n \n\t\n" }) do
  core.fs.write_atomic(tmp .. "/" .. name .. ".script", text)
  local txt, cnt = c_fold(tmp .. "/" .. name .. ".script")
  t.check("no stacks from " .. name .. " input", cnt == 0 and txt == "", string.format("%d: %q", cnt, txt))
end

-- errors: a missing file (exit 6), a line over max_line (exit 6, file and line named)
local err = t.raises("missing file → error", function() core.stacks.from_perf_script(tmp .. "/nope.script") end,
  "cannot open")
t.eq("missing file → exit 6", 6, err and err.code)
core.fs.write_atomic(tmp .. "/long.script", "comm 1/1 [0] 1: 1 c:\n\t 1 " .. string.rep("x", 200) .. "\n")
err = t.raises("line over max_line → error", function() core.stacks.from_perf_script(tmp .. "/long.script", { max_line = 100 }) end,
  "long.script:2: line longer than 100 bytes")
t.eq("line over max_line → exit 6", 6, err and err.code)
t.eq("the same line under the default limit folds", "comm;" .. string.rep("x", 200) .. " 1\n", (c_fold(tmp .. "/long.script")))
-- a line exactly max_line long is accepted, one byte more is not (the reader's bound)
do
  local l2 = "\t 1 " .. string.rep("y", 96) -- 100 bytes
  core.fs.write_atomic(tmp .. "/edge.script", "comm 1/1 [0] 1: 1 c:\n" .. l2 .. "\n" .. "\n")
  t.eq("a line of exactly max_line bytes is read", "comm;" .. string.rep("y", 96) .. " 1\n",
    (c_fold(tmp .. "/edge.script", { max_line = 100 })))
  t.raises("max_line + 1 bytes is refused", function() c_fold(tmp .. "/edge.script", { max_line = 99 }) end,
    "edge.script:2: line longer than 99 bytes")
  -- the same without a final newline: the limit applies to the last line too
  core.fs.write_atomic(tmp .. "/edge2.script", "comm 1/1 [0] 1: 1 c:\n" .. l2)
  t.raises("max_line + 1 bytes without a final newline is refused", function() c_fold(tmp .. "/edge2.script", { max_line = 99 }) end,
    "edge2.script:2: line longer than 99 bytes")
end
-- a 3 MiB symbol: the line buffer grows past its first block and the name survives intact
do
  local big = string.rep("s", 3 * 1024 * 1024)
  core.fs.write_atomic(tmp .. "/big.script", "a 1/1 [0] 1: 1 c:\n\t 55 " .. big .. "+0x1 (/x/lib.so)\n\t 56 main (/x/app)\n")
  local got_big = c_fold(tmp .. "/big.script")
  t.check("a 3 MiB symbol line folds like the Lua loop",
    got_big == "a;main;" .. big .. " 1\n" and got_big == ref_fold(tmp .. "/big.script"), #got_big .. " bytes")
end
-- a long file (many read blocks) with lines that straddle them
do
  local parts = {}
  for i = 1, 20000 do
    parts[#parts + 1] = string.format("proc%d %d/%d [000] %d.0: 1 cycles:\n\t %x leaf%d+0x1 (/lib/l%d.so)\n\t %x root (/bin/b)\n\n",
      i % 7, i, i, i, i, i % 13, i % 3, i + 1)
  end
  core.fs.write_atomic(tmp .. "/many.script", table.concat(parts))
  local a, na = c_fold(tmp .. "/many.script")
  local b, nb = ref_fold(tmp .. "/many.script")
  t.check("20,000 samples over many read blocks = the former Lua loop", a == b and na == nb and na == 91,
    string.format("%d vs %d stacks", na, nb))
end

-- Generated inputs: C vs the former Lua loop. Pieces are chosen to hit each rule's edges (whitespace
-- runs, hex/non-hex addresses, '(' and ')' anywhere, "+0x" offsets, [unknown], kernel dsos, digits and
-- '/' in headers, NUL and high bytes). A CR only ends a line here: inside a name it is the one
-- intended difference above.
local seed = tonumber(os.getenv("GF_PERF_FOLD_SEED") or "") or 20261130
math.randomseed(seed)
local R = math.random
local function pick(list) return list[R(#list)] end
local WS = { " ", "  ", "\t", " \t ", "\v", "\f" }
local ADDR = { "7f0000001000", "ffffffff81000000", "0", "abc", "deadBEEF", "x12", "12g", "" }
local SYM = { "main", "f+0x1c", "operator new(unsigned long)+0x1c", "[unknown]", "a;b", "(anon)::g()",
  "sym+0xZZ", "x+0x", "+0x12", "caf\xe9", "nul\0byte", "", "ns::f(int) const", "a (b", "c) d", "0x10" }
local DSO = { "(/usr/lib/libc.so.6)", "([kernel.kallsyms])", "([kernel.vmlinux])", "([unknown])", "(/opt/x (deleted))",
  "()", "(/usr/lib/)", "(/a/kernel.kallsyms/b)", "(x))", "((y)", "(/lib/\xff.so)", "" }
local COMM = { "python3", "Web Content", "kworker/u8:2-ev", "a;b", "x1", "swapper", "#notcomment", "\xff\xfe", "t 12x" }
local PID = { "4242/4242", "0", "12/", "7/x", "99", "1/2/3", "" }
local function gen_line()
  local k = R(10)
  if k <= 2 then
    return pick(COMM) .. pick(WS) .. pick(PID) .. pick(WS) .. "[001] 1.0: 1 cycles:" .. (R(2) == 1 and " " or "")
  elseif k <= 7 then
    local l = pick(WS) .. pick(ADDR) .. pick(WS) .. pick(SYM)
    if R(4) > 1 then l = l .. pick(WS) .. pick(DSO) end
    if R(5) == 1 then l = l .. pick(WS) end
    return l
  elseif k == 8 then
    return R(2) == 1 and "" or pick(WS)
  elseif k == 9 then
    return "# " .. pick(SYM)
  end
  return pick(SYM) .. pick(WS) .. pick(DSO)
end
local same, first_diff = 0, nil
local cases = 400
for c = 1, cases do
  local lines = {}
  for i = 1, R(25) do lines[i] = gen_line() .. (R(6) == 1 and "\r" or "") end
  local text = table.concat(lines, "\n") .. (R(2) == 1 and "\n" or "")
  local path = tmp .. "/gen.script"
  core.fs.write_atomic(path, text)
  local a = c_fold(path)
  local b = ref_fold(path)
  if a == b then
    same = same + 1
  elseif not first_diff then
    first_diff = string.format("case %d: input %q\nC   %q\nLua %q", c, text, a, b)
  end
end
t.check(string.format("%d generated inputs (seed %d): C = the former Lua loop", cases, seed), same == cases,
  first_diff)
return t.done()
