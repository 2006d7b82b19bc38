-- The fleet agent (docs/spec/STUDIO.md §5): heartbeat every interval, act on profiling commands,
-- capture in the background with the backends (nsys through `gpuflame capture`, perf) while the
-- heartbeat keeps ticking — a workload the local allow-list permits, or a window of a running live
-- session (fleet/allow.lua) — deliver through the spool (fleet/uploads.lua), report command completion.
--
-- State (<state_dir>, 0700): state.json {received, executed (command ids, newest last, capped at
-- policy agent.history), completions (reports not yet accepted), jobs (the write-ahead journal of
-- unfinished commands, fleet/journal.lua)}, gpid, spool/, captures/<id>/. A command is in `jobs` from
-- the write that adds it to `received` until the write that adds it to `executed`, so an agent killed
-- at any point finds it after a restart (A:recover, fleet/recover.lua).
local allow = require("gpuflame.fleet.allow")
local core = require("gpuflame.core")
local deliver = require("gpuflame.fleet.deliver")
local errors = require("gpuflame.errors")
local journal = require("gpuflame.fleet.journal")
local log = require("gpuflame.log")
local nsys_temp = require("gpuflame.nsys_temp")
local payload = require("gpuflame.fleet.payload")
local resource = require("gpuflame.resource")
local shlex = require("gpuflame.fleet.shlex")
local studio = require("gpuflame.fleet.studio")
local spool = require("gpuflame.fleet.spool")
local live = require("gpuflame.live")

local agent = {}

local null = core.json.null

-- ---------------------------------------------------------------------------------------------
-- persistent state
local function state_path(c) return c.state_dir .. "/state.json" end

local function encode_state(s)
  return core.json.encode({
    received = core.json.array(s.received), executed = core.json.array(s.executed),
    completions = core.json.array(s.completions), jobs = core.json.array(s.jobs),
  })
end
-- path → the text this process last wrote there (or found nothing to write for): a save that would write the
-- same text again is skipped, so a stop with nothing to record does no write and no fsync (a busy disk can
-- hold an fsync for seconds, and a stop should not wait on one for nothing)
local in_sync = {}

function agent.load_state(c)
  local s = { received = {}, executed = {}, completions = {}, jobs = {} }
  if core.fs.stat(state_path(c)) then
    local ok, t = pcall(function() return core.json.decode(core.fs.read(state_path(c))) end)
    if ok and type(t) == "table" then
      s.received = type(t.received) == "table" and t.received or {}
      s.executed = type(t.executed) == "table" and t.executed or {}
      s.completions = type(t.completions) == "table" and t.completions or {}
      s.jobs = type(t.jobs) == "table" and t.jobs or {}
      local r = t.running -- written by older agents: the capture in flight, without its pids
      if type(r) == "table" and r.command_id and not journal.find(s, r.command_id) then
        journal.put(s, { command_id = r.command_id, phase = "starting", dir = r.dir, start_wall = r.start_time,
          stacks = r.stacks, procs = {} })
      end
    else
      log.warn("agent: %s is unreadable; starting with an empty command history", state_path(c))
    end
  else
    in_sync[state_path(c)] = encode_state(s) -- an empty history is what a missing file says already
  end
  return s
end

local function save_state(c, s)
  local path, text = state_path(c), encode_state(s)
  if in_sync[path] == text then return end
  core.fs.write_atomic(path, text)
  in_sync[path] = text
end

local function remember(list, id, cap)
  list[#list + 1] = id
  while #list > cap do table.remove(list, 1) end
end

local function contains(list, id)
  for _, x in ipairs(list) do if x == id then return true end end
  return false
end

-- ---------------------------------------------------------------------------------------------
-- process trees: a cancel must reach nsys and the workload, which live in their own process groups,
-- and the daemons nsys starts (they leave the group). The C process runner ends the whole tree:
-- the group, every descendant found under it, SIGKILL after `grace` seconds.
function agent.kill_tree(h, grace)
  local _, t0 = core.sys.now()
  h:terminate(grace)
  local _, t1 = core.sys.now()
  return t1 - t0
end

-- ---------------------------------------------------------------------------------------------
local function backends(p)
  local list = {}
  for _, name in ipairs(p.agent.backends) do
    local fn = resource.load("backends/" .. name .. ".lua", _ENV)
    list[#list + 1] = fn()
  end
  return list
end

local function child_env(c)
  local env = core.proc.environ()
  for k, v in pairs(env) do
    if k == "GPUFLAME_TOKEN" or (c.token and v:find(c.token, 1, true)) then env[k] = nil end
  end
  return env
end

local function ip_address()
  local ok, r = pcall(core.proc.run, { argv = { "hostname", "-I" }, timeout = 5 })
  if ok and r.ok then
    local ip = r.stdout:match("(%S+)")
    if ip then return ip end
  end
  return "127.0.0.1"
end

local A = {}
A.__index = A
-- the agent's methods that live in their own files: deliveries (fleet/uploads.lua), settling the journal
-- after a restart (fleet/recover.lua)
for _, m in ipairs({ "uploads", "recover" }) do
  for k, f in pairs(require("gpuflame.fleet." .. m)) do A[k] = f end
end

function A:save() save_state(self.c, self.state) end

function agent.new(c, opts, ctx)
  local self = setmetatable({ ctx = ctx, c = c, opts = opts or {} }, A)
  self.p = ctx.policy()
  self.state = agent.load_state(c)
  self.pause = os.getenv("GPUFLAME_TEST_AGENT_PAUSE") -- test hook (journal.pause_hook)
  self.ip = ip_address()
  self.self_exe = core.fs.realpath("/proc/self/exe") or "gpuflame"
  return self
end

function A:hook(point, id)
  if self.pause then journal.pause_hook(self.pause, self.c.state_dir, point, id) end
end

-- Reports a command: it becomes executed, its report is queued and its journal entry removed, all in
-- one write of state.json; then the report is sent (and re-sent until accepted, across restarts).
function A:complete(command_id, status, message, started)
  local _, now = core.sys.now()
  local secs = started and now - started
  local body = { command_id = command_id, hostname = self.c.hostname, status = status,
    execution_time = secs and secs >= 0 and math.floor(secs + 0.5) or null,
    error_message = message and log.redact(message) or null, results_path = null }
  if status == "failed" then
    log.warn("command %s failed: %s", command_id, log.redact(message or "?"))
  else
    log.info("command %s completed", command_id)
  end
  if not contains(self.state.executed, command_id) then
    remember(self.state.executed, command_id, self.p.agent.history)
  end
  self.state.completions[#self.state.completions + 1] = body
  journal.drop(self.state, command_id)
  save_state(self.c, self.state)
  self:hook("reporting", command_id)
  self:send_completions()
end

-- Each report accepted (or refused for good) leaves the state at once: a kill between the server's
-- answer and that write is the one window where a report is sent twice (the protocol has no key).
function A:send_completions()
  local i = 1
  while i <= #self.state.completions do
    local body = self.state.completions[i]
    local r = studio.command_completion(self.c, body)
    if not r.ok and deliver.retryable(r, self.p) then
      i = i + 1
      log.warn("command_completion for %s not accepted yet (%s); will retry", body.command_id, r.error or r.status)
    else
      if not r.ok then
        log.error("command_completion for %s rejected: %s %s", body.command_id, r.error or r.status, r.body:sub(1, 200))
      end
      table.remove(self.state.completions, i)
      save_state(self.c, self.state)
    end
  end
end

function A:heartbeat()
  local s = self.state
  local body = {
    ip_address = self.ip, hostname = self.c.hostname, service_name = self.c.service,
    last_command_id = s.received[#s.received] or null, status = "active",
    timestamp = os.date("%Y-%m-%dT%H:%M:%S"),
    received_command_ids = core.json.array(s.received), executed_command_ids = core.json.array(s.executed),
    perf_supported_events = core.json.array({}), agent_version = "gpuflame-" .. studio.VERSION,
    run_mode = "gpuflame-agent", namespace = os.getenv("POD_NAMESPACE") or null,
    pod_name = os.getenv("POD_NAME") or null, containers = core.json.array({}),
  }
  local r = studio.heartbeat(self.c, body)
  if not r.ok then
    log.warn("heartbeat failed: %s", r.error or ("HTTP " .. r.status))
    return
  end
  local j = r.json
  if type(j) ~= "table" or j.success ~= true or type(j.profiling_command) ~= "table" then return end
  local id = j.command_id
  if type(id) ~= "string" and math.type(id) ~= "integer" then
    log.warn("heartbeat: command without a command_id ignored")
    return
  end
  id = tostring(id)
  if contains(s.received, id) then
    log.debug("heartbeat: command %s already received; ignored", id)
    return
  end
  remember(s.received, id, self.p.agent.history)
  local pc = j.profiling_command
  local ctype = pc.command_type or (type(pc.combined_config) == "table" and pc.combined_config.command_type)
  journal.put(s, { command_id = id, phase = "accepted", command_type = tostring(ctype) })
  save_state(self.c, s)
  self:hook("accepted", id)
  self:on_command(id, pc)
end

function A:on_command(id, pc)
  local cc = type(pc.combined_config) == "table" and pc.combined_config or {}
  local ctype = pc.command_type or cc.command_type
  log.info("command %s: %s", id, tostring(ctype))
  if ctype == "stop" then
    if self.job then
      local took = self:cancel("stopped by command " .. id)
      log.info("capture %s cancelled in %.2f s", self.job_id or "?", took)
    end
    self:complete(id, "completed", nil, nil)
    return
  end
  if ctype ~= "start" then
    self:complete(id, "failed", "unknown command_type " .. tostring(ctype), nil)
    return
  end
  if type(cc.target_hostnames) == "table" and #cc.target_hostnames > 0 and not contains(cc.target_hostnames, self.c.hostname) then
    log.info("command %s targets %s, not this host (%s); skipped", id, table.concat(cc.target_hostnames, ","), self.c.hostname)
    journal.drop(self.state, id)
    save_state(self.c, self.state)
    return
  end
  if self.job then
    self:complete(id, "failed", "a capture is already running (command " .. tostring(self.job.command_id) .. ")", nil)
    return
  end
  local ok, err = pcall(self.start_job, self, id, cc)
  if not ok then self:complete(id, "failed", errors.wrap(err).msg, nil) end
end

-- The capture length a command asks for, in whole seconds; refused when absurd (policy agent.max_duration).
function agent.command_duration(value, p)
  if value == nil or value == null then return math.floor(p.agent.default_duration) end
  local d = tonumber(value)
  local maxd = p.agent.max_duration
  if not d or d ~= d or d == math.huge or d == -math.huge then
    errors.raise(errors.USAGE, "refused: duration %s is not a number of seconds", core.json.encode(value))
  end
  if d < 1 or d > maxd then
    errors.raise(errors.USAGE, "refused: duration %s s is outside 1..%s s (policy agent.max_duration)",
      tostring(value), tostring(maxd))
  end
  return math.floor(d)
end

-- A command's start_at (RFC 3339, @EPOCH, +Ns, or a number of epoch seconds): every host of a job starts
-- its window at that instant. → the --at instant (@EPOCH) and the seconds until then (0 without one).
function agent.command_start_at(value, p)
  if value == nil or value == null or value == "" then return nil, 0 end
  local at = type(value) == "number" and string.format("@%.6f", value) or tostring(value)
  local now = core.sys.now()
  local t, why = live.parse_at(at, now)
  if not t then errors.raise(errors.USAGE, "refused: start_at %s: %s", core.json.encode(value), why) end
  if t - now > p.live.max_wait then
    errors.raise(errors.USAGE, "refused: start_at %s is more than policy live.max_wait (%g s) away", at, p.live.max_wait)
  end
  return string.format("@%.6f", t), math.max(0, t - now) -- "+Ns" means from the command's arrival
end

function A:start_job(id, cc)
  local p = self.p
  local _, mono = core.sys.now()
  local job = {
    command_id = id, started = mono, start_wall = core.sys.isotime(), cpu0 = payload.cpu_sample(),
    enable_nsys = cc.enable_nsys == true, timeline = cc.nsys_timeline == true,
    stacks = cc.nsys_timeline == true and cc.nsys_timeline_stacks == true,
    nsys_path = type(cc.nsys_path) == "string" and cc.nsys_path ~= "" and cc.nsys_path or nil,
    duration = agent.command_duration(cc.duration, p),
    self = self.self_exe, policy_files = self.ctx.globals.policy_files, env = child_env(self.c),
  }
  local target = cc.nsys_session
  if target ~= nil and target ~= null and target ~= "" then
    if cc.nsys_workload ~= nil and cc.nsys_workload ~= null and cc.nsys_workload ~= "" then
      errors.raise(errors.USAGE, "refused: a command names nsys_session or nsys_workload, not both")
    end
    local e = allow.session_target(target, { command_id = id, hostname = self.c.hostname }, p)
    job.session, job.enable_nsys = e.name, true
    job.at, job.wait = agent.command_start_at(cc.start_at, p)
    log.info("command %s: a window of live session %s (pid %s, allowed by local policy)%s", id, e.name,
      tostring(e.pid), job.at and (" at " .. job.at) or "")
  elseif cc.nsys_workload ~= nil and cc.nsys_workload ~= null and cc.nsys_workload ~= "" then
    local argv, why
    if type(cc.nsys_workload) == "table" then argv = cc.nsys_workload else argv, why = shlex.split(tostring(cc.nsys_workload)) end
    if not argv then errors.raise(errors.INPUT, "cannot split nsys_workload: %s", why) end
    local allowed, reason = allow.workload(argv, { command_id = id, hostname = self.c.hostname }, p)
    if not allowed then errors.raise(errors.USAGE, "refused: %s", reason) end
    job.workload = allow.privilege_drop(argv, p)
    log.info("command %s: running remote workload (allowed by local policy): %s", id, table.concat(job.workload, " "))
  end
  local caps = self.c.state_dir .. "/captures"
  core.fs.mkdirp(caps, 448)
  job.dir = string.format("%s/%s-%s", caps, os.date("!%Y%m%dT%H%M%SZ"), (id:gsub("[^%w%-_]", "_")):sub(1, 64))
  core.fs.mkdirp(job.dir, 448)
  job.handles = {}
  local wanted = {}
  for _, b in ipairs(backends(p)) do
    if b.wanted(job, p) then wanted[#wanted + 1] = b end
  end
  if #wanted == 0 then
    errors.raise(errors.USAGE, "nothing to capture: enable_nsys is not set and no other backend is enabled by policy")
  end
  -- written ahead before anything starts, then with each process's pid and start time, so that an agent
  -- killed at any point finds the capture after a restart (A:recover); a failure is reported by on_command
  local wall = core.sys.now()
  local e = journal.put(self.state, { command_id = id, phase = "starting", dir = job.dir, start_wall = job.start_wall,
    stacks = job.stacks, started = mono, procs = {}, deadline = wall + (job.wait or 0) + job.duration + p.agent.stop_grace +
      math.max(p.capture.timeout_extra + p.backends.nsys.timeout_margin, p.backends.perf.timeout_extra) })
  save_state(self.c, self.state)
  local ok, err = pcall(function()
    for _, b in ipairs(wanted) do
      local h = b.start(job, p)
      job.handles[#job.handles + 1] = { backend = b, h = h }
      e.procs[#e.procs + 1] = { pid = h:pid(), start = journal.proc_start(h:pid()) or "?", backend = b.name }
      e.nsys_temp = e.nsys_temp or job.nsys_temp -- the mark of its raw capture, for an agent that adopts it
      log.info("command %s: %s backend started (%d s)", id, b.name, job.duration)
      self:hook("spawned", id) -- its pid is not written yet: a restarted agent finds it in /proc
    end
  end)
  if not ok then
    for _, x in ipairs(job.handles) do pcall(agent.kill_tree, x.h, p.agent.stop_grace) end
    error(err, 0)
  end
  e.phase = "running"
  save_state(self.c, self.state)
  self.job = job
  self:hook("started", id)
end

-- Cancels the running capture: every backend's process tree is killed. Returns the seconds it took.
function A:cancel(why)
  local job = self.job
  if not job then return 0 end
  local worst = 0
  for _, e in ipairs(job.handles) do
    local took = agent.kill_tree(e.h, self.p.agent.stop_grace)
    if took > worst then worst = took end
    if e.backend.cleanup then pcall(e.backend.cleanup, job, self.p) end -- what the killed child could not
  end
  if job.adopted then
    local _, t0 = core.sys.now()
    journal.end_procs(job.procs, self.p.agent.stop_grace)
    local _, t1 = core.sys.now()
    worst = t1 - t0
    if job.nsys_temp then pcall(nsys_temp.sweep_for, job.nsys_temp, true, self.p) end
  end
  self.job = nil
  self:complete(job.command_id, "failed", "capture cancelled: " .. why, job.started)
  return worst
end

function A:poll_job()
  local job = self.job
  if not job then return end
  if job.adopted then
    if #journal.alive(job.procs) > 0 then
      if core.sys.now() < job.deadline then return end
      log.warn("agent: the adopted capture of command %s ran past its deadline; ending it", job.command_id)
      journal.end_procs(job.procs, self.p.agent.stop_grace)
    end
  else
    for _, e in ipairs(job.handles) do
      if not e.done and e.h:poll(0) then e.done = true end
    end
    for _, e in ipairs(job.handles) do if not e.done then return end end
  end
  self.job = nil
  self:hook("finished", job.command_id)
  local p = self.p
  local errs, any_ok, gpu_ok = {}, false, false
  if job.adopted then errs, any_ok, gpu_ok = self:adopted_result(job) end
  for _, e in ipairs(job.handles) do
    local okf, res = pcall(e.backend.finish, job, e.h, p)
    if not okf then res = { ok = false, error = errors.wrap(res).msg } end
    if res.ok then
      any_ok = true
      if e.backend.name == "nsys" then gpu_ok = true end
    else
      errs[#errs + 1] = res.error
    end
  end
  self:deliver_capture(job, errs, any_ok, gpu_ok)
end

function A:reload()
  local ok, newp = pcall(self.ctx.reload_policy) -- on failure the context keeps the previous policy
  if ok then
    self.p = newp
    log.info("agent: policies reloaded (SIGHUP)")
  else
    log.error("agent: policy reload failed, keeping the previous policy: %s", errors.wrap(newp).msg)
  end
end

function A:loop()
  local c = self.c
  local next_hb, next_flush = 0, 0
  while true do
    if core.host.interrupted() ~= 0 then break end
    if core.host.take_hangup() then self:reload() end
    local _, now = core.sys.now()
    self:poll_job()
    if now >= next_hb then
      next_hb = now + c.interval
      self:heartbeat()
      if #self.state.completions > 0 then self:send_completions() end
    end
    local _, now2 = core.sys.now()
    local due = now2 >= next_flush
    if due then next_flush = now2 + math.min(c.interval, 5) end
    self:poll_uploader(due)
    core.sys.sleep(0.1)
  end
end

-- run: the whole agent; SIGTERM/SIGINT end it cleanly (capture cancelled and reported, state saved).
function A:run()
  local c = self.c
  log.info("agent: host %s, service %s, server %s, api %s, every %g s, state %s", c.hostname, c.service, c.server,
    c.api_server, c.interval, c.state_dir)
  local hc = self.p.agent.health_check
  if hc ~= "off" then
    local r = studio.health_check(c)
    if not r.ok then
      local msg = string.format("health check of %s failed: %s (check firewall/proxy settings: https_proxy, no_proxy)",
        c.server, r.error or ("HTTP " .. r.status))
      if hc == "fatal" then errors.raise(errors.ERROR, "%s", msg) end
      log.warn("%s; continuing, deliveries are spooled until it answers", msg)
    end
  end
  self:recover()
  local ok, err = pcall(self.loop, self)
  local e = not ok and errors.wrap(err) or nil
  local sig = core.host.interrupted()
  core.host.clear_interrupt()
  if e and e.code ~= errors.INTERRUPTED then
    if self.job then pcall(self.cancel, self, "agent error") end
    errors.reraise(e)
  end
  if self.job then
    local okc, cerr = pcall(self.cancel, self, "agent stopped (signal " .. tostring(sig) .. ")")
    if not okc then log.error("agent: cancelling the capture failed: %s", errors.wrap(cerr).msg) end
  end
  -- an upload in flight is stopped too: its item stays in the spool for the next start
  pcall(self.stop_uploader, self)
  pcall(self.read_outcomes, self)
  pcall(save_state, c, self.state)
  log.info("agent: stopped (signal %s); %d item(s) in the spool", tostring(sig),
    #spool.list(c.spool_dir))
  return 0
end

return agent
