-- MCP tool nvtx_ranges: NVTX range sums (`gpuflame stats -r nvtx_sum -f json`, the same numbers), or with
-- by_kernel the range × kernel sums (the GPU time of each kernel under each NVTX path: the hierarchical stacks
-- with levels nvtx and kernel, as `gpuflame collapse` gives them), paged.
local common = require("gpuflame.mcp.common")

return {
  name = "nvtx_ranges",
  title = "NVTX ranges and their kernels",
  description = "NVTX range sums of a capture (nsys's nvtx_sum: range, style, total_ns, instances, avg/med/min/max/" ..
    "stddev in ns; CPU-side durations), or with by_kernel: true the range x kernel sums: the GPU time (ns) of each " ..
    "kernel, copy and memset under each NVTX path (outermost range first, ';'-joined). Paged with limit/cursor.",
  inputSchema = {
    type = "object",
    properties = {
      input = common.input_schema,
      by_kernel = { type = "boolean", description = "range x kernel GPU sums instead of the range sums" },
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
      ranges = { type = "array", items = { type = "object" } },
      range_kernels = { type = "array", items = { type = "object", properties = {
        nvtx_path = { type = "string" }, kernel = { type = "string" }, total_ns = { type = "integer" } } } },
      total = { type = "integer" },
      next_cursor = { type = "string" },
    },
    required = { "input", "total" },
  },
  run = function(args, tk)
    if args.by_kernel then
      local page, nxt, total = tk:page(common.range_kernels(tk, args.input), args)
      return { input = args.input, range_kernels = page, total = total, next_cursor = nxt }
    end
    local rows, why = tk:stats(args.input, "nvtx_sum")
    if not rows then tk:fail("%s: no NVTX ranges: %s", args.input, why) end
    local list = {}
    for i, r in ipairs(rows) do list[i] = common.range_row(r) end
    local page, nxt, total = tk:page(list, args)
    return { input = args.input, ranges = page, total = total, next_cursor = nxt }
  end,
}
