-- The metadata of a folded file gpuflame writes (source report, unit, diff sides) lives beside it in
-- <file>.json, a sidecar, so that the folded file itself is only `stack count` lines, read without options
-- by flamegraph.pl, inferno and pandas. gpuflame reads the sidecar back with the file; a file with a
-- `# {json}` first line (written by gpuflame before the sidecar) is still read.
local core = require("gpuflame.core")

local M = {}

function M.path(folded)
  return folded .. ".json"
end

-- read(folded) → the sidecar's JSON text and its decoded table, or nil when there is none (or it is not a
-- JSON object).
function M.read(folded)
  if not folded or folded == "-" then return nil end
  local ok, text = pcall(core.fs.read, M.path(folded))
  if not ok or not text then return nil end
  local okd, t = pcall(core.json.decode, text)
  if not okd or type(t) ~= "table" then return nil end
  return (text:gsub("%s+$", "")), t
end

-- write(folded, json_text|nil) → the sidecar's path or nil. Nothing for stdout ("-" or nil). Without
-- json_text a sidecar gpuflame wrote earlier (generator/format gpuflame's) is removed, never another file.
function M.write(folded, json)
  if not folded or folded == "-" then return nil end
  local p = M.path(folded)
  if json then
    core.fs.write_atomic(p, json .. "\n")
    return p
  end
  local _, old = M.read(folded)
  if old and (old.generator == "gpuflame" or old.format == "difffolded") then os.remove(p) end
  return nil
end

-- attach(stacks, folded): the sidecar's metadata becomes the stacks' (it wins over a `# {json}` line).
function M.attach(stacks, folded)
  local text = M.read(folded)
  if text then stacks:set_meta(text) end
  return stacks
end

return M
