-- The capture's timeline stage (--timeline / --stacks, gpuflame.capture): the report's stats trace CSVs or
-- its SQLite export drawn by gpuflame.views.timeline into timeline.html, with the launch stacks' folded
-- file and summary.json's timeline entry.
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local nsys_run = require("gpuflame.nsys_run")
local capture_views = require("gpuflame.capture.views")
local V = require("gpuflame.views.timeline")

local M = {}

-- The capture's SQLite export as the page's input (nil when nsys could not export: warned).
local function capture_export(state, policy)
  local capture = nsys_run
  local res = capture.export_sqlite(state.nsys, state.report, state.dir .. "/" .. policy.outputs.sqlite, state, policy)
  if not res.ok then
    capture.warn(state, "nsys export --type sqlite failed (%s); no timeline", res.why)
    return nil
  end
  state.artifacts.sqlite = res.path
  return res.path
end

-- The stats trace CSVs (source "csv"): the inputs that nsys wrote.
local function capture_csvs(state, tp)
  local capture = capture_views
  local inputs = {}
  for _, rep in ipairs(tp.reports) do
    local csv, why, name, skipped = capture.stats_report(state, rep, tp.output_names[rep] or rep)
    state.reports_tried[#state.reports_tried + 1] = { report = name, ok = csv ~= nil, why = why, csv = csv,
      skipped = skipped }
    if csv then inputs[#inputs + 1] = csv end
  end
  return inputs
end

-- capture.run's timeline stage. Returns true when timeline.html was written, false when the capture has
-- no trace events (capture then warns and builds the flamegraph). The capture's policy comes with state
-- (state.policy); the ctx of the contract (gpuflame.capture) is not needed here.
function M.from_capture(state, opts, _ctx)
  local capture = capture_views
  local policy = state.policy
  local tp = policy.timeline
  local s = V.settings(nil, policy)
  local source = (opts.stacks or tp.source == "sqlite") and "sqlite" or "csv"
  local inputs = source == "csv" and capture_csvs(state, tp) or {}
  local tr, results, fdoc
  if #inputs > 0 then
    tr, results, fdoc = V.load_for_page(inputs, s, { stacks = opts.stacks }, nil, policy)
    if tr:count() == 0 then tr = nil end
  end
  if not tr then
    -- the stats trace CSVs hold CUDA activity only: a capture with NVTX, OS runtime or CPU samples and no
    -- CUDA (a CPU-side job) is drawn from its SQLite export, which holds them (docs/LIVE.md)
    if source == "csv" then
      log.info("timeline: the nsys stats trace reports hold no CUDA events; drawing the SQLite export " ..
        "(NVTX, OS runtime, CPU samples)")
      source = "sqlite"
    end
    local db = capture_export(state, policy)
    if not db then return false end
    inputs = { db }
    tr, results, fdoc = V.load_for_page(inputs, s, { stacks = opts.stacks },
      function(whole) capture.set_gpu_time(state, db, whole) end, policy)
  end
  if tr:count() == 0 then return false end
  -- the capture's findings stage (findings.json) reuses these results when they come from its export
  if results and source == "sqlite" then state.page_findings = { sqlite = inputs[1], results = results } end
  for _, w in ipairs(tr:warnings()) do nsys_run.warn(state, "%s", w) end
  local fl = tr:flame()
  if opts.stacks and fl.launches == 0 and policy.stacks.missing == "error" then
    errors.raise(errors.NO_DATA, "--stacks: no launch backtraces in the capture (policy stacks.missing = error)")
  end
  local out = state.dir .. "/" .. policy.outputs.timeline
  V.render(tr, out, s, fdoc, policy)
  state.artifacts.timeline = out
  if fl.entries > 0 then
    local folded = state.dir .. "/" .. policy.outputs.launch_folded
    tr:write_launch_folded(folded)
    state.artifacts.launch_stacks = folded
  end
  state.timeline = { source = source, shown = tr:count(), total = tr:total(), lanes = #tr:lanes(),
    counts = tr:totals(), launch_stacks = fl.stacks, launches_with_stack = fl.launches,
    launch_flame_total_ns = fl.total }
  log.info("timeline: %d of %d events (longest kept) in %s", tr:count(), tr:total(), out)
  return true
end

return M
