-- GPU idle time per stream: host wait, kernel wait (gaps < 30 µs) and other (gpuflame run gpu-idle INPUT... [--json])
-- For each GPU stream lane, between its first and last op: gaps shorter than policy timeline.short_gap_ns
-- (30 µs) are kernel wait (launch overhead between back-to-back kernels); in a longer gap the time
-- until the next op's launch call returned is host wait (nothing was queued yet) and the rest is other.
-- First, per device, the time breakdown of its span (docs/SEMANTICS.md: compute, communication, copy by
-- direction, memset, overlap, idle), so that a stream that is "busy" with copies is not read as compute.
local core = require("gpuflame.core")
local trace = require("gpuflame.trace")
local ctx = require("gpuflame.cli").script_context()

local inputs, json = {}, false
for _, a in ipairs({ ... }) do
  if a == "--json" then json = true else inputs[#inputs + 1] = a end
end
if #inputs == 0 then
  io.stderr:write("usage: gpuflame run gpu-idle INPUT... [--json]\n")
  return 2
end
local p = ctx.policy()
local gap = p.timeline.short_gap_ns

local tr = trace.load(inputs, { max_events = 0 }, p)
local rows = tr:gpu_idle(gap)
local gpu_time = require("gpuflame.gpu_time")
local devices = gpu_time.breakdown(tr, nil, nil, p)

if json then
  local out = core.json.array({})
  for _, r in ipairs(rows) do
    out[#out + 1] = { lane = r.lane, ops = r.ops, span_ns = r.span, busy_ns = r.busy, idle_ns = r.idle,
      host_wait_ns = r.host_wait, kernel_wait_ns = r.kernel_wait, other_ns = r.other, gaps = r.gaps }
  end
  local devs = core.json.array({})
  for i, d in ipairs(devices) do devs[i] = gpu_time.json(d) end
  io.stdout:write(core.json.encode({ devices = devs, streams = out, short_gap_ns = gap }), "\n")
  return 0
end

local function pct(a, b) return b > 0 and 100 * a / b or 0 end
for _, d in ipairs(devices) do
  io.stdout:write(string.format("device %d: %s\n", d.device, gpu_time.text(d)))
end
if #devices > 0 then io.stdout:write("\n") end
io.stdout:write(string.format("%6s %14s %14s %6s %14s %14s %14s  %s\n", "ops", "span (ns)", "idle (ns)", "idle",
  "host wait", "kernel wait", "other", "stream"))
for _, r in ipairs(rows) do
  io.stdout:write(string.format("%6d %14d %14d %5.1f%% %14d %14d %14d  %s\n", r.ops, r.span, r.idle,
    pct(r.idle, r.span), r.host_wait, r.kernel_wait, r.other, r.lane))
end
return 0
