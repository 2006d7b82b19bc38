-- gpuflame.stragglers: a lag counts only above every part of the noise floor (docs/SEMANTICS.md
-- "Stragglers and the noise floor"). Values planted so that each part decides once, known by construction.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local st = require("gpuflame.stragglers")
local s = { noise_floor_ns = 50000, noise_floor_share = 0.01, straggler_mad_k = 3, straggler_threshold = 0.05 }

-- 2.35 us over 35 us: 6.7 % above the others' median, but far under 50 us (issue 41)
local x = st.lag({ 35000, 35000, 35000, 37350 }, 4, 0, s)
t.eq("2.35 us of 35 us: lag 2350 ns", 2350, x.lag)
t.eq("2.35 us of 35 us: within noise, the absolute floor decides", "false abs", tostring(x.above) .. " " .. x.why)
-- a 1 ms lag on 10 ms of compute over a 500 ms span: the share of the span (5 ms) decides
x = st.lag({ 10e6, 10e6, 11e6 }, 3, 500e6, s)
t.eq("1 ms lag in a 500 ms span: under 1 % of the span", "false share 5000000", tostring(x.above) .. " " .. x.why ..
  " " .. math.floor(x.floor))
-- others spread widely (MAD 2 ms): a 5 ms lag is what their spread explains (3 x 1.4826 x 2 ms = 8.9 ms)
x = st.lag({ 100e6, 102e6, 98e6, 105e6 }, 4, 0, s)
t.eq("spread: median of the others 100 ms, MAD 2 ms", "100000000 2000000", math.floor(x.median) .. " " ..
  math.floor(x.mad))
t.eq("spread: a 5 ms lag is within what the others' spread explains", "false spread", tostring(x.above) .. " " ..
  x.why)
-- the same lag with tight others: a straggler
x = st.lag({ 100e6, 100e6, 100e6, 150e6 }, 4, 300e6, s)
t.eq("1.5x with tight others: above every part", "true 50000000", tostring(x.above) .. " " .. math.floor(x.lag))
-- one rank alone: nothing to lag behind
t.eq("one rank: never above", false, st.lag({ 5 }, 1, 0, s).above)
return t.done()
