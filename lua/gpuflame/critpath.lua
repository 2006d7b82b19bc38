-- The critical path of each step (issue 44; docs/SEMANTICS.md "Critical path", docs/CRITICAL_PATH.md): the
-- chain of dependent host code, calls, launches, GPU work, waits and collectives that sets a step's length,
-- its time by part, the items on it, the rank that gates it, and what-if edits of the graph.
--
--   parse_what_if(specs) → rules for core.critpath (USAGE error naming a bad spec)
--   groups(tr, opts, policy) → the windows per step ({index, name, windows}), how they were found
--   document(tr, opts, policy) → the `critical-path --json` document (its summary: summary(steps))
--   page_data(tr, policy) → per step the events on its path, for the timeline page
--   stacks(doc) → the on-path time as stacks `step N (NAME)[;RANK];KIND;NAME ns` (--folded, --flamegraph)
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local steps = require("gpuflame.steps")
local stragglers = require("gpuflame.stragglers")

local need = require("gpuflame.policy").need

local M = {}

M.PARTS = { "host", "launch", "queue", "compute", "copy", "sync", "communication", "idle" }
local BIT = {}
for i, p in ipairs(M.PARTS) do BIT[p] = 1 << (i - 1) end

M.NOTE = "what-if: only the graph is edited (the named items' lags scaled, every other edge as observed, a " ..
  "dependency that did not bind assumed to need no time of its own); nothing else about the run is modelled"

-- 'kernel=NAME:F', 'nvtx=NAME:F', 'kind=PART:F' → {classes, name|nvtx, factor, text}
function M.parse_what_if(specs)
  local rules = {}
  for _, spec in ipairs(specs or {}) do
    local what, rest = spec:match("^(%a+)=(.+)$")
    local name, f = (rest or ""):match("^(.*):([%d%.eE+-]+)$")
    local factor = tonumber(f)
    if not what or not name or name == "" or not factor or factor < 0 then
      errors.raise(errors.USAGE, "--what-if %s: give kernel=NAME:F, nvtx=NAME:F or kind=PART:F (F >= 0, 0 removes)",
        spec)
    end
    local r = { factor = factor, text = spec }
    if what == "kernel" then
      r.classes, r.name = BIT.compute | BIT.communication, name
    elseif what == "nvtx" then
      r.classes, r.nvtx = (1 << #M.PARTS) - 1, name
    elseif what == "kind" then
      if not BIT[name] then
        errors.raise(errors.USAGE, "--what-if %s: kind is one of %s", spec, table.concat(M.PARTS, ", "))
      end
      r.classes = BIT[name]
    else
      errors.raise(errors.USAGE, "--what-if %s: kernel=, nvtx= or kind=", spec)
    end
    rules[#rules + 1] = r
  end
  return rules
end

-- --window START:END (ns on the export's clock) → start, end
local function parse_window(s)
  local a, b = s:match("^(%-?%d+):(%-?%d+)$")
  a, b = tonumber(a), tonumber(b)
  if not a or not b or b <= a then errors.raise(errors.USAGE, "--window %s: give START_NS:END_NS, END after START", s) end
  return a, b
end

-- windows of the whole capture (or --window), one per rank, any process, no marker thread
local function capture_group(tr, window)
  local a, b
  if window then a, b = parse_window(window) end
  local ranks = tr:ranks()
  local wins = {}
  if #ranks == 0 then
    wins[1] = { start = a, ["end"] = b, pid = -1, tid = -1, rank = -1, label = "all" }
  else
    for r = 1, #ranks do wins[r] = { start = a, ["end"] = b, pid = -1, tid = -1, rank = r - 1, label = ranks[r] } end
  end
  return { { index = 0, name = window and ("window " .. window) or "the capture", windows = wins } }
end

-- groups(tr, opts, policy) → {{index, name, windows}...}, rule text, the steps' summary.between (nil without
-- steps: docs/SEMANTICS.md "Steps")
function M.groups(tr, opts, policy)
  if opts.window then return capture_group(tr, opts.window), "--window " .. opts.window end
  local ok, doc, wins = pcall(steps.document, tr, opts.marker, policy)
  if not ok then
    if type(doc) == "table" and doc.code == errors.NO_DATA and not opts.marker and not opts.step then
      return capture_group(tr), "no steps (" .. tostring(doc.msg) .. "): the whole capture"
    end
    error(doc, 0)
  end
  local want
  if opts.step then want = steps.pick(doc, wins, opts.step).index end
  local by, order = {}, {}
  for k, s in ipairs(doc.steps) do
    if want == nil or s.index == want then
      local g = by[s.index]
      if not g then
        g = { index = s.index, name = s.name, windows = {}, warmup = s.warmup, time_ns = 0, gpu_bound = false }
        by[s.index] = g
        order[#order + 1] = g
      end
      local w = wins[k]
      g.time_ns, g.gpu_bound = math.max(g.time_ns, s.time_ns), g.gpu_bound or s.gpu_bound
      g.windows[#g.windows + 1] = { start = w.start, ["end"] = w["end"], pid = w.proc, tid = w.tid, rank = w.rank,
        label = w.rank_label or ("pid " .. w.pid) }
    end
  end
  return order, doc.rule_text, doc.summary.between
end

local function label(it)
  if it.kind == "host" then return "host code (outside NVTX ranges)" end
  if it.kind == "idle" then return "idle (no recorded dependency)" end
  return it.name or "?"
end

-- the path's items summed per (kind, name, rank), longest first
local function on_path(path, multi)
  local by, list = {}, core.json.array({})
  for _, it in ipairs(path) do
    local key = it.kind .. "\0" .. label(it) .. "\0" .. (multi and it.rank or "")
    local o = by[key]
    if not o then
      o = { kind = it.kind, name = label(it), ns = 0 }
      if multi then o.rank = it.rank end
      by[key] = o
      list[#list + 1] = o
    end
    o.ns = o.ns + it.ns
  end
  table.sort(list, function(a, b)
    if a.ns ~= b.ns then return a.ns > b.ns end
    if a.kind ~= b.kind then return a.kind < b.kind end
    return a.name < b.name
  end)
  return list
end

local function parts(path)
  local p = {}
  for _, name in ipairs(M.PARTS) do p[name .. "_ns"] = 0 end
  for _, it in ipairs(path) do p[it.part .. "_ns"] = p[it.part .. "_ns"] + it.ns end
  return p
end

-- several ranks: the stretches of the path on one rank, the rank holding most of the path's own work (not
-- idle, not communication), and the collectives where a rank waited for a later one
local function gating(path)
  local stretches, per, waits = core.json.array({}), {}, core.json.array({})
  for _, it in ipairs(path) do
    local r = it.rank
    local last = stretches[#stretches]
    if last and last.rank == r then
      last.to_ns, last.ns = it.to, last.ns + it.ns
    else
      stretches[#stretches + 1] = { rank = r, from_ns = it.from, to_ns = it.to, ns = it.ns }
    end
    if it.part ~= "idle" and it.part ~= "communication" then per[r] = (per[r] or 0) + it.ns end
    if it.part == "communication" and it.src_rank then
      waits[#waits + 1] = { collective = it.name, waiting_rank = r, late_rank = it.src_rank, at_ns = it.from }
    end
  end
  local best
  for r, ns in pairs(per) do
    if not best or ns > best.ns or (ns == best.ns and tostring(r) < tostring(best.rank)) then
      best = { rank = r, ns = ns }
    end
  end
  local stretch
  if best then
    for _, s in ipairs(stretches) do
      if s.rank == best.rank and (not stretch or s.ns > stretch.ns) then stretch = s end
    end
  end
  return { rank = best and best.rank or core.json.null, ns = best and best.ns or 0,
    stretch = stretch or core.json.null, stretches = stretches, waits = waits }
end

-- the items' windows as their ranks' labels (or "pid N")
local function label_ranks(g, path)
  for _, it in ipairs(path) do
    it.rank = g.windows[it.win] and g.windows[it.win].label or "?"
    if it.src_win then it.src_rank = g.windows[it.src_win] and g.windows[it.src_win].label or "?" end
  end
end

local function run(tr, groups, rules, policy)
  local cw = {}
  for k, g in ipairs(groups) do cw[k] = g.windows end
  return core.critpath.run(tr, cw, policy.gpu_time.communication, policy.critical_path.blocking,
    #rules > 0 and rules or nil, policy.critical_path.event_record, policy.critical_path.stream_wait)
end

-- summary(steps) → the run's path over its counted steps (the warm-up ones left out, unless every step is one):
-- {steps, counted, warmup_included, median_length_ns, longest = {index, length_ns}, gpu_bound (counted steps
-- whose GPU work outlasts their range: the path ends with the range), parts = {<part>_ns summed},
-- shares = {<part> = share of the summed lengths}, on_path = [{kind, name, ns (summed), steps (counted steps with
-- it on their path), share}]} (items merged over ranks, longest first), and with a what-if what_if =
-- {median_length_ns, median_saved_ns} of the edited paths; nil for fewer than two steps. What to shorten is what
-- is on the path of most steps for the most time, not what one step shows.
function M.summary(list)
  if #list < 2 then return nil end
  local counted = {}
  for _, s in ipairs(list) do if not s.warmup then counted[#counted + 1] = s end end
  local with_warmup = #counted == 0
  if with_warmup then counted = list end
  local lengths, total, longest, bound = {}, 0, nil, 0
  local p, by, items = {}, {}, core.json.array({})
  for _, name in ipairs(M.PARTS) do p[name .. "_ns"] = 0 end
  for i, s in ipairs(counted) do
    lengths[i], total = s.length_ns, total + s.length_ns
    if not longest or s.length_ns > longest.length_ns then longest = s end
    if s.gpu_bound then bound = bound + 1 end
    for _, name in ipairs(M.PARTS) do p[name .. "_ns"] = p[name .. "_ns"] + s.parts[name .. "_ns"] end
    local seen = {}
    for _, it in ipairs(s.on_path) do
      local key = it.kind .. "\0" .. it.name
      local o = by[key]
      if not o then
        o = { kind = it.kind, name = it.name, ns = 0, steps = 0 }
        by[key] = o
        items[#items + 1] = o
      end
      o.ns = o.ns + it.ns
      if not seen[key] and it.ns > 0 then seen[key] = true; o.steps = o.steps + 1 end
    end
  end
  local shares = {}
  for _, name in ipairs(M.PARTS) do shares[name] = total > 0 and p[name .. "_ns"] / total or 0 end
  for _, o in ipairs(items) do o.share = total > 0 and o.ns / total or 0 end
  table.sort(items, function(a, b)
    if a.ns ~= b.ns then return a.ns > b.ns end
    if a.kind ~= b.kind then return a.kind < b.kind end
    return a.name < b.name
  end)
  local sm = { steps = #list, counted = #counted, warmup_included = with_warmup,
    median_length_ns = stragglers.median(lengths), longest = { index = longest.index, length_ns = longest.length_ns },
    gpu_bound = bound, parts = p, shares = shares, on_path = items }
  if counted[1].what_if then
    local after, saved = {}, {}
    for i, s in ipairs(counted) do after[i], saved[i] = s.what_if.length_ns, s.what_if.saved_ns end
    sm.what_if = { median_length_ns = stragglers.median(after), median_saved_ns = stragglers.median(saved) }
  end
  return sm
end

-- document(tr, opts, policy) → the `critical-path --json` document
function M.document(tr, opts, policy)
  need(policy, "critpath.document")
  local groups, rule, between = M.groups(tr, opts, policy)
  local rules = M.parse_what_if(opts.what_if)
  local res = run(tr, groups, rules, policy)
  -- the loop's time outside its steps, which no step's path covers (`gpuflame steps`' summary.between)
  local doc = { source = tr:source() or core.json.null, rule = rule, steps = core.json.array({}),
    between = between or core.json.null,
    what_if = #rules > 0 and { rules = core.json.array({}), note = M.NOTE } or nil }
  for _, r in ipairs(rules) do doc.what_if.rules[#doc.what_if.rules + 1] = r.text end
  for k, g in ipairs(groups) do
    local r = res[k]
    local multi = #g.windows > 1
    label_ranks(g, r.path)
    local s = { index = g.index, name = g.name, warmup = g.warmup or false, start_ns = r.start, span_ns = r.span,
      length_ns = r.length, parts = parts(r.path), on_path = on_path(r.path, multi),
      ranks = #g.windows, graph = { points = r.points, edges = r.edges, dropped_edges = r.dropped } }
    -- a GPU-bound step (docs/SEMANTICS.md "Steps"): its GPU work outlasts the window, and the part that runs
    -- after the window's end is not in the graph; the step's time says how long it is
    if g.gpu_bound then s.gpu_bound, s.step_time_ns = true, g.time_ns end
    if multi then s.gating = gating(r.path) end
    if r.what_if then
      label_ranks(g, r.what_if.path)
      local before = {}
      for _, it in ipairs(s.on_path) do before[it.kind .. "\0" .. it.name] = true end
      local now = on_path(r.what_if.path, multi)
      local new = core.json.array({})
      for _, it in ipairs(now) do
        if not before[it.kind .. "\0" .. it.name] then new[#new + 1] = it end
      end
      s.what_if = { length_ns = r.what_if.length, saved_ns = r.length - r.what_if.length,
        parts = parts(r.what_if.path), on_path = now, newly_critical = new }
      if multi then s.what_if.gating = gating(r.what_if.path) end
    end
    doc.steps[#doc.steps + 1] = s
  end
  doc.summary = M.summary(doc.steps)
  return doc
end

-- page_data(tr, policy) → the timeline's {rule, steps = [{index, name, start, end, length_ns, events}]}: per step
-- (its windows' extent, the trace's ns) the trace indices of the events whose time is on its path, ascending
-- (`timeline --critical-path`, js/timeline_steps.js); the trace must be whole (untrimmed)
function M.page_data(tr, policy)
  need(policy, "critpath.page_data")
  local groups, rule = M.groups(tr, {}, policy)
  local res = run(tr, groups, {}, policy)
  local out = core.json.array({})
  for k, g in ipairs(groups) do
    local a, b
    for _, w in ipairs(g.windows) do
      if w.start and (not a or w.start < a) then a = w.start end
      if w["end"] and (not b or w["end"] > b) then b = w["end"] end
    end
    local r, seen, ev = res[k], {}, {}
    for _, it in ipairs(r.path) do
      for _, i in ipairs(it.events or {}) do
        if not seen[i] then seen[i] = true; ev[#ev + 1] = i end
      end
    end
    table.sort(ev)
    out[k] = { index = g.index, name = g.name, start = a or r.start, ["end"] = b or (r.start + r.span),
      length_ns = r.length, events = core.json.array(ev) }
  end
  return { rule = rule, steps = out }
end

-- stacks(doc) → core.stacks: per step its on_path items as `step N (NAME)[;RANK];KIND;NAME` weighted by their
-- on-path ns (each step's stacks sum to its length_ns); items of 0 ns are left out
function M.stacks(doc)
  local st = core.stacks.new()
  for _, s in ipairs(doc.steps) do
    local step = string.format("step %s (%s)", tostring(s.index), tostring(s.name))
    for _, it in ipairs(s.on_path) do
      if it.ns > 0 then
        local frames = { step }
        if it.rank then frames[#frames + 1] = tostring(it.rank) end
        frames[#frames + 1] = it.kind
        frames[#frames + 1] = it.name
        st:add(frames, it.ns)
      end
    end
  end
  st:set_meta(core.json.encode({ generator = "gpuflame", report = "critical-path", unit_ns = 1, countname = "ns",
    rule = doc.rule }))
  return st
end

return M
