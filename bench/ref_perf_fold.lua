-- The former perf folding loop of lua/backends/perf.lua (before core/stacks_perf.c), kept verbatim as
-- the reference for bench/bench_perf_fold.sh and tests/lua/test_perf_fold.lua.
-- As a library: dofile(...).fold(path) → folded text (no final newline), unique stacks.
-- As a script: gpuflame run bench/ref_perf_fold.lua IN OUT → writes OUT (text .. "\n").
local M = {}

function M.fold(path)
  local counts, order = {}, {}
  local comm, frames = nil, {}
  local function flush()
    if comm then
      local parts = { (comm:gsub(";", ",")) }
      for i = #frames, 1, -1 do parts[#parts + 1] = frames[i] end
      local key = table.concat(parts, ";")
      if not counts[key] then order[#order + 1] = key; counts[key] = 0 end
      counts[key] = counts[key] + 1
    end
    comm, frames = nil, {}
  end
  for line in io.lines(path) do
    if line:match("^%s*$") then
      flush()
    elseif line:match("^%s") then
      local sym, dso = line:match("^%s+%x+%s+(.-)%s+%((.*)%)%s*$")
      if not sym then sym = line:match("^%s+%x+%s+(.-)%s*$") end
      if sym then
        sym = sym:gsub("%+0x%x+$", "")
        if sym == "[unknown]" and dso and dso ~= "[unknown]" then sym = "[" .. (dso:match("([^/]+)$") or dso) .. "]" end
        if dso and dso:match("kernel%.kallsyms") or (dso and dso:match("^%[kernel")) then sym = sym .. "_[k]" end
        frames[#frames + 1] = (sym:gsub(";", ","))
      end
    elseif not line:match("^#") then
      flush()
      comm = line:match("^(%S.-)%s+%d+/?%d*%s") or line:match("^(%S+)")
    end
  end
  flush()
  local out = {}
  for _, k in ipairs(order) do out[#out + 1] = k .. " " .. counts[k] end
  return table.concat(out, "\n"), #order
end

local args = { ... }
if type(args[1]) == "string" and type(args[2]) == "string" then
  local text, n = M.fold(args[1])
  require("gpuflame.core").fs.write_atomic(args[2], text .. "\n")
  io.stderr:write(string.format("%d unique stacks\n", n))
  return 0
end
return M
