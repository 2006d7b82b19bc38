-- MCP tool steps: the iterations of a training run. gpuflame has no `steps` command yet (issue 40): the tool
-- says so as a tool error instead of inventing numbers.
local common = require("gpuflame.mcp.common")

return {
  name = "steps",
  title = "Iterations (not available yet)",
  description = "The iterations (steps) of a run with their times. Not available in this gpuflame: it has no " ..
    "`steps` command yet, so this tool answers with an error; use nvtx_ranges or rank_skew's iterations meanwhile.",
  inputSchema = {
    type = "object",
    properties = { input = common.input_schema },
    required = { "input" },
    additionalProperties = false,
  },
  outputSchema = { type = "object", properties = { steps = { type = "array" } } },
  run = function(_, tk)
    tk:fail("not available: this gpuflame has no `steps` command yet (the iterations of a run); nvtx_ranges gives " ..
      "the NVTX range sums and rank_skew each rank's iterations (NVTX ranges named by policy ranks.iteration_prefixes)")
  end,
}
