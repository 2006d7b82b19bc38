-- speedscope's file format (https://www.speedscope.app/file-format-schema.json).
-- A trace input (SQLite export, report, merged reports, trace CSVs): the first profile is a sampled one
-- with the hierarchical GPU stacks and their ns weights (the same stacks and weights as the folded output,
-- policy flamegraph.levels), then one evented profile per GPU stream (each operation opens its stack's
-- frames at its start and closes them at its end: speedscope's "Time Order" view is that stream's time
-- line; at most policy flamegraph.speedscope_events operations). Other inputs (stats CSV, folded): one
-- sampled profile whose weights are the folded counts, in the unit they were counted in: their metadata's
-- unit_ns (stats CSVs: policy flamegraph.unit_ns; a folded file's sidecar FILE.json or an older "# {json}"
-- first line: gpuflame.sidecar). A folded file without either has counts of an unknown unit (perf's hold
-- samples), so its profile says "none" rather than claiming the policy's unit.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local flamegraph = require("gpuflame.flamegraph")

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
  description = "speedscope JSON (sampled GPU stacks in ns + per-stream time order)",
  accepts = { "trace", "stacks" },
  write = function(model, out, opts, ctx)
    local name = opts.title or (opts.input and opts.input:match("[^/]+$")) or "gpuflame"
    if opts.kind == "trace" then
      local policy = ctx.policy()
      if flamegraph.gpu_ops(model) == 0 then
        errors.raise(errors.NO_DATA, "%s: no GPU operations (kernels, copies, memsets) to profile", opts.input)
      end
      local o = flamegraph.level_options(opts.flame, policy)
      o.name, o.max_events = name, policy.flamegraph.speedscope_events
      core.trace_flame.write_speedscope(model, out, o)
      return
    end
    model:write_speedscope(out, { name = name, unit = UNITS[unit_ns(model)] or "none" })
  end,
}
