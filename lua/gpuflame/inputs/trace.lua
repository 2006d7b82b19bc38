-- Input loader: "trace" (the CPU/GPU timeline model, core.trace) from an SQLite export, a model file or one
-- cuda_gpu_trace / cuda_api_trace CSV. Exporters that accept "trace" (chrome-trace, launch-stacks)
-- get every event unless --max-events N is given.
local nsys = require("gpuflame.nsys")

local TRACE = { cuda_gpu_trace = true, cuda_api_trace = true }

local function accepts(info, ctx)
  if info.type == "sqlite" or info.type == "model" then return true end
  return info.type == "csv" and TRACE[nsys.canonical_report(info.report, ctx.policy())] == true
end

local function load(path, _, opts, ctx)
  local trace = require("gpuflame.trace")
  local policy = ctx.policy()
  return (trace.load({ path }, { max_events = opts.max_events or 0, keep_partners = policy.timeline.keep_partners,
    stacks = require("gpuflame.flamegraph").wants_callchain(policy) }, policy))
end

return { kind = "trace", accepts = accepts, load = load }
