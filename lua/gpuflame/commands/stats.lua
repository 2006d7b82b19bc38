-- gpuflame stats: nsys stats reports computed by gpuflame from an SQLite export (docs/REPORTS.md); the usage
-- is in the spec below.
local errors = require("gpuflame.errors")
local inputs = require("gpuflame.inputs")
local log = require("gpuflame.log")
local stats = require("gpuflame.stats")

local cmd = {}

cmd.spec = {
  usage = "stats -r REPORT[,REPORT...] INPUT... [-o PREFIX|-] [--format csv|json[:mem=B]] | stats --help-reports",
  summary = "nsys stats reports (CSV/JSON) computed from an SQLite export, without nsys",
  description = "Writes the CSV a current nsys's `nsys stats --format csv` writes (report names and headers of\n" ..
    "nsys 2023.1+; --format csv:mem=B for byte columns). INPUT is an SQLite export (no nsys needed) or an\n" ..
    ".nsys-rep/.qdrep, exported once through nsys into the export cache (policy exports: keyed by the\n" ..
    "report's content and the nsys version; nothing is written beside the report). -o PREFIX writes\n" ..
    "PREFIX_<report>.csv per report (a 0-byte file when the report has nothing, as nsys); -o - (the default)\n" ..
    "prints them. Reports accept both name eras (cuda_gpu_kern_sum or gpukernsum);\n" ..
    "cuda_gpu_kern_sum and cuda_gpu_trace take :base or :mangled. Exit 5 when no report had a row.\n" ..
    "Several INPUTs (files, a directory, a glob: one report per rank) need -o PREFIX and write\n" ..
    "PREFIX_<input name>_<report>.csv for each; one capture given twice (a report and its export) is\n" ..
    "written once, and captures that cannot be one job are refused (exit 6) unless --allow-unrelated.",
  options = {
    { "report", short = "r", arg = "REPORT[,REPORT...]", multi = true, help = "reports to write (repeatable)" },
    { "output", short = "o", arg = "PREFIX|-", help = "output prefix (PREFIX_<report>.csv), or - for stdout" },
    { "format", short = "f", arg = "csv|json[:mem=B]", help = "output format (default csv; :mem=B byte columns)" },
    { "help-reports", help = "list the reports and exit" },
    { "force-export", help = ".nsys-rep input: export again even when the export cache has it" },
    { "nsys", arg = "PATH", help = ".nsys-rep input: the nsys to export with" },
    { "allow-unrelated", help = "several inputs: accept captures that cannot be one job (policy ranks.max_start_gap_s)" },
  },
  examples = {
    "gpuflame stats -r cuda_gpu_kern_sum,cuda_api_sum report.sqlite",
    "gpuflame stats -r nvtx_pushpop_trace,nvtx_gpu_proj_trace -o stats/nsys run/trace.nsys-rep",
    "gpuflame stats -r cuda_gpu_trace --format csv:mem=B -o out/trace report.sqlite",
  },
}

-- The SQLite export of an input (an .nsys-rep is exported through nsys).
local function export_of(input, opts, ctx)
  local info = inputs.detect(input)
  if info.type == "nsys-rep" then
    return stats.export_for(input, ctx.policy(), { nsys = opts.nsys, force = opts.force_export, cleanup = ctx.cleanup })
  elseif info.type ~= "sqlite" then
    errors.raise(errors.INPUT, "%s: a %s is not an nsys export (stats needs an SQLite export or an .nsys-rep)",
      input, inputs.describe(info))
  end
  return input
end

-- One job per input. Several inputs (files, a directory, a glob: one report per rank) need -o PREFIX and
-- write PREFIX_<input name>_<report>.csv; one capture given twice is written once (a note), captures that
-- cannot be one job are refused (gpuflame.related), inputs whose names collide are refused before any work.
local function input_jobs(positional, prefix, opts, ctx)
  local paths = require("gpuflame.ranks").expand(positional)
  if #paths == 1 then return { { input = paths[1], prefix = prefix } } end
  if prefix == "-" then
    errors.raise(errors.USAGE, "stats of %d inputs needs -o PREFIX (one PREFIX_<input>_<report>.csv each)", #paths)
  end
  local items = {}
  for i, p in ipairs(paths) do
    local db = export_of(p, opts, ctx)
    items[i] = { path = p, db = db, meta = require("gpuflame.core").trace.sqlite_meta(db, {}) }
  end
  local kept, notes = require("gpuflame.related").check(items, ctx.policy(), { allow_unrelated = opts.allow_unrelated })
  for _, n in ipairs(notes) do log.warn("%s", n) end
  local jobs, seen = {}, {}
  for i, it in ipairs(kept) do
    local p = it.path
    local base = p:match("([^/]+)$"):gsub("%.[^.]*$", "")
    if seen[base] then
      errors.raise(errors.USAGE, "%s and %s would write the same files (%s_%s_*); rename one", seen[base], p, prefix, base)
    end
    seen[base] = p
    jobs[i] = { input = p, sqlite = it.db, prefix = prefix .. "_" .. base }
  end
  return jobs
end

-- Writes one input's reports; true when any had rows.
local function write_input(job, reports, fmt, opts, ctx)
  local input = job.input
  local sqlite = job.sqlite or export_of(input, opts, ctx)
  local ok, res = errors.try(stats.write, sqlite, reports, ctx.policy(),
    { prefix = job.prefix, format = fmt.format, mem_bytes = fmt.mem_bytes })
  if not ok then errors.reraise(res) end
  local any = false
  for _, r in ipairs(res) do
    if r.skipped then
      io.stderr:write("SKIPPED: ", r.skipped, "\n")
    elseif r.rows == 0 then
      log.info("%s: %s: no rows", input, r.given)
    else
      any = true
    end
    if r.path ~= "-" then log.info("wrote %s (%d rows)", r.path, r.rows) end
  end
  return any
end

function cmd.run(opts, ctx)
  if opts.help_reports then
    for _, r in ipairs(stats.reports()) do
      io.stdout:write(string.format("  %-24s %-15s %s\n", r.name, r.old or "", r.summary))
    end
    return 0
  end
  if not opts.positional[1] then
    errors.raise(errors.USAGE, "stats needs an INPUT (an SQLite export or an .nsys-rep)")
  end
  local reports = {}
  for _, r in ipairs(opts.report or {}) do
    for one in r:gmatch("[^,]+") do reports[#reports + 1] = one end
  end
  if #reports == 0 then errors.raise(errors.USAGE, "stats needs -r REPORT (see --help-reports)") end
  for _, r in ipairs(reports) do stats.parse_report(r, ctx.policy()) end -- unknown names: exit 2 before any work
  local fmt = stats.parse_format(opts.format)
  local prefix = opts.output or "-"
  ctx.cleanup = ctx.cleanup or {}
  local any = false
  local ok, err = errors.try(function()
    local jobs = input_jobs(opts.positional, prefix, opts, ctx)
    if prefix ~= "-" then
      local dir = prefix:match("^(.*)/[^/]*$")
      if dir and dir ~= "" then require("gpuflame.core").fs.mkdirp(dir) end
    end
    for _, job in ipairs(jobs) do
      any = write_input(job, reports, fmt, opts, ctx) or any
    end
  end)
  inputs.cleanup(ctx) -- temporary exports (stats.export_for), once every input is written
  if not ok then errors.reraise(err) end
  if not any then
    errors.raise(errors.NO_DATA, "%s: no report had data (%s)", table.concat(opts.positional, ", "),
      table.concat(reports, ", "))
  end
  return 0
end

return cmd
