-- JSON encode/decode of deeply nested values: every level needs room on the Lua stack (a missing
-- lua_checkstack wrote past its end at ~100 levels: heap corruption found by fuzz_json).
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local json = require("gpuflame.core").json
local arr = { 0 }
local cur = arr
for i = 1, 190 do local n = { i }; cur[2] = n; cur = n end
local a = json.encode(arr)
t.eq("190-deep array round trip", a, json.encode(json.decode(a)))
t.check("190-deep array, pretty", #json.encode(json.decode(a), { pretty = true }) > #a)
local obj = {}
cur = obj
for _ = 1, 190 do local n = {}; cur.k = n; cur = n end
t.eq("190-deep object", string.rep('{"k":', 190) .. "{}" .. string.rep("}", 190), json.encode(obj))
local ok, err = pcall(json.encode, (function() local x = {}; local c = x; for _ = 1, 250 do c[1] = {}; c = c[1] end return x end)())
t.check("deeper than the limit: a clean error", not ok and tostring(err.msg or err):find("nested deeper", 1, true) ~= nil)
t.done()
