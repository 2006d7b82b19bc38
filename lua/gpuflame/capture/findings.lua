-- The capture's findings stage (gpuflame.capture): findings.json beside the report.
local core = require("gpuflame.core")
local document = require("gpuflame.findings.document")
local errors = require("gpuflame.errors")
local findings = require("gpuflame.findings")
local log = require("gpuflame.log")
local need = require("gpuflame.policy").need
local nsys_run = require("gpuflame.nsys_run")
local capture_views = require("gpuflame.capture.views")

local M = {}

-- capture's findings stage (policy findings.capture): the policy's rules on the capture's SQLite export,
-- findings.json beside the report, the top findings logged. "exported" (the default) runs when an earlier
-- stage made the export (--stacks, timeline.source = "sqlite"); "always" makes it when needed; "never".
-- It never fails the capture: a problem becomes a capture warning.
function M.stage(state)
  local pol = need(state.policy, "findings.capture_stage")
  local fp = pol.findings
  local when = fp.capture
  if when == "never" or not state.report or (when == "exported" and not state.artifacts.sqlite) then return end
  local ok, err = errors.try(function()
    local results
    local pf = state.page_findings -- a page (timeline, flamegraph) ran the same rules on this export
    if pf and pf.sqlite == state.artifacts.sqlite then
      results = pf.results
    else
      local tr, why = capture_views.export_trace(state, true) -- the export's whole trace, imported once
      if not tr then errors.raise(errors.INPUT, "%s", why) end
      results = findings.analyze(tr, (state.artifacts.sqlite:match("([^/]+)$")), nil, nil, false, pol)
    end
    local path = state.dir .. "/" .. pol.outputs.findings
    core.fs.write_atomic(path, document.format_json(results, state.report))
    state.artifacts.findings = path
    for _, r in ipairs(results) do
      if r.error then nsys_run.warn(state, "findings: rule %s failed: %s", r.name, r.error) end
    end
    for _, r in ipairs(findings.top(results, fp.capture_top)) do
      log.info("finding %s [%s]: %s", r.name, r.severity, r.verdict)
    end
  end)
  if not ok then
    if err.code == errors.INTERRUPTED then error(err, 0) end
    nsys_run.warn(state, "findings: %s", err.msg)
  end
end

return M
