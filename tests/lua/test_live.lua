-- Live sessions without nsys (the real-nsys tier runs them: tests/real/test_real_live.sh): --at parsing
-- against Python's datetime, and the session registry — one launch per name, one window at a time,
-- entries whose processes are gone recognised as ended and removed, names checked.
local top = os.getenv("GF_TOP") or "."
local t = dofile(top .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local live = require("gpuflame.live")
local policy = require("gpuflame.policy")
local procfs = require("gpuflame.procfs")
local sessions = require("gpuflame.sessions")
local tmp = t.tmp()

-- --at: RFC 3339 instants as Python's datetime.fromisoformat reads them (the reference)
local texts = { "2026-12-02T07:00:00Z", "2026-12-02T09:00:00.250+02:00", "1999-12-31T23:59:59-05:30",
  "2024-02-29T12:00:00.000001Z", "2026-01-01T00:00:00+00:00", "2000-03-01T00:00:00Z", "1970-01-01T00:00:00Z" }
core.fs.write_atomic(tmp .. "/at.json", core.json.encode(texts))
local py = core.proc.run({ argv = { "python3", "-c", [[
import datetime, json, sys
print(json.dumps([datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() for s in json.load(open(sys.argv[1]))]))
]], tmp .. "/at.json" } })
local want = py.ok and core.json.decode(py.stdout) or {}
for i, s in ipairs(texts) do
  local got = live.parse_at(s, 0)
  t.check("--at " .. s .. " = Python's datetime", got and want[i] and math.abs(got - want[i]) < 1e-6,
    tostring(got) .. " vs " .. tostring(want[i]))
end
t.eq("--at @EPOCH", 1796195610.5, live.parse_at("@1796195610.5", 0))
t.eq("--at +Ns is from now", 105, live.parse_at("+5s", 100))
t.eq("--at +N (no unit)", 102.5, live.parse_at("+2.5", 100))
for _, bad in ipairs({ "2026-12-02T07:00:00", "2026-13-02T07:00:00Z", "tomorrow", "@x", "2026-12-02T07:00:00.Z", "" }) do
  t.check("--at " .. bad .. " is refused with a reason", select(2, live.parse_at(bad, 0)) ~= nil)
end

-- the registry
core.fs.write_atomic(tmp .. "/p.lua", string.format('return { extends = "default", live = { registry_dir = %q } }',
  tmp .. "/reg"))
local p = policy.effective({ tmp .. "/p.lua" })
local dir = sessions.dir(p)
t.eq("registry created private (0700)", 448, core.fs.stat(dir).mode & 511)
t.raises("a name that is no file name is refused", function() sessions.claim("../x", p) end, "session name")
t.raises("a name nsys would refuse is refused", function() sessions.claim("1abc", p) end, "session name")
local lock = sessions.claim("job-1", p)
t.raises("one launch per name", function() sessions.claim("job-1", p) end, "already running")
local me = core.proc.getpid()
local e = { name = "job-1", command = { "./job" }, pid = me, pid_start = procfs.start(me), launcher_pid = me,
  launcher_start = procfs.start(me), started = "2026-12-02T07:00:00+00:00" }
sessions.register(e, p)
local list = sessions.list(p)
t.eq("listed, waiting", "job-1 waiting", list[1] and (list[1].name .. " " .. list[1].state))
local got = sessions.get("job-1", p)
local w = sessions.open_window(got, { since = "2026-12-02T07:00:01+00:00", out = "w1" }, p)
t.eq("capturing while a window is open", "capturing", sessions.list(p)[1].state)
t.raises("a second window is refused, naming the open one", function() sessions.open_window(got, { out = "w2" }, p) end,
  "a window is already open (since 2026-12-02T07:00:01+00:00, into w1)")
w:release()
t.eq("waiting again once the window is closed", "waiting", sessions.list(p)[1].state)
sessions.release("job-1", lock, p)
t.eq("released: not listed", 0, #sessions.list(p))
t.check("released: no file left", #(core.fs.listdir(dir) or {}) == 0, table.concat(core.fs.listdir(dir) or {}, " "))
-- an entry whose launching gpuflame is gone (killed with SIGKILL): a pid that is ours with another start time
local dead = { name = "job-2", command = { "./job" }, pid = me, pid_start = procfs.start(me), launcher_pid = me,
  launcher_start = "1", started = "2026-12-02T07:00:00+00:00" }
sessions.register(dead, p)
t.raises("capturing an ended session: exit 4 naming it", function() sessions.get("job-2", p) end,
  "session job-2: its workload (pid " .. me .. ", ./job) has ended")
sessions.register(dead, p)
list = sessions.list(p)
t.eq("sessions lists it once as ended", "job-2 ended", list[1] and (list[1].name .. " " .. list[1].state))
t.eq("... and removes it", 0, #sessions.list(p))
local ok, err = pcall(sessions.get, "never", p)
t.check("an unknown session: exit 4 naming it", not ok and err.code == 4 and err.msg:find("session never: not running", 1, true),
  err and err.msg)
return t.done()
