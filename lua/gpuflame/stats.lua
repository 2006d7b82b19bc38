-- `nsys stats` reports written by gpuflame itself from an SQLite export (core.stats, docs/REPORTS.md):
-- the same CSV bytes as a current nsys's `nsys stats --format csv[:mem=B]`, without running nsys on the
-- export. Used by `gpuflame stats`, `analyze` (analyze.source = "export") and `capture`
-- (capture.views_from = "export").
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local need = require("gpuflame.policy").need
local nsys = require("gpuflame.nsys")

local stats = {}

-- The reports gpuflame computes: { {name=, old=, summary=, args=}, ... }
function stats.reports()
  return core.stats.reports()
end

-- parse_report("cuda_gpu_kern_sum:base", policy) → {name = canonical, given = "cuda_gpu_kern_sum:base",
-- arg = "base"}; a name the policy's nsys.report_eras lists as an old spelling is its canonical report.
function stats.parse_report(spec, policy)
  local name, arg = spec:match("^([%w_]+):?(.*)$")
  if not name then errors.raise(errors.USAGE, "bad report %q (REPORT or REPORT:ARG)", spec) end
  name = nsys.canonical_report(name, policy)
  local known
  for _, r in ipairs(core.stats.reports()) do
    if r.name == name or r.old == name then known = r end
  end
  if not known then
    errors.raise(errors.USAGE, "unknown report '%s' (gpuflame stats --help-reports lists them)", name)
  end
  if arg ~= "" and (not known.args or (arg ~= "base" and arg ~= "mangled")) then
    errors.raise(errors.USAGE, "report %s takes no argument '%s'%s", known.name, arg,
      known.args and " (base or mangled)" or "")
  end
  return { name = known.name, given = spec, arg = arg ~= "" and arg or nil }
end

-- parse_format("csv:mem=B") → {format = "csv", mem_bytes = true}
function stats.parse_format(text)
  local fmt, rest = (text or "csv"):match("^(%a+)(.*)$")
  if fmt ~= "csv" and fmt ~= "json" then
    errors.raise(errors.USAGE, "--format must be csv or json, optionally with :mem=B (got %q)", text or "")
  end
  local o = { format = fmt, mem_bytes = false }
  for arg in (rest or ""):gmatch(":([^:]+)") do
    if arg == "mem=B" then o.mem_bytes = true
    elseif arg ~= "mem=MB" then errors.raise(errors.USAGE, "unknown format argument %q (mem=B or mem=MB)", arg) end
  end
  if rest ~= "" and not rest:match("^:") then
    errors.raise(errors.USAGE, "--format must be csv or json, optionally with :mem=B (got %q)", text)
  end
  return o
end

-- The file nsys writes for a report given as `given`: PREFIX_<report>[_<arg>].<ext>
function stats.output_path(prefix, given, format)
  return prefix .. "_" .. given:gsub(":", "_") .. "." .. (format == "json" and "json" or "csv")
end

-- The SQLite export of an .nsys-rep/.qdrep: from the export cache (gpuflame.exports: keyed by the
-- report's content and the nsys version; nothing beside the report unless policy exports.beside), exported
-- again when opts.force. opts.out: export to this path instead (analyze's run directory). opts.cleanup: a
-- list that gets a temporary directory to remove (inputs.cleanup removes ctx.cleanup).
-- Returns the export's path and whether nsys ran (then also the nsys used).
function stats.export_for(rep, opts, policy)
  opts = opts or {}
  need(policy, "stats.export_for")
  if not opts.out then
    local path, how = require("gpuflame.exports").get(rep, opts, policy)
    return path, how.ran, how.nsys
  end
  local nsys_run = require("gpuflame.nsys_run")
  local nsys_info = opts.nsys_info or nsys_run.find_nsys(opts.nsys, policy)
  log.info("stats: exporting %s to %s", rep, opts.out)
  local res = nsys_run.export_sqlite(nsys_info, rep, opts.out, nil, policy)
  if not res.ok then require("gpuflame.exports").raise_failed(rep, res) end
  return res.path, true, nsys_info
end

-- write(sqlite, reports, opts, policy) → list of {report=, given=, path=, rows=, skipped=}
-- reports: list of specs ("cuda_gpu_kern_sum", "nvtx_pushpop_trace", "cuda_gpu_kern_sum:base", ...);
-- opts: {prefix = PATH | "-", format = "csv"|"json", mem_bytes = bool, paths = {spec → file}, name = what
-- messages call the export (a model file whose tables sqlite is)}.
-- With prefix "-" every report goes to stdout followed by one blank line (nsys's `-o -` shape without
-- its `Processing [...]` line); a skipped report writes nothing there (a 0-byte file with a prefix).
function stats.write(sqlite, reports, opts, policy)
  need(policy, "stats.write")
  local parsed = {}
  for i, spec in ipairs(reports) do parsed[i] = stats.parse_report(spec, policy) end
  local db = core.stats.open(sqlite, opts.name)
  local ok, res = errors.try(function()
    local out = {}
    for _, r in ipairs(parsed) do
      local path = (opts.paths and opts.paths[r.given]) or
        (opts.prefix == "-" and "-" or stats.output_path(opts.prefix, r.given, opts.format))
      local rr = db:run(r.name, { out = path, format = opts.format or "csv", mem_bytes = opts.mem_bytes,
        names = r.arg })
      if path == "-" and rr.rows > 0 then io.stdout:write("\n") end
      out[#out + 1] = { report = r.name, given = r.given, path = path, rows = rr.rows, skipped = rr.skipped }
    end
    return out
  end)
  db:close()
  if not ok then errors.reraise(res) end
  return res
end

return stats
