-- Several reports, one model (issue 14): INPUT expansion (files, directories, globs), per-report
-- metadata (session start, host, captured rank variables), rank labels from policy, and the merge of the
-- per-report traces (C: core.trace.merge) with clocks aligned on each report's session start.
-- A rank is a (report, process) pair. docs/TIMELINE_DATA.md "Several reports" documents the fields.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local model = require("gpuflame.model")
local mpi = require("gpuflame.mpi")
local rank_names = require("gpuflame.rank_names")
local gpu_time = require("gpuflame.gpu_time")
local nvtx_group = require("gpuflame.nvtx_group")
local related = require("gpuflame.related")
local need = require("gpuflame.policy").need

local M = {}

local function basename(p) return (p:match("([^/]+)/*$")) or p end

local function is_glob(p) return p:find("[%*%?%[]") ~= nil end

local REPORT_GLOBS = { "*.sqlite", "*.nsys-rep", "*.qdrep", "*.gfmodel" }

-- expand(paths) → list of files: a directory gives its reports (*.sqlite, *.nsys-rep, *.qdrep, *.gfmodel; sorted),
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
      if #found == 0 then errors.raise(errors.INPUT, "%s: a directory with no .sqlite/.nsys-rep reports or .gfmodel files", p) end
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

-- label_ranks(reports, settings) → ranks (ordered list of {label, report, pid, ...}), spec for core.trace.merge
-- reports[i] = {path=, meta=, processes=}
function M.label_ranks(reports, s)
  local ranks = {}
  for i, r in ipairs(reports) do
    local gpu_procs = 0
    for _, p in ipairs(r.processes) do if p.gpu_events > 0 then gpu_procs = gpu_procs + 1 end end
    for _, p in ipairs(r.processes) do
      -- docs/SEMANTICS.md "Rank names": the environment, a thread name, an NVTX marker, else host and pid
      local v, source, what = rank_names.rank(r.meta, p, gpu_procs <= 1 and p.gpu_events > 0, s)
      local label
      if v then label = string.format(s.label_format, v)
      else label = string.format("%s pid %d", r.meta.host or "?", p.pid) end
      ranks[#ranks + 1] = { label = label, report = i, file = r.file or basename(r.path), pid = p.pid, env = v,
        env_var = source == "env" and what or nil, source = source or "pid", named_by = what,
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

-- The imported models of exports dbs: in worker processes (policy ranks.workers; 0 = one per CPU, or one
-- per MPI rank under an MPI job of several ranks) or, with one worker or one export, in this process.
local function import_all(dbs, s, opts)
  -- under MPI with several ranks the job's layout decides the parallelism: 0 is one process per MPI rank
  local auto = mpi.world().size > 1 and 1 or core.host.cpus()
  local workers = s.workers == 0 and auto or s.workers
  workers = math.min(workers, #dbs)
  local lo = { max_events = 0, keep_partners = opts.keep_partners ~= false, stacks = opts.stacks == true,
    cpu = opts.cpu }
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

-- open_reports(reports, idx, s, opts) sets trace, meta and file of reports[i] for i in idx: a model file
-- (gpuflame import) is read here, a report is exported (opts.export) and imported. → workers used
local function open_reports(reports, idx, s, opts)
  local dbs, todo = {}, {}
  for _, i in ipairs(idx) do
    local r = reports[i]
    if model.is_model(r.path) then
      local tr, prov = model.open(r.path)
      r.trace, r.meta, r.file = tr, prov.meta, basename(prov.source)
      local missing = model.missing_label_env(prov, s.label_env)
      if #missing > 0 then
        log.warn("%s: imported without the rank variable(s) %s of ranks.label_env; its ranks are labelled " ..
          "without them (import it again under this policy)", r.path, table.concat(missing, ", "))
      end
    else
      dbs[#dbs + 1] = opts.export(r.path)
      todo[#todo + 1] = i
    end
  end
  local traces, workers = import_all(dbs, s, opts)
  for k, i in ipairs(todo) do
    local r = reports[i]
    r.trace, r.file = traces[k], basename(r.path)
    if dbs[k] ~= r.path then r.trace:source(r.path) end -- the page names the user's input
    r.meta = core.trace.sqlite_meta(dbs[k], s.label_env)
  end
  return workers
end

-- Clock offsets: each report's session start minus the earliest (ns); warnings for reports without one.
local function offsets_of(reports)
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
          "with the other reports", r.file)
      end
    end
  end
  return offsets, warnings, t0
end

-- This rank's share of the reports (all of them outside MPI).
local function share(reports, owner, w)
  local mine = {}
  for i = 1, #reports do
    if (owner[i] or 0) == w.rank then mine[#mine + 1] = i end
  end
  return mine
end

-- A bounded merge (max_events > 0): each report becomes its digest where it is opened (core.mpi.digest,
-- core/trace_digest.h): its longest max_events events and their launches, with what the merge computes from
-- every event (counts, launch flame, first-seen order of strings, stacks and lanes); its processes are
-- listed from the whole model first. The merge of the digests writes the page of the whole models.
local function digest_reports(reports, idx, w, s, opts)
  local keep = opts.keep_partners ~= false
  for _, i in ipairs(idx) do
    local r = reports[i]
    r.processes = r.trace:processes(rank_names.prefixes(s))
    r.trace, r.touch = w.mpi.digest(r.trace, opts.max_events, keep)
  end
  collectgarbage()
end

-- Under MPI: every rank opens its share; ranks other than 0 send each model (a digest when the merge is
-- bounded) to rank 0 and end; rank 0 receives them. → workers
local function gather_models(reports, owner, w, s, opts)
  local mine = share(reports, owner, w)
  local digests = (opts.max_events or 0) > 0
  local workers = mpi.guard(w, function()
    local n = open_reports(reports, mine, s, opts)
    if digests then digest_reports(reports, mine, w, s, opts) end
    return n
  end)
  local what = digests and string.format("digest(s) of the %d longest events", opts.max_events) or "model(s)"
  if w.rank ~= 0 then
    local sent = 0
    for _, i in ipairs(mine) do
      local r = reports[i]
      sent = sent + w.mpi.send_model(0, r.trace, mpi.pack({ index = i, meta = r.meta, file = r.file,
        processes = r.processes, touch = r.touch }))
      r.trace = nil
    end
    log.info("rank %d: sent %d %s to rank 0: %s", w.rank, #mine, what, mpi.bytes(sent))
    mpi.finish()
  end
  local bytes, count = {}, {}
  for _ = 1, #reports - #mine do
    local tr, text, from, n = w.mpi.recv_model(-1)
    local h = mpi.unpack(text)
    local r = reports[h.index]
    r.trace, r.meta, r.file, r.processes, r.touch = tr, h.meta, h.file, h.processes, h.touch
    bytes[from] = (bytes[from] or 0) + n
    count[from] = (count[from] or 0) + 1
  end
  for k = 1, w.size - 1 do
    log.info("rank %d: %d report(s), %s of %s received", k, count[k] or 0, mpi.bytes(bytes[k] or 0), what)
  end
  return workers
end

-- The reports that are distinct captures of one job (gpuflame.related: one capture given twice counts once,
-- captures that cannot be one job are refused unless opts.allow_unrelated), from their metadata once opened
-- (a model file's provenance, an export's tables; under MPI gathered at rank 0). → kept reports, notes
local function related_reports(reports, opts, policy)
  local kept, notes = related.check(reports, { allow_unrelated = opts.allow_unrelated }, policy)
  for _, n in ipairs(notes) do log.info("%s", n) end
  return kept, notes
end

-- reports_of(paths, owner) → the report records; paths already expanded
local function reports_of(paths)
  local reports = {}
  for i, p in ipairs(paths) do reports[i] = { path = p } end
  return reports
end

-- load(paths, opts, policy) → merged trace, info {ranks=, reports=, offsets=, workers=, notes=, clock_alignment=}
--   paths: SQLite exports / .nsys-rep / model files (already expanded); opts: max_events, keep_partners,
--   stacks, allow_unrelated (--allow-unrelated), owner (under MPI: owner[i] is the MPI rank that opens
--   paths[i]; gpuflame.mpi.inputs), export(path) → the SQLite export of a report (gpuflame.trace supplies
--   it: .nsys-rep through nsys); policy: the effective policy (required: its ranks table)
-- One capture given twice is merged once (a note); captures that cannot be one job are refused
-- (gpuflame.related) before the merge.
function M.load(paths, opts, policy)
  local s = need(policy, "ranks.load").ranks
  local reports = reports_of(paths)
  local w = mpi.world()
  local workers
  if mpi.active() then
    workers = gather_models(reports, opts.owner or {}, w, s, opts)
  else
    local all = {}
    for i = 1, #reports do all[i] = i end
    workers = open_reports(reports, all, s, opts)
  end
  local notes
  reports, notes = related_reports(reports, opts, policy)
  local traces, touch = {}, {}
  for i, r in ipairs(reports) do
    traces[i], touch[i] = r.trace, r.touch
    r.processes = r.processes or r.trace:processes(rank_names.prefixes(s))
  end
  local offsets, warnings, t0 = offsets_of(reports)
  local ranks, labels, spec = M.label_ranks(reports, s)
  local merged = core.trace.merge(traces, { offsets = offsets, ranks = labels, spec = spec,
    max_events = opts.max_events or 0, keep_partners = opts.keep_partners ~= false,
    touch = #reports > 0 and reports[1].touch and touch or nil })
  for _, r in ipairs(reports) do r.touch = nil end
  for _, r in ipairs(reports) do r.trace = nil end
  for _, wr in ipairs(warnings) do merged:warn(wr); log.warn("%s", wr) end
  for _, n in ipairs(notes) do merged:warn(n) end
  local clock = related.alignment(reports, opts.allow_unrelated and #reports > 1)
  if #paths > 1 then merged:clock_alignment(clock) end
  log.info("merged %d report(s) into %d rank(s) (%s); %s", #reports, #ranks,
    w.size > 1 and (w.size .. " MPI processes") or workers > 1 and (workers .. " worker processes") or "one process",
    clock)
  return merged, { ranks = ranks, reports = reports, offsets = offsets, session_t0 = t0, workers = workers,
    notes = notes, clock_alignment = clock }
end

-- The per-process statistics of one report (trace tr): each process a rank of its own, in processes order.
local function report_stats(tr, processes, pol)
  local s = pol.ranks
  local labels, spec = {}, {}
  for k, p in ipairs(processes) do
    labels[k] = tostring(p.pid)
    spec[k] = { src = 1, pid = p.pid, rank = k }
  end
  local one = core.trace.merge({ tr }, { offsets = { 0 }, ranks = labels, spec = spec, max_events = 0 })
  nvtx_group.apply(one, pol) -- iteration names as the other views name them (nvtx.group)
  local rows = one:rank_stats(s.nccl_prefixes, s.iteration_prefixes)
  local by_pid = {}
  for k, p in ipairs(processes) do
    by_pid[p.pid] = rows[k]
    rows[k].devices = {}
  end
  -- each process's devices' time breakdown (docs/SEMANTICS.md), as over the merged trace
  local pid_of = {}
  for _, p in ipairs(processes) do pid_of[tostring(p.pid)] = p.pid end
  for _, d in ipairs(gpu_time.breakdown(one, nil, true, pol)) do
    local row = by_pid[pid_of[d.rank]]
    if row then d.rank = nil; table.insert(row.devices, d) end
  end
  return by_pid
end

-- rank_stats(paths, opts, policy) → rows as trace:rank_stats gives them over the merged trace of paths
-- (labels, rank order, merged clock), computed where each report is opened: under MPI a rank sends rank 0
-- only its reports' metadata and per-process statistics (kilobytes), never their events. opts: owner,
-- export (as for load); policy: the effective policy (required).
function M.rank_stats(paths, opts, policy)
  local s = need(policy, "ranks.rank_stats").ranks
  local reports = reports_of(paths)
  local w = mpi.world()
  local mine = share(reports, opts.owner or {}, w)
  -- a batch of reports at a time (as many as import at once): a rank holds one batch's models, not its share's
  local batch = math.max(1, s.workers == 0 and (w.size > 1 and 1 or core.host.cpus()) or s.workers)
  mpi.guard(w, function()
    for b = 1, #mine, batch do
      local idx = table.move(mine, b, math.min(b + batch - 1, #mine), 1, {})
      open_reports(reports, idx, s, opts)
      for _, i in ipairs(idx) do
        local r = reports[i]
        r.processes = r.trace:processes(rank_names.prefixes(s))
        r.stats = report_stats(r.trace, r.processes, policy)
        r.trace = nil
      end
      collectgarbage()
    end
  end)
  if w.rank ~= 0 then
    local sent = 0
    for _, i in ipairs(mine) do
      local r = reports[i]
      sent = sent + w.mpi.send(0, mpi.pack({ index = i, meta = r.meta, file = r.file, processes = r.processes,
        stats = r.stats }))
    end
    log.info("rank %d: sent the summaries of %d report(s) to rank 0: %s", w.rank, #mine, mpi.bytes(sent))
    mpi.finish()
  end
  local bytes, count = {}, {}
  for _ = 1, #reports - #mine do
    local text, from, n = w.mpi.recv(-1)
    local h = mpi.unpack(text)
    local r = reports[h.index]
    r.meta, r.file, r.processes, r.stats = h.meta, h.file, h.processes, h.stats
    bytes[from] = (bytes[from] or 0) + n
    count[from] = (count[from] or 0) + 1
  end
  for k = 1, w.size - 1 do
    log.info("rank %d: %d report(s), %s of summaries received", k, count[k] or 0, mpi.bytes(bytes[k] or 0))
  end
  local notes
  reports, notes = related_reports(reports, opts, policy)
  local offsets, warnings = offsets_of(reports)
  for _, wr in ipairs(warnings) do log.warn("%s", wr) end
  local ranks = M.label_ranks(reports, s)
  local rows = {}
  for k, x in ipairs(ranks) do
    local row, off = reports[x.report].stats[x.pid], offsets[x.report]
    row.label = x.label
    if x.gpu_events > 0 then row.first, row.last = row.first + off, row.last + off end
    for _, it in ipairs(row.iterations) do it.start = it.start + off end
    for _, d in ipairs(row.devices) do d.first, d.last = d.first + off, d.last + off end
    rows[k] = row
  end
  local clock = related.alignment(reports, opts.allow_unrelated and #reports > 1)
  return rows, { ranks = ranks, reports = reports, offsets = offsets, notes = notes,
    clock_alignment = clock }
end

return M
