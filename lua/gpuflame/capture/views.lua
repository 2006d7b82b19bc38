-- The capture's views from its SQLite export (docs/POLICY.md capture.views_from): the export's whole trace,
-- imported once for the flamegraph, the findings and summary.json's gpu_time; the flamegraph stage (the
-- hierarchical GPU stacks of the export, or the flat stacks of the stats CSVs without one). gpuflame.capture
-- exposes these as its own (capture.export_trace, capture.flamegraph_stage, …).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local fg = require("gpuflame.flamegraph")
local findings = require("gpuflame.findings")
local gpu_time = require("gpuflame.gpu_time")
local log = require("gpuflame.log")
local nsys_run = require("gpuflame.nsys_run")
local sidecar = require("gpuflame.sidecar")
local stats_csv = require("gpuflame.capture.stats_csv")

local M = {}

-- export_trace(state, make) → the whole trace of the capture's SQLite export (every event), imported once
-- for the flamegraph, the time breakdown and findings.json (state.whole); nil, why when the capture has
-- no export (make: run `nsys export --type sqlite` for one) or it cannot be made.
function M.export_trace(state, make)
  local db = state.artifacts.sqlite
  if not db or not core.fs.stat(db) then
    if not make then return nil, "the capture has no SQLite export" end
    local res = nsys_run.export_sqlite(state.nsys, state.report, state.dir .. "/" .. state.policy.outputs.sqlite,
      state, state.policy)
    if not res.ok then return nil, "nsys export --type sqlite failed: " .. res.why end
    db = res.path
    state.artifacts.sqlite = db
  end
  if state.whole and state.whole.sqlite == db then return state.whole.trace end
  local tr = fg.load_trace({ db }, nil, state.policy)
  state.whole = { sqlite = db, trace = tr }
  return tr
end

-- set_gpu_time(state, db, tr): the time breakdown of each device (gpuflame.gpu_time, docs/SEMANTICS.md)
-- of the whole trace tr of the export db, for summary.json's gpu_time
function M.set_gpu_time(state, db, tr)
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
    nsys_run.warn(state, "GPU time breakdown: %s", err.msg)
  end
end

-- The stacks of the flamegraph stage: with an export (policy capture.views_from = "export" makes one; a
-- capture that made one anyway has it) the hierarchical GPU stacks of its trace (policy flamegraph.levels,
-- integer ns) and the findings panel, the stats CSVs still written beside them; else, or when the export
-- has no GPU work, the flat stacks of the first stats CSV with rows (µs, the reference form).
local function flamegraph_stacks(state)
  local policy = state.policy
  -- an export that cannot be made is reported by the stats path (it needs one too); one that cannot be read
  -- is a warning, and the flat stacks are drawn
  local ok, tr = errors.try(M.export_trace, state, policy.capture.views_from == "export")
  if not ok then
    if tr.code == errors.INTERRUPTED then errors.reraise(tr) end
    nsys_run.warn(state, "flamegraph: the export could not be read (%s); drawing the flat stacks of the stats CSVs",
      tr.msg)
    tr = nil
  end
  local stacks = tr and fg.from_trace(tr, nil, policy)
  if not stacks then
    local got = M.stats(state)
    return got.stacks, { report = got.name, unit_ns = policy.flamegraph.unit_ns }
  end
  M.stats(state, nil, true) -- the CSVs are artifacts still (reports_tried); the page does not need them
  local db, fdoc = state.whole.sqlite, nil
  if policy.findings.pages then
    local results
    results, fdoc = findings.page(tr, findings.source_name(db), policy)
    if results then state.page_findings = { sqlite = db, results = results } end
  end
  M.set_gpu_time(state, db, tr)
  return stacks, { report = "export", source = db, unit_ns = 1, countname = "ns",
    levels = table.concat(policy.flamegraph.levels, ","), findings = fdoc }
end

-- The flamegraph stage: gpu.folded (+ its sidecar) and flamegraph.html (artifacts in state.dir).
function M.flamegraph_stage(state, page)
  local policy = state.policy
  local stacks, how = flamegraph_stacks(state)
  local folded = state.dir .. "/" .. policy.outputs.gpu_folded
  stacks:write_folded(folded, { meta = false })
  state.artifacts.folded = folded
  state.artifacts.folded_meta = sidecar.write(folded,
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

-- Runs nsys stats for one report into state.dir (gpuflame.nsys_run), or with capture.views_from =
-- "export" writes the CSV from one nsys export (gpuflame.stats, docs/REPORTS.md). Returns csv path or nil, why.
function M.stats_report(state, report, base)
  if state.policy.capture.views_from == "export" then return stats_csv.report(state, report, base) end
  return nsys_run.stats_report(state, report, base)
end

-- Tries the policy's reports in order (flamegraph.reports); the first that yields rows wins.
-- Returns {report, csv, stacks}; raises exit 5 listing every report tried and why, or with `optional`
-- (the CSVs beside a flamegraph drawn from the export) returns nil.
function M.stats(state, reports, optional)
  local policy = state.policy
  local fp = policy.flamegraph
  reports = reports or fp.reports
  for _, report in ipairs(reports) do
    local base = fp.output_names[report] or report -- a report output_names does not list: its own name
    local csv, why, name, skipped = M.stats_report(state, report, base)
    local stacks
    if csv then
      local ok, res = errors.try(fg.from_csv, csv, report, nil, policy)
      if not ok then
        why = res.msg
      elseif res:count() == 0 then
        why = "CSV has a header but no rows (" .. csv .. ")"
      else
        stacks = res
      end
      state.artifacts.stats_csv = state.artifacts.stats_csv or {}
      table.insert(state.artifacts.stats_csv, csv)
    end
    state.reports_tried[#state.reports_tried + 1] = { report = name, ok = stacks ~= nil, why = why, csv = csv,
      skipped = skipped }
    if stacks then
      log.debug("stats: %s gave %d stacks", name, stacks:count())
      return { report = report, name = name, csv = csv, stacks = stacks }
    end
    -- a SKIPPED report is summed up in the final message; anything else is news now
    if skipped then log.debug("nsys stats %s: %s", name, why) else log.info("nsys stats %s gave nothing usable: %s", name, why) end
  end
  if optional then return nil end
  local lines, all_skipped = {}, true
  for _, t in ipairs(state.reports_tried) do
    lines[#lines + 1] = t.report .. ": " .. (t.why or "?")
    all_skipped = all_skipped and t.skipped
  end
  state.status = "no-data"
  state.error = "no usable nsys stats CSV (" .. table.concat(lines, "; ") .. ")"
  nsys_run.write_summary(state)
  if all_skipped and #lines > 0 then
    errors.raise(errors.NO_DATA, "%s: the capture holds no CUDA activity to draw (%s). Did the workload use the " ..
      "GPU through CUDA? The report is kept: %s", state.dir, table.concat(lines, "; "), state.report or "?")
  end
  errors.raise(errors.NO_DATA, "%s: no usable nsys stats CSV from %s — tried %s", state.dir, state.report or "?",
    table.concat(lines, "; "))
end


return M
