-- Input loader: "stacks" (the collapse table) from a kern/api summary CSV (flat), a folded file, an SQLite
-- export or a model file (gpuflame import) (the hierarchical GPU stacks, policy flamegraph.levels; an export
-- without GPU operations: flat totals by SQL, policy flamegraph.sqlite_sources, over a model's export tables).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local flamegraph = require("gpuflame.flamegraph")
local log = require("gpuflame.log")
local nsys = require("gpuflame.nsys")
local nvtx_group = require("gpuflame.nvtx_group")
local sidecar = require("gpuflame.sidecar")

local SUMMARY = { cuda_gpu_kern_sum = true, cuda_api_sum = true }

local function accepts(info, ctx)
  if info.type == "folded" or info.type == "sqlite" or info.type == "model" then return true end
  return info.type == "csv" and SUMMARY[nsys.canonical_report(info.report, ctx.policy())] == true
end

local function load_folded(path, info)
  -- a two-column (differential) file: the AFTER column, as flamegraph.pl sizes frames by it
  local stacks, st
  if info and info.two_columns then
    local _
    _, stacks, st = core.stacks.read_folded(path, { two_columns = true })
  else
    stacks, st = core.stacks.read_folded(path)
  end
  sidecar.attach(stacks, path)
  if st.bad > 0 then
    log.warn("%s: skipped %d malformed line%s (first: line %d: %s)", path, st.bad, st.bad == 1 and "" or "s",
      st.first_bad, st.first_bad_why)
  end
  if stacks:count() == 0 then
    if st.bad > 0 then
      errors.raise(errors.INPUT, "%s:%d: no valid folded stack lines (%s)", path, st.first_bad, st.first_bad_why)
    end
    errors.raise(errors.NO_DATA, "%s: no stacks (only blank or comment lines)", path)
  end
  return stacks, { source = path, report = "folded", stacks = stacks:count(), bad = st.bad,
    two_columns = info and info.two_columns or nil }
end

-- A model file without GPU operations: the flat totals of the export's tables it carries (as an export's),
-- NO_DATA when imported without them (--no-stats).
local function from_model_tables(path, fs, policy)
  local tmp = core.fs.mkdtemp()
  local db = tmp .. "/tables.sqlite"
  local ok, res, meta = pcall(function()
    if not core.model.tables(path, db) then
      errors.raise(errors.NO_DATA, "%s: no GPU operations, and no export tables to total (imported with --no-stats)",
        path)
    end
    return flamegraph.from_sqlite(db, { flame = fs }, policy)
  end)
  core.fs.remove_tree(tmp)
  if not ok then error(res, 0) end
  if meta then meta.source = path end
  return res, meta
end

-- An export's or model's trace and its stacks (load's, below): the stacks, or the job building them (opts.defer).
-- keep: the trace stays in ctx.stacks_trace for the caller; else it is unreferenced once this returns.
-- page: the stacks are for a page, which folds them (flamegraph.from_trace's page).
local function trace_stacks(path, fs, keep, defer, page, ctx)
  local policy = ctx.policy()
  -- a page's stacks alone: the trace is left in arrival order (the page's data does not depend on the order the
  -- stacks were made in, core/stacks_tree.c; the folded lines of collapse do)
  local unordered = page and not keep
  local tr = flamegraph.load_trace({ path }, { flame = fs, narrow = not keep, unordered = unordered,
    group_later = defer }, policy)
  if unordered then log.debug("flamegraph: %s read for the page's stacks alone, not sorted by start", path) end
  -- opts.defer (with keep_trace): the stacks are built on a second thread (flamegraph.start_stacks) while
  -- the caller reads the trace; the caller finishes ctx.stacks_trace.job, and load returns that job. The
  -- thread finds the launches' partners while the NVTX names are grouped here (issue 42: 0.09 s of 43,000
  -- names on the 368 MB export, before the stacks could start).
  local job = defer and flamegraph.start_stacks(tr, { flame = fs, groups = true }, policy)
  if defer and not job then nvtx_group.apply(tr, policy) end
  if job then
    local ok, map = pcall(nvtx_group.map, tr, policy)
    if ok then ok, map = pcall(job.set_groups, job, map) end
    if not ok then
      job:close()
      error(map, 0)
    end
    ctx.stacks_trace = { path = path, trace = tr, flame = fs, job = job }
    ctx.input_meta = { source = path, report = "gpu", unit_ns = 1 }
    return nil, job
  end
  -- opts.keep_trace: the caller reads the same trace next (the flamegraph's findings panel: one import)
  if keep then ctx.stacks_trace = { path = path, trace = tr, flame = fs } end
  -- a trace nobody keeps is used up by its stacks: their tables reuse its columns' memory
  return flamegraph.from_trace(tr, { flame = fs, page = page, use_up = not keep }, policy)
end

-- opts.flame: the command's stack settings (flamegraph.settings: --levels, --unit-ns), else the policy's;
-- opts.page: the stacks are a page's (flamegraph.from_trace's page: they may come folded in part);
-- opts.keep_trace: an export's or model's trace stays in ctx.stacks_trace = {path, trace, flame} for the caller;
-- with opts.defer too, its stacks may be a job on a second thread (ctx.stacks_trace.job, also returned).
local function load(path, info, opts, ctx)
  local policy = ctx.policy()
  local fs = opts and opts.flame
  local stacks, meta
  if info.type == "folded" then
    stacks, meta = load_folded(path, info)
  elseif info.type == "sqlite" or info.type == "model" then
    local keep = opts and opts.keep_trace
    local job
    stacks, job = trace_stacks(path, fs, keep, keep and opts.defer, opts and opts.page, ctx)
    if job then return job end
    -- a trace nobody keeps goes now, before the page folds its stacks: the fold's blocks reuse its freed memory
    -- (policy limits.keep_freed_memory) instead of fresh pages (issue 42: peak 339 → 328 MB on the 1M bench)
    if not keep then collectgarbage() end
    if stacks then
      meta = { source = path, report = "gpu", stacks = flamegraph.count(stacks), unit_ns = 1 }
    elseif info.type == "model" then
      stacks, meta = from_model_tables(path, fs, policy)
    else
      stacks, meta = flamegraph.from_sqlite(path, { flame = fs }, policy)
    end
  else
    stacks, meta = flamegraph.from_csv(path, info.report, { skip_preamble = info.preamble, flame = fs }, policy)
    if stacks:count() == 0 then
      errors.raise(errors.NO_DATA, "%s: %s has no rows", path, info.report)
    end
  end
  ctx.input_meta = meta
  return stacks
end

return { kind = "stacks", accepts = accepts, load = load }
