-- gpuflame.nsys_temp: the raw captures nsys left in its temp directory without naming them (stopped before its
-- `Generating '…'` line) are found by the mark of this capture, and only those. Files planted by construction:
-- one carries this capture's mark, one another capture's, one names no capture, one is older than the call.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local nsys_temp = require("gpuflame.nsys_temp")

local dir = core.fs.mkdtemp()
local policy = { live = { keep_failed_raw = false } }
local function plant(name, text)
  local f = assert(io.open(dir .. "/" .. name, "wb"))
  f:write(string.rep("\0", 1700), text, string.rep("x", 4096))
  f:close()
  return dir .. "/" .. name
end
local function exists(p) return core.fs.stat(p) ~= nil end

local state = { dir = core.fs.mkdtemp() }
local env = nsys_temp.mark(state, { TMPDIR = dir })
t.eq("the mark is in nsys's environment", state.nsys_mark, env.GPUFLAME_CAPTURE_ID)
t.eq("nsys's temp directory is its environment's TMPDIR", dir, state.nsys_tmpdir)
local ours = plant("nsys-report-aaaa.qdstrm", "PWD=/x\0GPUFLAME_CAPTURE_ID=" .. state.nsys_mark .. "\0")
local other = plant("nsys-report-bbbb.qdstrm", "GPUFLAME_CAPTURE_ID=" .. state.nsys_mark .. "0\0")
local unmarked = plant("nsys-report-cccc.qdstrm", "PWD=/y\0")
local said = nsys_temp.clean(state, true, policy)
t.eq("the file with this capture's mark is removed", false, exists(ours))
t.ok("the message names it", said:find(ours, 1, true) ~= nil)
t.eq("a file with another capture's mark (a longer id) is kept", true, exists(other))
t.eq("a file with no mark is kept", true, exists(unmarked))

-- the header-only raw capture of an nsys that died before its first block (no mark, nothing captured): removed
-- once no process holds it open; one still open (an nsys writing it) and one with data but no mark stay
local HEADER = "\0\255\0\255\0\255\0\255NVIDIA Nsight Systems Stream 2022.4.2.1-df9881f!"
local function plant_raw(name, text)
  local f = assert(io.open(dir .. "/" .. name, "wb")); f:write(text); f:close()
  return dir .. "/" .. name
end
local hstate = { dir = core.fs.mkdtemp() }
nsys_temp.mark(hstate, { TMPDIR = dir })
local orphan = plant_raw("nsys-report-ho01.qdstrm", HEADER)
local writing = plant_raw("nsys-report-ho02.qdstrm", HEADER)
local held = assert(io.open(writing, "ab"))
local data = plant_raw("nsys-report-ho03.qdstrm", HEADER .. string.rep("d", 8192))
-- nsys killed after its first 4,100-byte block, the mark not in it (CI 85, 2026-12-06: a ~30 KB environment
-- in hash order put the mark at 28,923 bytes)
local first_block = plant_raw("nsys-report-ho04.qdstrm", HEADER .. string.rep("p", 4100))
local second_block = plant_raw("nsys-report-ho05.qdstrm", HEADER .. string.rep("p", 8200))
nsys_temp.clean(hstate, true, policy)
t.eq("a header-only raw capture no process holds is removed", false, exists(orphan))
t.eq("a header-only raw capture a process holds open is kept", true, exists(writing))
t.eq("a raw capture with data but no mark is kept", true, exists(data))
t.eq("a raw capture of its header and first block, no mark, is removed", false, exists(first_block))
t.eq("one of two blocks and no mark is kept", true, exists(second_block))
held:close()
os.remove(writing); os.remove(data); os.remove(second_block)

-- the mark is nsys's first variable, whatever the environment (nsys records its environment in order, in its
-- first block: a mark past 4,100 bytes is not on disk when nsys dies after that block)
local big = { TMPDIR = dir }
for i = 1, 300 do big["GF_TEST_VAR_" .. i] = string.rep("v", 100) end
local estate = { dir = core.fs.mkdtemp() }
local res = core.proc.run({ argv = { "/usr/bin/env" }, env = nsys_temp.mark(estate, big), timeout = 10 })
t.eq("the marked environment reaches the program whole", 302, select(2, res.stdout:gsub("\n", "")))
t.eq("its first variable is the mark", "GPUFLAME_CAPTURE_ID=" .. estate.nsys_mark, res.stdout:match("^[^\n]*"))
local again = core.proc.run({ argv = { "/usr/bin/env" }, env = nsys_temp.mark(estate, nsys_temp.mark(estate, { A = "1" })),
  timeout = 10 })
t.eq("an environment marked twice carries the mark once", "GPUFLAME_CAPTURE_ID=" .. estate.nsys_mark .. "\nA=1\n",
  again.stdout)

-- kept in --out when policy asks
local state2 = { dir = core.fs.mkdtemp() }
nsys_temp.mark(state2, { TMPDIR = dir })
local ours2 = plant("nsys-report-dddd.qdstrm", "GPUFLAME_CAPTURE_ID=" .. state2.nsys_mark .. "\0")
nsys_temp.clean(state2, true, { live = { keep_failed_raw = true } })
t.eq("live.keep_failed_raw: moved out of the temp directory", false, exists(ours2))
t.eq("... into the capture's directory", true, exists(state2.dir .. "/nsys-report-dddd.qdstrm"))

-- a marked file older than the call (a previous capture of the same id cannot exist; the time bound
-- keeps the scan to this call's files)
local state3 = { dir = core.fs.mkdtemp() }
nsys_temp.mark(state3, { TMPDIR = dir })
local old = plant("nsys-report-eeee.qdstrm", "GPUFLAME_CAPTURE_ID=" .. state3.nsys_mark .. "\0")
state3.nsys_since = os.time() + 100
nsys_temp.clean(state3, true, policy)
t.eq("a file written before the call began is not this call's", true, exists(old))

-- no mark (a live window: its files are the ones nsys named): nothing is scanned
local state4 = { dir = core.fs.mkdtemp() }
t.eq("without a mark nothing is touched", "", nsys_temp.clean(state4, true, policy))
t.eq("... the unmarked file is still there", true, exists(unmarked))

-- nsys's launcher's termination-status file of a workload: removed once the workload has ended, kept while it
-- runs and when another process holds its pid now. A child that has exited is the ended workload; gpuflame
-- itself plays the running one (its own pid and start time) and, with another start time, the pid's new holder.
local procfs = require("gpuflame.procfs")
local state5 = { dir = core.fs.mkdtemp() }
nsys_temp.mark(state5, { TMPDIR = dir })
local child = core.proc.spawn({ argv = { "true" } })
local ended_pid = child:pid()
child:wait()
local me = core.proc.getpid()
local my_start = procfs.start(me)
t.eq("the status file is named by the workload's pid in nsys's temp directory",
  dir .. "/nsys_termination_status_" .. ended_pid, nsys_temp.status_file(dir, ended_pid))
local ended = plant("nsys_termination_status_" .. ended_pid, "")
local running = plant("nsys_termination_status_" .. me, "")
local shm = core.fs.stat("/dev/shm") and core.fs.stat("/dev/shm").type == "directory"
local function plant_shm(name)
  local f = assert(io.open("/dev/shm/" .. name, "wb"))
  f:write(string.rep("\0", 32))
  f:close()
  return "/dev/shm/" .. name
end
local ended_sem = shm and plant_shm("sem.nsys_sem_" .. ended_pid)
local running_sem = shm and plant_shm("sem.nsys_sem_" .. me)
nsys_temp.note_status(state5, ended_pid, 12345)
nsys_temp.note_status(state5, me, my_start)
nsys_temp.clean(state5, true, policy)
t.eq("the status file of an ended workload is removed", false, exists(ended))
t.eq("the status file of a running workload is kept", true, exists(running))
if shm then
  t.eq("... and the ended workload's semaphore (/dev/shm/sem.nsys_sem_PID) is removed", false, exists(ended_sem))
  t.eq("... the running one's is kept", true, exists(running_sem))
  os.remove(running_sem)

  -- nsys's agent daemon's shared memory, for the processes a run ended ("PID COMM" lines): an nsys that is
  -- gone loses it; a live process, or one that is not nsys, keeps it
  local gone = plant_shm("quadd-agent-instance-" .. ended_pid)
  local live = plant_shm("quadd-agent-instance-" .. me)
  t.eq("agent shm: one of the ended nsys's is removed", 1,
    nsys_temp.drop_agent_shm({ ended_pid .. " nsys", me .. " nsys", "1 sh" }))
  t.eq("... it is gone", false, exists(gone))
  t.eq("... a live process's stays", true, exists(live))
  os.remove(live)
  local not_nsys = plant_shm("quadd-agent-instance-" .. ended_pid)
  t.eq("... a leftover that was not nsys: nothing removed", 0, nsys_temp.drop_agent_shm({ ended_pid .. " sleep" }))
  os.remove(not_nsys)
else
  t.skip("nsys's semaphores and shared memory", "no /dev/shm here")
end
t.eq("an ended workload whose writer (nsys-launcher) runs: its file is kept", 0,
  nsys_temp.drop_status({ { path = running, pid = ended_pid, start = 12345, writer = { pid = me, start = my_start } } }))
t.eq("a pid now held by another process (another start time): its file is kept", 0,
  nsys_temp.drop_status({ { path = running, pid = me, start = my_start + 1 } }))
t.eq("... and it is there", true, exists(running))

-- after nsys failed to start: the status files of children its launcher lost, never seen (drop_unseen). Only
-- those that appeared during the try, whose pid no process holds, untouched for the settle time, go.
local udir = core.fs.mkdtemp()
local old_file = io.open(udir .. "/nsys_termination_status_" .. ended_pid, "w"); old_file:close()
local before = nsys_temp.status_names(udir)
os.remove(udir .. "/nsys_termination_status_" .. ended_pid)
local since = core.sys.now()
local lost = io.open(udir .. "/nsys_termination_status_" .. ended_pid, "w"); lost:close()
local alive = io.open(udir .. "/nsys_termination_status_" .. me, "w"); alive:close()
t.eq("drop_unseen: a file there before the try is kept", 0,
  nsys_temp.drop_unseen(udir, { [udir .. "/nsys_termination_status_" .. ended_pid] = true }, since, 0))
t.eq("drop_unseen: a file younger than the settle time is kept", 0, nsys_temp.drop_unseen(udir, {}, since, 60))
t.eq("drop_unseen: a file written before the try began is kept", 0, nsys_temp.drop_unseen(udir, {}, since + 100, 0))
t.ok("drop_unseen: the snapshot held the earlier file", before[udir .. "/nsys_termination_status_" .. ended_pid])
t.ok("drop_unseen: the lost child's file goes", nsys_temp.drop_unseen(udir, {}, since, 0) >= 1)
t.eq("... it is gone", false, exists(udir .. "/nsys_termination_status_" .. ended_pid))
t.eq("... a live process's file stays", true, exists(udir .. "/nsys_termination_status_" .. me))

local n_kept, wait = nsys_temp.drop_unseen(udir, {}, since, 60)
t.eq("drop_unseen: a file kept for its age only ...", 0, n_kept)
t.ok("... says how long until it settles", wait and wait > 0 and wait <= 60)
t.eq("... not for a live process's file", nil, select(2, nsys_temp.drop_unseen(udir, {}, since, 0)))

-- the sweep after a failed try: a file written just after the try ended is waited for, then removed
local sdir = core.fs.mkdtemp()
local swept = { dir = sdir, names = {}, since = core.sys.now() - 5, ended = core.sys.now() - 5 }
local late = io.open(sdir .. "/nsys_termination_status_" .. ended_pid, "w"); late:write("1\n15\n"); late:close()
nsys_temp.sweep_unseen(swept)
t.eq("sweep_unseen: a status file written after the try ended is removed once it settles", false,
  exists(sdir .. "/nsys_termination_status_" .. ended_pid))

-- a lost child still exiting as the sweep begins (CI 99): a file whose pid is held is kept, said so, and waited
-- for by the sweep (boundedly: here the pid is this process's own and never goes)
local hdir = core.fs.mkdtemp()
local hswept = { dir = hdir, names = {}, since = core.sys.now() - 5, ended = core.sys.now() - 5 }
local hfile = io.open(hdir .. "/nsys_termination_status_" .. me, "w"); hfile:close()
t.eq("drop_unseen: a file whose pid is held is kept, and said to be kept for its pid (path, pid, start)",
  string.format("0 1 %s %d %d", hdir .. "/nsys_termination_status_" .. me, me, my_start),
  (function() local n, _, h = nsys_temp.drop_unseen(hdir, {}, hswept.since, 0)
    return string.format("%d %d %s %d %d", n, #h, h[1].path, h[1].pid, h[1].start) end)())
local t0 = core.sys.now()
local still = nsys_temp.sweep_unseen(hswept)
local waited = core.sys.now() - t0
t.ok("sweep_unseen: waits for it (at least a second), boundedly (under 5 s)", waited >= 1 and waited < 5,
  string.format("%.2f s", waited))
t.eq("... and keeps it while its pid is held", true, exists(hdir .. "/nsys_termination_status_" .. me))
t.eq("... returning it for the caller to drop later", me, still and still[1] and still[1].pid)
-- a lost child that has ended but is not yet reaped (a zombie, as one gpuflame adopted stays until its next reaping):
-- its pid is held by nothing alive, so its file goes
local zdir = core.fs.mkdtemp()
local zombie = core.proc.spawn({ argv = { "true" } })
for _ = 1, 200 do -- up to 10 s: a loaded machine may take a while to run `true`
  local zs = procfs.stat(zombie:pid())
  if zs and zs.state == "Z" then break end
  core.sys.sleep(0.05)
end
local zpath = zdir .. "/nsys_termination_status_" .. zombie:pid()
local zf = io.open(zpath, "w"); zf:close()
t.eq("the child is a zombie (not yet reaped)", "Z", (procfs.stat(zombie:pid()) or {}).state)
t.eq("drop_unseen: a zombie's file goes, and it is not said to be held", "1 nil false",
  (function() local n, _, h = nsys_temp.drop_unseen(zdir, {}, core.sys.now() - 5, 0)
    return n .. " " .. tostring(h) .. " " .. tostring(exists(zpath)) end)())
zombie:wait()
-- a lost child that lives on past the sweep (CI 99, 103: ended only when the launch's next try ended): the entry
-- the sweep returned removes its file once it has ended, and not before
local ldir = core.fs.mkdtemp()
local lswept = { dir = ldir, names = {}, since = core.sys.now() - 5, ended = core.sys.now() - 5 }
local child_lost = core.proc.spawn({ argv = { "sleep", "30" } })
local lpath = ldir .. "/nsys_termination_status_" .. child_lost:pid()
local lf = io.open(lpath, "w"); lf:close()
local kept = nsys_temp.sweep_unseen(lswept) or {}
t.eq("sweep_unseen: a live child's file is returned with its pid and start", child_lost:pid() .. " " ..
  tostring(procfs.start(child_lost:pid())), (kept[1] and kept[1].pid or "-") .. " " .. tostring(kept[1] and kept[1].start))
t.eq("drop_status of it while the child runs: kept", "0 true", nsys_temp.drop_status(kept) .. " " .. tostring(exists(lpath)))
child_lost:terminate()
child_lost:wait()
t.eq("drop_status of it once the child has ended: removed", "1 false",
  nsys_temp.drop_status(kept) .. " " .. tostring(exists(lpath)))

-- a capture stopped before gpuflame saw its workload (an interrupt as it started): clean sweeps the try's
-- snapshot, so the status file of that workload, whose pid it never knew, goes too
local idir = core.fs.mkdtemp()
local istate = { dir = core.fs.mkdtemp(), nsys_try = nsys_temp.snapshot({ TMPDIR = idir }) }
istate.nsys_try.since = istate.nsys_try.since - 5
local unseen = io.open(idir .. "/nsys_termination_status_" .. ended_pid, "w"); unseen:write("1\n15\n"); unseen:close()
nsys_temp.clean(istate, true, policy)
t.eq("clean after an interrupted try: the unseen workload's status file is removed", false,
  exists(idir .. "/nsys_termination_status_" .. ended_pid))
t.eq("... and the try's snapshot is spent", nil, istate.nsys_try)

for _, d in ipairs({ dir, state.dir, hstate.dir, state2.dir, state3.dir, state4.dir, state5.dir, udir, sdir, idir,
  istate.dir, hdir }) do
  core.fs.remove_tree(d)
end
return t.done()
