-- MCP tool stats: any report of `gpuflame stats` (docs/REPORTS.md) as rows, exactly those of
-- `gpuflame stats -r REPORT -f json INPUT`, paged.
local core = require("gpuflame.core")
local common = require("gpuflame.mcp.common")

local names = {}
for _, r in ipairs(core.stats.reports()) do names[#names + 1] = r.name end

return {
  name = "stats",
  title = "nsys stats reports",
  description = "One nsys stats report computed by gpuflame from the capture's SQLite export (the rows of `gpuflame " ..
    "stats -r REPORT -f json`: nsys's column names, times in ns), paged with limit/cursor. Reports: " ..
    table.concat(names, ", ") .. ".",
  inputSchema = {
    type = "object",
    properties = {
      report = { type = "string", enum = names, description = "the report" },
      input = common.input_schema,
      limit = common.limit_schema,
      cursor = common.cursor_schema,
    },
    required = { "report", "input" },
    additionalProperties = false,
  },
  outputSchema = {
    type = "object",
    properties = {
      report = { type = "string" },
      input = { type = "string" },
      rows = { type = "array", items = { type = "object" } },
      total = { type = "integer" },
      next_cursor = { type = "string" },
    },
    required = { "report", "input", "rows", "total" },
  },
  run = function(args, tk)
    local rows, why = tk:stats(args.input, args.report)
    if not rows then tk:fail("%s: %s: %s", args.input, args.report, why) end
    local page, nxt, total = tk:page(rows, args)
    return { report = args.report, input = args.input, rows = page, total = total, next_cursor = nxt }
  end,
}
