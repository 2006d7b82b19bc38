-- tr:write_timeline's slots (core/bind/l_trace.c): a {json = function} slot is called once the page is begun
-- (its columns compressing on the page's workers), and its text is the slot's; while it runs the trace refuses
-- changing methods and a second page; an error in it, or a result that is not a string, is raised with no page
-- written (the workers joined); the page is the one a {json = TEXT} slot of the same text gives, byte for byte.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")

local db = t.fixtures() .. "/real/nvfuser/report1.sqlite"
if not core.fs.stat(db) then
  t.skip("timeline function slots", "fixture absent: " .. db)
  os.exit(t.done())
end
local tr = core.trace.open_sqlite(db, { max_events = 0 })
local dir = t.tmp() .. "/timeline_slots"
core.fs.mkdirp(dir)
local tmpl = "<p>{{title}}</p><script>{{json:data}}</script><script>{{json:extra}}</script>"
local function slots(extra)
  return { title = "t", compress = true, threads = 2, extra = extra }
end
local function read(p)
  local f = assert(io.open(p, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local plain, lazy = dir .. "/plain.html", dir .. "/lazy.html"
tr:write_timeline(tmpl, plain, slots({ json = '{"steps":[1,2,3]}' }), "test")
local calls, inside = 0, {}
tr:write_timeline(tmpl, lazy, slots({ json = function()
  calls = calls + 1
  inside.trim = select(2, pcall(tr.trim, tr, 1))
  inside.page = select(2, pcall(tr.write_timeline, tr, tmpl, dir .. "/nested.html", slots({ json = "1" }), "test"))
  inside.count = tr:count()
  return '{"steps":[1,2,3]}'
end }), "test")
t.eq("the function is called once", 1, calls)
t.check("the page with the function's text is the page with the same text given as a string",
  read(lazy) == read(plain) and read(lazy):find('{"steps":[1,2,3]}', 1, true) ~= nil)
t.check("inside the function, trim is refused (the page's workers read the trace)",
  tostring(inside.trim):find("its timeline page is being written", 1, true), inside.trim)
t.check("inside the function, a second page is refused", tostring(inside.page):find("being written", 1, true),
  inside.page)
t.check("inside the function, reading methods work", inside.count == tr:count() and tr:count() > 0, inside.count)
t.check("no nested page was written", not core.fs.stat(dir .. "/nested.html"))

local failed = dir .. "/failed.html"
t.raises("an error in the function is raised", function()
  tr:write_timeline(tmpl, failed, slots({ json = function() error("planted slot error") end }), "test")
end, "planted slot error")
t.check("... and no page is written", not core.fs.stat(failed))
t.raises("a function that returns no string", function()
  tr:write_timeline(tmpl, failed, slots({ json = function() return 42 end }), "test")
end, "slot 'extra': its json function returned number, not a string")
t.check("... no page either", not core.fs.stat(failed))
t.eq("the trace is free again afterwards", tr:count(), tr:trim(0))
tr:write_timeline(tmpl, dir .. "/again.html", slots({ json = '{"steps":[1,2,3]}' }), "test")
t.check("and writes the same page again", read(dir .. "/again.html") == read(plain))
os.exit(t.done())
