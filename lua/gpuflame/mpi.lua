-- Multi-report commands under MPI (issue 27; docs/MPI.md). In bin/gpuflame-mpi launched by mpirun or
-- srun, the reports are split across the MPI ranks: round-robin over the inputs every rank sees, or
-- "the files this rank sees" (`--local PATTERN`, %q{VAR} replaced from this process's environment).
-- Each rank imports its own reports and sends rank 0 what the output needs (models, or summaries);
-- rank 0 writes the output, the others end quietly. In the default build (core.mpi is nil) and in a
-- gpuflame-mpi started alone every function here is the one-process behaviour.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")

local M = {}

-- The --local pattern of this run (a global option: cli.lua hands it here).
local local_pattern

function M.set_local(pattern) local_pattern = pattern end
function M.local_pattern() return local_pattern end

-- world() → {rank = 0-based, size = n}: size 1 outside MPI (the default build, or gpuflame-mpi alone).
function M.world()
  local m = core.mpi
  if not m then return { rank = 0, size = 1 } end
  return { rank = m.rank(), size = m.size(), mpi = m }
end

-- Under an MPI job of more than one rank, or any job of gpuflame-mpi (-np 1 takes the same path).
function M.active() return core.mpi ~= nil end

-- substitute(pattern, getenv) → the pattern with %q{VAR} replaced by VAR's value (%% is a %); a variable
-- that is not set, or any other %, is a usage error naming it.
function M.substitute(pattern, getenv)
  getenv = getenv or os.getenv
  local out = pattern:gsub("%%%%", "\0"):gsub("%%q{([%w_]+)}", function(var)
    local v = getenv(var)
    if v == nil then
      errors.raise(errors.USAGE, "--local %s: %s is not set in this process's environment", pattern, var)
    end
    return (v:gsub("%%", "\0"))
  end)
  if out:find("%", 1, true) then
    errors.raise(errors.USAGE, "--local %s: only %%q{VAR} and %%%% may follow a %%", pattern)
  end
  return (out:gsub("%z", "%%"))
end

-- pack(value) → text, unpack(text) → value: Lua values (tables, strings, integers, floats, booleans) between
-- the ranks of one job, exactly (JSON would turn 64-bit integers into doubles).
local function pack_into(v, out)
  local t = type(v)
  if t == "table" then
    out[#out + 1] = "{"
    for k, x in pairs(v) do
      out[#out + 1] = "["
      pack_into(k, out)
      out[#out + 1] = "]="
      pack_into(x, out)
      out[#out + 1] = ","
    end
    out[#out + 1] = "}"
  elseif t == "string" or t == "number" then
    out[#out + 1] = string.format("%q", v)
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  else
    errors.raise(errors.ERROR, "mpi.pack: cannot send a %s", t)
  end
end

function M.pack(v)
  local out = {}
  pack_into(v, out)
  return table.concat(out)
end

function M.unpack(text)
  local fn = load("return " .. text, "=mpi message", "t", {})
  return fn and fn() or errors.raise(errors.ERROR, "mpi: a damaged message between ranks")
end

-- inputs(expand, positional) → paths, owner: every rank gets the same list of inputs and owner[i], the
-- MPI rank that imports paths[i]. expand(list) expands files/directories/globs (gpuflame.ranks.expand).
-- Round-robin: the positional inputs (every rank must see them), owner (i-1) % size. With --local: each
-- rank's own files (its pattern, expanded where it runs), in rank order, then the positional inputs
-- round-robin. Outside MPI, --local is the pattern expanded here.
function M.inputs(expand, positional)
  local w = M.world()
  local paths, owner = {}, {}
  if local_pattern then
    local mine = expand({ M.substitute(local_pattern) })
    local lists = { mine }
    if w.size > 1 then
      lists = {}
      for r, text in ipairs(w.mpi.allgather(core.json.encode(core.json.array(mine)))) do
        lists[r] = core.json.decode(text)
      end
    end
    for r, list in ipairs(lists) do
      for _, p in ipairs(list) do paths[#paths + 1] = p; owner[#paths] = r - 1 end
    end
  end
  if #positional > 0 then
    local n0 = #paths
    for k, p in ipairs(expand(positional)) do
      paths[n0 + k] = p
      owner[n0 + k] = (k - 1) % w.size
    end
  end
  return paths, owner
end

-- guard(w, fn, ...) runs this rank's share: an error is re-raised naming the rank (and keeps its code), so
-- that the job ends with "rank R of N: FILE: why" (the host then aborts every rank: never a hang).
function M.guard(w, fn, ...)
  local ok, res = errors.try(fn, ...)
  if not ok then
    if w.size > 1 then errors.reraise(res, nil, string.format("rank %d of %d: ", w.rank, w.size)) end
    errors.reraise(res)
  end
  return res
end

-- finish(): this rank (not 0) sent its share; it ends without output (exit 0: core.mpi.share_done tells the
-- host that the silent error raised here is a clean end) and rank 0 goes on.
function M.finish()
  log.progress_done()
  core.mpi.share_done()
  error(errors.new(errors.OK, ""), 0)
end

-- A byte count for --verbose.
function M.bytes(n)
  if n >= 1 << 20 then return string.format("%.1f MiB", n / (1 << 20)) end
  if n >= 1024 then return string.format("%.1f KiB", n / 1024) end
  return string.format("%d B", n)
end

return M
