-- The summary of a loop's steps (docs/SEMANTICS.md "Steps", for gpuflame.steps): over the counted steps (all but
-- the warm-up ones, unless every step is one), their times' median, p90, max and slowest step, the outliers (a
-- MAD rule), the drift from the first third to the last, and the time between the steps.
--
--   summarize(steps, p) → the summary (p: policy steps); flags the outliers on the steps
--   median(v), top(list, n), sort_unless_sorted(t, lt): the helpers gpuflame.steps shares
local core = require("gpuflame.core")
local median = require("gpuflame.stragglers").median

local M = {}

-- table.sort(t, lt) unless t is in lt's order already (the windows of one process come in start order; a Lua
-- comparator over 21,600 windows cost 0.04 s a sort)
local function sort_unless_sorted(t, lt)
  for i = 2, #t do
    if lt(t[i], t[i - 1]) then return table.sort(t, lt) end
  end
end

M.sort_unless_sorted = sort_unless_sorted

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
-- between(counted, p) → the gaps after the counted steps that have a next step, summed (docs/SEMANTICS.md
-- "Steps"), or null when none has one
local function between(counted, p)
  local list, names, order = {}, {}, {}
  local b = { gaps = 0, loop_ns = 0, total_ns = 0, tail_ns = 0, kernels = 0, copies = 0, memsets = 0, launches = 0,
    busy_ns = 0, compute_ns = 0, max_ns = -1 }
  for _, s in ipairs(counted) do
    local x = s._gap
    if x then
      b.gaps = b.gaps + 1
      list[#list + 1] = s.gap_ns
      b.loop_ns, b.total_ns, b.tail_ns = b.loop_ns + x.period, b.total_ns + s.gap_ns, b.tail_ns + x.tail
      if s.gap_ns > b.max_ns then b.max_ns, b.longest_after, b.longest_rank = s.gap_ns, s.index, s.rank end
      b.kernels, b.copies, b.memsets, b.launches = b.kernels + x.kernels, b.copies + x.copies,
        b.memsets + x.memsets, b.launches + x.launches
      b.busy_ns, b.compute_ns = b.busy_ns + x.busy, b.compute_ns + x.compute
      for _, r in ipairs(x.ranges) do
        local e = names[r.name]
        if not e then
          e = { name = r.name, count = 0, total = 0 }
          names[r.name] = e
          order[#order + 1] = e
        end
        e.count, e.total = e.count + r.count, e.total + r.total
      end
    end
  end
  if b.gaps == 0 then return core.json.null end
  b.median_ns = median(list)
  b.share = b.loop_ns > 0 and b.total_ns / b.loop_ns or 0
  b.outside_share = b.loop_ns > 0 and (b.total_ns - b.tail_ns) / b.loop_ns or 0
  b.mostly_between = b.outside_share >= p.between_share
  b.ranges = top(order, p.top)
  return b
end

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
    drift = drift(counted, p), between = between(counted, p),
  }
end

M.summarize = summarize
M.between = between
M.top = top
return M
