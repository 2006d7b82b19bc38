-- gpuflame.findings.in_steps: a finding's row belongs to the first step window (in the order steps.find gives:
-- rank, process, start, longest first) that holds its start on its process (any process for a row without a
-- PID). The lookup is a binary search per (rank, process); here it is checked against the definition itself,
-- a scan of every window, on random windows that nest, overlap, share starts and repeat pids across ranks.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local pol = require("gpuflame.policy").effective({})

local wins -- what the stubbed steps.find returns (copies, as the real one does)
package.loaded["gpuflame.steps"] = { find = function()
  local out = {}
  for k, w in ipairs(wins) do out[k] = { rank = w.rank, pid = w.pid, start = w.start, ["end"] = w["end"],
    name = w.name, rank_label = w.rank_label } end
  return out
end }
local in_steps = require("gpuflame.findings.in_steps")

-- the definition: the first window in order holding s on pid
local function scan(s, pid)
  for j, w in ipairs(wins) do
    if s >= w.start and s < w["end"] and (type(pid) ~= "number" or pid == w.pid) then return j end
  end
end

math.randomseed(42)
local mismatches, rows_in_steps, cases = 0, 0, 0
for round = 1, 200 do
  wins = {}
  for _ = 1, math.random(1, 40) do
    local start = math.random(0, 1000)
    wins[#wins + 1] = { rank = math.random(0, 1), pid = math.random(1, 3), start = start,
      ["end"] = start + math.random(1, round % 3 == 0 and 400 or 60), name = "step", rank_label = nil }
  end
  table.sort(wins, function(a, b)
    if a.rank ~= b.rank then return a.rank < b.rank end
    if a.pid ~= b.pid then return a.pid < b.pid end
    if a.start ~= b.start then return a.start < b.start end
    return a["end"] > b["end"]
  end)
  local rows = {}
  for k = 1, 30 do
    local s = math.random(-10, 1500)
    rows[k] = { s, k % 4 == 0 and "n/a" or math.random(1, 4) }
    if k % 7 == 0 then rows[k][1] = s + 0.0 end -- a float start that is whole
  end
  local r = { columns = { "Start (ns)", "PID" }, rows = rows }
  in_steps.annotate({}, { r }, pol)
  -- the step index each window gets: its position among its (rank, process)'s windows, from 0
  local idx, per = {}, {}
  for j, w in ipairs(wins) do
    local key = w.rank .. "/" .. w.pid
    per[key] = (per[key] or -1) + 1
    idx[j] = per[key]
  end
  for k, row in ipairs(rows) do
    cases = cases + 1
    local want = scan(row[1], row[2])
    local got = r.row_steps and r.row_steps[k]
    if (want and idx[want]) ~= got then mismatches = mismatches + 1 end
    if want then rows_in_steps = rows_in_steps + 1 end
  end
end
t.eq("every row's step equals the scan's (6,000 rows on 200 random window sets)", 0, mismatches)
t.ok("... most rows fall in a step, some in none", rows_in_steps > 1000 and rows_in_steps < cases)

-- the windows a result lists: in window order, with their rows counted
wins = { { rank = 0, pid = 1, start = 0, ["end"] = 100, name = "a" }, { rank = 0, pid = 1, start = 100, ["end"] = 200,
  name = "b" }, { rank = 0, pid = 2, start = 0, ["end"] = 300, name = "c" } }
local r = { columns = { "Start (ns)", "PID" }, rows = { { 150, 1 }, { 50, 2 }, { 10, 1 }, { 120, 1 }, { 400, 1 } } }
in_steps.annotate({}, { r }, pol)
t.eq("a result's steps in window order with their rows", "0 a 1 / 1 b 2 / 0 c 1",
  table.concat((function()
    local out = {}
    for _, e in ipairs(r.steps) do out[#out + 1] = e.index .. " " .. e.name .. " " .. e.rows end
    return out
  end)(), " / "))
t.eq("... a row outside every step has none", nil, r.row_steps[5])
t.done()
