-- gpuflame collapse: an input's stacks as folded lines on stdout
local errors = require("gpuflame.errors")
local inputs = require("gpuflame.inputs")
local fg = require("gpuflame.flamegraph")
local log = require("gpuflame.log")
local nsys = require("gpuflame.nsys")

local cmd = {}

cmd.spec = {
  usage = "collapse INPUT [--metadata] [--unit-ns N] [--step N|median|slowest [--marker PATTERN]]",
  summary = "print INPUT as folded stacks (flamegraph.pl / inferno / speedscope input)",
  description = "One line per stack: frames joined by ';', a space, the count. SQLite exports and .nsys-rep\n" ..
    "reports give the hierarchical GPU stacks (one per kernel, memcpy and memset; frames = --levels, policy\n" ..
    "flamegraph.levels, default process;NVTX ranges;launch call;kernel), the count in integer ns. Stats CSVs\n" ..
    "give the flat `gpu;nsys;cuda_kernel;NAME` form, count max(1, total_ns // unit_ns) (policy\n" ..
    "flamegraph.unit_ns, 1000 = microseconds).",
  options = {
    { "metadata", help = "print the metadata (source report, unit) as JSON on stderr; stdout stays folded lines" },
    { "unit-ns", arg = "N", type = "integer", min = 1, help = "nanoseconds per count (overrides the policy)" },
    { "levels", arg = "LIST", help = "frames of the GPU stacks, outermost first, of: process, rank, device, " ..
      "stream, nvtx, callchain, api, kernel (policy flamegraph.levels)" },
    { "nsys", arg = "PATH", help = ".nsys-rep inputs: the nsys to export with" },
    { "step", arg = "N", help = "exports and reports: only the GPU work launched inside step N (its index in " ..
      "`gpuflame steps`), or the median or slowest step" },
    { "marker", arg = "PATTERN", help = "with --step: the steps are the NVTX ranges matching this Lua pattern" },
  },
}

-- --step: the stacks of one step's GPU work (exports, reports, model files)
local function step_stacks(input, opts, fs, ctx)
  local info = inputs.resolve(input, { nsys = opts.nsys }, ctx)
  if info.type ~= "sqlite" and info.type ~= "model" then
    errors.raise(errors.USAGE, "%s: --step needs an SQLite export, an .nsys-rep or a model file (steps are NVTX " ..
      "ranges of a trace)", input)
  end
  local tr = fg.load_trace({ info.path }, { nsys = opts.nsys, flame = fs }, ctx.policy())
  tr:source(input)
  local stacks, s = fg.from_trace_step(tr, opts.step, opts.marker, { flame = fs }, ctx.policy())
  log.info("%s: %s, %s to %s ns", input, fg.step_label(s, opts.step), s.start_ns, s.end_ns)
  return stacks
end

function cmd.run(opts, ctx)
  local input = opts.positional[1]
  if not input then errors.raise(errors.USAGE, "collapse needs an INPUT file (see --help)") end
  local fs = fg.settings(opts, ctx.policy()) -- --levels, --unit-ns
  -- a summary CSV streams straight to folded lines (constant memory, the reference's row order)
  local info = inputs.detect(input)
  local report = info.type == "csv" and nsys.canonical_report(info.report, ctx.policy())
  if (report == "cuda_gpu_kern_sum" or report == "cuda_api_sum") and not opts.step then
    local st = fg.stream_csv(input, report, "-",
      { skip_preamble = info.preamble, meta = opts.metadata == true, flame = fs }, ctx.policy())
    if st.meta then io.stderr:write(st.meta, "\n") end
    return 0
  end
  if opts.marker and not opts.step then errors.raise(errors.USAGE, "--marker goes with --step") end
  local ok, res
  if opts.step then
    ok, res = errors.try(step_stacks, input, opts, fs, ctx)
  else
    ok, res = errors.try(inputs.load_for, input, { "stacks" }, { nsys = opts.nsys, flame = fs }, ctx)
  end
  inputs.cleanup(ctx)
  if not ok then errors.reraise(res) end
  res:write_folded("-", { meta = false })
  if opts.metadata and res:meta() then io.stderr:write(res:meta(), "\n") end
  return 0
end

return cmd
