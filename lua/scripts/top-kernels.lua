-- top kernels by total GPU time: instances, total, mean, share (gpuflame run top-kernels INPUT... [--json] [--top N])
-- A bundled script and an example of writing your own: load a trace (all events, no trimming) and ask the
-- C model for per-name summaries; never loop over millions of events in Lua.
local core = require("gpuflame.core")
local trace = require("gpuflame.trace")

local args, inputs = { top = 20 }, {}
local argv = { ... }
local i = 1
while i <= #argv do
  local a = argv[i]
  if a == "--json" then args.json = true
  elseif a == "--top" then i = i + 1; args.top = tonumber(argv[i]) or args.top
  else inputs[#inputs + 1] = a end
  i = i + 1
end
if #inputs == 0 then
  io.stderr:write("usage: gpuflame run top-kernels INPUT... [--json] [--top N]\n")
  return 2
end

local ctx = require("gpuflame.cli").script_context() -- ctx.policy(): the effective policy (--policy files)
local tr = trace.load(inputs, { max_events = 0 }, ctx.policy())
local rows = tr:kernel_stats("kernel")
local gpu_total = 0
for _, r in ipairs(rows) do gpu_total = gpu_total + r.total end

if args.json then
  local out = core.json.array({})
  for _, r in ipairs(rows) do
    out[#out + 1] = { name = r.name, instances = r.count, total_ns = r.total, mean_ns = r.mean,
      min_ns = r.min, max_ns = r.max, share = gpu_total > 0 and r.total / gpu_total or 0 }
  end
  io.stdout:write(core.json.encode({ kernels = out, gpu_total_ns = gpu_total }), "\n")
  return 0
end

io.stdout:write(string.format("%-9s %14s %12s %7s  %s\n", "instances", "total (ns)", "mean (ns)", "share", "kernel"))
for n, r in ipairs(rows) do
  if n > args.top then break end
  io.stdout:write(string.format("%9d %14d %12.1f %6.2f%%  %s\n", r.count, r.total, r.mean,
    gpu_total > 0 and 100 * r.total / gpu_total or 0, r.name))
end
io.stdout:write(string.format("%d kernels, %d distinct, %d ns of GPU time\n", (function()
  local c = 0
  for _, r in ipairs(rows) do c = c + r.count end
  return c
end)(), #rows, gpu_total))
return 0
