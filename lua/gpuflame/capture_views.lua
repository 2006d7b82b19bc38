-- The capture's views from its SQLite export (docs/POLICY.md capture.views_from): the export's whole trace,
-- imported once for the flamegraph, the findings and summary.json's gpu_time; the flamegraph stage (the
-- hierarchical GPU stacks of the export, or the flat stacks of the stats CSVs without one). gpuflame.capture
-- exposes these as its own (capture.export_trace, capture.flamegraph_stage, …).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")

local M = {}

-- the pipeline's steps (nsys export, nsys stats, warnings); required late: it requires this module
local function capture() return require("gpuflame.capture") end

-- export_trace(state, make) → the whole trace of the capture's SQLite export (every event), imported once
-- for the flamegraph, the time breakdown and findings.json (state.whole); nil, why when the capture has
-- no export (make: run `nsys export --type sqlite` for one) or it cannot be made.
function M.export_trace(state, make)
  local db = state.artifacts.sqlite
  if not db or not core.fs.stat(db) then
    if not make then return nil, "the capture has no SQLite export" end
    local res = capture().export_sqlite(state.nsys, state.report, state.dir .. "/" .. state.policy.outputs.sqlite,
      state, state.policy)
    if not res.ok then return nil, "nsys export --type sqlite failed: " .. res.why end
    db = res.path
    state.artifacts.sqlite = db
  end
  if state.whole and state.whole.sqlite == db then return state.whole.trace end
  local tr = require("gpuflame.flamegraph").load_trace({ db }, nil, state.policy)
  state.whole = { sqlite = db, trace = tr }
  return tr
end

-- set_gpu_time(state, db, tr): the time breakdown of each device (gpuflame.gpu_time, docs/SEMANTICS.md)
-- of the whole trace tr of the export db, for summary.json's gpu_time
function M.set_gpu_time(state, db, tr)
  local gpu_time = require("gpuflame.gpu_time")
  local doc = gpu_time.document(gpu_time.breakdown(tr, nil, nil, state.policy), state.policy)
  doc.source = db
  state.gpu_time = doc
end

-- summary.json's gpu_time: from the export when the capture has one (a capture whose views came from
-- `nsys stats` CSVs alone has no intervals to merge: gpu_time is null). A failure is a warning.
function M.gpu_time_stage(state)
  if state.gpu_time or not state.artifacts.sqlite then return end
  local ok, err = errors.try(function()
    local tr, why = M.export_trace(state)
    if not tr then errors.raise(errors.INPUT, "%s", why) end
    M.set_gpu_time(state, state.artifacts.sqlite, tr)
  end)
  if not ok then
    if err.code == errors.INTERRUPTED then error(err, 0) end
    capture().warn(state, "GPU time breakdown: %s", err.msg)
  end
end

-- The stacks of the flamegraph stage: with an export (policy capture.views_from = "export" makes one; a
-- capture that made one anyway has it) the hierarchical GPU stacks of its trace (policy flamegraph.levels,
-- integer ns) and the findings panel, the stats CSVs still written beside them; else, or when the export
-- has no GPU work, the flat stacks of the first stats CSV with rows (µs, the reference form).
local function flamegraph_stacks(state)
  local fg = require("gpuflame.flamegraph")
  local policy = state.policy
  -- an export that cannot be made is reported by the stats path (it needs one too); one that cannot be read
  -- is a warning, and the flat stacks are drawn
  local ok, tr = errors.try(M.export_trace, state, policy.capture.views_from == "export")
  if not ok then
    if tr.code == errors.INTERRUPTED then errors.reraise(tr) end
    capture().warn(state, "flamegraph: the export could not be read (%s); drawing the flat stacks of the stats CSVs",
      tr.msg)
    tr = nil
  end
  local stacks = tr and fg.from_trace(tr, nil, policy)
  if not stacks then
    local got = capture().stats(state)
    return got.stacks, { report = got.name, unit_ns = policy.flamegraph.unit_ns }
  end
  capture().stats(state, nil, true) -- the CSVs are artifacts still (reports_tried); the page does not need them
  local db, fdoc = state.whole.sqlite, nil
  if policy.findings.pages then
    local findings = require("gpuflame.findings")
    local results
    results, fdoc = require("gpuflame.findings.document").page(tr, findings.source_name(db), policy)
    if results then state.page_findings = { sqlite = db, results = results } end
  end
  M.set_gpu_time(state, db, tr)
  return stacks, { report = "export", source = db, unit_ns = 1, countname = "ns",
    levels = table.concat(policy.flamegraph.levels, ","), findings = fdoc }
end

-- The flamegraph stage: gpu.folded (+ its sidecar) and flamegraph.html (artifacts in state.dir).
function M.flamegraph_stage(state, page)
  local fg = require("gpuflame.flamegraph")
  local policy = state.policy
  local stacks, how = flamegraph_stacks(state)
  local folded = state.dir .. "/" .. policy.outputs.gpu_folded
  stacks:write_folded(folded, { meta = false })
  state.artifacts.folded = folded
  state.artifacts.folded_meta = require("gpuflame.sidecar").write(folded,
    policy.flamegraph.folded_metadata and stacks:meta() or nil)
  local html = state.dir .. "/" .. policy.outputs.flamegraph
  page = page or {}
  local o = fg.page_options({ title = page.title, countname = page.countname, inverted = page.inverted,
    minwidth = page.minwidth, colors = page.colors, subtitle = page.subtitle, findings = how.findings,
    stacks_countname = how.countname }, policy)
  if not page.subtitle then
    o.subtitle = string.format("%s via %s", state.report and state.report:match("[^/]+$") or "",
      how.levels and ("its export (" .. how.levels .. "; ns)") or how.report)
  end
  fg.render(stacks, html, o)
  state.artifacts.html = html
  state.flamegraph = { report = how.report, stacks = stacks:count(), total = stacks:total(), unit_ns = how.unit_ns,
    levels = how.levels, top = stacks:top(5) }
  return stacks
end

return M
