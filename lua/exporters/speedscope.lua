-- speedscope's file format (https://www.speedscope.app/file-format-schema.json): one sampled profile
-- whose weights are the folded counts.
-- The unit is the one the stacks were counted in: their metadata's unit_ns (set by the SQLite and CSV
-- loaders from policy flamegraph.unit_ns, or read from a folded file's sidecar FILE.json or an older
-- "# {json}" first line: gpuflame.sidecar). A folded file without either has counts of an unknown unit
-- (launch-stacks folded files hold nanoseconds, perf's hold samples), so its profile says "none" rather
-- than claiming the policy's unit.
local core = require("gpuflame.core")

local UNITS = { [1] = "nanoseconds", [1000] = "microseconds", [1000000] = "milliseconds" }

local function unit_ns(stacks)
  local meta = stacks:meta()
  if not meta then return nil end
  local ok, m = pcall(core.json.decode, meta)
  if ok and type(m) == "table" and math.type(m.unit_ns) == "integer" then return m.unit_ns end
  return nil
end

return {
  name = "speedscope",
  description = "speedscope JSON (sampled profile, weights = counts)",
  accepts = { "stacks" },
  write = function(stacks, out, opts)
    local name = opts.title or (opts.input and opts.input:match("[^/]+$")) or "gpuflame"
    stacks:write_speedscope(out, { name = name, unit = UNITS[unit_ns(stacks)] or "none" })
  end,
}
