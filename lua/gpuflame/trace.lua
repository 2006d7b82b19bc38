-- Loading a Trace (CPU/GPU timeline events) from inputs: an nsys SQLite export, an .nsys-rep (exported
-- to SQLite through nsys), or a pair of `nsys stats` trace CSVs (cuda_api_trace + cuda_gpu_trace).
-- The C model (core.trace) holds the events; this module only recognises inputs and picks columns.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local columns = require("gpuflame.columns")
local gpu_time = require("gpuflame.gpu_time")
local inputs = require("gpuflame.inputs")
local log = require("gpuflame.log")
local model_mod = require("gpuflame.model")
local mpi = require("gpuflame.mpi")
local nsys = require("gpuflame.nsys")
local nvtx_group = require("gpuflame.nvtx_group")
local ranks = require("gpuflame.ranks")
local need = require("gpuflame.policy").need

local M = {}

-- Extra cuda_gpu_trace / cuda_api_trace columns the timeline reads (the base ones live in gpuflame.columns).
M.extra_columns = {
  cuda_gpu_trace = {
    grid_x = { exact = { "GrdX" } }, grid_y = { exact = { "GrdY" } }, grid_z = { exact = { "GrdZ" } },
    block_x = { exact = { "BlkX" } }, block_y = { exact = { "BlkY" } }, block_z = { exact = { "BlkZ" } },
    regs = { exact = { "Reg/Trd", "Registers Per Thread" } },
  },
}

local function spec(report, key, policy)
  local set = need(policy, "trace.csv_columns").columns -- unset by default
  local over = set and set[report]
  if over and over[key] then return over[key] end
  local extra = M.extra_columns[report]
  if extra and extra[key] then return extra[key] end
  return columns.spec(report, key, policy)
end

local function pick(reader, report, key, policy)
  local s = spec(report, key, policy)
  return s and columns.pick(reader, s) or nil
end

-- classify(path, policy) → "sqlite" | "nsys-rep" | "model" | "cuda_gpu_trace" | "cuda_api_trace" | nil, why
-- (recognition by content: gpuflame.inputs.detect; report names through the policy's nsys.report_eras)
function M.classify(path, policy)
  need(policy, "trace.classify")
  local ok, info = pcall(inputs.detect, path)
  if not ok then return nil, nil, errors.wrap(info) end
  if info.type == "sqlite" or info.type == "nsys-rep" or info.type == "model" then return info.type end
  if info.type == "csv" then
    local r = nsys.canonical_report(info.report, policy)
    if r == "cuda_gpu_trace" or r == "cuda_api_trace" then return r end
    return nil, "a " .. info.report .. " CSV, not a trace CSV"
  end
  return nil, "a " .. info.type .. " file"
end

-- Column indices (1-based) of a trace CSV for core.trace.open_csv; raises INPUT naming the file when
-- start, duration or name is missing.
function M.csv_columns(path, report, policy)
  local r = core.csv.open(path, { allow_short_rows = true })
  local keys = report == "cuda_gpu_trace"
    and { "start", "duration", "corr", "name", "device", "stream", "bytes", "grid_x", "grid_y", "grid_z",
      "block_x", "block_y", "block_z", "regs" }
    or { "start", "duration", "corr", "name", "pid", "tid", "thread" }
  local out = {}
  for _, k in ipairs(keys) do out[k] = pick(r, report, k, policy) end
  local cols = r:columns()
  r:close()
  for _, k in ipairs({ "start", "duration", "name" }) do
    if not out[k] then
      errors.raise(errors.INPUT, "%s: %s has no %s column (the file has: %s)", path, report, k, table.concat(cols, ", "))
    end
  end
  if out.bytes then
    local h = cols[out.bytes]:lower()
    out.bytes_scale = h:find("%(mb%)") and 1e6 or h:find("%(kb%)") and 1e3 or h:find("%(gb%)") and 1e9 or 1
  end
  return out
end

-- An .nsys-rep's SQLite export, from the export cache (gpuflame.exports); the second value is a temporary
-- directory to remove when there was no cache directory (nil otherwise). opts: nsys.
function M.export_rep(path, opts, policy)
  need(policy, "trace.export_rep")
  local db, how = require("gpuflame.exports").get(path, { nsys = opts and opts.nsys }, policy)
  return db, how.tmpdir
end

-- Several reports (SQLite exports, .nsys-rep, model files) merged into one model with ranks (gpuflame.ranks);
-- owner: under MPI, the MPI rank that opens each report. what: "load" (the merged trace) or "rank_stats"
-- (only the per-rank statistics: what gpuflame.ranks.rank_stats returns).
function M.load_reports(reports, owner, opts, load_opts, what, policy)
  need(policy, "trace.load_reports")
  local tmpdirs = {}
  local ok, tr, info = pcall(ranks[what or "load"], reports, {
    max_events = load_opts.max_events, keep_partners = load_opts.keep_partners,
    stacks = load_opts.stacks, cpu = load_opts.cpu, owner = owner, allow_unrelated = opts.allow_unrelated,
    export = function(p)
      if M.classify(p, policy) ~= "nsys-rep" then return p end
      local db, tmp = M.export_rep(p, opts, policy)
      tmpdirs[#tmpdirs + 1] = tmp
      return db
    end,
  }, policy)
  for _, d in ipairs(tmpdirs) do core.fs.remove_tree(d) end
  if not ok then error(tr, 0) end
  info.source, info.inputs = "sqlite", reports
  return tr, info
end

-- Under MPI (gpuflame-mpi): every input is a report or a model file, opened by the rank that owns it
-- (gpuflame.mpi.inputs); ranks other than 0 end once they have sent theirs.
function M.load_mpi(paths, owner, opts, policy)
  local keep = opts.keep_partners
  if keep == nil then keep = policy.timeline.keep_partners end
  local load_opts = { max_events = opts.max_events or 0, keep_partners = keep, stacks = opts.stacks == true,
    cpu = policy.timeline.cpu, threads = policy.limits.threads }
  return M.load_reports(paths, owner, opts, load_opts, opts.what, policy)
end

-- rank_stats(paths, opts, policy) → rows, info: trace:rank_stats over the merged reports, each row with its
-- devices' time breakdown (gpu_time.breakdown), with one process or (gpuflame-mpi) computed where each
-- report is opened and only the statistics moved (gpuflame.ranks). opts: allow_unrelated; policy: the
-- effective policy (required).
function M.rank_stats(paths, opts, policy)
  need(policy, "trace.rank_stats")
  local lo = { max_events = 0, ranks = true, allow_unrelated = opts and opts.allow_unrelated }
  if mpi.active() then
    lo.what = "rank_stats"
    return M.load(paths, lo, policy)
  end
  local tr, info = M.load(paths, lo, policy)
  local rows = tr:rank_stats(policy.ranks.nccl_prefixes, policy.ranks.iteration_prefixes)
  local by_label = {}
  for _, r in ipairs(rows) do
    r.devices = {}
    by_label[r.label] = r
  end
  for _, d in ipairs(gpu_time.breakdown(tr, nil, true, policy)) do
    local r = by_label[d.rank]
    if r then d.rank = nil; table.insert(r.devices, d) end
  end
  return rows, info
end

-- load(paths, opts, policy) → trace, info
--   paths: one SQLite export / .nsys-rep / trace CSV pair, or several reports (files, directories, globs:
--   gpuflame.ranks), merged into one model with ranks and aligned clocks
--   opts: max_events (0 = all), keep_partners (nil: policy timeline.keep_partners), stacks (backtraces
--   requested), nsys, ranks (true: build ranks even for one report), allow_unrelated (several reports:
--   merge captures that cannot be one job, gpuflame.related), narrow (one SQLite export: only what the GPU
--   stacks read, core/trace_sqlite.h; a trace for the flamegraph alone), unordered (with narrow: its events not
--   sorted by start, core/trace_build.h gf_trace_set_unordered; a trace for a page's stacks alone, which
--   gpuflame.flamegraph.from_trace reads, and nothing else)
--   policy: the effective policy (required)
--   info: {source = "sqlite"|"csv", inputs = {...}, ranks = {...} (merged)}
local function load_inputs(paths, opts, policy)
  opts = opts or {}
  if type(paths) == "string" then paths = { paths } end
  local owner
  paths, owner = mpi.inputs(ranks.expand, paths)
  if #paths == 0 then errors.raise(errors.USAGE, "no input (give reports, or --local PATTERN)") end
  if mpi.active() and (#paths > 1 or opts.ranks) then return M.load_mpi(paths, owner, opts, policy) end
  if mpi.world().rank ~= 0 then mpi.finish() end -- one input: rank 0 alone reads it
  local sqlite, rep, model, gpu, api = nil, nil, nil, nil, nil
  local reports = {}
  for _, p in ipairs(paths) do
    local kind, why, e = M.classify(p, policy)
    if e then error(e, 0) end
    if (kind == "cuda_gpu_trace" and gpu) or (kind == "cuda_api_trace" and api) then
      errors.raise(errors.USAGE, "%s: more than one %s input (%s is the other)", p, kind,
        kind == "cuda_gpu_trace" and gpu or api)
    end
    if kind == "sqlite" then sqlite = p; reports[#reports + 1] = p
    elseif kind == "nsys-rep" then rep = p; reports[#reports + 1] = p
    elseif kind == "model" then model = p; reports[#reports + 1] = p
    elseif kind == "cuda_gpu_trace" then gpu = p
    elseif kind == "cuda_api_trace" then api = p
    else errors.raise(errors.INPUT, "%s: not a timeline input (%s); give an nsys .sqlite export, an .nsys-rep, " ..
      "a gpuflame model file, or cuda_gpu_trace + cuda_api_trace CSVs", p, why or "unrecognised") end
  end
  local keep = opts.keep_partners
  if keep == nil then keep = policy.timeline.keep_partners end
  local load_opts = { max_events = opts.max_events or 0, keep_partners = keep, stacks = opts.stacks == true,
    cpu = policy.timeline.cpu, threads = policy.limits.threads, narrow = opts.narrow == true,
    unordered = opts.unordered == true }
  if #reports > 0 and (gpu or api) then
    errors.raise(errors.USAGE, "%s: trace CSVs cannot be merged with SQLite exports / reports; give one or the other",
      gpu or api)
  end
  local function load_one(path, lo)
    if M.classify(path, policy) == "model" then
      local tr = model_mod.open(path)
      if lo.max_events > 0 then tr:trim(lo.max_events, lo.keep_partners) end
      return tr
    end
    local tmpdir, db = nil, path
    if M.classify(path, policy) == "nsys-rep" then db, tmpdir = M.export_rep(path, opts, policy) end
    local ok, tr = pcall(core.trace.open_sqlite, db, lo)
    if not ok then
      if tmpdir then core.fs.remove_tree(tmpdir) end
      error(tr, 0)
    end
    if db ~= path then tr:source(path) end -- the page names the user's input
    return tr, db, tmpdir
  end
  if #reports > 1 or (#reports == 1 and opts.ranks) then
    return M.load_reports(reports, {}, opts, load_opts, nil, policy)
  end
  if sqlite or rep or model then
    local tr, _, tmpdir = load_one(sqlite or rep or model, load_opts)
    if tmpdir then core.fs.remove_tree(tmpdir) end
    return tr, { source = "sqlite", inputs = paths }
  end
  load_opts.api = api
  load_opts.gpu = gpu
  if api then load_opts.api_cols = M.csv_columns(api, "cuda_api_trace", policy) end
  if gpu then
    load_opts.gpu_cols = M.csv_columns(gpu, "cuda_gpu_trace", policy)
    load_opts.gpu_cols.bytes_scale = load_opts.gpu_cols.bytes_scale or 1
  end
  local tr = core.trace.open_csv(load_opts)
  if opts.stacks then
    tr:warn("no launch backtraces: trace CSVs carry none (launch stacks need the SQLite export of a --stacks capture)")
  end
  return tr, { source = "csv", inputs = paths }
end

-- (the doc above) The trace's NVTX names are grouped by policy nvtx.group (gpuflame.nvtx_group) in every view
-- built from it; its raw names stay (tooltips, panels, `stats` never sees the grouping). opts.group_later: the
-- caller groups them itself (the flamegraph's stacks job, beside the launches' partners: inputs/stacks.lua).
function M.load(paths, opts, policy)
  need(policy, "trace.load")
  local tr, info = load_inputs(paths, opts, policy)
  if type(tr) == "userdata" and not opts.group_later then nvtx_group.apply(tr, policy) end
  return tr, info
end

-- The export add_nvtx_proj projects from: a single SQLite export, or the tables a model file carries (in a
-- temporary directory, tmp, for the caller to remove) → db, tmp | nil.
local function proj_export(paths, policy)
  if not policy.timeline.nvtx_projection then return nil end
  if type(paths) == "string" then paths = { paths } end
  local kind = #paths == 1 and M.classify(paths[1], policy)
  if kind ~= "sqlite" and kind ~= "model" then return nil end
  if kind == "sqlite" then return paths[1] end
  local tmp = core.fs.mkdtemp()
  local db = tmp .. "/tables.sqlite"
  local okt, has = pcall(core.model.tables, paths[1], db)
  if not (okt and has) then
    core.fs.remove_tree(tmp)
    return nil
  end
  return db, tmp
end

-- an export the projection cannot read (a damaged NVTX or CUDA table) keeps its timeline without it
local function proj_outcome(tr, ok, n)
  if ok then return n end
  local e = errors.wrap(n)
  if e.code == errors.INTERRUPTED then error(e, 0) end
  tr:warn("NVTX ranges not projected onto the GPU: " .. e.msg)
  log.warn("NVTX ranges not projected onto the GPU: %s", e.msg)
  return 0
end

-- add_nvtx_proj(tr, paths, max, policy) → n: with policy timeline.nvtx_projection, the NVTX ranges of a
-- single SQLite export projected onto the GPU (nsys's nvtx_gpu_proj_trace) added to tr as events on lanes
-- of their own under their device (core gf_trace_add_nvtx_proj; the max longest when max > 0); a model file
-- is projected from the export's tables it carries, so its page is its report's. 0 for other inputs: trace
-- CSVs, several reports, a model imported with --no-stats, .nsys-rep (whose export is gone by then).
function M.add_nvtx_proj(tr, paths, max, policy)
  need(policy, "trace.add_nvtx_proj")
  local db, tmp = proj_export(paths, policy)
  if not db then return 0 end
  local ok, n = pcall(tr.add_nvtx_proj, tr, db, max or 0)
  if tmp then core.fs.remove_tree(tmp) end
  return proj_outcome(tr, ok, n)
end

local ProjJob = {}
ProjJob.__index = ProjJob

-- job:finish() → n, add_nvtx_proj's result: the thread joined, its events merged into the trace.
function ProjJob:finish()
  local t0 = select(2, core.sys.now())
  local ok, n, read_s, wait_s = pcall(self.job.finish, self.job)
  self:close()
  if ok then
    log.debug("NVTX projection: %.3f s on its thread, finish waited %.3f s, merged in %.3f s",
      read_s, wait_s, select(2, core.sys.now()) - t0 - wait_s)
  end
  return proj_outcome(self.trace, ok, n)
end

-- job:close(): the thread joined and its memory freed, nothing merged (also `local job <close>`, so a Lua
-- error that unwinds past the job leaves no thread running).
function ProjJob:close()
  if self.job:close() then
    log.debug("NVTX projection closed before its merge: its thread joined, nothing added")
  end
  if self.tmp then core.fs.remove_tree(self.tmp) end
  self.tmp = nil
end
ProjJob.__close = ProjJob.close

-- nvtx_proj_start(tr, paths, max, policy) → job | nil: add_nvtx_proj in two calls, the projection computed
-- on a second thread in between (core.trace_proj, core/trace_proj_job.c) while the caller runs the rules;
-- tr must not change until job:finish() (its changing methods raise meanwhile), whose events, lanes and
-- names are add_nvtx_proj's. nil when there is nothing to project or policy limits.threads resolves to 1:
-- the caller then calls add_nvtx_proj, which projects on the calling thread.
function M.nvtx_proj_start(tr, paths, max, policy)
  need(policy, "trace.nvtx_proj_start")
  local threads = policy.limits.threads
  if not core.trace_proj.parallel(threads) then return nil end
  local db, tmp = proj_export(paths, policy)
  if not db then return nil end
  local ok, job = pcall(core.trace_proj.start, tr, db, max or 0, threads)
  if not (ok and job) then
    if tmp then core.fs.remove_tree(tmp) end
    if not ok then error(job, 0) end
    return nil
  end
  return setmetatable({ job = job, trace = tr, tmp = tmp }, ProjJob)
end

return M
