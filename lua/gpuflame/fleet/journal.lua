-- The agent's write-ahead journal of unfinished commands (state.json `jobs`), and what a restarted
-- agent needs to settle them: the identity of a capture process across restarts (pid AND its start
-- time from /proc/PID/stat, so a reused pid is never mistaken for it), finding a capture whose pid was
-- not recorded yet, ending a capture tree the agent did not spawn, and what of a command's upload is
-- still in the spool.
--
-- An entry is written (atomically, with the rest of state.json) before each step it describes and
-- removed in the same write that records the command as executed:
--   accepted  the command is in `received`; nothing started
--   starting  its capture directory exists; capture processes may be starting (pids not all recorded)
--   running   every capture process is recorded: procs = { {pid, start, backend}, ... }
--   spooled   its upload is in the spool: `left` items to go, `errs` (backend errors to report)
local core = require("gpuflame.core")
local deliver = require("gpuflame.fleet.deliver")
local log = require("gpuflame.log")
local procfs = require("gpuflame.procfs")
local spool = require("gpuflame.fleet.spool")

local journal = {}

function journal.find(s, id)
  for i, e in ipairs(s.jobs) do
    if e.command_id == id then return e, i end
  end
  return nil
end

-- put(s, entry) → entry (replaces the command's entry, or adds it)
function journal.put(s, entry)
  local _, i = journal.find(s, entry.command_id)
  s.jobs[i or (#s.jobs + 1)] = entry
  return entry
end

function journal.drop(s, id)
  local _, i = journal.find(s, id)
  if i then table.remove(s.jobs, i) end
end

-- proc_start(pid) → the process's start time (clock ticks since boot, as text), nil when it is gone
journal.proc_start = procfs.start

function journal.alive(procs)
  local live = {}
  for _, pr in ipairs(procs or {}) do
    if procfs.alive(pr) then live[#live + 1] = pr end
  end
  return live
end

-- find_procs(dir) → the topmost live processes whose command line names `dir` (or a file in it):
-- a capture started by an agent killed before it recorded the pid.
function journal.find_procs(dir)
  local me, hits = core.proc.getpid(), {}
  for _, st in ipairs(procfs.all()) do
    local cmd = st.pid ~= me and st.state ~= "Z" and procfs.read(st.pid, "cmdline")
    if cmd then
      for arg in cmd:gmatch("[^%z]+") do
        if arg == dir or arg:sub(1, #dir + 1) == dir .. "/" then hits[st.pid] = st; break end
      end
    end
  end
  local out = {}
  for pid, st in pairs(hits) do
    if not hits[st.ppid] then out[#out + 1] = { pid = pid, start = st.start, backend = "found" } end
  end
  table.sort(out, function(a, b) return a.pid < b.pid end)
  return out
end

-- The process groups of the live processes and of all their descendants (nsys and the workload have
-- their own groups; daemons leave theirs).
local function groups_of(procs)
  local kids, by_pid = {}, {}
  for _, st in ipairs(procfs.all()) do
    by_pid[st.pid] = st
    kids[st.ppid] = kids[st.ppid] or {}
    table.insert(kids[st.ppid], st)
  end
  local mine = by_pid[core.proc.getpid()]
  local groups, seen, stack = {}, { [mine and mine.pgid or 0] = true, [0] = true, [1] = true }, {}
  for _, pr in ipairs(journal.alive(procs)) do stack[#stack + 1] = by_pid[pr.pid] end
  while #stack > 0 do
    local st = table.remove(stack)
    if st.pgid and not seen[st.pgid] then seen[st.pgid] = true; groups[#groups + 1] = st.pgid end
    for _, k in ipairs(kids[st.pid] or {}) do stack[#stack + 1] = k end
  end
  return groups
end

-- end_procs(procs, grace): ends capture processes this agent did not spawn (adopted after a restart):
-- SIGTERM to their process groups and their descendants' (a `gpuflame capture` then stops nsys and the
-- workload itself and records what it kept), SIGKILL to whatever is left after `grace` seconds.
function journal.end_procs(procs, grace)
  local groups = groups_of(procs)
  for _, g in ipairs(groups) do core.proc.kill(-g, 15); core.proc.kill(-g, 18) end
  local _, t0 = core.sys.now()
  while #journal.alive(procs) > 0 do
    local _, t = core.sys.now()
    if t - t0 > grace then break end
    core.sys.sleep(0.05)
  end
  for _, g in ipairs(groups_of(procs)) do groups[#groups + 1] = g end
  for _, g in ipairs(groups) do core.proc.kill(-g, 9) end
end

-- in_spool(spool_dir, id) → how many of the command's uploads are still to be accounted for: items in
-- the spool, and outcomes the uploader wrote that no agent has read yet. The spool is listed before the
-- outcomes: the uploader writes an item's outcome before the item leaves the spool, so an item is
-- always seen in one of the two.
function journal.in_spool(spool_dir, id)
  local n = 0
  for _, it in ipairs(spool.list(spool_dir)) do
    local ok, meta = pcall(spool.read, it.path)
    if ok and meta.command_id == id then n = n + 1 end
  end
  for _, o in ipairs(deliver.outcomes(spool_dir)) do
    if type(o.meta) == "table" and o.meta.command_id == id then n = n + 1 end
  end
  return n
end

-- Test hook: GPUFLAME_TEST_AGENT_PAUSE=POINT[:COMMAND_ID] makes the agent stop at that point of a
-- command's life (accepted, spawned, started, finished, spooled, delivered, reporting) — it writes
-- <state_dir>/paused-at-POINT and then waits forever — so that a test can SIGKILL it exactly there.
function journal.pause_hook(want, state_dir, point, id)
  if not want or (want ~= point and want ~= point .. ":" .. tostring(id)) then return end
  log.warn("agent: test hook: pausing at %s (command %s)", point, tostring(id))
  core.fs.write_atomic(state_dir .. "/paused-at-" .. point, tostring(core.proc.getpid()) .. "\n")
  while true do core.sys.sleep(0.2) end
end

return journal
