-- gpuflame compare: two NVTX runs side by side, context differences, then median deltas with both runs'
-- spreads; the usage is in the spec below.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local R = require("gpuflame.nvtx_report")

local cmd = {}

cmd.spec = {
  usage = "compare RUN_A RUN_B [-o FILE]",
  summary = "compare two NVTX analyses (run directories or analysis.json files)",
  description = "First lists every difference in target, inputs, device, synchronization policy, capture range and\n" ..
    "Nsight Systems version; then the change of each median (B − A) with both runs' spreads.\n" ..
    "One run per side cannot establish a regression; the output says so.",
  options = { { "out", short = "o", arg = "FILE", help = "write the Markdown here instead of stdout" } },
}

function cmd.run(opts, ctx)
  local pa, pb = opts.positional[1], opts.positional[2]
  if not pa or not pb or opts.positional[3] then errors.raise(errors.USAGE, "compare needs exactly two runs: RUN_A RUN_B") end
  local a, fa = R.load(pa, ctx.policy())
  local b, fb = R.load(pb, ctx.policy())
  local md = R.compare_markdown(a, fa, b, fb)
  if opts.out then
    core.fs.write_atomic(opts.out, md .. "\n")
    io.stdout:write("Wrote comparison: ", opts.out, "\n")
  else
    io.stdout:write(md, "\n")
  end
  return 0
end

return cmd
