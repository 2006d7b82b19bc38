-- gpuflame timeline: the CPU/GPU timeline page of trace inputs; the usage is in the spec below.
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local mpi = require("gpuflame.mpi")
local timeline = require("gpuflame.views.timeline")

local cmd = {}

cmd.spec = {
  usage = "timeline INPUT... [-o out.html] [--max-events N] [--stacks] [--critical-path] [--title T]",
  summary = "CPU/GPU timeline page from an SQLite export, an .nsys-rep, or trace CSVs",
  description = "INPUT is an nsys SQLite export (`nsys export --type sqlite`), an .nsys-rep (exported through\n" ..
    "nsys), or the pair cuda_api_trace.csv + cuda_gpu_trace.csv from `nsys stats --format csv`.\n" ..
    "The page keeps every event up to policy timeline.local_max_events (default 10,000,000; beyond it the\n" ..
    "longest, plus the launch calls of kept GPU work, and the page says so); --max-events N keeps the N\n" ..
    "longest while reading (memory follows N; the findings panel, which needs every event, stays empty).\n" ..
    "It opens on policy timeline.initial_view (default: the busiest GPU window). Launch\n" ..
    "backtraces (CUDA_CALLCHAINS) appear when the capture has them.",
  options = {
    { "out", short = "o", arg = "FILE", help = "output page (default: policy outputs.timeline)" },
    { "max-events", arg = "N", type = "integer", min = 1, help = "keep the N longest events" },
    { "stacks", help = "launch backtraces were requested: warn when the capture has none" },
    { "critical-path", help = "outline the critical path of the step in view (gpuflame critical-path; not with --max-events)" },
    { "title", arg = "TEXT", help = "page title" },
    { "allow-unrelated", help = "several reports: accept captures that cannot be one job (policy ranks.max_start_gap_s)" },
  },
}

function cmd.run(opts, ctx)
  local inputs = opts.positional
  if (not inputs or #inputs == 0) and not mpi.local_pattern() then
    errors.raise(errors.USAGE, "timeline needs an INPUT (see timeline --help)")
  end
  if opts.critical_path and opts.max_events then
    errors.raise(errors.USAGE, "--critical-path needs every event: give it without --max-events")
  end
  local out = opts.out or ctx.policy().outputs.timeline
  local r = timeline.build({
    inputs = inputs, out = out, stacks = opts.stacks, max_events = opts.max_events,
    title = opts.title, allow_unrelated = opts.allow_unrelated, critical_path = opts.critical_path,
  }, ctx)
  if r.kind == "timeline" then
    if r.shown < r.total then
      log.info("wrote %s: %d of %d events (longest kept), %d lanes", out, r.shown, r.total, r.lanes)
    else
      log.info("wrote %s: %d events, %d lanes", out, r.total, r.lanes)
    end
  else
    log.info("wrote %s (%s)", out, r.kind)
  end
  return 0
end

return cmd
