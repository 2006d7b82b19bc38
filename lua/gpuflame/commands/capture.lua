-- gpuflame capture: run a workload under nsys and write its views (flamegraph, timeline) and summary.json;
-- the usage is in the spec below.
local capture = require("gpuflame.capture")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")

local cmd = {}

cmd.spec = {
  usage = "capture [--duration S] [--out DIR] [--nsys PATH] [--timeline] [--stacks] [-- WORKLOAD...]",
  summary = "profile a workload with nsys and write its GPU flamegraph (or timeline) into a capture directory",
  description = "Runs `nsys profile` (flags from policy capture.*) on WORKLOAD with the environment cleaned of\n" ..
    "bundler paths, kills the process group after duration + capture.timeout_extra seconds, then runs\n" ..
    "`nsys stats` on the policy's reports in order (cuda_gpu_kern_sum, then cuda_api_sum) until one has\n" ..
    "rows. The directory gets the report, the stats CSVs, gpu.folded, flamegraph.html and summary.json.\n" ..
    "Without a WORKLOAD a duration-bounded sleep session is captured (usually empty).\n" ..
    "Exit codes: 3 nsys not found, 4 nsys profile failed or timed out, 5 no usable stats report,\n" ..
    "130 interrupted (what was kept is listed).",
  options = {
    { "duration", arg = "S", type = "number", min = 1, help = "seconds; bounds a workload-less session and " ..
      "sets the timeout (S + capture.timeout_extra) (policy capture.duration)" },
    { "out", short = "o", arg = "DIR", help = "capture directory (policy capture.out_dir)" },
    { "nsys", arg = "PATH", help = "nsys to use (tried first, see `gpuflame discover`)" },
    { "timeline", help = "build the CPU/GPU timeline view instead (the flamegraph when it finds no events)" },
    { "stacks", help = "timeline with CUDA launch backtraces (heavier: -s process-tree -b dwarf)" },
    { "title", arg = "TEXT", help = "flamegraph title" },
    { "countname", arg = "UNIT", help = "flamegraph count name" },
    { "inverted", help = "icicle flamegraph" },
    { "minwidth", arg = "PX", type = "number", min = 0, help = "flamegraph minimum frame width" },
    { "colors", arg = "PALETTE", choices = require("gpuflame.flamegraph").PALETTES,
      help = "flamegraph palette, as flamegraph.pl --colors" },
  },
  stop_at_positional = true,
}

function cmd.run(opts, ctx)
  local workload = {}
  if opts.positional[1] then workload[1] = opts.positional[1] end
  for _, a in ipairs(opts.rest or {}) do workload[#workload + 1] = a end
  if workload[1] == "" then errors.raise(errors.USAGE, "capture: empty workload command") end
  local state = capture.run({
    workload = #workload > 0 and workload or nil, duration = opts.duration, out = opts.out, nsys = opts.nsys,
    timeline = opts.timeline, stacks = opts.stacks, title = opts.title, countname = opts.countname,
    inverted = opts.inverted, minwidth = opts.minwidth, colors = opts.colors,
  }, ctx.policy(), ctx)
  local a = state.artifacts
  log.info("capture: %s", state.dir)
  for _, k in ipairs({ "report", "folded", "html", "timeline", "summary" }) do
    if a[k] then io.stdout:write(string.format("%-9s %s\n", k, a[k])) end
  end
  return 0
end

return cmd
