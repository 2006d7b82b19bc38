-- MCP tool steps: the iterations of a training or benchmark loop, as `gpuflame steps INPUT --json` finds and
-- measures them (gpuflame.steps, the same document), the steps paged. In a gpuflame without the steps command
-- the tool says so as a tool error instead of inventing numbers.
local common = require("gpuflame.mcp.common")

return {
  name = "steps",
  title = "Steps (iterations) of a run",
  description = "The steps of a training/benchmark loop (NVTX ranges such as ProfilerStep#N, step 12, Batch 7, or " ..
    "the range that repeats on the main thread; marker: a Lua pattern to pick them): per step its duration and " ..
    "time (the duration, or its busiest GPU's work when longer: GPU-bound), the " ..
    "GPU work it launched with each device's compute/communication/copy/memset/idle ns, kernels, top kernels, " ..
    "warm-up and outlier flags, the gap to the next step; the summary of the times (median, p90, max, slowest " ..
    "step, outliers, the drift from the first third of the steps to the last: direction slower/faster or null), " ..
    "the time between the steps (summary.between: its share of the loop, mostly_between when the steps' times " ..
    "leave out most of it, the NVTX ranges and GPU work in the gaps) and, for " ..
    "several ranks/processes, " ..
    "the slowest rank of each step (`gpuflame steps --json`). Steps are paged with limit/cursor.",
  inputSchema = {
    type = "object",
    properties = {
      input = common.input_schema,
      marker = { type = "string", maxLength = 256, description = "a Lua pattern over the NVTX range text, e.g. '^Batch %d+$'" },
      limit = common.limit_schema,
      cursor = common.cursor_schema,
    },
    required = { "input" },
    additionalProperties = false,
  },
  outputSchema = {
    type = "object",
    properties = {
      input = { type = "string" },
      rule_text = { type = "string" },
      rule = { type = "object" },
      summary = { type = "object" },
      steps = { type = "array", items = { type = "object", properties = { index = { type = "integer" },
        name = { type = "string" }, duration_ns = { type = "integer" } } } },
      ranks = { type = "array" },
      processes = { type = "array" },
      total = { type = "integer" },
      next_cursor = { type = "string" },
    },
    required = { "input", "steps", "summary", "total" },
  },
  run = function(args, tk)
    if not require("gpuflame.resource").find("gpuflame/steps.lua") then
      tk:fail("not available: this gpuflame has no `steps` command (the iterations of a run); nvtx_ranges gives the " ..
        "NVTX range sums and rank_skew each rank's iterations")
    end
    local real = tk:input(args.input)
    tk:progress("importing " .. real)
    local tr = require("gpuflame.commands.steps").load({ real }, {}, tk.ctx)
    tk:progress("finding the steps")
    return common.paged_steps(require("gpuflame.steps").document(tr, args.marker, tk:policy()), args, tk)
  end,
}
