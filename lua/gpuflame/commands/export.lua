-- gpuflame export: an input through an exporter plug-in (exporters/<name>.lua), or the list of them; the
-- usage is in the spec below.
local errors = require("gpuflame.errors")
local exporters = require("gpuflame.exporters")
local log = require("gpuflame.log")
local core = require("gpuflame.core")
local flamegraph = require("gpuflame.flamegraph")
local inputs = require("gpuflame.inputs")
local trace = require("gpuflame.trace")

local cmd = {}

cmd.spec = {
  usage = "export --list | export --format NAME INPUT... -o FILE",
  summary = "write INPUT in another tool's format (exporters are Lua plug-ins)",
  description = "Exporters are exporters/NAME.lua files on the search path; drop one into\n" ..
    "~/.config/gpuflame/exporters/ (or a GPUFLAME_PATH directory) to add a format without rebuilding.\n" ..
    "folded, speedscope and html-flamegraph write the hierarchical GPU stacks of an SQLite export or report\n" ..
    "(--levels, policy flamegraph.levels; counts in integer ns); speedscope adds a time-ordered profile per stream.\n" ..
    "Trace exporters (chrome-trace, launch-stacks, speedscope) also take a cuda_gpu_trace + cuda_api_trace CSV pair, or\n" ..
    "several SQLite exports / .nsys-rep reports (files, a directory, a glob: one per rank), merged with\n" ..
    "clocks aligned; chrome-trace then writes one process per rank.",
  options = {
    { "list", help = "list the available exporters" },
    { "format", short = "f", arg = "NAME", help = "exporter to run" },
    { "out", short = "o", arg = "FILE", help = "output file" },
    { "max-events", arg = "N", type = "integer", min = 1, help = "trace inputs: keep the N longest events" },
    { "title", arg = "TEXT", help = "title for HTML outputs" },
    { "allow-unrelated", help = "several reports: accept captures that cannot be one job (policy ranks.max_start_gap_s)" },
    { "levels", arg = "LIST", help = "frames of the GPU stacks, outermost first, of: process, rank, device, " ..
      "stream, nvtx, callchain, api, kernel (policy flamegraph.levels)" },
  },
}

function cmd.run(opts, ctx)
  if opts.list then
    for _, e in ipairs(exporters.list()) do
      io.stdout:write(string.format("  %-16s %-40s accepts: %s\n", e.name, e.description or "",
        table.concat(e.accepts or {}, ", ")))
    end
    return 0
  end
  if not opts.format then errors.raise(errors.USAGE, "export needs --format NAME (see export --list)") end
  local input = opts.positional[1]
  if not input then errors.raise(errors.USAGE, "export needs an INPUT file") end
  if not opts.out then errors.raise(errors.USAGE, "export needs -o FILE") end
  opts.flame = flamegraph.settings(opts, ctx.policy()) -- --levels, for the stacks loaders
  local e = exporters.load(opts.format)
  local model, kind
  local takes = {}
  for _, a in ipairs(e.accepts) do takes[a] = true end
  local st = core.fs.stat(input)
  local several = #opts.positional > 1 or (st and st.type == "directory") or (not st and input:find("[%*%?%[]"))
  if several and not takes.trace then
    errors.raise(errors.USAGE, "export takes one INPUT (several only for a trace exporter: a cuda_gpu_trace and a " ..
      "cuda_api_trace CSV, or several reports); got %d", #opts.positional)
  end
  if takes.path then
    model, kind = input, "path"
  elseif several then
    local policy = ctx.policy()
    model, kind = trace.load(opts.positional, { max_events = opts.max_events or 0,
      keep_partners = policy.timeline.keep_partners, allow_unrelated = opts.allow_unrelated,
      stacks = flamegraph.wants_callchain(opts.flame) }, policy), "trace"
  end
  if not model then
    model, kind = inputs.load_for(input, e.accepts, opts, ctx)
  end
  log.debug("export: %s as %s via %s", input, kind, e.origin)
  e.write(model, opts.out, { kind = kind, input = input, inputs = opts.positional, title = opts.title,
    max_events = opts.max_events, flame = opts.flame }, ctx)
  log.info("wrote %s", opts.out)
  return 0
end

return cmd
