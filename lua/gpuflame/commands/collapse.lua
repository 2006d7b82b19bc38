-- gpuflame collapse: an input's GPU stacks as folded lines on stdout; the usage is in the spec below.
local errors = require("gpuflame.errors")
local inputs = require("gpuflame.inputs")

local cmd = {}

cmd.spec = {
  usage = "collapse INPUT [--metadata] [--unit-ns N]",
  summary = "print INPUT as folded stacks (flamegraph.pl / inferno / speedscope input)",
  description = "One line per stack: frames joined by ';', a space, the count. For stats CSVs and SQLite\n" ..
    "exports the count is max(1, total_ns // unit_ns) (policy flamegraph.unit_ns, 1000 = microseconds).",
  options = {
    { "metadata", help = "print the '# {json}' metadata line first" },
    { "unit-ns", arg = "N", type = "integer", min = 1, help = "nanoseconds per count (overrides the policy)" },
    { "nsys", arg = "PATH", help = ".nsys-rep inputs: the nsys to export with" },
  },
}

function cmd.run(opts, ctx)
  local input = opts.positional[1]
  if not input then errors.raise(errors.USAGE, "collapse needs an INPUT file (see --help)") end
  if opts.unit_ns then
    ctx.policy().flamegraph.unit_ns = opts.unit_ns
  end
  -- a summary CSV streams straight to folded lines (constant memory, the reference's row order)
  local info = inputs.detect(input)
  local nsys = require("gpuflame.nsys")
  local report = info.type == "csv" and nsys.canonical_report(info.report, ctx.policy())
  if report == "cuda_gpu_kern_sum" or report == "cuda_api_sum" then
    require("gpuflame.flamegraph").stream_csv(input, report, ctx.policy(), "-",
      { skip_preamble = info.preamble, meta = opts.metadata == true })
    return 0
  end
  local ok, res = errors.try(inputs.load_for, input, { "stacks" }, ctx, { nsys = opts.nsys })
  inputs.cleanup(ctx)
  if not ok then errors.reraise(res) end
  res:write_folded("-", { meta = opts.metadata == true })
  return 0
end

return cmd
