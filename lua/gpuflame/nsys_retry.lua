-- nsys's transient start-up failures (docs/RELIABILITY.md "nsys's own failures"): nsys 2022.4 now and then
-- dies before it starts the workload, with a launcher error (`QuadDCommon … SystemException … sem_open: No
-- such file or directory` from its ProcessWaiter, or "Agent launcher failed"). `capture` (and the agent,
-- which runs `gpuflame capture`) and `launch` try once more then, per policy capture.start_retries, after a
-- short back-off. A try is only repeated when all of these hold, so a workload that itself fails is never
-- run again:
--   * nsys's output contains one of capture.start_failure_markers;
--   * nsys wrote nothing (no report, no raw capture) / `launch` never had a workload to register;
--   * the workload was never seen running (a child of nsys-launcher, nsys's process that starts it).
local core = require("gpuflame.core")
local need = require("gpuflame.policy").need
local procfs = require("gpuflame.procfs")
local errors = require("gpuflame.errors")
local nsys = require("gpuflame.nsys")
local nsys_run = require("gpuflame.nsys_run")
local nsys_temp = require("gpuflame.nsys_temp")

local R = {}

-- The workload nsys started below `root` (a pid): a child of an nsys-launcher that is not nsys's output
-- tee. Returns its pid and start time, and its nsys-launcher ({pid, start}: the process that writes the
-- workload's termination-status file once the workload ends, gpuflame.nsys_temp), or nil while there is none;
-- calls on_nsys(pid) for each nsys process below root on the way (optional). One pass over /proc.
function R.find_workload(root, on_nsys)
  local kids = {}
  for _, st in ipairs(procfs.all()) do
    if st.state ~= "Z" and st.ppid then
      kids[st.ppid] = kids[st.ppid] or {}
      table.insert(kids[st.ppid], st)
    end
  end
  local stack = { { pid = root } }
  while #stack > 0 do
    local me = table.remove(stack)
    local launcher = me.pid ~= root and me.comm == "nsys-launcher"
    for _, st in ipairs(kids[me.pid] or {}) do
      if launcher and st.comm ~= "nsys-tee" then return st.pid, st.start, { pid = me.pid, start = me.start } end
      if on_nsys and st.comm == "nsys" then on_nsys(st.pid) end
      stack[#stack + 1] = st
    end
  end
  return nil
end

-- The line of nsys's output that says it failed to start (a marker of capture.start_failure_markers in it),
-- cleaned for a message; nil when nsys said no such thing.
function R.said(text, policy)
  local c = need(policy, "nsys_retry.said").capture
  for line in tostring(text or ""):gmatch("[^\r\n]+") do
    for _, m in ipairs(c.start_failure_markers) do
      if line:find(m, 1, true) then return nsys.clean_text(line, 300) end
    end
  end
  return nil
end

-- Whether a failed try is repeated: try (1-based) is the one that just failed.
function R.again(try, policy)
  return try <= need(policy, "nsys_retry.again").capture.start_retries
end

-- The back-off before try+1: capture.start_backoff seconds, doubled after each further failure. Returns false
-- when an interrupt (SIGINT/SIGTERM) arrived while waiting.
function R.backoff(try, policy)
  local wait = need(policy, "nsys_retry.backoff").capture.start_backoff * 2 ^ (try - 1)
  local t0 = core.sys.now()
  while core.sys.now() - t0 < wait do
    if core.host.interrupted() ~= 0 then return false end
    core.sys.sleep(math.min(0.1, wait))
  end
  return core.host.interrupted() == 0
end

-- The final failure's message: "nsys failed to start (N tries): <what nsys said the last time>".
function R.final(tries, said)
  return string.format("nsys failed to start (%d %s): %s", tries, tries == 1 and "try" or "tries", said)
end

-- A watcher for a run's poll loop (every 0.2 s): it looks for the workload below `root` until it has seen it
-- (one pass over /proc each time). w.seen tells; once seen, on_seen(pid, start, writer) is called (writer:
-- find_workload's). The nsys processes met on the way (nsys and its agent daemon, which is up before the
-- workload starts) go to on_nsys(pid).
function R.watcher(root, on_seen, on_nsys)
  local w = { seen = false }
  function w.poll()
    if w.seen then return end
    local pid, start, writer = R.find_workload(root, on_nsys)
    if pid then
      w.seen = true
      if on_seen then on_seen(pid, start, writer) end
    end
  end
  return w
end

-- run(state, prefix, logpath, fail, try_once) → the last try's result and output: `nsys profile` tried until
-- it starts (or capture.start_retries are used up: then fail(message) with "nsys failed to start (N tries)").
-- try_once(watch) runs one try with watch as its poll callback. The log at logpath keeps every try's output.
function R.run(state, prefix, logpath, fail, try_once)
  local policy = state.policy
  local logs, try = {}, 0
  while true do
    try = try + 1
    -- the status file nsys's launcher keeps for the workload goes with the other temporaries (an interrupt
    -- cleans up before try_once returns)
    local watch = R.watcher(core.proc.getpid(),
      function(pid, start, writer) nsys_temp.note_status(state, pid, start, writer) end,
      function(pid) nsys_temp.note_nsys(state, pid) end)
    local before = nsys_temp.snapshot(nil)
    state.nsys_try = before -- for nsys_temp.clean, when this try is interrupted or fails
    local res = try_once(watch.poll)
    before.ended = core.sys.now()
    nsys_temp.note(state, res)
    nsys_temp.drop_agents(state) -- of the nsys processes that ended by a signal
    local out = (res.stdout or "") .. (res.stderr or "")
    logs[#logs + 1] = out
    local failed = (res.status == "exited" and res.code ~= 0) or res.status == "signaled"
    local said = failed and not watch.seen and not nsys_run.find_report(prefix) and not nsys_run.find_qdstrm(prefix) and
      R.said(out, policy)
    if said or #logs > 1 then
      logs[#logs] = string.format("--- try %d%s ---\n%s", try, said and ": nsys failed to start" or "", logs[#logs])
    end
    nsys_run.write_log(logpath, logs, policy)
    state.artifacts.profile_log = logpath
    if not said then
      -- nsys's start-up failure after the workload had started: not tried again, but named as nsys's
      if failed and watch.seen and not nsys_run.find_report(prefix) and not nsys_run.find_qdstrm(prefix) then
        res.failed_after_start = R.said(out, policy)
      end
      return res, out
    end
    if not R.again(try, policy) then
      fail("%s (log: %s)", R.final(try, said), logpath)
    end
    nsys_run.warn(state, "nsys failed to start (try %d of %d): %s; trying again", try,
      policy.capture.start_retries + 1, said)
    if not R.backoff(try, policy) then
      errors.raise(errors.INTERRUPTED,
        "interrupted while waiting to start nsys again; kept: %s", nsys_run.kept_list(state))
    end
    -- a lost child still alive: its file goes with the capture's other status files, once it has ended
    state.nsys_status = state.nsys_status or {}
    for _, w in ipairs(nsys_temp.sweep_unseen(before) or {}) do table.insert(state.nsys_status, w) end
  end
end

return R
