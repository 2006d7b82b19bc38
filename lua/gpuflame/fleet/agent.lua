-- The fleet agent (STUDIO_PROTOCOL.md §5): heartbeat every interval, act on profiling commands,
-- capture in the background with the backends (nsys through `gpuflame capture`, perf) while the
-- heartbeat keeps ticking, deliver through the spool, report command completion.
--
-- State (<state_dir>, 0700): state.json {received, executed (command ids, newest last, capped at
-- policy agent.history), completions (reports not yet accepted)}, gpid, spool/, captures/<id>/.
local core = require("gpuflame.core")
local deliver = require("gpuflame.fleet.deliver")
local errors = require("gpuflame.errors")
local fleetcfg = require("gpuflame.fleet.fleetcfg")
local log = require("gpuflame.log")
local payload = require("gpuflame.fleet.payload")
local policy = require("gpuflame.policy")
local resource = require("gpuflame.resource")
local shlex = require("gpuflame.fleet.shlex")
local spool = require("gpuflame.fleet.spool")
local studio = require("gpuflame.fleet.studio")

local agent = {}

local null = core.json.null

-- ---------------------------------------------------------------------------------------------
-- persistent state
local function state_path(c) return c.state_dir .. "/state.json" end

function agent.load_state(c)
  local s = { received = {}, executed = {}, completions = {} }
  s.running = nil
  if core.fs.stat(state_path(c)) then
    local ok, t = pcall(function() return core.json.decode(core.fs.read(state_path(c))) end)
    if ok and type(t) == "table" then
      s.received = type(t.received) == "table" and t.received or {}
      s.executed = type(t.executed) == "table" and t.executed or {}
      s.completions = type(t.completions) == "table" and t.completions or {}
      s.running = type(t.running) == "table" and t.running or nil
    else
      log.warn("agent: %s is unreadable; starting with an empty command history", state_path(c))
    end
  end
  return s
end

local function save_state(c, s)
  core.fs.write_atomic(state_path(c), core.json.encode({
    received = core.json.array(s.received), executed = core.json.array(s.executed),
    completions = core.json.array(s.completions), running = s.running or null,
  }))
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
-- remote workloads: allowed only by local policy (§7)
local function glob_to_pattern(g)
  local out = g:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".")
  return "^" .. out .. "$"
end

-- allowed(p, argv) → true | false, reason
function agent.workload_allowed(p, argv, ctx)
  local rw = p.agent.remote_workloads
  local line = table.concat(argv, " ")
  if type(rw.decide) == "function" then
    local ok, why = policy.call(p, rw.decide, argv, line, ctx or {})
    if ok then return true end
    return false, why or "refused by the policy's agent.remote_workloads.decide"
  end
  if not rw.enabled then
    return false, "remote workloads are disabled by local policy (agent.remote_workloads.enabled = false)"
  end
  local patterns = {}
  for _, a in ipairs(rw.allow) do patterns[#patterns + 1] = a end
  local file = rw.allow_file
  if file ~= "" and core.fs.stat(file) then
    for l in core.fs.read(file):gmatch("[^\n]+") do
      l = l:gsub("^%s+", ""):gsub("%s+$", "")
      if l ~= "" and not l:match("^#") then patterns[#patterns + 1] = l end
    end
  end
  for _, pat in ipairs(patterns) do
    if pat == line or line:match(glob_to_pattern(pat)) then return true end
  end
  return false, string.format("workload %q is not allowed by local policy (no match in %s%s)", line,
    (file ~= "" and file) or "agent.remote_workloads.allow", #rw.allow > 0 and " or agent.remote_workloads.allow" or "")
end

-- privilege_drop(p, argv) → argv, prefixed with setpriv when policy names a user to run it as
-- (the workload runs unprivileged while nsys, which needs root to trace it, keeps its rights).
function agent.privilege_drop(p, argv)
  local rw = p.agent.remote_workloads
  if rw.run_as == "" then return argv end
  local setpriv = core.fs.which("setpriv")
  if not setpriv then errors.raise(errors.ERROR, "policy agent.remote_workloads.run_as needs setpriv (util-linux)") end
  local out = { setpriv, "--reuid", rw.run_as }
  if rw.run_as_group ~= "" then
    out[#out + 1] = "--regid"; out[#out + 1] = rw.run_as_group
  else
    local r = core.proc.run({ argv = { "id", "-g", rw.run_as }, timeout = 10 })
    local gid = r.ok and r.stdout:match("(%d+)")
    if not gid then errors.raise(errors.ERROR, "policy agent.remote_workloads.run_as: unknown user %q", rw.run_as) end
    out[#out + 1] = "--regid"; out[#out + 1] = gid
  end
  for _, a in ipairs({ "--init-groups", "--" }) do out[#out + 1] = a end
  for _, a in ipairs(argv) do out[#out + 1] = a end
  return out
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

function agent.new(ctx, c, opts)
  local self = setmetatable({ ctx = ctx, c = c, opts = opts or {} }, A)
  self.p = ctx.policy()
  self.state = agent.load_state(c)
  self.pending = {} -- command_id → {left = n}
  self.ip = ip_address()
  self.self_exe = core.fs.realpath("/proc/self/exe") or "gpuflame"
  return self
end

function A:complete(command_id, status, message, started)
  local _, now = core.sys.now()
  local body = { command_id = command_id, hostname = self.c.hostname, status = status,
    execution_time = started and math.floor(now - started + 0.5) or null,
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
  save_state(self.c, self.state)
  self:send_completions()
end

function A:send_completions()
  local keep = {}
  for _, body in ipairs(self.state.completions) do
    local r = studio.command_completion(self.c, body)
    if not r.ok and deliver.retryable(r, self.p) then
      keep[#keep + 1] = body
      log.warn("command_completion for %s not accepted yet (%s); will retry", body.command_id, r.error or r.status)
    elseif not r.ok then
      log.error("command_completion for %s rejected: %s %s", body.command_id, r.error or r.status, r.body:sub(1, 200))
    end
  end
  local changed = #keep ~= #self.state.completions
  self.state.completions = keep
  if changed then save_state(self.c, self.state) end
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
  save_state(self.c, s)
  self:on_command(id, j.profiling_command)
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
function agent.command_duration(p, value)
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

function A:start_job(id, cc)
  local p = self.p
  local _, mono = core.sys.now()
  local job = {
    command_id = id, started = mono, start_wall = core.sys.isotime(), cpu0 = payload.cpu_sample(),
    enable_nsys = cc.enable_nsys == true, timeline = cc.nsys_timeline == true,
    stacks = cc.nsys_timeline == true and cc.nsys_timeline_stacks == true,
    nsys_path = type(cc.nsys_path) == "string" and cc.nsys_path ~= "" and cc.nsys_path or nil,
    duration = agent.command_duration(p, cc.duration),
    self = self.self_exe, policy_files = self.ctx.globals.policy_files, env = child_env(self.c),
  }
  if cc.nsys_workload ~= nil and cc.nsys_workload ~= null and cc.nsys_workload ~= "" then
    local argv, why
    if type(cc.nsys_workload) == "table" then argv = cc.nsys_workload else argv, why = shlex.split(tostring(cc.nsys_workload)) end
    if not argv then errors.raise(errors.INPUT, "cannot split nsys_workload: %s", why) end
    local allowed, reason = agent.workload_allowed(p, argv, { command_id = id, hostname = self.c.hostname })
    if not allowed then errors.raise(errors.USAGE, "refused: %s", reason) end
    job.workload = agent.privilege_drop(p, argv)
    log.info("command %s: running remote workload (allowed by local policy): %s", id, table.concat(job.workload, " "))
  end
  local caps = self.c.state_dir .. "/captures"
  core.fs.mkdirp(caps, 448)
  job.dir = string.format("%s/%s-%s", caps, os.date("!%Y%m%dT%H%M%SZ"), (id:gsub("[^%w%-_]", "_")):sub(1, 64))
  core.fs.mkdirp(job.dir, 448)
  job.handles = {}
  local wanted = {}
  for _, b in ipairs(backends(p)) do
    if b.wanted(p, job) then wanted[#wanted + 1] = b end
  end
  if #wanted == 0 then
    errors.raise(errors.USAGE, "nothing to capture: enable_nsys is not set and no other backend is enabled by policy")
  end
  -- remembered before anything starts, so that an agent killed mid-capture accounts for it after a restart
  self.state.running = { command_id = id, dir = job.dir, start_time = job.start_wall, stacks = job.stacks }
  save_state(self.c, self.state)
  local ok, err = pcall(function()
    for _, b in ipairs(wanted) do
      job.handles[#job.handles + 1] = { backend = b, h = b.start(p, job) }
      log.info("command %s: %s backend started (%d s)", id, b.name, job.duration)
    end
  end)
  if not ok then
    for _, e in ipairs(job.handles) do pcall(agent.kill_tree, e.h, p.agent.stop_grace) end
    self.state.running = nil
    save_state(self.c, self.state)
    error(err, 0)
  end
  self.job = job
end

-- Cancels the running capture: every backend's process tree is killed. Returns the seconds it took.
function A:cancel(why)
  local job = self.job
  if not job then return 0 end
  local worst = 0
  for _, e in ipairs(job.handles) do
    local took = agent.kill_tree(e.h, self.p.agent.stop_grace)
    if took > worst then worst = took end
  end
  self.job = nil
  self.state.running = nil
  self:complete(job.command_id, "failed", "capture cancelled: " .. why, job.started)
  return worst
end

function A:poll_job()
  local job = self.job
  if not job then return end
  for _, e in ipairs(job.handles) do
    if not e.done and e.h:poll(0) then e.done = true end
  end
  for _, e in ipairs(job.handles) do if not e.done then return end end
  self.job = nil
  self.state.running = nil
  save_state(self.c, self.state)
  local p = self.p
  local errs, any_ok, gpu_ok = {}, false, false
  for _, e in ipairs(job.handles) do
    local okf, res = pcall(e.backend.finish, p, job, e.h)
    if not okf then res = { ok = false, error = errors.wrap(res).msg } end
    if res.ok then
      any_ok = true
      if e.backend.name == "nsys" then gpu_ok = true end
    else
      errs[#errs + 1] = res.error
    end
  end
  local pl = payload.from_dir(p, job.dir, {
    command_id = job.command_id, command = job.command_id, label = "command " .. job.command_id,
    start_time = job.start_wall, end_time = core.sys.isotime(),
    cpu_avg = payload.cpu_avg(job.cpu0, payload.cpu_sample()), mem_avg = payload.mem_used_percent(),
  })
  if job.stacks then pl.stacks = true end
  if not gpu_ok then pl.html, pl.folded, pl.gpu = {}, nil, false end
  if not any_ok or (next(pl.html) == nil and not pl.folded and not pl.cpu_folded) then
    self:complete(job.command_id, "failed", #errs > 0 and table.concat(errs, "; ") or "the capture produced nothing to upload", job.started)
    return
  end
  local okd, items, _, dropped = pcall(deliver.submit, p, self.c, pl)
  if not okd then
    self:complete(job.command_id, "failed", errors.wrap(items).msg, job.started)
    return
  end
  -- an older capture pushed out of the full spool: its command is reported, not left hanging
  for name, meta in pairs(dropped or {}) do
    local pend = meta and meta.command_id and self.pending[meta.command_id]
    if pend then
      self.pending[meta.command_id] = nil
      self:complete(meta.command_id, "failed", "upload dropped from the full spool (" .. name .. "; policy deliver.spool)",
        pend.started)
    end
  end
  if #items == 0 then
    self:complete(job.command_id, #errs > 0 and "failed" or "completed", #errs > 0 and table.concat(errs, "; ") or nil, job.started)
    return
  end
  self.pending[job.command_id] = { left = #items, started = job.started, errs = errs }
  self:prune_captures()
end

function A:prune_captures()
  local dir = self.c.state_dir .. "/captures"
  local names = core.fs.listdir(dir) or {}
  table.sort(names)
  local keep = self.p.agent.keep_captures
  for i = 1, #names - keep do core.fs.remove_tree(dir .. "/" .. names[i]) end
end

-- Deliveries run in a child process (`gpuflame upload --flush --agent-tick`), so an upload that takes
-- its whole timeout never delays a heartbeat or a `stop`. The spool stays the one source of truth: the
-- child removes an item only after a 2xx and first writes the outcome into the spool
-- (<spool>/outcomes/), which this agent — or the next one, if this one died — turns into the command's
-- completion report.
function A:on_delivered(meta)
  local pend = meta.command_id and self.pending[meta.command_id]
  if not pend and meta.command_id and not contains(self.state.executed, meta.command_id) then
    -- spooled by an earlier run of the agent that died before reporting it
    self:complete(meta.command_id, "completed", nil, nil)
  elseif pend then
    pend.left = pend.left - 1
    if pend.left <= 0 then
      self.pending[meta.command_id] = nil
      if #pend.errs > 0 then
        self:complete(meta.command_id, "failed", table.concat(pend.errs, "; ") .. " (the rest was uploaded)", pend.started)
      else
        self:complete(meta.command_id, "completed", nil, pend.started)
      end
    end
  end
end

function A:on_exhausted(meta, why, attempts, rejected)
  local pend = meta.command_id and self.pending[meta.command_id]
  if pend then
    self.pending[meta.command_id] = nil
    self:complete(meta.command_id, "failed", string.format("upload %s after %d attempt(s): %s%s",
      rejected and "rejected" or "failed", attempts, why,
      rejected and "" or " (kept in the spool; re-sent every tick)"), pend.started)
  end
end

function A:read_outcomes()
  for _, o in ipairs(deliver.outcomes(self.c.spool_dir)) do
    local meta = type(o.meta) == "table" and o.meta or {}
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

-- A capture that was running when the agent died (SIGKILL, OOM, reboot): if the capture finished
-- anyway (its summary.json says ok) it is uploaded now; otherwise the command is reported failed
-- and the partial directory is kept.
function A:recover()
  local r = self.state.running
  if not r then return end
  self.state.running = nil
  save_state(self.c, self.state)
  if contains(self.state.executed, r.command_id) then return end
  local summary_path = r.dir and (r.dir .. "/" .. self.p.outputs.summary)
  local summary = summary_path and core.fs.stat(summary_path) and
    select(2, pcall(function() return core.json.decode(core.fs.read(summary_path)) end))
  if type(summary) == "table" and summary.status == "ok" then
    local pl = payload.from_dir(self.p, r.dir, { command_id = r.command_id, label = "command " .. r.command_id })
    if r.stacks then pl.stacks = true end
    local ok, items = pcall(deliver.submit, self.p, self.c, pl)
    if ok and #items > 0 then
      log.warn("agent: command %s was captured before the agent restarted; uploading %s", r.command_id, r.dir)
      self.pending[r.command_id] = { left = #items, errs = {} }
      return
    end
  end
  self:complete(r.command_id, "failed", "the agent restarted during the capture (partial results kept in " ..
    tostring(r.dir) .. ")", nil)
end

function A:reload()
  local ok, newp = pcall(function()
    self.ctx._policy = nil
    return self.ctx.policy()
  end)
  if ok then
    self.p = newp
    log.info("agent: policies reloaded (SIGHUP)")
  else
    log.error("agent: policy reload failed, keeping the previous policy: %s", errors.wrap(newp).msg)
    self.ctx._policy = self.p
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
    #require("gpuflame.fleet.spool").list(c.spool_dir))
  return 0
end

return agent
