-- The agent's deliveries (methods of the agent, fleet/agent.lua): a finished capture into the spool, and
-- the outcomes of the child uploader back into command completion reports.
--
-- Deliveries run in a child process (`gpuflame upload --flush --agent-tick`), so an upload that takes
-- its whole timeout never delays a heartbeat or a `stop`. The spool stays the one source of truth: the
-- child removes an item only after a 2xx and first writes the outcome into the spool
-- (<spool>/outcomes/), which this agent — or the next one, if this one died — turns into the command's
-- completion report.
local core = require("gpuflame.core")
local deliver = require("gpuflame.fleet.deliver")
local errors = require("gpuflame.errors")
local fleetcfg = require("gpuflame.fleet.fleetcfg")
local journal = require("gpuflame.fleet.journal")
local log = require("gpuflame.log")
local payload = require("gpuflame.fleet.payload")
local spool = require("gpuflame.fleet.spool")

local A = {}
local null = core.json.null

local function contains(list, id)
  for _, x in ipairs(list) do if x == id then return true end end
  return false
end

-- Spools a finished capture's upload and moves its journal entry to `spooled` (or reports the command
-- when there is nothing to upload). Until that write the entry says the capture was running: a
-- restarted agent looks in the spool for its items before it spools them again (A:recover).
function A:deliver_capture(job, errs, any_ok, gpu_ok)
  local p = self.p
  local pl = payload.from_dir(job.dir, {
    command_id = job.command_id, command = job.command_id, label = "command " .. job.command_id,
    start_time = job.start_wall, end_time = core.sys.isotime(),
    cpu_avg = job.cpu0 and payload.cpu_avg(job.cpu0, payload.cpu_sample()), mem_avg = payload.mem_used_percent(),
  }, p)
  if job.stacks then pl.stacks = true end
  if not gpu_ok then pl.html, pl.folded, pl.gpu = {}, nil, false end
  if not any_ok or (next(pl.html) == nil and not pl.folded and not pl.cpu_folded) then
    self:complete(job.command_id, "failed", #errs > 0 and table.concat(errs, "; ") or "the capture produced nothing to upload", job.started)
    return
  end
  local okd, items, _, dropped = pcall(deliver.submit, self.c, pl, p)
  if not okd then
    self:complete(job.command_id, "failed", errors.wrap(items).msg, job.started)
    return
  end
  if #items == 0 then
    self:complete(job.command_id, #errs > 0 and "failed" or "completed", #errs > 0 and table.concat(errs, "; ") or nil, job.started)
  else
    local e = journal.find(self.state, job.command_id) or journal.put(self.state, { command_id = job.command_id })
    e.phase, e.left, e.errs, e.procs = "spooled", #items, core.json.array(errs), nil
    e.started = e.started or job.started
    self:save()
    self:hook("spooled", job.command_id)
  end
  -- an older capture pushed out of the full spool: its command is reported, not left hanging
  for name, meta in pairs(dropped or {}) do
    local pend = meta and meta.command_id and journal.find(self.state, meta.command_id)
    if pend and pend.phase == "spooled" and meta.command_id ~= job.command_id then
      self:complete(meta.command_id, "failed", "upload dropped from the full spool (" .. name .. "; policy deliver.spool)",
        pend.started)
    end
  end
  self:prune_captures()
end

function A:prune_captures()
  local dir = self.c.state_dir .. "/captures"
  local names = core.fs.listdir(dir) or {}
  table.sort(names)
  local busy = {}
  for _, e in ipairs(self.state.jobs) do if e.dir then busy[e.dir] = true end end
  local keep = self.p.agent.keep_captures
  for i = 1, #names - keep do
    if not busy[dir .. "/" .. names[i]] then core.fs.remove_tree(dir .. "/" .. names[i]) end
  end
end

function A:on_delivered(meta)
  local id = meta.command_id
  local pend = id and journal.find(self.state, id)
  if pend and pend.phase == "spooled" then
    pend.left = (math.tointeger(pend.left) or 1) - 1
    if pend.left > 0 then
      self:save()
    elseif type(pend.errs) == "table" and #pend.errs > 0 then
      self:complete(id, "failed", table.concat(pend.errs, "; ") .. " (the rest was uploaded)", pend.started)
    else
      self:complete(id, "completed", nil, pend.started)
    end
  elseif id and not contains(self.state.executed, id) then
    -- spooled by an earlier run of the agent that died before it recorded the item
    self:complete(id, "completed", nil, pend and pend.started)
  end
end

function A:on_exhausted(meta, why, attempts, rejected)
  local pend = meta.command_id and journal.find(self.state, meta.command_id)
  if pend and pend.phase == "spooled" then
    self:complete(meta.command_id, "failed", string.format("upload %s after %d attempt(s): %s%s",
      rejected and "rejected" or "failed", attempts, why,
      rejected and "" or " (kept in the spool; re-sent every tick)"), pend.started)
  end
end

function A:read_outcomes()
  for _, o in ipairs(deliver.outcomes(self.c.spool_dir)) do
    local meta = type(o.meta) == "table" and o.meta or {}
    self:hook("delivered", meta.command_id)
    if o.event == "delivered" then
      self:on_delivered(meta)
    elseif o.event == "exhausted" then
      local why = o.error ~= null and o.error or ("HTTP " .. tostring(o.status))
      self:on_exhausted(meta, why, math.tointeger(o.attempts) or 0, o.rejected == true)
    end
    os.remove(o.path)
  end
end

-- The uploader's environment: the agent's settings as GPUFLAME_<KEY> (the token too, never in argv).
local function uploader_env(c)
  local env = core.proc.environ()
  for _, k in ipairs(fleetcfg.KEYS) do
    local v = c[k]
    if k ~= "token_file" and (type(v) == "string" or type(v) == "number") then env["GPUFLAME_" .. k:upper()] = tostring(v) end
  end
  return env
end

function A:start_uploader()
  local argv = { self.self_exe }
  for _, f in ipairs(self.ctx.globals.policy_files or {}) do argv[#argv + 1] = "--policy"; argv[#argv + 1] = f end
  for _, a in ipairs({ "upload", "--flush", "--agent-tick" }) do argv[#argv + 1] = a end
  local ok, h = pcall(core.proc.spawn, { argv = argv, env = uploader_env(self.c), stdout = "capture", stderr = "stdout",
    capture_limit = 65536, timeout = self.p.agent.uploader_timeout, kill_grace = self.p.agent.stop_grace })
  if ok then
    self.uploader = h
  else
    log.error("agent: cannot start the uploader: %s", errors.wrap(h).msg)
  end
end

-- Called every loop tick: collects a finished uploader's outcomes; starts one when items are due.
function A:poll_uploader(start_if_due)
  if self.uploader then
    if not self.uploader:poll(0) then return end
    local r = self.uploader:wait()
    self.uploader = nil
    for line in (r.stdout or ""):gmatch("[^\n]+") do
      if line:match("^gpuflame: warning") or line:match("^gpuflame: error") or not r.ok then
        log.warn("uploader: %s", line:gsub("^gpuflame: ", ""))
      else
        log.info("uploader: %s", line:gsub("^gpuflame: ", ""))
      end
    end
    if not r.ok then log.warn("agent: the uploader ended %s %s", r.status, tostring(r.code)) end
  end
  self:read_outcomes()
  if start_if_due and not self.uploader and #spool.list(self.c.spool_dir) > 0 then self:start_uploader() end
end

function A:stop_uploader()
  if self.uploader then
    self.uploader:terminate(self.p.agent.stop_grace)
    self.uploader = nil
  end
end

return A
