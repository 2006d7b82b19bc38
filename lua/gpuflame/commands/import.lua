-- gpuflame import: each report's imported model written as a file
-- (docs/MODEL_FORMAT.md): the map step of a multi-report analysis that any scheduler can run (docs/MPI.md)
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local model = require("gpuflame.model")
local mpi = require("gpuflame.mpi")
local trace = require("gpuflame.trace")
local ranks = require("gpuflame.ranks")

local cmd = {}

cmd.spec = {
  usage = "import REPORT... -o DIR|FILE",
  summary = "write each report's imported model as a file that every multi-report command reads",
  description = "Imports each REPORT (an nsys SQLite export or an .nsys-rep; files, a directory, a glob, or the\n" ..
    "global --local PATTERN) and writes its model as DIR/<name>.gfmodel (docs/MODEL_FORMAT.md: versioned,\n" ..
    "checksummed, with the capture's provenance). -o FILE names the file for a single REPORT (a path that\n" ..
    "is not a directory and ends in .gfmodel, or any path when there is one REPORT and no such directory).\n" ..
    "timeline, flamegraph --by-rank, export, stats and run rank-skew read model files wherever they read\n" ..
    "reports, with the same output: the model carries the export's tables that stats reads (about the\n" ..
    "export's size again; --no-stats leaves them out, and stats then refuses the model). Under MPI\n" ..
    "(bin/gpuflame-mpi) each rank writes its share of the reports.",
  options = {
    { "out", short = "o", arg = "DIR|FILE", help = "output directory (one .gfmodel per report) or file" },
    { "nsys", arg = "PATH", help = ".nsys-rep inputs: the nsys to export with" },
    { "no-stats", help = "leave out the export's tables that stats reads (smaller models; stats refuses them)" },
  },
  examples = {
    "gpuflame import run/*.nsys-rep -o models/",
    "gpuflame import rank3.sqlite -o rank3.gfmodel",
    "gpuflame run rank-skew models/",
  },
}

local function stem(p)
  return (p:match("([^/]+)/*$") or p):gsub("%.sqlite$", ""):gsub("%.nsys%-rep$", ""):gsub("%.qdrep$", "")
end

-- The output file of each input: refused before any work when two inputs would write the same file.
local function outputs(paths, out)
  local st = core.fs.stat(out)
  local as_file = not (st and st.type == "directory") and (out:match("%.gfmodel$") or (#paths == 1 and not
    out:match("/$")))
  if as_file then
    if #paths > 1 then
      errors.raise(errors.USAGE, "import of %d reports needs -o DIR (one .gfmodel each); %s is a file name", #paths, out)
    end
    return { out }
  end
  local files, seen = {}, {}
  for i, p in ipairs(paths) do
    local f = out:gsub("/+$", "") .. "/" .. stem(p) .. model.EXT
    if seen[f] then errors.raise(errors.USAGE, "%s and %s would both write %s; rename one", seen[f], p, f) end
    seen[f] = p
    files[i] = f
  end
  return files, out
end

local function import_one(path, file, opts, policy)
  local kind = trace.classify(path, policy)
  if kind ~= "sqlite" and kind ~= "nsys-rep" then
    errors.raise(errors.INPUT, "%s: not a report to import (%s); give an nsys .sqlite export or an .nsys-rep",
      path, kind == "model" and "already a gpuflame model file" or "not an nsys export")
  end
  local db, tmpdir = path, nil
  if kind == "nsys-rep" then db, tmpdir = trace.export_rep(path, { nsys = opts.nsys }, policy) end
  local ok, err = errors.try(function()
    local tr = core.trace.open_sqlite(db, { max_events = 0, keep_partners = true, cpu = policy.timeline.cpu })
    if db ~= path then tr:source(path) end
    model.save(tr, file, model.provenance(db, path, policy.ranks.label_env), not opts.no_stats and db or nil)
    log.info("wrote %s (%d events)", file, tr:count())
  end)
  if tmpdir then core.fs.remove_tree(tmpdir) end
  if not ok then errors.reraise(err) end
end

function cmd.run(opts, ctx)
  if not opts.out then errors.raise(errors.USAGE, "import needs -o DIR|FILE") end
  local paths, owner = mpi.inputs(ranks.expand, opts.positional)
  if #paths == 0 then errors.raise(errors.USAGE, "import needs a REPORT (see import --help)") end
  local files, dir = outputs(paths, opts.out)
  if dir then core.fs.mkdirp(dir) end
  local policy = ctx.policy()
  local w = mpi.world()
  mpi.guard(w, function()
    for i, p in ipairs(paths) do
      if (owner[i] or 0) == w.rank then import_one(p, files[i], opts, policy) end
    end
  end)
  return 0
end

return cmd
