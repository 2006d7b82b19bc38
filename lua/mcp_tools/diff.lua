-- MCP tool diff: two captures compared as `gpuflame diff BEFORE AFTER --json` compares them (the command's own
-- compare: the same verdict and numbers): the verdict object, the totals, the caveats and the top changes (paged lists cut
-- to `limit`).
local common = require("gpuflame.mcp.common")

local function head(list, n)
  local out = common.array({})
  for i = 1, math.min(#(list or {}), n) do out[i] = list[i] end
  return out
end

return {
  name = "diff",
  title = "Compare two captures",
  description = "Compares BEFORE and AFTER (captures, exports, reports, model files): the regression verdict " ..
    "(policy diff.threshold, diff.kernel_threshold, diff.loop_threshold), total GPU time before/after, caveats " ..
    "that make the comparison unfair, the largest kernel (or NVTX range, group_by: nvtx) changes, new and " ..
    "vanished ones, and, when both have steps, their loops (loop: the mean iteration, the steps with their GPU " ..
    "work and the time outside them, the NVTX ranges in the gaps).",
  inputSchema = {
    type = "object",
    properties = {
      before = common.input_schema,
      after = common.input_schema,
      group_by = { type = "string", enum = { "kernel", "nvtx" }, description = "rank kernels (default) or NVTX ranges" },
      limit = { type = "integer", minimum = 1, description = "changes listed (default policy mcp.page_size)" },
      step = { type = "string", maxLength = 32, description = "compare one step of each side: median, slowest or " ..
        "an index (the steps tool lists them)" },
      marker = { type = "string", maxLength = 256, description = "the steps' NVTX ranges (a Lua pattern): for step " ..
        "and the loop" },
    },
    required = { "before", "after" },
    additionalProperties = false,
  },
  outputSchema = {
    type = "object",
    properties = {
      verdict = { type = "object", properties = { regression = { type = "boolean" } }, required = { "regression" } },
      total = { type = "object" },
      kernels = { type = "array" },
      new = { type = "array" },
      vanished = { type = "array" },
      caveats = { type = "array" },
      loop = { type = { "object", "null" } },
      counts = { type = "object" },
    },
    required = { "verdict", "total", "kernels" },
  },
  run = function(args, tk)
    local pol = tk:policy()
    local function side_file(path, what)
      local real, info = tk:input(path, what, true)
      if info.type == "directory" then return tk:dir_capture(real) end
      return real
    end
    local rb = side_file(args.before, "before")
    local ra = side_file(args.after, "after")
    local p = {}
    for k, v in pairs(pol) do p[k] = v end
    p.diff = {}
    for k, v in pairs(pol.diff) do p.diff[k] = v end
    if args.group_by then p.diff.group_by = args.group_by end
    local ctx = { policy = function() return p end, globals = tk.ctx.globals, cleanup = tk.ctx.cleanup }
    tk:progress("importing and comparing " .. rb .. " and " .. ra)
    local _, _, d = require("gpuflame.commands.diff").compare(rb, ra, { step = args.step, marker = args.marker }, ctx)
    local n = args.limit or pol.mcp.page_size
    local out = {}
    for k, v in pairs(d) do out[k] = v end
    out.counts = { kernels = #d.kernels, new = #d.new, vanished = #d.vanished }
    out.kernels, out.new, out.vanished = head(d.kernels, n), head(d.new, n), head(d.vanished, n)
    return out
  end,
}
