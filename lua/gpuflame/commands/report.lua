-- gpuflame report: a human summary (Markdown or an HTML page) of an NVTX run's analysis.json; the usage is
-- in the spec below.
local errors = require("gpuflame.errors")
local report = require("gpuflame.views.report")

local cmd = {}

cmd.spec = {
  usage = "report --run-dir DIR [-o FILE] [--html] [--findings FILE | --no-findings] | report ANALYSIS.json [...]",
  summary = "summarize an NVTX analysis (analysis.json) as Markdown or a self-contained HTML page",
  description = "Reads DIR/analysis.json written by `gpuflame analyze`. Markdown goes to stdout unless -o is given;\n" ..
    "--html writes a page with per-iteration and top-range charts (default: DIR/ + policy\n" ..
    "outputs.report). The rules' findings are included from --findings FILE (`gpuflame findings -f json`),\n" ..
    "else from findings.json beside analysis.json (policy outputs.findings, written by capture) when there\n" ..
    "is one; a findings file that is not such a document is an error (exit 6).",
  options = {
    { "run-dir", arg = "DIR", help = "the profiling run directory" },
    { "out", short = "o", arg = "FILE", help = "write the report here" },
    { "html", help = "write a self-contained HTML page instead of Markdown" },
    { "top", arg = "N", type = "integer", min = 1, help = "ranges listed by host and by GPU total (policy analyze.top_ranges)" },
    { "findings", arg = "FILE", help = "include these rule findings (gpuflame findings -f json)" },
    { "no-findings", help = "leave out the findings.json beside analysis.json" },
  },
}

function cmd.run(opts, ctx)
  local target = opts.run_dir or opts.positional[1]
  if not target then errors.raise(errors.USAGE, "report needs --run-dir DIR (see --help)") end
  local res = report.build({ target = target, out = opts.out, html = opts.html,
    top = opts.top, findings = opts.findings, no_findings = opts.no_findings }, ctx)
  if res.out then
    io.stdout:write("Wrote report: ", res.out, "\n")
  else
    io.stdout:write(res.markdown, "\n")
  end
  return 0
end

return cmd
