-- MCP tool critical_path: per step the chain of dependent work that sets its length, as `gpuflame critical-path
-- INPUT --json` gives it (gpuflame.critpath, the same document), the steps paged; the run's summary says what is on
-- the path of most steps for the most time: what to shorten.
local common = require("gpuflame.mcp.common")
local critpath = require("gpuflame.critpath")
local errors = require("gpuflame.errors")

return {
  name = "critical_path",
  title = "Critical path of each step",
  description = "What sets each step's length: the one chain of dependent host code, launches, queued and " ..
    "running GPU work, syncs and collectives through the step (shortening anything off it changes nothing). " ..
    "Per step: length_ns, its parts (host, launch, queue, compute, copy, sync, communication, idle ns) and the " ..
    "items on the path (kind, name, ns), for several ranks the gating rank; summary: over the counted (not " ..
    "warm-up) steps the median length, the parts' shares and the items on the path with their share and in how " ..
    "many steps they are on it; between: the loop's time between the steps, which no path covers (mostly_between " ..
    "when it is most of the loop; the steps tool's summary.between). step: one step (median, slowest or an " ..
    "index of the steps tool); what_if: scale " ..
    "items (kernel=NAME:F, nvtx=NAME:F, kind=PART:F; 0 removes them) and find the path again (an edit of the " ..
    "graph only). Steps are paged with limit/cursor (`gpuflame critical-path --json`, docs/CRITICAL_PATH.md).",
  inputSchema = {
    type = "object",
    properties = {
      input = common.input_schema,
      step = { type = "string", maxLength = 32, description = "only this step: median, slowest or an index" },
      marker = { type = "string", maxLength = 256, description = "the steps' NVTX ranges (a Lua pattern)" },
      what_if = { type = "array", maxItems = 16, items = { type = "string", maxLength = 512 },
        description = "kernel=NAME:F, nvtx=NAME:F or kind=PART:F (F >= 0)" },
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
      rule = { type = "string" },
      summary = { type = "object" },
      steps = { type = "array", items = { type = "object", properties = { index = { type = "integer" },
        name = { type = "string" }, length_ns = { type = "integer" }, parts = { type = "object" },
        on_path = { type = "array" } } } },
      what_if = { type = "object" },
      total = { type = "integer" },
      next_cursor = { type = "string" },
    },
    required = { "input", "rule", "steps", "total" },
  },
  run = function(args, tk)
    local ok, err = pcall(critpath.parse_what_if, args.what_if)
    if not ok then tk:fail("%s", errors.wrap(err).msg) end
    local tr = tk:trace(args.input)
    tk:progress("finding each step's path")
    local doc = critpath.document(tr, { step = args.step, marker = args.marker, what_if = args.what_if }, tk:policy())
    doc.source = nil -- the file under the roots: the input as asked says it
    return common.paged_steps(doc, args, tk)
  end,
}
