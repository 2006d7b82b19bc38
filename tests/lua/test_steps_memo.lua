-- gpuflame.steps.find reuses what it found on a trace while the trace's NVTX ranges are the same ones
-- (core.trace_steps.ranges_key; issue 42: a timeline's rules and its page find the steps twice): the key
-- stays when the trace gains the NVTX projection's events, changes when a trim drops ranges, and a reused
-- result is the one a fresh trace gives, as copies the caller may change. The windows compared are those of
-- freshly opened traces, not the memo's own.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local steps = require("gpuflame.steps")
local policy = require("gpuflame.policy").defaults()

local db = t.fixtures() .. "/real/cs336-jsun012/result.sqlite" -- `Warm-up Step N` ranges
if not core.fs.stat(db) then
  t.skip("steps memo", "fixture absent: " .. db)
  os.exit(t.done())
end
local function open() return core.trace.open_sqlite(db, { max_events = 0, keep_partners = true }) end

local function text(wins)
  local out = {}
  for k, w in ipairs(wins) do out[k] = string.format("%s %d %d %d", w.name, w.start, w["end"], w.pid) end
  return table.concat(out, "\n")
end

local tr = open()
local key0 = core.trace_steps.ranges_key(tr)
local first = steps.find(tr, nil, policy)
t.check("the fixture has steps", #first > 0, #first)
first[1].name = "changed by the caller"
local again = steps.find(tr, nil, policy)
t.eq("a second find gives copies: the caller's change is not in them", text(steps.find(open(), nil, policy)),
  text(again))

local n0 = tr:count()
local added = tr:add_nvtx_proj(db, 0)
t.check("the projection adds events", added > 0 and tr:count() > n0, added)
t.eq("the key stays when the trace gains the projection's events", key0, core.trace_steps.ranges_key(tr))
t.eq("after the projection: the steps of a fresh trace", text(steps.find(open(), nil, policy)),
  text(steps.find(tr, nil, policy)))

-- a trim that keeps few events drops ranges: the key changes and find looks again
local keep = math.max(1, tr:count() // 50)
tr:trim(keep)
local fresh = open()
fresh:add_nvtx_proj(db, 0)
fresh:trim(keep)
t.check("a trim that drops ranges changes the key", core.trace_steps.ranges_key(tr) ~= key0)
local ok_t, wins_t = pcall(steps.find, tr, nil, policy)
local ok_f, wins_f = pcall(steps.find, fresh, nil, policy)
t.eq("after the trim: what a freshly trimmed trace gives (steps or none)",
  ok_f and text(wins_f) or "none", ok_t and text(wins_t) or "none")
t.check("after the trim: not the untrimmed steps", not ok_t or text(wins_t) ~= text(first))

-- another marker on the same trace is found anew, not taken from the memo
local tr2 = open()
steps.find(tr2, nil, policy)
local ok_m, wins_m = pcall(steps.find, tr2, "^no such range$", policy)
t.check("another marker: no steps (NO_DATA), not the memo's", not ok_m, ok_m and #wins_m)

-- no steps is found once too (a timeline without steps looks for them in its rules and for its page): the
-- second find gives the same error, code and message, without reading the trace's NVTX names again
local names_fn, reads = core.trace_steps.nvtx_names, 0
core.trace_steps.nvtx_names = function(...) reads = reads + 1; return names_fn(...) end
local tr3 = open()
local ok_a, err_a = pcall(steps.find, tr3, "^no such range$", policy)
local ok_b, err_b = pcall(steps.find, tr3, "^no such range$", policy)
core.trace_steps.nvtx_names = names_fn
t.check("no steps: NO_DATA both times", not ok_a and not ok_b and err_a.code == require("gpuflame.errors").NO_DATA and
  err_b.code == err_a.code, tostring(err_b))
t.eq("no steps: the same message the second time", err_a.msg, err_b and err_b.msg)
t.eq("no steps: the NVTX names read once, not twice", 1, reads)
local ok_c = pcall(steps.find, tr3, nil, policy)
t.check("no steps for one marker: the policy's markers are still looked for", ok_c)
os.exit(t.done())
