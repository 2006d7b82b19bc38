-- gpuflame.sessions: a session whose `launch` was killed (its launcher gone) while its workload still runs is
-- listed as ended, and keeps its registry entry and nsys's termination-status file until a reader finds the
-- workload gone; that reader removes both (forgotten earlier, the file would be nobody's: CI 67 left one when
-- `capture --session` read the session the instant after its launch was killed). nsys-launcher, the workload's
-- parent, writes that file again once the workload has ended, so the entry also stays while that writer runs (a
-- later CI run left one when a reader came between the workload's end and the writer's). Planted by
-- construction: a launcher pid that has ended, a `sleep` as the workload, another as its writer.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local procfs = require("gpuflame.procfs")
local sessions = require("gpuflame.sessions")

local p = require("gpuflame.policy").effective({})
local reg, tmp = core.fs.mkdtemp(), core.fs.mkdtemp()
p.live.registry_dir = reg .. "/sessions"

local gone = core.proc.spawn({ argv = { "true" } })
local launcher = gone:pid()
gone:wait()
local job = core.proc.spawn({ argv = { "sleep", "30" } })
local writer = core.proc.spawn({ argv = { "sleep", "30" } })
local status = tmp .. "/nsys_termination_status_" .. job:pid()
local f = assert(io.open(status, "w")); f:close()
sessions.register({ name = "killed", pid = job:pid(), pid_start = procfs.start(job:pid()), launcher_pid = launcher,
  launcher_start = 1, started = "2026-12-06T00:00:00Z", command = { "sleep", "30" }, nsys_status = status,
  nsys_status_writer = { pid = writer:pid(), start = procfs.start(writer:pid()) } }, p)

local function names(list)
  local out = {}
  for _, e in ipairs(list) do out[#out + 1] = e.name .. ":" .. e.state end
  return table.concat(out, " ")
end
local function exists(path) return core.fs.stat(path) ~= nil end

t.eq("launcher gone, workload running: listed as ended", "killed:ended", names(sessions.list(p)))
t.eq("... its status file kept (nsys still needs it)", true, exists(status))
t.eq("... and its entry, for the reader that finds the workload gone", "killed:ended", names(sessions.list(p)))
local ok, err = pcall(sessions.get, "killed", p)
t.eq("capture --session on it: exit 4 (the session has ended)", false, ok)
t.ok("... saying so", tostring(err and err.msg):find("has ended", 1, true) ~= nil, tostring(err and err.msg))
t.eq("... the status file still kept", true, exists(status))
job:terminate()
job:wait()
t.eq("workload gone, its writer running: listed as ended", "killed:ended", names(sessions.list(p)))
t.eq("... its status file kept (the writer may write it again)", true, exists(status))
t.eq("... and its entry", "killed:ended", names(sessions.list(p)))
writer:terminate()
writer:wait()
t.eq("workload and writer gone: listed once more as ended", "killed:ended", names(sessions.list(p)))
t.eq("... its status file removed", false, exists(status))
t.eq("... and its entry", "", names(sessions.list(p)))
core.fs.remove_tree(reg)
core.fs.remove_tree(tmp)
return t.done()
