-- Steps (issue 40; docs/SEMANTICS.md "Steps", docs/STEPS.md): the iterations of a training or benchmark loop
-- found in a capture as NVTX ranges, and what each one launched on the GPU.
--
--   find(tr, marker|nil, policy) → windows, rule: the step ranges (policy steps.markers, or --marker, or the
--     fallback: the repeating range of the main thread) and how they were found
--   measure(tr, windows, policy) → steps: per step the GPU work its launch calls started inside it, per device
--     in docs/SEMANTICS.md's breakdown (core.trace_steps, in C), kernels, launches, top kernels and ranges
--   document(tr, marker, policy) → the `steps --json` document (rule, steps, summary, ranks), the windows
--   pick(doc, wins, which) → the step `--step N|median|slowest` names, and its window
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local gpu_time = require("gpuflame.gpu_time")

local need = require("gpuflame.policy").need
local st = require("gpuflame.stragglers")

local M = {}

-- table.sort(t, lt) unless t is in lt's order already (the windows of one process come in start order; a Lua
-- comparator over 21,600 windows cost 0.04 s a sort)
local function sort_unless_sorted(t, lt)
  for i = 2, #t do
    if lt(t[i], t[i - 1]) then return table.sort(t, lt) end
  end
end

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
  sort_unless_sorted(wins, function(a, b)
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

local function median(v)
  local c = {}
  for i, x in ipairs(v) do c[i] = x end
  table.sort(c)
  local n = #c
  if n == 0 then return 0 end
  if n % 2 == 1 then return c[(n + 1) // 2] end
  return (c[n // 2] + c[n // 2 + 1]) / 2
end
M.median = median

local function p90(v)
  local c = {}
  for i, x in ipairs(v) do c[i] = x end
  table.sort(c)
  if #c == 0 then return 0 end
  return c[math.max(1, math.ceil(0.9 * #c))]
end

-- 1.4826 x the median absolute deviation (the standard deviation of normal data)
local function smad(v)
  local m = median(v)
  local d = {}
  for i, x in ipairs(v) do d[i] = math.abs(x - m) end
  return 1.4826 * median(d)
end

local function ahead(a, b) return a.total > b.total or (a.total == b.total and a.name < b.name) end

-- the first n of list in ahead's order (names are distinct: a total order), picked in one pass rather than by
-- sorting each step's whole list
local function top(list, n)
  local best = {}
  for _, x in ipairs(list) do
    local k = #best
    if k < n or (k > 0 and ahead(x, best[k])) then
      if k == n then k = k - 1 end
      while k > 0 and ahead(x, best[k]) do best[k + 1] = best[k]; k = k - 1 end
      best[k + 1] = x
    end
  end
  for i, x in ipairs(best) do best[i] = { name = x.name, count = x.count, total_ns = x.total } end
  return core.json.array(best)
end

-- measure(tr, wins, policy) → steps (JSON-ready tables in wins' order, index per process)
function M.measure(tr, wins, policy)
  local p = need(policy, "steps.measure").steps
  local cw = {} -- the C windows: the process as correlation knows it (the rank's index in merged traces)
  for k, w in ipairs(wins) do
    cw[k] = { start = w.start, ["end"] = w["end"], pid = w.proc, tid = w.tid, rank = w.rank, level = w.level }
  end
  local res = core.trace_steps.compute(tr, cw, policy.gpu_time.communication)
  local steps, idx = {}, {}
  for k, w in ipairs(wins) do
    local r = res[k]
    local pk = proc_key(w)
    idx[pk] = (idx[pk] or -1) + 1
    local devs, gf, gl = core.json.array({}), nil, nil
    local compute, comm, busiest = 0, 0, 0
    for _, d in ipairs(r.devices) do
      d.span = d.last - d.first
      local o = gpu_time.json(d)
      o.kernels = nil
      devs[#devs + 1] = o
      busiest = math.max(busiest, o.busy_ns)
      gf = gf and math.min(gf, d.first) or d.first
      gl = gl and math.max(gl, d.last) or d.last
      compute, comm = compute + d.compute, comm + d.comm
    end
    local warm = idx[pk] < p.warmup_steps
    for _, pat in ipairs(p.warmup_patterns) do warm = warm or w.name:find(pat) ~= nil end
    steps[k] = {
      index = idx[pk], name = w.name, pid = w.pid, tid = w.tid, rank = w.rank_label or core.json.null,
      start_ns = w.start, end_ns = w["end"], duration_ns = w["end"] - w.start,
      -- the step's time: its CPU range, or its busiest device's work when that takes longer (docs/SEMANTICS.md)
      time_ns = math.max(w["end"] - w.start, busiest), gpu_bound = busiest > w["end"] - w.start,
      gpu_first_ns = gf or core.json.null, gpu_last_ns = gl or core.json.null, gpu_span_ns = gf and (gl - gf) or 0,
      compute_ns = compute, communication_ns = comm,
      devices = devs, kernels = r.kernels, copies = r.copies, memsets = r.memsets, launches = r.launches,
      top_kernels = top(r.kernels_by_name, p.top), top_nvtx = top(r.nvtx, p.top),
      warmup = warm, outlier = false,
      _proc = pk, _rank_index = w.rank,
    }
  end
  return steps
end

-- drift(counted, p) → the drift of the counted steps' times over the run, or null with fewer than
-- p.drift_min_steps (docs/SEMANTICS.md "Steps"): the steps in run order (step index; the ranks' steps of one
-- index side by side), their first and last thirds' medians, and the share of (first, last) pairs in which the
-- later step is the slower, ties half; direction "slower" or "faster" when both say so, else null. parts: the
-- same two medians of each part of the steps' GPU work (summed over their devices), the largest change first.
local DRIFT_PARTS = { "compute", "communication", "copy", "memset", "idle" }

local function part_ns(s, part)
  local v = 0
  for _, d in ipairs(s.devices) do v = v + d[part .. "_ns"] end
  return v
end

local function drift_parts(first, last)
  local parts = core.json.array({})
  for _, part in ipairs(DRIFT_PARTS) do
    local a, b = {}, {}
    for i, s in ipairs(first) do a[i], b[i] = part_ns(s, part), part_ns(last[i], part) end
    local m1, m3 = median(a), median(b)
    parts[#parts + 1] = { part = part, first_median_ns = m1, last_median_ns = m3, change_ns = m3 - m1 }
  end
  table.sort(parts, function(x, y)
    if x.change_ns ~= y.change_ns then return x.change_ns > y.change_ns end
    return x.part < y.part
  end)
  return parts
end

local function drift(counted, p)
  local n = #counted
  if n < p.drift_min_steps then return core.json.null end
  local order = {}
  for i, s in ipairs(counted) do order[i] = { s = s, i = i } end
  sort_unless_sorted(order, function(a, b)
    if a.s.index ~= b.s.index then return a.s.index < b.s.index end
    return a.i < b.i
  end)
  local k = n // 3
  local first, last, fs, ls = {}, {}, {}, {}
  for i = 1, k do
    fs[i], ls[i] = order[i].s, order[n - k + i].s
    first[i], last[i] = fs[i].time_ns, ls[i].time_ns
  end
  local m1, m3 = median(first), median(last)
  table.sort(first)
  table.sort(last)
  local lt, le, slower = 0, 0, 0 -- first-third times below, and at most, the last-third time at hand
  for _, b in ipairs(last) do
    while lt < k and first[lt + 1] < b do lt = lt + 1 end
    while le < k and first[le + 1] <= b do le = le + 1 end
    slower = slower + lt + (le - lt) / 2
  end
  local later_slower = slower / (k * k)
  local change = m3 - m1
  local share = m1 > 0 and change / m1 or 0
  local dir = core.json.null
  if math.abs(share) >= p.drift_min_share then
    if change > 0 and later_slower >= p.drift_agreement then dir = "slower" end
    if change < 0 and later_slower <= 1 - p.drift_agreement then dir = "faster" end
  end
  return { steps_per_third = k, first_median_ns = m1, last_median_ns = m3, change_ns = change, share = share,
    later_slower = later_slower, direction = dir, parts = drift_parts(fs, ls) }
end

-- summary of the steps of one group: counted = not warm-up (all when every step is warm-up); outliers flagged
local function summarize(steps, p)
  local counted = {}
  for _, s in ipairs(steps) do if not s.warmup then counted[#counted + 1] = s end end
  local with_warmup = #counted == 0
  if with_warmup then counted = steps end
  local t, d, g, nbound = {}, {}, {}, 0
  for i, s in ipairs(counted) do
    t[i], d[i], g[i] = s.time_ns, s.duration_ns, s.gpu_span_ns
    if s.gpu_bound then nbound = nbound + 1 end
  end
  local med, noise = median(t), smad(t)
  local outliers, slowest = core.json.array({}), nil
  for _, s in ipairs(counted) do
    local dev = math.abs(s.time_ns - med)
    if dev > p.outlier_mad * noise and dev > p.outlier_min_share * med then
      s.outlier = true
      outliers[#outliers + 1] = s.index
    end
    if not slowest or s.time_ns > slowest.time_ns then slowest = s end
  end
  local nwarm = 0
  for _, s in ipairs(steps) do if s.warmup then nwarm = nwarm + 1 end end
  return {
    steps = #steps, counted = #counted, warmup = nwarm, warmup_included = with_warmup,
    median_ns = med, p90_ns = p90(t), max_ns = slowest and slowest.time_ns or 0,
    slowest = slowest and slowest.index or core.json.null, slowest_rank = slowest and slowest.rank or core.json.null,
    slowest_pid = slowest and slowest.pid or core.json.null, noise_ns = noise, outliers = outliers,
    median_duration_ns = median(d), median_gpu_span_ns = median(g), gpu_bound = nbound,
    drift = drift(counted, p),
  }
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
  local steps = M.measure(tr, wins, policy)
  local groups, order = {}, {}
  for _, s in ipairs(steps) do
    if not groups[s._proc] then groups[s._proc] = {}; order[#order + 1] = s._proc end
    table.insert(groups[s._proc], s)
  end
  local summary = summarize(steps, p)
  local per = core.json.array({})
  if #order > 1 then
    for _, pk in ipairs(order) do
      local g = groups[pk]
      local sm = summarize(g, p)
      sm.rank, sm.pid = g[1].rank, g[1].pid
      per[#per + 1] = sm
    end
    summary = summarize(steps, p) -- flags every outlier against the whole run; per-rank flags stand too
  end
  local doc = { rule = rule, rule_text = M.rule_text(rule), source = tr:source() or core.json.null,
    definitions = gpu_time.DEFINITIONS_DOC, steps = core.json.array({}), summary = summary,
    processes = per, ranks = #order > 1 and across(groups, order, policy) or core.json.array({}) }
  for k, s in ipairs(steps) do
    s._proc, s._rank_index = nil, nil
    doc.steps[k] = s
  end
  return doc, wins
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
    local med, best = median(d), nil
    for _, x in ipairs(counted) do
      if not best or math.abs(x.s.time_ns - med) < math.abs(best.s.time_ns - med) then best = x end
    end
    return best.s, best.w
  end
  errors.raise(errors.USAGE, "--step: give a step index, median or slowest (got '%s')", tostring(which))
end

return M
