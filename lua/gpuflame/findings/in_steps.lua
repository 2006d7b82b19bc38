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
  for _, r in ipairs(results) do
    local sc, pc = col_index(r, "Start (ns)"), col_index(r, "PID")
    if sc and not r.error and not r.skipped then
      local seen, list, row_steps = {}, {}, {}
      for k, row in ipairs(r.rows) do
        local s, pid = row[sc], pc and row[pc]
        if math.type(s) == "integer" or (type(s) == "number" and s == math.floor(s)) then
          for j, w in ipairs(wins) do
            if s >= w.start and s < w["end"] and (type(pid) ~= "number" or pid == w.pid) then
              row_steps[k] = idx[j]
              local e = seen[j]
              if not e then
                e = { index = idx[j], name = w.name, pid = w.pid, rank = w.rank_label, rows = 0, _k = j }
                seen[j] = e
                list[#list + 1] = e
              end
              e.rows = e.rows + 1
              break
            end
          end
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
