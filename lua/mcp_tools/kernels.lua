-- MCP tool kernels: the GPU kernels in cuda_gpu_kern_sum order (`gpuflame stats -r cuda_gpu_kern_sum -f json`,
-- the same numbers), paged; nvtx = true adds each kernel's NVTX paths (the range × kernel sums of nvtx_ranges).
local common = require("gpuflame.mcp.common")

return {
  name = "kernels",
  title = "GPU kernels by total time",
  description = "The GPU kernels of a capture by total GPU time (nsys's cuda_gpu_kern_sum: total_ns, instances, " ..
    "avg/med/min/max/stddev in ns, time_pct), paged with limit/cursor. nvtx: true adds the NVTX range paths " ..
    "each kernel ran under, with their GPU time.",
  inputSchema = {
    type = "object",
    properties = {
      input = common.input_schema,
      limit = common.limit_schema,
      cursor = common.cursor_schema,
      nvtx = { type = "boolean", description = "also give each kernel's NVTX paths (default false)" },
    },
    required = { "input" },
    additionalProperties = false,
  },
  outputSchema = {
    type = "object",
    properties = {
      input = { type = "string" },
      kernels = { type = "array", items = { type = "object", properties = {
        name = { type = "string" }, total_ns = { type = "integer" }, instances = { type = "integer" },
        nvtx = { type = "array" } }, required = { "name", "total_ns", "instances" } } },
      total = { type = "integer", description = "kernels in all pages" },
      next_cursor = { type = "string" },
    },
    required = { "input", "kernels", "total" },
  },
  run = function(args, tk)
    local rows, why = tk:stats(args.input, "cuda_gpu_kern_sum")
    if not rows then tk:fail("%s: no kernels: %s", args.input, why) end
    local list = {}
    for i, r in ipairs(rows) do list[i] = common.kernel_row(r) end
    local page, nxt, total = tk:page(list, args)
    if args.nvtx then
      local by = {}
      for _, rk in ipairs(common.range_kernels(tk, args.input)) do
        by[rk.kernel] = by[rk.kernel] or {}
        table.insert(by[rk.kernel], { path = rk.nvtx_path, total_ns = rk.total_ns })
      end
      for _, k in ipairs(page) do k.nvtx = common.array(by[k.name] or {}) end
    end
    return { input = args.input, kernels = page, total = total, next_cursor = nxt }
  end,
}
