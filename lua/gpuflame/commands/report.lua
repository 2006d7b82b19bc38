-- gpuflame report --run-dir DIR [-o FILE] [--html]: a human summary of DIR/analysis.json
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local R = require("gpuflame.nvtx_report")
local resource = require("gpuflame.resource")

local cmd = {}

cmd.spec = {
  usage = "report --run-dir DIR [-o FILE] [--html] | report ANALYSIS.json [-o FILE] [--html]",
  summary = "summarize an NVTX analysis (analysis.json) as Markdown or a self-contained HTML page",
  description = "Reads DIR/analysis.json written by `gpuflame analyze`. Markdown goes to stdout unless -o is given;\n" ..
    "--html writes a page with per-iteration and top-range charts (default: DIR/ + policy\n" ..
    "outputs.report).",
  options = {
    { "run-dir", arg = "DIR", help = "the profiling run directory" },
    { "out", short = "o", arg = "FILE", help = "write the report here" },
    { "html", help = "write a self-contained HTML page instead of Markdown" },
    { "top", arg = "N", type = "integer", min = 1, help = "ranges listed by host and by GPU total (policy analyze.top_ranges)" },
  },
}

function cmd.run(opts, ctx)
  local target = opts.run_dir or opts.positional[1]
  if not target then errors.raise(errors.USAGE, "report needs --run-dir DIR (see --help)") end
  local a, path = R.load(target)
  local p = ctx.policy().analyze
  local ropts = { top_ranges = opts.top or p.top_ranges, first_iteration_factor = p.first_iteration_factor,
    high_variance_cv = p.high_variance_cv }
  if opts.html then
    local out = opts.out or ((path:match("^(.*)/[^/]*$") or ".") .. "/" .. ctx.policy().outputs.report)
    local findings = R.findings(a, ropts)
    local extra = { findings = core.json.array(findings), path = path, sync = R.sync_policy(a.run.cuda),
      top = ropts.top_ranges }
    local title = string.format("NVTX analysis: %s / %s", R.show(a.run.profile_name), R.show(a.run.run_id))
    core.render.render(resource.read("templates/report.html"), {
      title = title, analysis = { json = core.fs.read(path) }, extra = { json = core.json.encode(extra) },
    }, out, "templates/report.html")
    io.stdout:write("Wrote report: ", out, "\n")
    return 0
  end
  local md = R.markdown(a, path, ropts)
  if opts.out then
    core.fs.write_atomic(opts.out, md .. "\n")
    io.stdout:write("Wrote report: ", opts.out, "\n")
  else
    io.stdout:write(md, "\n")
  end
  return 0
end

return cmd
