-- The page and Markdown of `gpuflame report` (templates/report.html, docs/spec/NVTX_ANALYSIS.md): an NVTX run's
-- analysis.json summarised, with the rules' findings (--findings FILE, or findings.json beside it).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local R = require("gpuflame.nvtx_report")
local page = require("gpuflame.views.page")
local document = require("gpuflame.findings.document")
local format = require("gpuflame.findings.format")

local M = {}

-- The rules' findings to include: --findings FILE, else findings.json beside analysis.json when there is
-- one (policy outputs.findings); nil with --no-findings or when there is none. A bad file is an error.
local function rule_findings(spec, path, ctx)
  if spec.findings and spec.no_findings then
    errors.raise(errors.USAGE, "report: --findings and --no-findings exclude each other")
  end
  if spec.no_findings then return nil end
  if spec.findings then return document.read_document(spec.findings), spec.findings end
  local beside = (path:match("^(.*)/[^/]*$") or ".") .. "/" .. ctx.policy().outputs.findings
  if not core.fs.stat(beside) then return nil end
  local ok, doc = errors.try(document.read_document, beside)
  if not ok then
    if doc.code == errors.INPUT then doc.msg = doc.msg .. " (found beside the analysis; --no-findings leaves it out)" end
    error(doc, 0)
  end
  return doc, beside
end

-- the rules' findings for the page: verdicts, and each rule's first `top` rows as text cells
local function rules_extra(doc, fpath, top)
  local cellf = format.cell
  local list = {}
  for i, f in ipairs(doc.findings) do
    local o = { rule = f.rule, description = type(f.description) == "string" and f.description or "",
      severity = f.error and "error" or f.skipped and "skipped" or f.severity,
      text = f.error or f.skipped or document.with_parts(f, f.verdict), -- busy/idle named by its parts
      advice = type(f.advice) == "string" and f.advice or nil }
    local cols, rows = {}, {}
    if not f.error and not f.skipped and type(f.columns) == "table" then
      for j, c in ipairs(f.columns) do cols[j] = c end
      for k, row in ipairs(f.rows or {}) do
        if k > top then break end
        local r = {}
        for j, c in ipairs(cols) do r[j] = cellf(c, row[c]) end
        rows[k] = core.json.array(r)
      end
      o.total_rows = math.max(#(f.rows or {}), f.total_rows or 0)
    end
    o.columns, o.rows = core.json.array(cols), core.json.array(rows)
    list[i] = o
  end
  return { path = fpath, input = type(doc.input) == "string" and doc.input or nil, findings = core.json.array(list) }
end

-- build(spec, ctx) → {out = path} (spec.html: the page written) or {markdown = text} (also written to spec.out
-- when given). spec: target (a run directory or an analysis.json), out, html, top, findings, no_findings.
function M.build(spec, ctx)
  local a, path = R.load(spec.target, ctx.policy())
  local p = ctx.policy().analyze
  local ropts = { top_ranges = spec.top or p.top_ranges, first_iteration_factor = p.first_iteration_factor,
    high_variance_cv = p.high_variance_cv }
  ropts.rules, ropts.rules_path = rule_findings(spec, path, ctx)
  if spec.html then
    local out = spec.out or ((path:match("^(.*)/[^/]*$") or ".") .. "/" .. ctx.policy().outputs.report)
    local findings = R.findings(a, ropts)
    local extra = { findings = core.json.array(findings), path = path, sync = R.sync_policy(a.run.cuda),
      top = ropts.top_ranges, rules = ropts.rules and rules_extra(ropts.rules, ropts.rules_path, ropts.top_ranges) or nil }
    local title = string.format("NVTX analysis: %s / %s", R.show(a.run.profile_name), R.show(a.run.run_id))
    core.render.render(page.template("templates/report.html"), {
      title = title, analysis = { json = core.fs.read(path) }, extra = { json = core.json.encode(extra) },
    }, out, "templates/report.html")
    return { out = out }
  end
  local md = R.markdown(a, path, ropts)
  if spec.out then core.fs.write_atomic(spec.out, md .. "\n") end
  return { markdown = md, out = spec.out }
end

return M
