-- core.json.encode through the one JSON writer (core/jsonout.c): strings are always valid UTF-8 JSON
-- (summary.json and upload bodies are read by Python, which rejects invalid UTF-8), invalid bytes become
-- U+FFFD or raise with utf8 = "error"; the compact and indented layouts and the number texts are stable.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local json = core.json
local errors = require("gpuflame.errors")

t.eq("invalid bytes become \\ufffd (one per byte)", '{"s":"a\\ufffd\\ufffdb"}', json.encode({ s = "a\255\254b" }))
t.eq("a truncated sequence and an encoded surrogate too", '["\\ufffd!","\\ufffd\\ufffd\\ufffd"]',
  json.encode({ "\xC3!", "\xED\xA0\x80" }))
t.eq("... and read back as U+FFFD", "a\u{FFFD}b", json.decode(json.encode({ s = "a\255b" })).s)
t.eq("valid UTF-8 is written as is", '"café 😀"', json.encode("café 😀"))
t.eq("controls escaped as Python does", '"\\b\\f\\n\\r\\t\\u0001\\u001f"', json.encode("\b\f\n\r\t\1\31"))
t.eq("keys are escaped and validated too", '{"k\\ufffd":1}', json.encode({ ["k\255"] = 1 }))
local ok, e = pcall(json.encode, { a = { "fine", "x\255y" } }, { utf8 = "error" })
t.check("utf8 = \"error\": raises, naming the byte", not ok and errors.is(e) and e.code == errors.INPUT and
  e.msg:find("invalid UTF-8 in a string, byte 2 of 3", 1, true) ~= nil, tostring(e and (e.msg or e)))
t.eq("utf8 = \"error\" on valid text: the same bytes as replace", json.encode({ a = "é" }),
  json.encode({ a = "é" }, { utf8 = "error" }))
t.raises("an unknown utf8 mode is refused", function() json.encode(1, { utf8 = "latin1" }) end, "utf8 must be")
t.eq("compact layout, sorted keys", '{"a":[1,2.5,true,null],"b":{},"c":[]}',
  json.encode({ b = {}, a = { 1, 2.5, true, json.null }, c = json.array() }))
t.eq("indented layout", '{\n  "a": [\n    1,\n    {\n      "x": 0.1\n    }\n  ],\n  "e": []\n}',
  json.encode({ a = { 1, { x = 0.1 } }, e = json.array() }, { pretty = true }))
t.eq("numbers: shortest round trip, integers exact, non-finite as null", '[0.1,1e+300,9007199254740993,null,null]',
  json.encode({ 0.1, 1e300, 9007199254740993, math.huge, 0 / 0 }))
t.done()
