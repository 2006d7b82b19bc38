-- Several reports, one model (issue 14): INPUT expansion (files, directories, globs), per-report
-- metadata (session start, host, captured rank variables), rank labels from policy, and the merge of the
-- per-report traces (C: core.trace.merge) with clocks aligned on each report's session start.
-- A rank is a (report, process) pair. docs/TIMELINE_DATA.md "Several reports" documents the fields.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")

local M = {}

local function basename(p) return (p:match("([^/]+)/*$")) or p end

local function is_glob(p) return p:find("[%*%?%[]") ~= nil end

local REPORT_GLOBS = { "*.sqlite", "*.nsys-rep", "*.qdrep" }

-- expand(paths) → list of files: a directory gives its reports (*.sqlite, *.nsys-rep, *.qdrep; sorted),
-- a glob its matches (sorted; none is an error naming it), anything else itself (checked later).
function M.expand(paths)
  local out, seen = {}, {}
  local function add(p)
    if not seen[p] then seen[p] = true; out[#out + 1] = p end
  end
  for _, p in ipairs(paths) do
    local st = core.fs.stat(p)
    if st and st.type == "directory" then
      local found = {}
      for _, g in ipairs(REPORT_GLOBS) do
        for _, f in ipairs(core.fs.glob(p:gsub("/+$", "") .. "/" .. g)) do found[#found + 1] = f end
      end
      table.sort(found)
      if #found == 0 then errors.raise(errors.INPUT, "%s: a directory with no .sqlite/.nsys-rep reports", p) end
      for _, f in ipairs(found) do add(f) end
    elseif not st and is_glob(p) then
      local found = core.fs.glob(p)
      table.sort(found)
      if #found == 0 then errors.raise(errors.INPUT, "%s: no file matches this pattern", p) end
      for _, f in ipairs(found) do add(f) end
    else
      add(p)
    end
  end
  return out
end

-- The rank variable of a process from the report's META_DATA_CAPTURE: PROCESS_n whose PID is pid, or,
-- when the report traced a single GPU process, the one launched process that has the variable (the
-- launched process is often a wrapper such as a shell or torchrun's child).
local function env_rank(meta, pid, single, names)
  local kv = meta.kv or {}
  local by_proc = {}
  for k, v in pairs(kv) do
    local n, rest = k:match("^PROCESS_(%d+):(.+)$")
    if n then
      by_proc[n] = by_proc[n] or { env = {} }
      if rest == "PID" then by_proc[n].pid = tonumber(v)
      else
        local var = rest:match("^ENV:(.+)$")
        if var then by_proc[n].env[var] = v end
      end
    end
  end
  local function pick(env)
    for _, name in ipairs(names) do
      if env[name] and env[name] ~= "" then return env[name], name end
    end
  end
  for _, p in pairs(by_proc) do
    if p.pid == pid then
      local v, name = pick(p.env)
      if v then return v, name end
    end
  end
  if single then
    local found, fname, count = nil, nil, 0
    for _, p in pairs(by_proc) do
      local v, name = pick(p.env)
      if v then found, fname, count = v, name, count + 1 end
    end
    if count == 1 then return found, fname end
  end
end

-- label_ranks(reports, settings) → ranks (ordered list of {label, report, pid, ...}), spec for core.trace.merge
-- reports[i] = {path=, meta=, processes=}
function M.label_ranks(reports, s)
  local ranks = {}
  for i, r in ipairs(reports) do
    local gpu_procs = 0
    for _, p in ipairs(r.processes) do if p.gpu_events > 0 then gpu_procs = gpu_procs + 1 end end
    for _, p in ipairs(r.processes) do
      local v, var = env_rank(r.meta, p.pid, gpu_procs <= 1 and p.gpu_events > 0, s.label_env)
      local label
      if v then label = string.format(s.label_format, v)
      else label = string.format("%s pid %d", r.meta.host or "?", p.pid) end
      ranks[#ranks + 1] = { label = label, report = i, file = basename(r.path), pid = p.pid, env = v, env_var = var,
        host = r.meta.host, devices = p.devices, gpu_events = p.gpu_events, events = p.events }
    end
  end
  -- unique labels: colliding ones get the report's file name, then the report's position among the inputs
  for _, extra in ipairs({ function(x) return " (" .. x.file .. ")" end, function(x) return " #" .. x.report end }) do
    local count = {}
    for _, x in ipairs(ranks) do count[x.label] = (count[x.label] or 0) + 1 end
    for _, x in ipairs(ranks) do
      if count[x.label] > 1 then x.label = x.label .. extra(x) end
    end
  end
  table.sort(ranks, function(a, b)
    local na, nb = tonumber(a.env), tonumber(b.env)
    if na and nb and na ~= nb then return na < nb end
    if (na ~= nil) ~= (nb ~= nil) then return na ~= nil end
    if a.label ~= b.label then return a.label < b.label end
    return a.report < b.report
  end)
  local labels, spec = {}, {}
  for k, x in ipairs(ranks) do
    x.index = k
    labels[k] = x.label
    spec[#spec + 1] = { src = x.report, pid = x.pid, rank = k }
  end
  return ranks, labels, spec
end

-- The per-report models: in worker processes (policy ranks.workers; 0 = one per CPU) or, with one worker
-- or one report, in this process. dbs: the SQLite exports, in report order.
local function import_all(dbs, s, opts)
  local workers = s.workers == 0 and core.host.cpus() or s.workers
  workers = math.min(workers, #dbs)
  local lo = { max_events = 0, keep_partners = opts.keep_partners ~= false, stacks = opts.stacks == true }
  if workers <= 1 then
    local traces = {}
    for i, db in ipairs(dbs) do traces[i] = core.trace.open_sqlite(db, lo) end
    return traces, 1
  end
  log.info("importing %d reports in %d worker processes", #dbs, workers)
  lo.workers, lo.scratch = workers, core.fs.mkdtemp()
  local ok, traces = pcall(core.trace.open_sqlite_workers, dbs, lo)
  core.fs.remove_tree(lo.scratch)
  if not ok then error(traces, 0) end
  return traces, workers
end

-- load(paths, opts) → merged trace, info {ranks=, reports=, offsets=, workers=, notes=, clock_alignment=}
--   paths: SQLite exports / .nsys-rep (already expanded); opts: max_events, keep_partners, stacks, policy
--   (the effective policy, required: its ranks table), allow_unrelated (--allow-unrelated),
--   export(path) → the SQLite export of a report (gpuflame.trace supplies it: .nsys-rep through nsys)
-- One capture given twice is imported once (a note); captures that cannot be one job are refused before
-- any import (gpuflame.related).
function M.load(paths, opts)
  local s = require("gpuflame.policy").need(opts.policy, "ranks.load (opts.policy)").ranks
  local related = require("gpuflame.related")
  local items = {}
  for i, p in ipairs(paths) do
    local db = opts.export(p)
    items[i] = { path = p, db = db, meta = core.trace.sqlite_meta(db, s.label_env) }
  end
  local kept, notes = related.check(items, opts.policy, { allow_unrelated = opts.allow_unrelated })
  for _, n in ipairs(notes) do log.info("%s", n) end
  local reports, dbs = {}, {}
  for i, it in ipairs(kept) do
    reports[i] = { path = it.path, meta = it.meta }
    dbs[i] = it.db
  end
  local traces, workers = import_all(dbs, s, opts)
  for i, r in ipairs(reports) do
    if dbs[i] ~= r.path then traces[i]:source(r.path) end -- the page names the user's input
    r.processes = traces[i]:processes()
  end
  local t0
  for _, r in ipairs(reports) do
    if r.meta.session_start and (not t0 or r.meta.session_start < t0) then t0 = r.meta.session_start end
  end
  local offsets, warnings = {}, {}
  for i, r in ipairs(reports) do
    if r.meta.session_start and t0 then
      offsets[i] = r.meta.session_start - t0
    else
      offsets[i] = 0
      if #reports > 1 then
        warnings[#warnings + 1] = string.format("%s: no session start time in the export; its clock is not aligned " ..
          "with the other reports", basename(r.path))
      end
    end
  end
  local ranks, labels, spec = M.label_ranks(reports, s)
  local merged = core.trace.merge(traces, { offsets = offsets, ranks = labels, spec = spec,
    max_events = opts.max_events or 0, keep_partners = opts.keep_partners ~= false })
  for _, w in ipairs(warnings) do merged:warn(w); log.warn("%s", w) end
  for _, n in ipairs(notes) do merged:warn(n) end
  local clock = related.alignment(kept, opts.allow_unrelated and #kept > 1)
  if #items > 1 then merged:clock_alignment(clock) end
  log.info("merged %d report(s) into %d rank(s) (%s); %s", #reports, #ranks,
    workers > 1 and (workers .. " worker processes") or "one process", clock)
  return merged, { ranks = ranks, reports = reports, offsets = offsets, session_t0 = t0, workers = workers,
    notes = notes, clock_alignment = clock }
end

return M
