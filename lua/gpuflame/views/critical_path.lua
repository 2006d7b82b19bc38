-- The page of `gpuflame critical-path --html` (templates/critical_path.html): a bar per step, its length the
-- path's, stacked by the path's parts; the longest items, the gating rank, the what-if length.
local core = require("gpuflame.core")
local page = require("gpuflame.views.page")

local M = {}

-- build(spec, ctx) writes spec.out: spec.document is `critical-path --json`'s document, spec.inputs the paths.
function M.build(spec, ctx)
  assert(ctx, "views.critical_path.build: ctx")
  local names = core.json.array({})
  for k, path in ipairs(spec.inputs) do names[k] = path:match("([^/]+)/*$") or path end
  local data = { inputs = names, top = ctx.policy().critical_path.top } -- the summary's items, as the text lists
  for k, v in pairs(spec.document) do data[k] = v end
  core.render.render(page.template("templates/critical_path.html"),
    { title = "Critical path", data = { json = core.json.encode(data) } }, spec.out, "templates/critical_path.html")
  return { out = spec.out }
end

return M
