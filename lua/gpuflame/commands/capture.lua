-- Profiles a workload with nsys into a capture directory, or captures one window of a live session
-- (--session, docs/LIVE.md).
local capture = require("gpuflame.capture")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local live = require("gpuflame.live")

local cmd = {}

cmd.spec = {
  usage = "capture [--duration S] [--out DIR] [--nsys PATH] [--timeline] [--stacks] [-- WORKLOAD...]\n" ..
    "       gpuflame capture --session NAME --duration S [--at TIME] [--out DIR] [--timeline] [--stacks]",
  summary = "profile a workload with nsys (or a window of a live session) into a capture directory",
  description = "Runs `nsys profile` (flags from policy capture.*) on WORKLOAD with the environment cleaned of\n" ..
    "bundler paths, kills the process group after duration + capture.timeout_extra seconds, then runs one\n" ..
    "`nsys export` (policy capture.views_from; \"stats\": `nsys stats` per report). gpu.folded and\n" ..
    "flamegraph.html are the hierarchical GPU flamegraph of the export (policy flamegraph.levels, ns), or\n" ..
    "without one the flat stacks of the first stats report with rows (cuda_gpu_kern_sum, then cuda_api_sum).\n" ..
    "The directory gets the report, the stats CSVs, gpu.folded, flamegraph.html, findings.json and\n" ..
    "summary.json (with each device's GPU time breakdown, gpu_time: docs/SEMANTICS.md).\n" ..
    "Without a WORKLOAD a duration-bounded sleep session is captured (usually empty).\n" ..
    "With --session NAME, one window of a session `gpuflame launch` runs: `nsys start` (at --at), wait S\n" ..
    "seconds, `nsys stop`, then the same artifacts; the job keeps running. summary.json's `window` holds\n" ..
    "the planned and actual start and their difference (docs/LIVE.md).\n" ..
    "Exit codes: 3 nsys not found, 4 nsys profile failed or timed out (with --session: the session has\n" ..
    "ended, is unknown, or has a window open), 5 no usable stats report,\n" ..
    "130 interrupted (what was kept is listed).",
  options = {
    { "duration", arg = "S", type = "number", min = 1, help = "seconds; bounds a workload-less session and " ..
      "sets the timeout (S + capture.timeout_extra) (policy capture.duration)" },
    { "session", arg = "NAME", help = "capture a window of this live session (`gpuflame sessions`)" },
    { "at", arg = "TIME", help = "with --session: start the window at an RFC 3339 instant, @EPOCH seconds or +Ns" },
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
  if opts.at and not opts.session then errors.raise(errors.USAGE, "capture: --at needs --session") end
  local state
  if opts.session then
    if #workload > 0 then errors.raise(errors.USAGE, "capture: --session captures a running job; no WORKLOAD") end
    if opts.nsys then errors.raise(errors.USAGE, "capture: --session uses the nsys the session runs under; no --nsys") end
    state = live.window({ session = opts.session, at = opts.at, duration = opts.duration,
      out = opts.out, timeline = opts.timeline, stacks = opts.stacks, title = opts.title, countname = opts.countname,
      inverted = opts.inverted, minwidth = opts.minwidth, colors = opts.colors }, ctx)
  else
    state = capture.run({
      workload = #workload > 0 and workload or nil, duration = opts.duration, out = opts.out, nsys = opts.nsys,
      timeline = opts.timeline, stacks = opts.stacks, title = opts.title, countname = opts.countname,
      inverted = opts.inverted, minwidth = opts.minwidth, colors = opts.colors,
    }, ctx)
  end
  local a = state.artifacts
  log.info("capture: %s", state.dir)
  for _, k in ipairs({ "report", "folded", "html", "timeline", "summary" }) do
    if a[k] then io.stdout:write(string.format("%-9s %s\n", k, a[k])) end
  end
  return 0
end

return cmd
