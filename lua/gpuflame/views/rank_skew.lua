-- The page of `gpuflame run rank-skew --html` (templates/rank_skew.html): the per-rank document (busy
-- breakdown per device, iterations, stragglers) drawn as stacked bars per rank and device.
local core = require("gpuflame.core")
local page = require("gpuflame.views.page")

local M = {}

-- build(spec, ctx) writes spec.out: spec.document is rank-skew's --json document, spec.inputs the paths the
-- ranks came from (the page names them by their last component).
function M.build(spec, ctx)
  assert(ctx, "views.rank_skew.build: ctx")
  local doc = spec.document
  local names = core.json.array({})
  for k, path in ipairs(spec.inputs) do names[k] = path:match("([^/]+)/*$") or path end
  doc.inputs = names
  core.render.render(page.template("templates/rank_skew.html"),
    { title = "GPU time per rank", data = { json = core.json.encode(doc) } }, spec.out, "templates/rank_skew.html")
  return { out = spec.out }
end

return M
