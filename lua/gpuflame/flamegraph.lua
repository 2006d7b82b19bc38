-- GPU flamegraph: the hierarchical stacks of a trace (SQLite export, report, merged reports: one stack per
-- GPU operation, frames = policy flamegraph.levels, weights in integer ns; core/trace_flame.c), the flat
-- stacks of nsys summaries (stats CSV), and the HTML page. The C collapse table (core.stacks) holds the
-- data; this module only decides (from policy) which levels, columns, prefixes and units to use.
local core = require("gpuflame.core")
local columns = require("gpuflame.columns")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local page = require("gpuflame.views.page")
local need = require("gpuflame.policy").need
local nsys = require("gpuflame.nsys")
local process_key = require("gpuflame.process_key")
local trace = require("gpuflame.trace")

local fg = {}

-- flamegraph.pl's palettes plus "gpu" (memcpy/memset, CUDA API, NCCL and kernels told apart): the names in
-- the pages' colour table, templates/palettes.json
fg.PALETTES = page.palettes()

local SQL_REPORT = { kernels = "cuda_gpu_kern_sum", api = "cuda_api_sum" }

function fg.prefix(report, policy)
  local fp = need(policy, "flamegraph.prefix").flamegraph
  return fp.prefixes[nsys.canonical_report(report, policy)] or fp.prefixes[report] or fp.other_prefix
end

local function set_meta(stacks, meta)
  stacks:set_meta(core.json.encode(meta))
end

-- from_csv(path, report, {skip_preamble=bool, flame=}, policy) → stacks, info (counts: total ns // the unit_ns of
-- flame, fg.settings; nil: the policy's)
-- report: cuda_gpu_kern_sum / cuda_api_sum (either era's name). Rows follow docs/spec/STUDIO.md §6.5.
function fg.from_csv(path, report, opts, policy)
  opts = opts or {}
  local canon = nsys.canonical_report(report, need(policy, "flamegraph.from_csv"))
  local reader = core.csv.open(path, { skip_preamble = opts.skip_preamble, header_hint = opts.skip_preamble and "Name" or nil })
  local cols = columns.find_all(reader, canon, { "name", "total" }, nil, policy)
  local unit = (opts.flame or fg.settings(nil, policy)).unit_ns
  local stacks, st = core.stacks.from_summary_csv(reader, cols.name, cols.total,
    { prefix = fg.prefix(canon, policy), unit_ns = unit, bad_weight = policy.flamegraph.bad_weight })
  reader:close()
  local info = { source = path, report = canon, rows = st.rows, stacks = stacks:count(),
    unparsed_weight = st.unparsed_weight, skipped_empty = st.skipped_empty, unit_ns = unit }
  set_meta(stacks, { generator = "gpuflame", report = canon, unit_ns = unit, countname = policy.flamegraph.countname })
  return stacks, info
end

-- stream_csv(path, report, out, {skip_preamble=, meta=bool, flame=}, policy) → stats: the same rows written
-- straight to folded lines (out = path or "-"), without building the table (constant memory); with meta,
-- stats.meta is the metadata JSON (for a sidecar or stderr: never inside the folded lines).
function fg.stream_csv(path, report, out, opts, policy)
  opts = opts or {}
  local canon = nsys.canonical_report(report, need(policy, "flamegraph.stream_csv"))
  local reader = core.csv.open(path, { skip_preamble = opts.skip_preamble, header_hint = opts.skip_preamble and "Name" or nil })
  local cols = columns.find_all(reader, canon, { "name", "total" }, nil, policy)
  local unit = (opts.flame or fg.settings(nil, policy)).unit_ns
  local meta = opts.meta and core.json.encode({ generator = "gpuflame", report = canon, unit_ns = unit,
    countname = policy.flamegraph.countname }) or nil
  local st = core.stacks.stream_summary_csv(reader, cols.name, cols.total,
    { prefix = fg.prefix(canon, policy), unit_ns = unit, bad_weight = policy.flamegraph.bad_weight }, out)
  reader:close()
  st.meta = meta
  if st.used == 0 then errors.raise(errors.NO_DATA, "%s: %s has no rows", path, canon) end
  return st
end

-- from_sqlite(path, {flame=}, policy) → stacks, info (counts in the unit_ns of flame, fg.settings; nil: the
-- policy's); or raises NO_DATA listing each source tried and why.
function fg.from_sqlite(path, opts, policy)
  local unit = ((opts or {}).flame or fg.settings(nil, need(policy, "flamegraph.from_sqlite"))).unit_ns
  local tried = {}
  for _, src in ipairs(policy.flamegraph.sqlite_sources) do
    local totals, why = core.sqlite_kernels.totals(path, src)
    if #totals > 0 then
      local report = SQL_REPORT[src]
      local stacks = core.stacks.new()
      local prefix = fg.prefix(report, policy)
      for _, t in ipairs(totals) do stacks:add_total(prefix, t.name, t.total_ns, unit) end
      set_meta(stacks, { generator = "gpuflame", report = report, source = "sqlite:" .. src, unit_ns = unit,
        countname = policy.flamegraph.countname })
      return stacks, { source = path, report = report, sqlite_source = src, totals = totals, stacks = stacks:count(),
        unit_ns = unit, tried = tried }
    end
    tried[#tried + 1] = src .. ": " .. (why or "no rows")
  end
  errors.raise(errors.NO_DATA, "%s: no GPU data in this export (%s)", path, table.concat(tried, "; "))
end

local LEVELS = { process = true, rank = true, device = true, stream = true, nvtx = true, callchain = true, api = true,
  kernel = true }

-- parse_levels("process,nvtx,api,kernel") → list (a usage error names a level that does not exist)
function fg.parse_levels(text)
  local out, seen = {}, {}
  for name in tostring(text):gmatch("[^,%s]+") do
    if not LEVELS[name] then
      errors.raise(errors.USAGE, "--levels: unknown level '%s' (levels: process, rank, device, stream, nvtx, " ..
        "callchain, api, kernel)", name)
    end
    if seen[name] then errors.raise(errors.USAGE, "--levels: '%s' given twice", name) end
    seen[name] = true
    out[#out + 1] = name
  end
  if #out == 0 then errors.raise(errors.USAGE, "--levels needs at least one level") end
  return out
end

-- settings(over, policy) → {levels = {...}, unit_ns = N}: the frames of the GPU stacks and a stats CSV's
-- nanoseconds per count, policy flamegraph.levels and flamegraph.unit_ns with a command's overrides (over:
-- its parsed options, or nil): over.levels (--levels LIST), over.by_rank (--by-rank: a rank level under the
-- process), over.unit_ns (--unit-ns N). Commands pass the result explicitly (opts.flame of the functions
-- below); the policy table is never written.
function fg.settings(over, policy)
  local p = need(policy, "flamegraph.settings").flamegraph
  over = over or {}
  local levels = over.levels and fg.parse_levels(over.levels) or p.levels
  if over.by_rank then
    local has = false
    for _, l in ipairs(levels) do has = has or l == "rank" end
    if not has then
      local lv = {}
      for i, l in ipairs(levels) do
        lv[#lv + 1] = l
        if i == 1 and l == "process" then lv[#lv + 1] = "rank" end
      end
      if lv[1] ~= "process" then table.insert(lv, 1, "rank") end
      levels = lv
    end
  end
  return { levels = levels, unit_ns = over.unit_ns or p.unit_ns }
end

-- wants_callchain(fs) → whether the levels of fs (fg.settings) need the launches' backtraces.
function fg.wants_callchain(fs)
  for _, l in ipairs(fs.levels) do
    if l == "callchain" then return true end
  end
  return false
end

-- The C options of the hierarchical stacks: the levels of fs (fg.settings; nil: the policy's), policy
-- flamegraph.nvtx_startend and nolaunch_frame.
function fg.level_options(fs, policy)
  local p = need(policy, "flamegraph.level_options").flamegraph
  return { levels = (fs or fg.settings(nil, policy)).levels, startend = p.nvtx_startend, nolaunch = p.nolaunch_frame }
end

-- GPU operations (kernels, copies, memsets) of a trace.
function fg.gpu_ops(tr)
  local c = tr:counts()
  return (c.kernel or 0) + (c.memcpy or 0) + (c.memset or 0)
end

-- from_trace(tr, {flame=, processes=, page=, use_up=} or nil, policy) → stacks: the hierarchical stacks (weights in
-- ns), or nil when tr has no GPU work. flame: the stacks' settings (fg.settings; nil: the policy's levels). processes: the
-- process frames by name (gpuflame.process_key.list), or nil: "<name> [<pid>]". page: the stacks are for a page
-- (fg.render): where the page folds (policy flamegraph.fold_share, fold_min_stacks), its small NVTX frames may be
-- folded as the stacks are made (core/flame_fold.c; stacks:prefold() says so, fg.fold does the rest), so
-- only a page may be drawn from them; fg.count gives the stacks there are. use_up: nothing reads tr after this,
-- so its events are freed as the stacks are done with them (core/trace_flame.h gf_trace_gpu_stacks_use_up; tr
-- has no events after).
function fg.from_trace(tr, opts, policy)
  opts = opts or {}
  local fs = opts.flame or fg.settings(nil, need(policy, "flamegraph.from_trace"))
  if fg.gpu_ops(tr) == 0 then return nil end
  local stacks = core.stacks.new()
  local o = fg.level_options(fs, policy)
  o.processes = opts.processes
  if opts.page then o.fold = fg.fold_options(policy) end
  o.use_up = opts.use_up
  local raw = core.trace_flame.stacks(tr, stacks, o)
  fg.log_prefold(stacks)
  set_meta(stacks, { generator = "gpuflame", report = "gpu", unit_ns = 1, countname = "ns",
    levels = table.concat(fs.levels, ","), nvtx_raw = fg.raw_summary(raw, policy) })
  return stacks
end

-- log_prefold(stacks): says (-v) when a page's stacks were folded in part as they were made (from_trace's page)
function fg.log_prefold(stacks)
  local pre = stacks:prefold()
  if pre then
    log.debug("flamegraph: %d stacks made as %d, %d NVTX frames folded as they were made", pre.raw, stacks:count(),
      pre.nodes)
  end
end

-- start_stacks(tr, {flame=, groups=} or nil, policy) → job | nil: from_trace's stacks built on a second thread
-- (core.flame_job, core/trace_flame_job.c) together with the page's fold of them (fg.fold's, policy
-- flamegraph.fold_share and fold_min_stacks), while the caller runs other Lua (the findings panel's rules);
-- tr must not change until job:finish(policy) → stacks, prefolded (for page_options' prefolded: the page is
-- the one from_trace's stacks give). nil when tr has no GPU work or policy limits.threads resolves to 1:
-- the caller then calls from_trace. groups: tr was loaded with load_trace's group_later, and the caller
-- sets its groups through job:set_groups next (nil job: nvtx_group.apply).
local StacksJob = {}
StacksJob.__index = StacksJob

function fg.start_stacks(tr, opts, policy)
  local fs = (opts and opts.flame) or fg.settings(nil, need(policy, "flamegraph.start_stacks"))
  if fg.gpu_ops(tr) == 0 then return nil end
  local stacks, folded = core.stacks.new(), core.stacks.new()
  local job = core.flame_job.start(tr, stacks, folded, fg.level_options(fs, policy), fg.fold_options(policy),
    policy.limits.threads, opts and opts.groups)
  if not job then return nil end
  return setmetatable({ job = job, stacks = stacks, folded = folded, fs = fs }, StacksJob)
end

-- job:set_groups(map): with start_stacks's opts.groups, the trace's NVTX groups (nvtx_group.map's), set on
-- it as nvtx_group.apply would while the job's thread finds the launches' partners, which read no names
function StacksJob:set_groups(map)
  self.job:set_groups(map)
end

function StacksJob:finish(policy)
  local raw, nodes, weight, run_s, wait_s, run_cpu, caller_cpu = self.job:finish()
  local stacks = self.stacks
  fg.log_prefold(stacks)
  set_meta(stacks, { generator = "gpuflame", report = "gpu", unit_ns = 1, countname = "ns",
    levels = table.concat(self.fs.levels, ","), nvtx_raw = fg.raw_summary(raw, policy) })
  local pre = { of = stacks, run_s = run_s, wait_s = wait_s, run_cpu = run_cpu, caller_cpu = caller_cpu }
  if nodes > 0 then
    self.folded:set_meta(stacks:meta())
    pre.folded, pre.st = self.folded, { nodes = nodes, weight = weight }
  end
  return stacks, pre
end

-- job:close(): the thread joined (also `local job <close>`: a Lua error leaves no thread running)
function StacksJob:close()
  self.job:close()
end
StacksJob.__close = StacksJob.close

-- from_trace_step(tr, which, marker, {flame=, processes=} or nil, policy) → stacks, step, doc, win: the
-- hierarchical stacks of the GPU work launched inside one step (`--step N|median|slowest`; gpuflame.steps: its
-- steps found by policy steps.markers or the Lua pattern marker; flame, processes: as from_trace's), that step (as `steps --json`
-- gives it), the steps document and the step's window for C ({start, end, pid, rank}); NO_DATA when the step
-- launched no GPU work.
function fg.from_trace_step(tr, which, marker, opts, policy)
  opts = opts or {}
  local fs = opts.flame or fg.settings(nil, need(policy, "flamegraph.from_trace_step"))
  local steps = require("gpuflame.steps")
  local doc, wins = steps.document(tr, marker, policy)
  local s, w = steps.pick(doc, wins, which)
  local o = fg.level_options(fs, policy)
  o.step = { start = w.start, ["end"] = w["end"], pid = w.proc, rank = w.rank }
  o.processes = opts.processes
  local stacks = core.stacks.new()
  local raw = core.trace_flame.stacks(tr, stacks, o)
  if stacks:count() == 0 then
    errors.raise(errors.NO_DATA, "%s: step %d (%s) launched no GPU work", tr:source() or "input", s.index, s.name)
  end
  set_meta(stacks, { generator = "gpuflame", report = "gpu", unit_ns = 1, countname = "ns",
    levels = table.concat(fs.levels, ","), nvtx_raw = fg.raw_summary(raw, policy),
    step = { index = s.index, name = s.name, start_ns = s.start_ns, end_ns = s.end_ns, pick = tostring(which),
      rule = doc.rule_text } })
  return stacks, s, doc, o.step
end

-- step_label(step, which) → "step 3 (ProfilerStep#3, the median step)": how the outputs name the step
function fg.step_label(s, which)
  local how = (which == "median" or which == "slowest") and (", the " .. which .. " step") or ""
  return string.format("step %d (%s%s)", s.index, s.name, how)
end

-- The raw NVTX names behind grouped frames (policy nvtx.group) as the metadata and the page keep them:
-- {[frame] = {n = raw names merged, raw = {the first nvtx.raw_examples of them}}}, only for frames that
-- merge several names or show one differently; nil when there is none.
function fg.raw_summary(raw, policy)
  local k = need(policy, "flamegraph.raw_summary").nvtx.raw_examples
  local out, any = {}, false
  for frame, list in pairs(raw or {}) do
    if #list > 1 or frame:sub(-#list[1]) ~= list[1] then
      local ex = {}
      for i = 1, math.min(k, #list) do ex[i] = list[i] end
      out[frame] = { n = #list, raw = core.json.array(ex) }
      any = true
    end
  end
  return any and out or nil
end

-- load_trace(paths, {nsys=, ranks=bool, flame=, narrow=bool, unordered=bool, group_later=bool}, policy) → the whole
-- trace of exports / reports (every event), with the launches' backtraces when the levels of flame (fg.settings;
-- nil: the policy's) need them; narrow: only what the stacks read (gpuflame.trace.load's narrow: for a caller
-- that reads nothing else); unordered: with narrow, not sorted by start (trace.load's: for from_trace's page
-- alone); group_later: its NVTX names not yet grouped (trace.load's; start_stacks's groups).
function fg.load_trace(paths, opts, policy)
  opts = opts or {}
  local fs = opts.flame or fg.settings(nil, need(policy, "flamegraph.load_trace"))
  return trace.load(paths, { max_events = 0, ranks = opts.ranks, nsys = opts.nsys,
    keep_partners = true, stacks = fg.wants_callchain(fs), allow_unrelated = opts.allow_unrelated,
    narrow = opts.narrow, unordered = opts.unordered, group_later = opts.group_later }, policy)
end

-- from_reports(paths, {nsys=, allow_unrelated=, flame=}, policy) → stacks, clock: the hierarchical stacks of
-- several SQLite exports / reports (one per rank; merged by gpuflame.trace); the rank level (flame's levels:
-- policy, --by-rank) puts each under its rank. clock: the sentence stating the clock alignment of the merge
-- (also in the metadata).
function fg.from_reports(paths, opts, policy)
  opts = opts or {}
  local tr, info = fg.load_trace(paths, { ranks = true, nsys = opts.nsys, allow_unrelated = opts.allow_unrelated,
    flame = opts.flame }, need(policy, "flamegraph.from_reports"))
  -- a process is known by its executable, not its pid: one program's processes of every rank share a frame
  local procs = process_key.list(tr, nil, { merged = #tr:ranks() > 0 }, policy)
  local stacks = fg.from_trace(tr, { flame = opts.flame, processes = procs }, policy)
  if not stacks then
    errors.raise(errors.NO_DATA, "%s: no GPU kernels in these reports", table.concat(paths, ", "))
  end
  local clock = info and info.clock_alignment
  if clock then
    local meta = core.json.decode(stacks:meta())
    meta.clock_alignment = clock
    set_meta(stacks, meta)
  end
  return stacks, clock
end

-- The count name of stacks (their metadata's, e.g. "ns" for hierarchical stacks), else nil.
function fg.countname_of(stacks)
  local meta = stacks:meta()
  local ok, m = pcall(core.json.decode, meta or "")
  return ok and type(m) == "table" and type(m.countname) == "string" and m.countname or nil
end

-- Page options from policy, overridden by the command line (title, countname, inverted, minwidth, colors).
function fg.page_options(over, policy)
  local p = need(policy, "flamegraph.page_options").flamegraph
  over = over or {}
  local function pick(k)
    if over[k] ~= nil then return over[k] end
    return p[k]
  end
  return {
    title = pick("title"),
    countname = over.countname or over.stacks_countname or p.countname,
    inverted = pick("inverted") == true,
    minwidth = pick("minwidth"),
    colors = pick("colors"),
    subtitle = over.subtitle or "",
    findings = over.findings, -- findings.page's document for the findings panel, or nil (no panel)
    fold_share = p.fold_share, fold_min_stacks = p.fold_min_stacks,
    prefolded = over.prefolded, -- start_stacks's finish: the fold made beside the rules, or nil
    threads = policy.limits.threads, -- the fold's sort: two threads where this allows them
  }
end

-- The stacks' metadata field `key` (a table), or nil.
local function meta_field(stacks, key)
  local ok, m = pcall(core.json.decode, stacks:meta() or "")
  return ok and type(m) == "table" and type(m[key]) == "table" and m[key] or nil
end

local function page_slots(stacks, o)
  local conf = core.json.encode({
    countname = o.countname, inverted = o.inverted, minwidth = o.minwidth, colors = o.colors,
    title = o.title, subtitle = o.subtitle, nvtx_raw = meta_field(stacks, "nvtx_raw"),
  })
  return { title = o.title, subtitle = o.subtitle, data = { data = stacks }, config = { json = conf },
    findings = require("gpuflame.findings.document").page_slot(o.findings) }
end

local function pct(x)
  return string.format("%.4g %%", x * 100)
end

-- fold_options(policy) → {share, min, name}: a page's fold (policy flamegraph.fold_share, fold_min_stacks)
function fg.fold_options(policy)
  local p = need(policy, "flamegraph.fold_options").flamegraph
  return { share = p.fold_share, min = p.fold_min_stacks, name = fg.fold_name(p.fold_share) }
end

-- count(stacks) → the distinct stacks, also of stacks folded in part as they were made (from_trace's page)
function fg.count(stacks)
  local pre = stacks:prefold()
  return pre and pre.raw or stacks:count()
end

-- the frame a page's small frames fold into (policy flamegraph.fold_share)
function fg.fold_name(share)
  return "[folded: frames under " .. pct(share) .. " each]"
end

-- fold(stacks, o) → the stacks a page draws and its options: with more than o.fold_min_stacks stacks and
-- o.fold_share > 0, the frames under that share of the total merged (gf_stacks_fold, policy
-- flamegraph.fold_share), the subtitle saying so; otherwise stacks and o as they are.
-- o.prefolded (start_stacks's): the fold done on the stacks' thread, for these stacks.
function fg.fold(stacks, o)
  local share, min = o.fold_share or 0, o.fold_min_stacks or 0
  local name = fg.fold_name(share)
  local folded, st
  if o.prefolded and o.prefolded.of == stacks then
    folded, st = o.prefolded.folded, o.prefolded.st
    if not folded then return stacks, o end
  else
    if share <= 0 or fg.count(stacks) <= min or stacks:total() <= 0 then return stacks, o end
    folded, st = stacks:fold(math.ceil(stacks:total() * share), name, o.threads)
    if st.nodes == 0 then return stacks, o end
  end
  local o2 = {}
  for k, v in pairs(o) do o2[k] = v end
  local note = string.format("%d frames under %s of the total each (%s of it) folded into \"%s\" frames",
    st.nodes, pct(share), pct(st.weight / stacks:total()), name)
  o2.subtitle = (o.subtitle ~= "" and (o.subtitle .. " · ") or "") .. note
  o2.folded = { nodes = st.nodes, weight = st.weight, share = share, stacks_before = fg.count(stacks) }
  return folded, o2
end

-- render(stacks, out_path, page_options) writes the self-contained page atomically (fg.fold first); returns
-- what fg.fold said ({nodes, weight, share, stacks_before}) or nil.
function fg.render(stacks, out, o)
  if stacks:count() == 0 then errors.raise(errors.NO_DATA, "no stacks to draw (%s)", out) end
  stacks, o = fg.fold(stacks, o)
  local tmpl, origin = page.template("templates/flamegraph.html")
  core.render.render(tmpl, page_slots(stacks, o), out, origin)
  return o.folded
end

function fg.render_string(stacks, o)
  stacks, o = fg.fold(stacks, o)
  local tmpl, origin = page.template("templates/flamegraph.html")
  return core.render.render_string(tmpl, page_slots(stacks, o), origin)
end

return fg
