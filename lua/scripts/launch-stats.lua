-- launch overhead and launch delay per kernel, flagging slow launches (gpuflame run launch-stats INPUT... [--json])
-- Launch overhead = duration of the CUDA API call that launched the kernel; launch delay = kernel start -
-- API end. Flags (HTA's thresholds): kernels shorter than their launch call, delays over 100 µs
-- (policy timeline.late_launch_ns).
local core = require("gpuflame.core")
local trace = require("gpuflame.trace")
local ctx = require("gpuflame.cli").script_context()

local inputs, json = {}, false
for _, a in ipairs({ ... }) do
  if a == "--json" then json = true else inputs[#inputs + 1] = a end
end
if #inputs == 0 then
  io.stderr:write("usage: gpuflame run launch-stats INPUT... [--json]\n")
  return 2
end
local p = ctx.policy()
local late = p.timeline.late_launch_ns

local tr = trace.load(inputs, { max_events = 0 }, p)
local rows = tr:launch_stats(late)

local function mean(total, n) return n > 0 and total / n or 0 end

if json then
  local out = core.json.array({})
  for _, r in ipairs(rows) do
    out[#out + 1] = { name = r.name, kernels = r.kernels, launched = r.launched, kernel_total_ns = r.kernel_total,
      launch_overhead_mean_ns = mean(r.api_total, r.launched), launch_overhead_max_ns = r.api_max,
      launch_delay_mean_ns = mean(r.delay_total, r.launched), launch_delay_max_ns = r.delay_max,
      shorter_than_launch = r.shorter_than_launch, late_launches = r.late }
  end
  io.stdout:write(core.json.encode({ kernels = out, late_threshold_ns = late }), "\n")
  return 0
end

io.stdout:write(string.format("%8s %8s %12s %12s %12s %12s %7s %5s  %s\n", "kernels", "launched", "overhead avg",
  "overhead max", "delay avg", "delay max", "short", "late", "kernel"))
local flagged = 0
for _, r in ipairs(rows) do
  local flag = (r.shorter_than_launch > 0 or r.late > 0) and " !" or ""
  if flag ~= "" then flagged = flagged + 1 end
  io.stdout:write(string.format("%8d %8d %12.1f %12d %12.1f %12d %7d %5d  %s%s\n", r.kernels, r.launched,
    mean(r.api_total, r.launched), r.api_max, mean(r.delay_total, r.launched), r.delay_max,
    r.shorter_than_launch, r.late, r.name, flag))
end
io.stdout:write(string.format("ns; short = kernels shorter than their launch call; late = launch delay > %d ns; " ..
  "%d kernel(s) flagged (!)\n", late, flagged))
return 0
