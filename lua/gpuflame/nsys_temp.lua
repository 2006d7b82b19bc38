-- What nsys calls leave outside a capture's directory (docs/LIVE.md "Bounds of the nsys calls"): nsys
-- writes the raw capture into its temp directory (`Generating '/tmp/nsys-report-3e57.qdstrm'`) and imports
-- it from there; a live window or a capture that fails or is interrupted (a hung `nsys stop`, a job that
-- ended, a profile past its timeout, Ctrl-C, the agent's stop) leaves it there. The paths are the ones nsys
-- itself printed for this capture, or, for a `capture` whose nsys was stopped before it printed one, the
-- files that carry this capture's mark (T.mark), so nothing of another capture is touched. At the end of a
-- window (and when a capture fails) they are removed, or moved into its --out directory when policy
-- live.keep_failed_raw asks (a failed one only).
--
-- nsys 2022.4's launcher also writes `nsys_termination_status_<workload pid>` into that directory, and the
-- semaphore `/nsys_sem_<workload pid>` (/dev/shm/sem.nsys_sem_<pid>), when it starts the workload, and removes
-- them when nsys ends normally; an nsys ended by a signal (a `launch` whose gpuflame was SIGKILLed, a capture
-- stopped at its bound) leaves them. The workload's parent, nsys-launcher, writes the file again once the
-- workload has ended (seen: removed the instant the workload got SIGTERM, it was back 0.1 s later), so it is
-- the writer's end, not the workload's, after which a removal holds (a CI run left one when a reader came
-- between the two). The workload's pid and its writer are known once it runs
-- (gpuflame.nsys_retry.find_workload), so T.status_file names the file and T.drop_status removes both once
-- both processes are gone. nsys's agent daemon (`nsys --start-agent`) keeps /dev/shm/quadd-agent-instance-<its
-- pid>, left when it has to be ended: T.drop_agent_shm removes it for the ones gpuflame ended.
local core = require("gpuflame.core")
local log = require("gpuflame.log")
local procfs = require("gpuflame.procfs")

local T = {}

-- note(state, res): remembers the temporary files nsys named in one call's output (state.nsys_temp)
function T.note(state, res)
  state.nsys_temp = state.nsys_temp or {}
  local text = (res.stdout or "") .. "\n" .. (res.stderr or "")
  for path in text:gmatch("(/[^%s'\"]-nsys%-report%-[%w]+%.[%w%-]+)") do
    if (path:match("%.qdstrm$") or path:match("%.nsys%-rep$")) and not state.nsys_temp[path] then
      state.nsys_temp[path] = true
      state.nsys_temp[#state.nsys_temp + 1] = path
    end
  end
end

-- tmpdir(env) → nsys's temp directory: the TMPDIR of the environment nsys gets (gpuflame's own when env is nil)
function T.tmpdir(env)
  return (env and env.TMPDIR) or (not env and os.getenv("TMPDIR")) or "/tmp"
end

-- new_mark() → a mark no other capture has
function T.new_mark()
  return string.format("%d-%d-%d", core.proc.getpid(), os.time(), math.random(1, 1 << 30))
end

-- mark(state, env) → env with GPUFLAME_CAPTURE_ID set: nsys records its environment near the start of the raw
-- capture, so a file nsys wrote but never named (it was stopped before it said `Generating '…'`: an interrupt,
-- a bound) is still found as this capture's, and no other capture's file is touched. A capture the fleet
-- agent runs takes the agent's mark (GPUFLAME_CAPTURE_MARK), so that the agent can sweep what a capture it
-- had to kill could not (T.sweep_for). The mark is nsys's first variable (the env's list part says which come
-- first): nsys writes the raw capture in 4,100-byte blocks, and a mark that the environment's order put past
-- the first block is not on disk when nsys dies after writing that block.
function T.mark(state, env)
  state.nsys_mark = state.nsys_mark or os.getenv("GPUFLAME_CAPTURE_MARK") or T.new_mark()
  state.nsys_since = state.nsys_since or os.time()
  state.nsys_tmpdir = T.tmpdir(env)
  env.GPUFLAME_CAPTURE_ID = state.nsys_mark
  table.insert(env, 1, "GPUFLAME_CAPTURE_ID")
  return env
end

-- status_file(tmpdir, pid) → the path where nsys's launcher keeps the termination status of workload `pid`
function T.status_file(tmpdir, pid)
  return (tmpdir or "/tmp") .. "/nsys_termination_status_" .. math.tointeger(pid)
end

-- note_status(state, pid, start, writer): the workload nsys started for this state, and its nsys-launcher
-- ({pid, start}, find_workload); its status file goes at clean.
function T.note_status(state, pid, start, writer)
  state.nsys_status = state.nsys_status or {}
  state.nsys_status[#state.nsys_status + 1] =
    { path = T.status_file(state.nsys_tmpdir, pid), pid = pid, start = start, writer = writer }
end

-- Whether no process but the ended workload {pid, start} holds its pid (a pid taken again by another process,
-- another nsys's workload perhaps, keeps its file), and its writer {pid, start}, when known, has ended too.
local function pid_free(w)
  local st = procfs.stat(w.pid)
  local free = st == nil or (st.start == w.start and (st.state == "Z" or st.state == "X"))
  return free and not (type(w.writer) == "table" and procfs.alive(w.writer))
end

local SHM = "/dev/shm" -- where glibc keeps POSIX semaphores and shared memory

local function remove_file(path)
  local st = core.fs.stat(path, false)
  if st and st.type == "file" and os.remove(path) then
    log.debug("removed nsys's %s", path)
    return 1
  end
  return 0
end

-- A workload's status file and semaphore removed; how many went.
local function drop_workload_files(path, pid)
  return remove_file(path) + remove_file(SHM .. "/sem.nsys_sem_" .. math.tointeger(pid))
end

-- workload_ended({pid, start, writer}) → true once that workload and its writer have ended and no other process
-- holds its pid
T.workload_ended = pid_free

-- drop_status(list): removes each {path, pid, start, writer}'s file, and the semaphore of that workload, once
-- the workload and its writer have ended (while they run, nsys still needs them). Returns how many went.
function T.drop_status(list)
  local n = 0
  for _, s in ipairs(list or {}) do
    if pid_free(s) then n = n + drop_workload_files(s.path, s.pid) end
  end
  return n
end

local STATUS_GLOB = "/nsys_termination_status_*"

-- status_names(dir) → the set of termination-status files in dir now (before a try of nsys, for drop_unseen)
function T.status_names(dir)
  local set = {}
  for _, path in ipairs(core.fs.glob(dir .. STATUS_GLOB) or {}) do set[path] = true end
  return set
end

-- drop_unseen(dir, before, since, settle): after nsys failed to start, the status files (and semaphores) of a
-- workload its launcher forked and lost before gpuflame saw it, whose pid therefore was never known: files in
-- dir that were not there before the try (the set `before`), written since it began, this user's, whose pid no
-- process holds, and untouched for `settle` seconds. An nsys whose workload ends reads and removes its file at
-- once, so a file left that long has no reader (docs/LIVE.md); a zombie's pid counts as free. Returns how many
-- went, the seconds until
-- the youngest file kept only for its age has settled (nil when there is none), and the files kept only because
-- a process still holds their pid, as drop_status's {path, pid, start} (nil when none: a lost child not yet
-- ended; gpuflame's orphan reaping ends it when the run that adopted it ends).
function T.drop_unseen(dir, before, since, settle)
  local n, now, uid, wait, held = 0, core.sys.now(), core.sys.uid(), nil, nil
  for _, path in ipairs(core.fs.glob(dir .. STATUS_GLOB) or {}) do
    local pid = math.tointeger(tonumber(path:match("_(%d+)$")))
    local st = core.fs.stat(path, false)
    if pid and st and not before[path] and st.type == "file" and st.uid == uid and st.mtime >= since - 1 then
      local age = now - st.mtime
      -- a zombie holds its pid but has ended: a lost child gpuflame adopted (a subreaper) and has yet to reap
      local ps = procfs.stat(pid)
      if ps ~= nil and ps.state ~= "Z" and ps.state ~= "X" then
        held = held or {}
        held[#held + 1] = { path = path, pid = pid, start = ps.start }
      elseif age >= settle then n = n + drop_workload_files(path, pid)
      else wait = math.max(wait or 0, settle - age) end
    end
  end
  return n, wait, held
end

-- snapshot(env) → a try's view of nsys's temp directory before nsys starts (for sweep_unseen): the directory,
-- the status files there, the time. env: the environment nsys gets (its TMPDIR).
function T.snapshot(env)
  local dir = T.tmpdir(env)
  return { dir = dir, names = T.status_names(dir), since = core.sys.now() }
end

-- sweep_unseen(b) → the files still held: after a try of nsys that failed to start or was stopped (an interrupt,
-- a bound), what its launcher left for a workload gpuflame never saw (drop_unseen over snapshot b), once it has
-- lain untouched for a second (waited for here; b.ended: when the try ended, now when unset). A file written as
-- the try ended (its workload stopped with the try's process group) settles after the try does, and a lost child
-- may still be exiting as the sweep begins: both are waited for, twice at most (CI: one such file was left by the
-- last try). A lost child that lives on is returned as drop_status's entries, for the caller to drop once it has
-- ended: CI 99 and 103 left `nsys_termination_status_<pid>` of one that gpuflame adopted (a subreaper) and ended
-- only when the launch's next try ended, long after the sweep.
local SETTLE = 1

function T.sweep_unseen(b)
  local left = SETTLE - (core.sys.now() - (b.ended or core.sys.now()))
  if left > 0 then core.sys.sleep(left) end
  local held
  for _ = 1, 3 do
    local _, wait
    _, wait, held = T.drop_unseen(b.dir, b.names, b.since, SETTLE)
    if held then wait = math.max(wait or 0, SETTLE) end
    if not wait then return held end
    core.sys.sleep(math.min(wait, SETTLE) + 0.05)
  end
  return held
end

-- note_nsys(state, pid): an nsys process of this capture (nsys, its agent daemon), seen while it ran
function T.note_nsys(state, pid)
  state.nsys_pids = state.nsys_pids or {}
  state.nsys_pids[pid] = true
end

-- drop_agents(state): the agent shared memory of the noted nsys processes that are gone (an nsys that ends
-- normally removes its own; one killed by a signal from outside, the OOM killer, leaves it). Returns how many
-- went.
function T.drop_agents(state)
  local lines = {}
  for pid in pairs(state.nsys_pids or {}) do lines[#lines + 1] = math.tointeger(pid) .. " nsys" end
  state.nsys_pids = nil
  return T.drop_agent_shm(lines)
end

-- drop_agent_shm(leftovers): the "PID COMM" lines of processes a run ended (core.proc's leftovers); for each
-- nsys among them that is gone, its agent daemon's shared memory. Returns how many went.
function T.drop_agent_shm(leftovers)
  local n = 0
  for _, l in ipairs(leftovers or {}) do
    local pid, comm = tostring(l):match("^(%d+) (%S+)")
    pid = math.tointeger(tonumber(pid))
    if pid and comm == "nsys" and procfs.stat(pid) == nil then
      n = n + remove_file(SHM .. "/quadd-agent-instance-" .. pid)
    end
  end
  return n
end

local MARK_SCAN = 65536 -- the environment sits in the first few KB of a .qdstrm (seen at ~2 KB)

local function marked(path, needle)
  local f = io.open(path, "rb")
  if not f then return false end
  local head = f:read(MARK_SCAN) or ""
  f:close()
  return head:find(needle, 1, true) ~= nil
end

-- nsys 2022.4 opens its raw capture with a 56-byte header ("NVIDIA Nsight Systems Stream <version>") and
-- writes it in 4,100-byte blocks from ~0.1 s later (strace); the first holds the device's properties and
-- nsys's environment (the mark at ~1 KB, T.mark), nothing captured. An nsys that dies before or just after
-- that block (SIGKILLed, its start-up failure) leaves a file that holds nothing captured, and may carry no
-- mark: one whose environment pushed it past the first block, a GPU host's longer properties.
local HEAD_ONLY = 128 + 4100 -- a header of a longer version string, and the first block

-- Whether a process holds path open (nsys keeps its raw capture open while it writes it).
local function held_open(path)
  local target = core.fs.realpath(path) or path
  for _, fd in ipairs(core.fs.glob("/proc/[0-9]*/fd/*") or {}) do
    if core.fs.realpath(fd) == target then return true end
  end
  return false
end

-- The unnamed raw captures of this call: nsys-report-* in nsys's temp directory, written since the call began,
-- that carry this capture's mark; and this user's raw captures of a header only (no capture's mark, nothing
-- captured) that no process holds open: the file of an nsys that died before it wrote its first block.
local function sweep(state)
  if not state.nsys_mark then return end
  state.nsys_temp = state.nsys_temp or {}
  local dir = state.nsys_tmpdir
  local needle = "GPUFLAME_CAPTURE_ID=" .. state.nsys_mark .. "\0" -- NUL-terminated in the environment block
  local uid = core.sys.uid()
  for _, pat in ipairs({ "/nsys-report-*.qdstrm", "/nsys-report-*.nsys-rep" }) do
    for _, path in ipairs(core.fs.glob(dir .. pat) or {}) do
      local st = core.fs.stat(path, false)
      if st and st.type == "file" and (st.mtime or 0) >= state.nsys_since - 1 and not state.nsys_temp[path]
        and (marked(path, needle) or (pat:match("qdstrm") and st.size <= HEAD_ONLY and st.uid == uid and
          not marked(path, "GPUFLAME_CAPTURE_ID=") and not held_open(path))) then
        state.nsys_temp[path] = true
        state.nsys_temp[#state.nsys_temp + 1] = path
      end
    end
  end
end

local function inside(path, dir)
  local rp, rd = core.fs.realpath(path) or path, core.fs.realpath(dir) or dir
  return rp:sub(1, #rd + 1) == rd .. "/"
end

-- clean(state, failed, policy) → a sentence saying what became of them ("" when nothing was left)
function T.clean(state, failed, policy)
  sweep(state)
  local done = {}
  for _, path in ipairs(state.nsys_temp or {}) do
    local st = core.fs.stat(path, false)
    if st and st.type == "file" and not inside(path, state.dir) then
      if failed and policy.live.keep_failed_raw then
        local dest = state.dir .. "/" .. path:match("[^/]+$")
        local ok = pcall(core.fs.rename, path, dest) or (pcall(core.fs.copy, path, dest) and os.remove(path))
        done[#done + 1] = ok and ("moved nsys's temporary " .. path .. " to " .. dest) or ("could not move " .. path)
      else
        local ok, why = os.remove(path)
        done[#done + 1] = ok and ("removed nsys's temporary " .. path) or ("could not remove " .. path .. ": " .. tostring(why))
      end
      log.debug("window: %s", done[#done])
    end
  end
  state.nsys_temp = {}
  T.drop_status(state.nsys_status)
  T.drop_agents(state)
  -- an nsys stopped before gpuflame saw its workload (the watch looks every 0.2 s): that workload's status
  -- file, whose pid was never known (seen with a capture interrupted as its workload started)
  if state.nsys_try then
    T.sweep_unseen(state.nsys_try)
    state.nsys_try = nil
  end
  return table.concat(done, "; ")
end

-- sweep_for(m, failed, policy) → clean's sentence for a capture run as another process (the fleet agent's
-- child): m = {mark, since, tmpdir, dir}, the mark the child was given, when it started, nsys's temp directory
-- and the capture's directory. Once the child is gone (a cancel ends it with SIGKILL after agent.stop_grace,
-- which can come before the child cleaned up), the raw captures carrying its mark are removed or kept as
-- clean keeps them.
function T.sweep_for(m, failed, policy)
  return T.clean({ nsys_mark = m.mark, nsys_since = m.since, nsys_tmpdir = m.tmpdir, dir = m.dir }, failed, policy)
end

return T
