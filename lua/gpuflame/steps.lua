-- Steps (issue 40; docs/SEMANTICS.md "Steps", docs/STEPS.md): the iterations of a training or benchmark loop
-- found in a capture as NVTX ranges, and what each one launched on the GPU.
--
--   find(tr, marker|nil, policy) → windows, rule: the step ranges (policy steps.markers, or --marker, or the
--     fallback: the repeating range of the main thread) and how they were found
--   measure(tr, windows, light, policy) → steps: per step the GPU work its launch calls started inside it, per device
--     in docs/SEMANTICS.md's breakdown (core.trace_steps, in C), kernels, launches, top kernels and ranges
--   document(tr, marker, policy) → the `steps --json` document (rule, steps, summary, ranks), the windows
--   loop(tr, marker, policy) → the rule and the summary's counts, median and `between` alone (gpuflame.diff_loop)
--   pick(doc, wins, which) → the step `--step N|median|slowest` names, and its window
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local gpu_time = require("gpuflame.gpu_time")

local need = require("gpuflame.policy").need
local st = require("gpuflame.stragglers")
local summary_of = require("gpuflame.steps_summary")

local M = {}

local function thread_key(r) return string.format("%d/%d/%d", r.rank, r.pid, r.tid) end
local function proc_key(r) return string.format("%d/%d", r.rank, r.pid) end

-- the ranges of names (rows of nvtx_names) kept where keep(range) says so, in start order
local function ranges_of(tr, rows, keep)
  local ids, seen = {}, {}
  for _, r in ipairs(rows) do
    if not seen[r.id] then seen[r.id] = true; ids[#ids + 1] = r.id end
  end
  local out = {}
  for _, g in ipairs(core.trace_steps.nvtx_ranges(tr, ids)) do
    if keep(g) then out[#out + 1] = g end
  end
  return out
end

-- marker rule: the first pattern matching at least min_repeats ranges of one thread; on each such thread the
-- matches at their outermost level
local function by_markers(tr, names, markers, p)
  for _, m in ipairs(markers) do
    local per_thread, rows = {}, {}
    for _, r in ipairs(names) do
      if r.name:find(m.pattern) then
        local k = thread_key(r)
        local t = per_thread[k] or { count = 0, level = math.huge }
        per_thread[k] = t
        t.count = t.count + r.count
        t.level = math.min(t.level, r.level)
        rows[#rows + 1] = r
      end
    end
    local ok = false
    for _, t in pairs(per_thread) do ok = ok or t.count >= p.min_repeats end
    if ok then
      local wins = ranges_of(tr, rows, function(g)
        local t = per_thread[thread_key(g)]
        return t and t.count >= p.min_repeats and g.level == t.level and g.name:find(m.pattern) ~= nil
      end)
      return wins, { kind = "marker", pattern = m.pattern, convention = m.convention }
    end
  end
end

-- a range's name with its digit runs as N: "Batch 12" and "Batch 13" are one repeating range
local function shape(name) return (name:gsub("%d+", "N")) end

-- fallback rule: per process, its main thread (the thread whose id is the process id when it has ranges, else
-- the one with the most), its ranges of the default domain (a named domain is a library's: MPI, cuBLAS), the
-- outermost level (at most fallback_depth down) where a name shape repeats at least min_repeats times; of
-- those, the one covering the most time
local function by_fallback(tr, names, p)
  local threads, procs = {}, {}
  for _, r in ipairs(names) do
    if r.domain then goto continue end -- a library's own domain (MPI, cuBLAS, ...): not the user's loop
    local k = thread_key(r)
    local t = threads[k]
    if not t then
      t = { rank = r.rank, pid = r.pid, tid = r.tid, count = 0, rows = {} }
      threads[k] = t
      local pk = proc_key(r)
      procs[pk] = procs[pk] or {}
      table.insert(procs[pk], t)
    end
    t.count = t.count + r.count
    table.insert(t.rows, r)
    ::continue::
  end
  local chosen, pick_names = {}, {}
  local pkeys = {}
  for k in pairs(procs) do pkeys[#pkeys + 1] = k end
  table.sort(pkeys)
  for _, pk in ipairs(pkeys) do
    local main
    for _, t in ipairs(procs[pk]) do
      if t.tid == t.pid then main = t end
    end
    if not main then
      for _, t in ipairs(procs[pk]) do
        if not main or t.count > main.count or (t.count == main.count and t.tid < main.tid) then main = t end
      end
    end
    for depth = 0, p.fallback_depth do
      local shapes, best = {}, nil
      for _, r in ipairs(main.rows) do
        if math.max(r.level, 0) == depth then
          local s = shape(r.name)
          local x = shapes[s] or { shape = s, count = 0, total = 0 }
          shapes[s] = x
          x.count = x.count + r.count
          x.total = x.total + r.total
        end
      end
      for _, x in pairs(shapes) do
        if x.count >= p.min_repeats and (not best or x.total > best.total or
            (x.total == best.total and x.shape < best.shape)) then
          best = x
        end
      end
      if best then
        chosen[thread_key(main)] = { shape = best.shape, depth = depth }
        pick_names[best.shape] = true
        break
      end
    end
  end
  if next(chosen) == nil then return nil end
  local rows = {}
  for _, r in ipairs(names) do
    local c = chosen[thread_key(r)]
    if c and not r.domain and math.max(r.level, 0) == c.depth and shape(r.name) == c.shape then rows[#rows + 1] = r end
  end
  local wins = ranges_of(tr, rows, function(g)
    local c = chosen[thread_key(g)]
    return c and math.max(g.level, 0) == c.depth and shape(g.name) == c.shape
  end)
  local shapes, depths = {}, {}
  for s in pairs(pick_names) do shapes[#shapes + 1] = s end
  table.sort(shapes)
  for _, c in pairs(chosen) do depths[c.depth] = true end
  local dl = {}
  for d in pairs(depths) do dl[#dl + 1] = d end
  table.sort(dl)
  return wins, { kind = "fallback", names = shapes, depth = dl[1] }
end

-- what find found per trace (weak keys), reused while the trace's NVTX ranges, the marker and the policy are
-- the same: a timeline's rules and its page find one capture's steps twice (issue 42: 0.5 s of the page on a
-- 368 MB export); the trace gains the NVTX projection's events in between, which are no steps' ranges. A
-- capture without steps is found so once too (NO_DATA, or USAGE for a bad --marker: the same every time).
local found = setmetatable({}, { __mode = "k" })

local function copy(wins)
  local out = {}
  for k, w in ipairs(wins) do
    local c = {}
    for f, v in pairs(w) do c[f] = v end
    out[k] = c
  end
  return out
end

local function find_in(tr, marker, p)
  local names = core.trace_steps.nvtx_names(tr)
  if #names == 0 then
    errors.raise(errors.NO_DATA, "%s: no NVTX ranges: steps are found from NVTX ranges (capture with --trace nvtx " ..
      "and mark each iteration, e.g. torch.cuda.nvtx.range_push(f\"step {i}\"))", tr:source() or "input")
  end
  local wins, rule
  if marker then
    if not pcall(string.find, "", marker) then errors.raise(errors.USAGE, "--marker: not a Lua pattern: %s", marker) end
    wins, rule = by_markers(tr, names, { { pattern = marker, convention = "--marker" } }, p)
  else
    wins, rule = by_markers(tr, names, p.markers, p)
    if not wins then wins, rule = by_fallback(tr, names, p) end
  end
  if not wins or #wins == 0 then
    errors.raise(errors.NO_DATA, "%s: no steps: no NVTX range matches %s at least %d times on one thread%s",
      tr:source() or "input", marker and ("--marker " .. marker) or "policy steps.markers", p.min_repeats,
      marker and "" or ", and no range of a main thread repeats that often")
  end
  summary_of.sort_unless_sorted(wins, function(a, b)
    if a.rank ~= b.rank then return a.rank < b.rank end
    if a.pid ~= b.pid then return a.pid < b.pid end
    if a.start ~= b.start then return a.start < b.start end
    return a["end"] > b["end"]
  end)
  return wins, rule
end

-- find(tr, marker, policy) → windows (NVTX ranges, in (rank, process, start) order), rule; NO_DATA without steps
function M.find(tr, marker, policy)
  local p = need(policy, "steps.find").steps
  local key, memo = core.trace_steps.ranges_key(tr, policy.limits.threads), found[tr]
  if not (memo and memo.key == key and memo.marker == marker and memo.p == p) then
    local ok, wins, rule = errors.try(find_in, tr, marker, p)
    if not ok and wins.code ~= errors.NO_DATA and wins.code ~= errors.USAGE then error(wins, 0) end
    memo = { key = key, marker = marker, p = p, wins = ok and wins, rule = rule, err = not ok and wins }
    found[tr] = memo
  end
  if memo.err then error(errors.new(memo.err.code, "%s", memo.err.msg), 0) end
  return copy(memo.wins), memo.rule
end

-- rule_text(rule) → one line saying how the steps were found
function M.rule_text(rule)
  if rule.kind == "marker" then
    return string.format("NVTX ranges matching %s (%s)", rule.pattern, rule.convention)
  end
  return string.format("fallback: the repeating range %s of the main thread (nesting level %d)",
    table.concat(rule.names, ", "), rule.depth)
end

-- The gap after each step that has a next one on its process (docs/SEMANTICS.md "Steps"): gap_ns (null for the
-- last), and s._gap = {period, tail (how far into the gap the step's own GPU work ran), ranges (its thread's
-- outermost NVTX ranges in the gap), the GPU work launched in it}, which the summary's `between` sums.
local function gaps(tr, wins, steps, comm)
  local last, after, gw = {}, {}, {}
  for k, w in ipairs(wins) do
    steps[k].gap_ns = core.json.null
    local pk = proc_key(w)
    local a = last[pk]
    if a then
      local prev = wins[a]
      local gap, last_gpu = math.max(0, w.start - prev["end"]), steps[a].gpu_last_ns
      steps[a].gap_ns = gap
      steps[a]._gap = { period = w.start - prev.start, ranges = {}, kernels = 0, copies = 0, memsets = 0,
        launches = 0, busy = 0, compute = 0,
        tail = math.type(last_gpu) == "integer" and math.min(gap, math.max(0, last_gpu - prev["end"])) or 0 }
      if w.start > prev["end"] then
        gw[#gw + 1] = { start = prev["end"], ["end"] = w.start, pid = prev.proc, tid = prev.tid, rank = prev.rank,
          outer = true }
        after[#gw] = a
      end
    end
    last[pk] = k
  end
  if #gw == 0 then return end
  for g, r in ipairs(core.trace_steps.compute(tr, gw, comm, { kernels = false })) do
    local x = steps[after[g]]._gap
    x.ranges, x.kernels, x.copies, x.memsets, x.launches = r.nvtx, r.kernels, r.copies, r.memsets, r.launches
    for _, d in ipairs(r.devices) do x.busy, x.compute = x.busy + d.busy, x.compute + d.compute end
  end
end

-- measure(tr, wins, light, policy) → steps (JSON-ready tables in wins' order, index per process); light: only
-- what the times and the gaps need (no devices, kernels or NVTX ranges per step: M.loop)
function M.measure(tr, wins, light, policy)
  local p = need(policy, "steps.measure").steps
  local cw = {} -- the C windows: the process as correlation knows it (the rank's index in merged traces)
  for k, w in ipairs(wins) do
    cw[k] = { start = w.start, ["end"] = w["end"], pid = w.proc, tid = w.tid, rank = w.rank, level = w.level }
  end
  local res = core.trace_steps.compute(tr, cw, policy.gpu_time.communication,
    light and { kernels = false, nvtx = false } or nil)
  local steps, idx = {}, {}
  for k, w in ipairs(wins) do
    local r = res[k]
    local pk = proc_key(w)
    idx[pk] = (idx[pk] or -1) + 1
    local devs, gf, gl = core.json.array({}), nil, nil
    local compute, comm, busiest = 0, 0, 0
    for _, d in ipairs(r.devices) do
      busiest = math.max(busiest, d.busy)
      gf = gf and math.min(gf, d.first) or d.first
      gl = gl and math.max(gl, d.last) or d.last
      compute, comm = compute + d.compute, comm + d.comm
      if not light then
        d.span = d.last - d.first
        local o = gpu_time.json(d)
        o.kernels = nil
        devs[#devs + 1] = o
      end
    end
    local warm = idx[pk] < p.warmup_steps
    for _, pat in ipairs(p.warmup_patterns) do warm = warm or w.name:find(pat) ~= nil end
    if light then
      steps[k] = { index = idx[pk], name = w.name, start_ns = w.start, end_ns = w["end"],
        time_ns = math.max(w["end"] - w.start, busiest), gpu_last_ns = gl or core.json.null, warmup = warm, _proc = pk }
    else
      steps[k] = {
        index = idx[pk], name = w.name, pid = w.pid, tid = w.tid, rank = w.rank_label or core.json.null,
        start_ns = w.start, end_ns = w["end"], duration_ns = w["end"] - w.start,
        -- the step's time: its CPU range, or its busiest device's work when that takes longer (docs/SEMANTICS.md)
        time_ns = math.max(w["end"] - w.start, busiest), gpu_bound = busiest > w["end"] - w.start,
        gpu_first_ns = gf or core.json.null, gpu_last_ns = gl or core.json.null, gpu_span_ns = gf and (gl - gf) or 0,
        compute_ns = compute, communication_ns = comm,
        devices = devs, kernels = r.kernels, copies = r.copies, memsets = r.memsets, launches = r.launches,
        top_kernels = summary_of.top(r.kernels_by_name, p.top), top_nvtx = summary_of.top(r.nvtx, p.top),
        warmup = warm, outlier = false,
        _proc = pk, _rank_index = w.rank,
      }
    end
  end
  gaps(tr, wins, steps, policy.gpu_time.communication)
  return steps
end

-- step k of every process side by side. The slowest rank of a step is the one whose GPU work computed longest
-- in it (compute_ns summed over its devices: the others wait for it in their collectives, so the steps' own
-- lengths hardly differ); its margin is its lag, compute minus the median of the other ranks', and whether it
-- is above noise is rank-skew's noise floor (gpuflame.stragglers, policy ranks.*, docs/SEMANTICS.md
-- "Stragglers and the noise floor"), the reference being the step's median duration over the ranks.
local function across(groups, order, policy)
  local n = math.huge
  for _, pk in ipairs(order) do n = math.min(n, #groups[pk]) end
  local out = core.json.array({})
  for k = 1, n do
    local row = { index = k - 1, ranks = core.json.array({}) }
    local values, durs, slow = {}, {}, 1
    for j, pk in ipairs(order) do
      local s = groups[pk][k]
      row.ranks[#row.ranks + 1] = { rank = s.rank, pid = s.pid, name = s.name, duration_ns = s.duration_ns,
        gpu_span_ns = s.gpu_span_ns, compute_ns = s.compute_ns, communication_ns = s.communication_ns }
      values[j], durs[j] = s.compute_ns, s.duration_ns
      if s.compute_ns > values[slow] then slow = j end
    end
    local x = st.lag(values, slow, st.median(durs), policy.ranks)
    local s = groups[order[slow]][k]
    row.slowest = { rank = s.rank, pid = s.pid, compute_ns = s.compute_ns }
    row.margin_ns = x.lag
    row.others_median_ns = x.median
    row.noise_ns = math.floor(x.floor)
    row.floor_part = x.why
    row.above_noise = x.above
    out[#out + 1] = row
  end
  return out
end

-- document(tr, marker, policy) → the `steps --json` document, and the windows (in the steps' order)
function M.document(tr, marker, policy)
  local p = need(policy, "steps.document").steps
  local wins, rule = M.find(tr, marker, policy)
  local steps = M.measure(tr, wins, false, policy)
  local groups, order = {}, {}
  for _, s in ipairs(steps) do
    if not groups[s._proc] then groups[s._proc] = {}; order[#order + 1] = s._proc end
    table.insert(groups[s._proc], s)
  end
  local summary = summary_of.summarize(steps, p)
  local per = core.json.array({})
  if #order > 1 then
    for _, pk in ipairs(order) do
      local g = groups[pk]
      local sm = summary_of.summarize(g, p)
      sm.rank, sm.pid = g[1].rank, g[1].pid
      per[#per + 1] = sm
    end
    summary = summary_of.summarize(steps, p) -- flags every outlier against the whole run; per-rank flags stand too
  end
  local doc = { rule = rule, rule_text = M.rule_text(rule), source = tr:source() or core.json.null,
    definitions = gpu_time.DEFINITIONS_DOC, steps = core.json.array({}), summary = summary,
    processes = per, ranks = #order > 1 and across(groups, order, policy) or core.json.array({}) }
  for k, s in ipairs(steps) do
    s._proc, s._rank_index, s._gap = nil, nil, nil
    doc.steps[k] = s
  end
  return doc, wins
end

-- loop(tr, marker, policy) → {rule, rule_text, summary = {steps, counted, median_ns, between}}: what gpuflame.diff_loop
-- reads of M.document's, without the per-step documents (on 21,600 steps a fifth of its time and memory)
function M.loop(tr, marker, policy)
  local p = need(policy, "steps.loop").steps
  local wins, rule = M.find(tr, marker, policy)
  local steps = M.measure(tr, wins, true, policy)
  local counted, times = {}, {}
  for _, s in ipairs(steps) do if not s.warmup then counted[#counted + 1] = s end end
  if #counted == 0 then counted = steps end
  for i, s in ipairs(counted) do times[i] = s.time_ns end
  return { rule = rule, rule_text = M.rule_text(rule), summary = { steps = #steps, counted = #counted,
    median_ns = summary_of.median(times), between = summary_of.between(counted, p) } }
end

-- pick(doc, wins, which) → step, window: the step (of the first process) named by --step: an index, "median" (time nearest the
-- median of the counted steps) or "slowest" (the longest time); USAGE error otherwise
function M.pick(doc, wins, which)
  local first = doc.steps[1]
  local mine = {}
  for k, s in ipairs(doc.steps) do
    if s.pid == first.pid and s.rank == first.rank then mine[#mine + 1] = { s = s, w = wins[k] } end
  end
  local n = tonumber(which)
  if n then
    for _, x in ipairs(mine) do if x.s.index == n then return x.s, x.w end end
    errors.raise(errors.USAGE, "--step %s: no such step (steps 0 to %d)", which, #mine - 1)
  end
  local counted = {}
  for _, x in ipairs(mine) do if not x.s.warmup then counted[#counted + 1] = x end end
  if #counted == 0 then counted = mine end
  if which == "slowest" then
    local best
    for _, x in ipairs(counted) do if not best or x.s.time_ns > best.s.time_ns then best = x end end
    return best.s, best.w
  elseif which == "median" then
    local d = {}
    for i, x in ipairs(counted) do d[i] = x.s.time_ns end
    local med, best = summary_of.median(d), nil
    for _, x in ipairs(counted) do
      if not best or math.abs(x.s.time_ns - med) < math.abs(best.s.time_ns - med) then best = x end
    end
    return best.s, best.w
  end
  errors.raise(errors.USAGE, "--step: give a step index, median or slowest (got '%s')", tostring(which))
end

return M
