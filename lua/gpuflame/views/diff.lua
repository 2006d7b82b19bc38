-- The page of `gpuflame diff` (templates/diff.html, docs/DIFF.md): the differential flamegraphs and the
-- comparison's model; and the differential page of a two-column folded file (`gpuflame flamegraph`).
local core = require("gpuflame.core")
local diff = require("gpuflame.diff")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local sidecar = require("gpuflame.sidecar")
local views_page = require("gpuflame.views.page")

local M = {}

-- render(kernel_flame, launch_flame, doc, out_path, page) writes the page: the differential flamegraph of
-- the GPU stacks (core.stacks_diff), of the launch stacks (or nil), and the model: doc (diff.compare's
-- document with its verdict) plus page = {title, subtitle, min_fraction}. Returns both flames' tree stats.
function M.render(kernel_flame, launch_flame, doc, out_path, page)
  local tmpl, origin = views_page.template("templates/diff.html")
  local mf = page.min_fraction or 0
  kernel_flame:set_min_fraction(mf)
  if launch_flame then launch_flame:set_min_fraction(mf) end
  local model = diff.copy(doc)
  model.title = page.title
  model.subtitle = page.subtitle or ""
  model.min_fraction = mf
  local slots = {
    title = page.title, subtitle = page.subtitle or "",
    flame = { data = kernel_flame },
    launch = launch_flame and { data = launch_flame } or { json = "null" },
    model = { json = core.json.encode(model) },
  }
  core.render.render(tmpl, slots, out_path, origin)
  return kernel_flame:tree_stats(), launch_flame and launch_flame:tree_stats() or nil
end

-- `gpuflame flamegraph` of a two-column folded file: the differential page without capture metadata.
function M.flamegraph_from_difffolded(path, out, o, ctx)
  local sb, sa, st = core.stacks.read_folded(path, { two_columns = true })
  sidecar.attach(sb, path)
  if st.bad > 0 then
    log.warn("%s: skipped %d malformed line%s (first: line %d: %s)", path, st.bad, st.bad == 1 and "" or "s",
      st.first_bad, st.first_bad_why)
  end
  if sb:count() == 0 then
    if st.bad > 0 then errors.raise(errors.INPUT, "%s:%d: no valid differential folded lines (%s)", path, st.first_bad,
      st.first_bad_why) end
    errors.raise(errors.NO_DATA, "%s: no stacks", path)
  end
  local okm, meta = pcall(core.json.decode, sb:meta() or "null")
  meta = okm and type(meta) == "table" and meta or {}
  local unit = meta.unit == "ns" and "ns" or "count"
  local function side(s, name)
    return { input = name, file = path, source = "folded", kind = "folded", unit = unit, scale = 1, stacks = s }
  end
  local b = side(sb, type(meta.before) == "string" and meta.before or "BEFORE column")
  local a = side(sa, type(meta.after) == "string" and meta.after or "AFTER column")
  local D, _, d = diff.compare(b, a, nil, ctx.policy())
  d.caveats = core.json.array({})
  d.launch_stacks = { available = false, why = "a differential folded file holds one flame" }
  d.read_back = path
  M.render(D, nil, d, out, o)
  return D, d
end

return M
