-- Findings named by the step their rows fall in (issue 40; docs/SEMANTICS.md "Steps"): a row with a time
-- window (`Start (ns)`, and `PID` when the rule gives one) belongs to the step whose marker range holds its
-- start on that process. A capture without steps leaves the findings as they are.
local errors = require("gpuflame.errors")
local steps = require("gpuflame.steps")
local need = require("gpuflame.policy").need
local col_name = require("gpuflame.findings.format").col_name

local M = {}

local function col_index(r, name)
  for i, c in ipairs(r.columns or {}) do
    if col_name(c) == name then return i end
  end
end

-- The windows grouped by (rank, process), in wins order, for `first_holding`: each group's starts ascend (wins are
-- in (rank, process, start) order) and `reach[i]` is the latest end among its windows 1..i.
local function groups_of(wins)
  local groups, by = {}, {}
  for j, w in ipairs(wins) do
    local key = w.rank .. "/" .. w.pid
    local g = by[key]
    if not g then
      g = { pid = w.pid, starts = {}, reach = {}, at = {} }
      by[key] = g
      groups[#groups + 1] = g
    end
    local i = #g.starts + 1
    g.starts[i], g.at[i] = w.start, j
    g.reach[i] = math.max(g.reach[i - 1] or w["end"], w["end"])
  end
  return groups
end

-- the first i in 1..n with not before(i) (before is true up to some index, false after)
local function first_not(n, before)
  local lo, hi = 1, n + 1
  while lo < hi do
    local mid = (lo + hi) // 2
    if before(mid) then lo = mid + 1 else hi = mid end
  end
  return lo
end

-- The first window in wins order that holds time s (start <= s < end) on process pid (any process when pid is
-- not a number): its index in wins, or nil. Within a group the windows that start by s are a prefix, and the
-- first window ending after s is the first whose reach does; it holds s when it is in that prefix.
local function first_holding(groups, s, pid)
  for _, g in ipairs(groups) do
    if type(pid) ~= "number" or g.pid == pid then
      local n = #g.starts
      local k = first_not(n, function(i) return g.starts[i] <= s end) - 1
      local i = first_not(n, function(i) return g.reach[i] <= s end)
      if i <= k then return g.at[i] end
    end
  end
  return nil
end

-- annotate(tr, results, pol): each result whose rows fall in steps gets r.steps = {{index, name, pid, rank,
-- rows}...} (in step order; rank: the rank's label or nil) and r.row_steps[k] = the index of row k's step
function M.annotate(tr, results, pol)
  need(pol, "findings.in_steps")
  local ok, wins = errors.try(steps.find, tr, nil, pol)
  if not ok then
    if wins.code == errors.INTERRUPTED then error(wins, 0) end
    return -- no steps in this capture
  end
  local idx, proc = {}, {}
  for k, w in ipairs(wins) do
    local pk = w.rank .. "/" .. w.pid
    proc[pk] = (proc[pk] or -1) + 1
    idx[k] = proc[pk]
  end
  local groups = groups_of(wins)
  for _, r in ipairs(results) do
    local sc, pc = col_index(r, "Start (ns)"), col_index(r, "PID")
    if sc and not r.error and not r.skipped then
      local seen, list, row_steps = {}, {}, {}
      for k, row in ipairs(r.rows) do
        local s, pid = row[sc], pc and row[pc]
        local j = (math.type(s) == "integer" or (type(s) == "number" and s == math.floor(s))) and
          first_holding(groups, s, pid)
        if j then
          local w = wins[j]
          row_steps[k] = idx[j]
          local e = seen[j]
          if not e then
            e = { index = idx[j], name = w.name, pid = w.pid, rank = w.rank_label, rows = 0, _k = j }
            seen[j] = e
            list[#list + 1] = e
          end
          e.rows = e.rows + 1
        end
      end
      if #list > 0 then
        table.sort(list, function(a, b) return a._k < b._k end)
        for _, e in ipairs(list) do e._k = nil end
        r.steps, r.row_steps = list, row_steps
      end
    end
  end
end

return M
