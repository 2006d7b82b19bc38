-- The page of `gpuflame steps --html` (templates/steps.html): a bar per step, its length the step's duration,
-- stacked by the time breakdown of the GPU work it launched; warm-up steps and outliers marked.
local core = require("gpuflame.core")
local page = require("gpuflame.views.page")

local M = {}

-- build(spec, ctx) writes spec.out: spec.document is `steps --json`'s document, spec.inputs the paths.
function M.build(spec, ctx)
  assert(ctx, "views.steps.build: ctx")
  local doc = spec.document
  local names = core.json.array({})
  for k, path in ipairs(spec.inputs) do names[k] = path:match("([^/]+)/*$") or path end
  local data = { inputs = names }
  for k, v in pairs(doc) do data[k] = v end
  core.render.render(page.template("templates/steps.html"),
    { title = "Steps", data = { json = core.json.encode(data) } }, spec.out, "templates/steps.html")
  return { out = spec.out }
end

return M
