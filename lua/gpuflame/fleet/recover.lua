-- Settling the agent's journal after a restart (methods of the agent, fleet/agent.lua): captures still
-- running are adopted, finished ones delivered, the rest reported.
local core = require("gpuflame.core")
local journal = require("gpuflame.fleet.journal")
local log = require("gpuflame.log")
local nsys_temp = require("gpuflame.nsys_temp")

local A = {}
local null = core.json.null

local function contains(list, id)
  for _, x in ipairs(list) do if x == id then return true end end
  return false
end

-- What a capture the agent adopted after a restart left: its summary.json says (the exit status went to
-- the process that replaced the dead agent as its parent).
function A:adopted_result(job)
  local p = self.p
  local path = job.dir .. "/" .. p.outputs.summary
  local ok, summary = pcall(function() return core.json.decode(core.fs.read(path)) end)
  if ok and type(summary) == "table" and summary.status == "ok" then return {}, true, true end
  if type(job.nsys_temp) == "table" then pcall(nsys_temp.sweep_for, job.nsys_temp, true, p) end
  local why = ok and type(summary) == "table" and summary.error ~= null and tostring(summary.error) or
    "the capture process ended without a result"
  return { "agent restarted during capture: " .. why .. " (partial results kept in " .. job.dir .. ")" }, false, false
end

-- Settles every command the journal holds, after a restart (the agent died: SIGKILL, OOM, reboot).
--   accepted: nothing was started; a `stop` is done now, anything else is reported failed.
--   starting/running: a capture process still running (same pid AND start time) is adopted: waited
--     for, its result delivered (or ended at its deadline, or by `stop`). One that has ended: the processes
--     it left that name its directory (its nsys) are ended with their process groups; its items
--     already in the spool are not spooled again; a finished capture (summary.json ok) is uploaded
--     now; anything else is reported failed ("agent restarted during capture"), its directory kept.
--   spooled: its items or their outcomes are counted again; read_outcomes reports it.
function A:recover()
  local s = self.state
  local stops = {}
  for _, e in ipairs({ table.unpack(s.jobs) }) do
    local id = e.command_id
    if type(id) ~= "string" or contains(s.executed, id) then
      journal.drop(s, id)
      self:save()
    elseif e.phase == "accepted" then
      stops[#stops + 1] = e
    else
      self:recover_capture(e)
    end
  end
  for _, e in ipairs(stops) do
    if e.command_type == "stop" then
      if self.job then self:cancel("stopped by command " .. e.command_id) end
      self:complete(e.command_id, "completed", nil, nil)
    else
      self:complete(e.command_id, "failed", "agent restarted before the capture started (the command was not run)", nil)
    end
  end
  if #s.jobs > 0 then log.info("agent: %d unfinished command(s) recovered", #s.jobs) end
end

function A:recover_capture(e)
  local p, id = self.p, e.command_id
  if e.phase == "starting" or e.phase == "running" then
    local procs = journal.alive(type(e.procs) == "table" and e.procs or {})
    if e.phase == "starting" and e.dir then
      for _, pr in ipairs(journal.find_procs(e.dir)) do procs[#procs + 1] = pr end
    end
    -- its recorded processes gone, what still names its directory was started by it (nsys, in a process group
    -- of its own) and outlived it: nothing will read its results now, so it is ended, never left behind
    local orphans = e.phase == "running" and #procs == 0 and e.dir and journal.find_procs(e.dir) or {}
    if #orphans > 0 then
      log.warn("agent: the capture of command %s ended, leaving %d process(es) of it (pid %s); ending them", id,
        #orphans, tostring(orphans[1].pid))
      journal.end_procs(orphans, p.agent.stop_grace)
    end
    if #procs > 0 and not self.job then
      log.warn("agent: the capture of command %s is still running (pid %s); adopting it", id, tostring(procs[1].pid))
      e.phase, e.procs = "running", core.json.array(procs)
      self:save()
      self.job = { command_id = id, adopted = true, procs = procs, dir = e.dir, stacks = e.stacks == true,
        start_wall = e.start_wall, started = e.started, handles = {}, nsys_temp = e.nsys_temp,
        deadline = tonumber(e.deadline) or (core.sys.now() + p.agent.max_duration) }
      return
    elseif #procs > 0 then
      journal.end_procs(procs, p.agent.stop_grace)
    end
  end
  local n = journal.in_spool(self.c.spool_dir, id)
  if n > 0 then
    e.phase, e.left, e.procs = "spooled", n, nil
    e.errs = type(e.errs) == "table" and e.errs or core.json.array({})
    self:save()
    log.warn("agent: command %s has %d upload(s) in the spool from before the restart", id, n)
  elseif e.phase == "spooled" then
    self:complete(id, "failed", "agent restarted: the upload of this capture left the spool without an outcome", e.started)
  elseif not e.dir then
    self:complete(id, "failed", "agent restarted during capture (no capture directory)", e.started)
  else
    log.warn("agent: command %s was running when the agent stopped; settling %s", id, e.dir)
    local job = { command_id = id, dir = e.dir, stacks = e.stacks == true, start_wall = e.start_wall,
      started = e.started, handles = {} }
    local errs, any_ok, gpu_ok = self:adopted_result(job)
    self:deliver_capture(job, errs, any_ok, gpu_ok)
  end
end

return A
