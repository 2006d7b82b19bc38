-- core.trace_proj (core/bind/l_trace_proj.c): the NVTX projection on a thread of its own, its job's life:
-- the trace held while it runs (changing methods and a second job refused), finish once, close after
-- finish, a trace collected with an open job (its thread joined first), limits.threads 1: no job.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")

local db = t.fixtures() .. "/real/nvfuser/report1.sqlite"
if not core.fs.stat(db) then
  t.skip("trace_proj job", "fixture absent: " .. db)
  os.exit(t.done())
end
local function open() return core.trace.open_sqlite(db, { max_events = 0, keep_partners = true }) end

t.eq("threads = 1: no job (the caller projects in one call)", nil, core.trace_proj.start(open(), db, 0, 1))
t.eq("parallel(1)", false, core.trace_proj.parallel(1))
t.eq("parallel(2)", true, core.trace_proj.parallel(2))

local ref = open()
local want = ref:add_nvtx_proj(db, 0)
t.check("the one-call projection adds events", want > 0, want)

local tr = open()
local job = core.trace_proj.start(tr, db, 0, 2)
t.raises("a second job on a held trace", function() core.trace_proj.start(tr, db, 0, 2) end, "trace is busy")
t.raises("trim while held", function() tr:trim(1) end, "trace is busy")
t.raises("add_nvtx_proj while held", function() tr:add_nvtx_proj(db, 0) end, "trace is busy")
t.eq("reading methods still work", ref:total(), tr:total())
t.eq("finish: the one-call path's count", want, (job:finish()))
t.eq("the same events", ref:count(), tr:count())
t.eq("the same lanes", #ref:lanes(), #tr:lanes())
t.raises("finish twice", function() job:finish() end, "finished or closed already")
t.eq("close after finish: nothing left open", false, job:close())
t.eq("the trace is free again", tr:count(), tr:trim(0))
t.eq("a second projection adds none", 0, (core.trace_proj.start(tr, db, 0, 2):finish()))

do
  local tr2 = open()
  local j <close> = core.trace_proj.start(tr2, db, 0, 2)
  t.check("a job in a <close> variable", j ~= nil)
end
t.ok("<close> joined it")

local tr3 = open()
core.trace_proj.start(tr3, db, 0, 2) -- never finished nor closed
tr3 = nil -- luacheck: ignore 311
collectgarbage()
collectgarbage()
t.ok("a trace and its open job collected (the thread joined before the trace is freed)")
os.exit(t.done())
