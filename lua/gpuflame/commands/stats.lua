-- gpuflame stats: nsys stats reports computed by gpuflame from an SQLite export (docs/REPORTS.md); the usage
-- is in the spec below.
local errors = require("gpuflame.errors")
local inputs = require("gpuflame.inputs")
local log = require("gpuflame.log")
local mpi = require("gpuflame.mpi")
local stats = require("gpuflame.stats")
local core = require("gpuflame.core")
local model = require("gpuflame.model")
local ranks = require("gpuflame.ranks")
local related = require("gpuflame.related")

local cmd = {}

cmd.spec = {
  usage = "stats -r REPORT[,REPORT...] INPUT... [-o PREFIX|-] [--format csv|json[:mem=B]] | stats --help-reports",
  summary = "nsys stats reports (CSV/JSON) computed from an SQLite export, without nsys",
  description = "Writes the CSV a current nsys's `nsys stats --format csv` writes (report names and headers of\n" ..
    "nsys 2023.1+; --format csv:mem=B for byte columns). INPUT is an SQLite export (no nsys needed), a\n" ..
    "model file of `gpuflame import` (the export's tables it carries: the same bytes as the export), or an\n" ..
    ".nsys-rep/.qdrep, exported once through nsys into the export cache (policy exports: keyed by the\n" ..
    "report's content and the nsys version; nothing is written beside the report). -o PREFIX writes\n" ..
    "PREFIX_<report>.csv per report (a 0-byte file when the report has nothing, as nsys); -o - (the default)\n" ..
    "prints them. Reports accept both name eras (cuda_gpu_kern_sum or gpukernsum);\n" ..
    "cuda_gpu_kern_sum and cuda_gpu_trace take :base or :mangled. Exit 5 when no report had a row.\n" ..
    "Several INPUTs (files, a directory, a glob: one report per rank) need -o PREFIX and write\n" ..
    "PREFIX_<input name>_<report>.csv for each; one capture given twice (a report and its export) is\n" ..
    "written once, and captures that cannot be one job are refused (exit 6) unless --allow-unrelated.\n" ..
    "Under MPI (bin/gpuflame-mpi) the inputs are split across the ranks and rank 0 writes every file\n" ..
    "(docs/MPI.md); there the inputs are not compared with each other.",
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

-- The SQLite export of an input (an .nsys-rep is exported through nsys; a model file gives the export's
-- tables it carries: gpuflame import), and for a model file the name messages give it (the model's path).
local function export_of(input, opts, ctx)
  local info = inputs.detect(input)
  if info.type == "nsys-rep" then
    return (stats.export_for(input, { nsys = opts.nsys, force = opts.force_export, cleanup = ctx.cleanup }, ctx.policy()))
  elseif info.type == "model" then
    return model.stats_db(input, ctx.cleanup), input -- messages name the model
  elseif info.type ~= "sqlite" then
    errors.raise(errors.INPUT, "%s: a %s is not an nsys export (stats needs an SQLite export, an .nsys-rep or a " ..
      "gpuflame model file)", input, inputs.describe(info))
  end
  return input
end

-- One job per input. Several inputs (files, a directory, a glob: one report per rank) need -o PREFIX and
-- write PREFIX_<input name>_<report>.csv; one capture given twice is written once (a note), captures that
-- cannot be one job are refused (gpuflame.related), inputs whose names collide are refused before any work.
-- Under MPI each rank exports only its own share, so the inputs are not compared there.
local function input_jobs(positional, prefix, opts, ctx)
  local paths, owner = mpi.inputs(ranks.expand, positional)
  if #paths == 0 then errors.raise(errors.USAGE, "stats needs an INPUT (an SQLite export or an .nsys-rep)") end
  if #paths == 1 then return { { input = paths[1], prefix = prefix } }, owner end
  if prefix == "-" then
    errors.raise(errors.USAGE, "stats of %d inputs needs -o PREFIX (one PREFIX_<input>_<report>.csv each)", #paths)
  end
  local kept = {}
  if mpi.active() then
    for i, p in ipairs(paths) do kept[i] = { path = p } end
  else
    for i, p in ipairs(paths) do
      local db, name = export_of(p, opts, ctx)
      kept[i] = { path = p, db = db, name = name, meta = core.trace.sqlite_meta(db, {}) }
    end
    local notes
    kept, notes = related.check(kept, { allow_unrelated = opts.allow_unrelated }, ctx.policy())
    for _, n in ipairs(notes) do log.warn("%s", n) end
  end
  local jobs, seen = {}, {}
  for i, it in ipairs(kept) do
    local p = it.path
    local base = p:match("([^/]+)$"):gsub("%.[^.]*$", "")
    if seen[base] then
      errors.raise(errors.USAGE, "%s and %s would write the same files (%s_%s_*); rename one", seen[base], p, prefix, base)
    end
    seen[base] = p
    jobs[i] = { input = p, sqlite = it.db, name = it.name, prefix = prefix .. "_" .. base }
  end
  return jobs, owner
end

-- Writes one input's reports; true when any had rows. at: write under this prefix instead of job.prefix
-- (an MPI rank's private directory) and return the files, {path = final path, data = bytes} each.
local function write_input(job, reports, fmt, opts, at, ctx)
  local input = job.input
  local sqlite, name = job.sqlite, job.name
  if not sqlite then sqlite, name = export_of(input, opts, ctx) end
  local ok, res = errors.try(stats.write, sqlite, reports,
    { prefix = at or job.prefix, format = fmt.format, mem_bytes = fmt.mem_bytes, name = name }, ctx.policy())
  if not ok then errors.reraise(res) end
  local any, files = false, {}
  for _, r in ipairs(res) do
    if at then
      local final = job.prefix .. r.path:sub(#at + 1)
      files[#files + 1] = { path = final, data = core.fs.read(r.path) }
      r.path = final
    end
    if r.skipped then
      io.stderr:write("SKIPPED: ", r.skipped, "\n")
    elseif r.rows == 0 then
      log.info("%s: %s: no rows", input, r.given)
    else
      any = true
    end
    if r.path ~= "-" and not at then log.info("wrote %s (%d rows)", r.path, r.rows) end
  end
  return any, files
end

-- Under MPI (gpuflame-mpi, several ranks, several inputs): each rank writes its inputs' reports into a
-- private directory and sends the files to rank 0, which writes them under their names (atomically), so
-- the output is the one-process run's byte for byte. → true when any report had rows
local function write_mpi(jobs, owner, reports, fmt, opts, w, ctx)
  local tmp = core.fs.mkdtemp()
  local any, files = false, {}
  local ok, err = errors.try(mpi.guard, w, function()
    for i, job in ipairs(jobs) do
      if (owner[i] or 0) == w.rank then
        local a, f = write_input(job, reports, fmt, opts, tmp .. "/" .. i, ctx)
        any = any or a
        for _, x in ipairs(f) do files[#files + 1] = x end
      end
    end
  end)
  core.fs.remove_tree(tmp)
  if not ok then errors.reraise(err) end
  if w.rank ~= 0 then
    local n = w.mpi.send(0, mpi.pack({ any = any, files = files }))
    log.info("rank %d: sent %d file(s) to rank 0: %s", w.rank, #files, mpi.bytes(n))
    mpi.finish()
  end
  for _ = 1, w.size - 1 do
    local text, from, n = w.mpi.recv(-1)
    local h = mpi.unpack(text)
    any = any or h.any
    for _, x in ipairs(h.files) do files[#files + 1] = x end
    log.info("rank %d: %d file(s), %s received", from, #h.files, mpi.bytes(n))
  end
  table.sort(files, function(a, b) return a.path < b.path end)
  for _, x in ipairs(files) do
    core.fs.write_atomic(x.path, x.data)
    log.info("wrote %s", x.path)
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
  if not opts.positional[1] and not mpi.local_pattern() then
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
    local jobs, owner = input_jobs(opts.positional, prefix, opts, ctx)
    if prefix ~= "-" then
      local dir = prefix:match("^(.*)/[^/]*$")
      if dir and dir ~= "" then core.fs.mkdirp(dir) end
    end
    local w = mpi.world()
    if w.size > 1 and #jobs > 1 then
      any = write_mpi(jobs, owner, reports, fmt, opts, w, ctx)
    else
      if w.rank ~= 0 then mpi.finish() end -- one input: rank 0 alone writes it
      for _, job in ipairs(jobs) do
        any = write_input(job, reports, fmt, opts, nil, ctx) or any
      end
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
