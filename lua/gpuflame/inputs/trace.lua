-- Input loader: "trace" (the CPU/GPU timeline model, core.trace) from an SQLite export, a model file or one
-- cuda_gpu_trace / cuda_api_trace CSV. Exporters that accept "trace" (chrome-trace, launch-stacks)
-- get every event unless --max-events N is given.
local nsys = require("gpuflame.nsys")
local fg = require("gpuflame.flamegraph")
local trace = require("gpuflame.trace")

local TRACE = { cuda_gpu_trace = true, cuda_api_trace = true }

local function accepts(info, ctx)
  if info.type == "sqlite" or info.type == "model" then return true end
  return info.type == "csv" and TRACE[nsys.canonical_report(info.report, ctx.policy())] == true
end

-- opts.flame: the command's stack settings (flamegraph.settings), which say whether backtraces are read.
local function load(path, _, opts, ctx)
  local policy = ctx.policy()
  return (trace.load({ path }, { max_events = opts.max_events or 0, keep_partners = policy.timeline.keep_partners,
    stacks = fg.wants_callchain(opts.flame or fg.settings(nil, policy)) }, policy))
end

return { kind = "trace", accepts = accepts, load = load }
