-- Live sessions (docs/LIVE.md): a job that runs under `nsys launch` with collection off, and capture
-- windows of it while it keeps running.
--
--   live.launch(opts, ctx) → exit status   runs the job in the foreground (`gpuflame launch`): registers
--       the session, passes SIGINT/SIGTERM on to the workload, exits with its status; nothing of nsys
--       outlives it (the runner ends what nsys leaves; nsys gets SIGTERM if gpuflame itself dies)
--   live.window(opts, ctx) → state          one window (`gpuflame capture --session`): nsys start, wait,
--       nsys stop, then the same views, findings.json and summary.json as a whole capture
--   live.parse_at(text, now) → epoch seconds   --at: RFC 3339, @EPOCH or +Ns
local capture = require("gpuflame.capture")
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local nsys_args = require("gpuflame.nsys_args")
local nsys_mod = require("gpuflame.nsys")
local procfs = require("gpuflame.procfs")
local sessions = require("gpuflame.sessions")
local nsys_retry = require("gpuflame.nsys_retry")
local nsys_temp = require("gpuflame.nsys_temp")

local live = {}

-- days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil)
local function days_from_civil(y, m, d)
  y = m <= 2 and y - 1 or y
  local era = (y >= 0 and y or y - 399) // 400
  local yoe = y - era * 400
  local doy = (153 * (m > 2 and m - 3 or m + 9) + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  return era * 146097 + doe - 719468
end

-- parse_at(text, now) → epoch seconds (float), or nil + why.
--   2026-12-02T07:00:00Z, 2026-12-02T09:00:00.5+02:00 (RFC 3339), @1764658800[.5] (epoch), +5s / +5 (from now)
function live.parse_at(text, now)
  if type(text) ~= "string" then return nil, "no time given" end
  local rel = text:match("^%+(%d+%.?%d*)s?$")
  if rel then return now + tonumber(rel) end
  local ep = text:match("^@(%d+%.?%d*)$")
  if ep then return tonumber(ep) end
  local y, mo, d, h, mi, sec, frac, zone = text:match(
    "^(%d%d%d%d)%-(%d%d)%-(%d%d)[Tt ](%d%d):(%d%d):(%d%d)(%.?%d*)(.*)$")
  if not y then return nil, "not an RFC 3339 time (2026-12-02T07:00:00Z), @EPOCH or +SECONDS" end
  y, mo, d, h, mi, sec = tonumber(y), tonumber(mo), tonumber(d), tonumber(h), tonumber(mi), tonumber(sec)
  if mo < 1 or mo > 12 or d < 1 or d > 31 or h > 23 or mi > 59 or sec > 60 then return nil, "date or time out of range" end
  if frac == "." then return nil, "a '.' without fraction digits" end
  local off
  if zone == "Z" or zone == "z" then
    off = 0
  else
    local sign, oh, om = zone:match("^([%+%-])(%d%d):(%d%d)$")
    if not sign then return nil, "the time needs its offset: Z or +HH:MM" end
    off = (tonumber(oh) * 60 + tonumber(om)) * 60 * (sign == "-" and -1 or 1)
  end
  local t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off
  return t + (frac ~= "" and tonumber("0" .. frac) or 0)
end

local function wall() return (core.sys.now()) end

-- ---------------------------------------------------------------------------------------------
-- launch

local function exit_status(r)
  if r.status == "exited" then return r.code end
  if r.signal and r.signal > 0 then return 128 + r.signal end
  return 128 + 15 -- ended by gpuflame (signal grace passed, or nsys never started the workload)
end

-- The foreground loop: waits for the workload to appear (registers it), passes signals on, and ends the
-- whole tree when the workload does not end within live.signal_grace after one.
local function supervise(h, entry, p)
  local lv = p.live
  local _, t0 = core.sys.now()
  local deadline, registered
  while not h:poll(100) do
    local _, now = core.sys.now()
    if not registered then
      local pid, start, writer = nsys_retry.find_workload(h:pid())
      if pid then
        entry.pid, entry.pid_start = pid, start
        -- kept in the entry: a launch killed with SIGKILL leaves it, and the next reader removes it once the
        -- workload and its writer (nsys-launcher) have ended
        entry.nsys_status, entry.nsys_status_writer = nsys_temp.status_file(entry.tmpdir, pid), writer
        sessions.register(entry, p)
        registered = true
        log.info("launch: session %s: workload pid %d under nsys launch; capture windows with " ..
          "`gpuflame capture --session %s --duration S`", entry.name, pid, entry.name)
      elseif now - t0 > lv.ready_timeout then
        log.error("launch: nsys did not start the workload within %g s (policy live.ready_timeout); ending it",
          lv.ready_timeout)
        h:terminate()
        break
      end
    end
    local sig = core.host.interrupted()
    if sig ~= 0 then
      core.host.clear_interrupt()
      if registered then
        log.info("launch: passing signal %d on to the workload (pid %d)", sig, entry.pid)
        core.proc.kill(entry.pid, sig)
      else
        h:signal(sig)
      end
      deadline = deadline or (now + lv.signal_grace)
    end
    if deadline and now > deadline then
      log.warn("launch: the workload did not end within %g s of the signal (policy live.signal_grace); ending " ..
        "it with nsys", lv.signal_grace)
      h:terminate()
      break
    end
  end
  return h:wait(), registered
end

-- opts: {session, service, nsys, stacks, workload}
function live.launch(opts, ctx)
  local p = ctx.policy()
  local name = sessions.check_name(opts.session or ("gf-" .. core.proc.getpid())) -- usage before discovery
  local nsys = capture.find_nsys(opts.nsys, p)
  local lock = sessions.claim(name, p)
  local argv = nsys_args.launch({ nsys = nsys.path, session = name, workload = opts.workload, stacks = opts.stacks }, p)
  log.debug("launch: %s", table.concat(argv, " "))
  local me = core.proc.getpid()
  local entry = { name = name, service = opts.service or "", command = opts.workload, host = core.sys.hostname(),
    nsys = { path = nsys.path, version = nsys.version and nsys.version.string or core.json.null },
    flags = { table.unpack(argv, 3, #argv - #opts.workload) }, stacks = opts.stacks == true,
    launcher_pid = me, launcher_start = procfs.start(me), started = core.sys.isotime() }
  -- nsys's stderr (and the job's) is passed on as it comes and kept, so that a launcher failure of nsys is
  -- recognised and tried again (gpuflame.nsys_retry); the job's stdout is its own
  local try, ok, r, registered = 0
  -- the status files of children a failed try's launcher forked and lost, still held at its sweep: gpuflame
  -- (a subreaper) ends them when the next try's run ends, and their files go then (nsys_temp.sweep_unseen)
  local lost = {}
  local function sweep(before)
    for _, w in ipairs(nsys_temp.sweep_unseen(before) or {}) do
      log.debug("launch: %s kept while pid %d is held (nsys's lost child; removed once it has ended)", w.path, w.pid)
      lost[#lost + 1] = w
    end
  end
  while true do
    try = try + 1
    local env = nsys_args.workload_env(nil, p)
    entry.tmpdir = nsys_temp.tmpdir(env)
    local before = nsys_temp.snapshot(env)
    local h = core.proc.spawn({ argv = argv, env = env, stdout = "inherit", stderr = "tee",
      capture_limit = p.capture.output_tail, stdin_null = false, keep_on_interrupt = true, parent_death_signal = 15,
      kill_grace = p.capture.kill_grace })
    ok, r, registered = pcall(core.host.holding_interrupts, supervise, h, entry, p)
    before.ended = core.sys.now()
    if not ok then
      sessions.release(name, lock, p)
      pcall(h.terminate, h)
      nsys_temp.drop_status(lost)
      error(r, 0)
    end
    local said = not registered and ((r.status == "exited" and r.code ~= 0) or r.status == "signaled") and
      nsys_retry.said((r.stderr or "") .. "\n" .. (r.stdout or ""), p)
    if not said then break end
    if not nsys_retry.again(try, p) then
      sessions.release(name, lock, p)
      sweep(before)
      nsys_temp.drop_status(lost)
      errors.raise(errors.CAPTURE, "launch: %s", nsys_retry.final(try, said))
    end
    log.warn("launch: nsys failed to start (try %d of %d): %s; trying again", try, p.capture.start_retries + 1, said)
    if not nsys_retry.backoff(try, p) then
      sessions.release(name, lock, p)
      errors.raise(errors.INTERRUPTED, "launch: interrupted while waiting to start nsys again")
    end
    sweep(before)
  end
  sessions.release(name, lock, p)
  nsys_temp.drop_status(lost)
  if registered then
    nsys_temp.drop_status({ { path = entry.nsys_status, pid = entry.pid, start = entry.pid_start,
      writer = entry.nsys_status_writer } })
  end
  for _, l in ipairs(r.leftovers or {}) do log.info("launch: ended %s, which nsys left running", l) end
  nsys_temp.drop_agent_shm(r.leftovers)
  if not registered then
    if r.status ~= "exited" then
      errors.raise(errors.CAPTURE, "nsys launch was ended before the workload ran (%s)", r.status)
    end
    -- a job that ended before it was seen, or nsys failing to start it: its status either way
    log.warn("launch: nsys launch ended (status %d) before the workload was seen running; no session was " ..
      "registered", r.code)
  end
  return exit_status(r)
end

-- ---------------------------------------------------------------------------------------------
-- capture windows

-- Sleeps until `at` (epoch); false when interrupted first.
local function wait_until(at)
  while true do
    if core.host.interrupted() ~= 0 then return false end
    local left = at - wall()
    if left <= 0 then return true end
    core.sys.sleep(math.min(left, 0.1))
  end
end

local function nsys_said(res)
  return nsys_mod.clean_text(((res.stderr or "") .. " " .. (res.stdout or "")):sub(-300))
end

local window_summary

-- A failed window: what nsys left in its temp directory is removed (or kept, live.keep_failed_raw), and the
-- message says so.
local function fail(state, code, fmt, ...)
  if state.live then state.window = window_summary(table.unpack(state.live)) end
  state.status = "failed"
  state.error = string.format(fmt, ...)
  local cleaned = nsys_temp.clean(state, true, state.policy)
  if cleaned ~= "" then state.error = state.error .. "; " .. cleaned end
  capture.write_summary(state)
  errors.raise(code, "%s", state.error)
end

-- The bound of `nsys stop` for a window of `duration` seconds: it writes (and imports) the window's capture.
local function stop_bound(duration, p)
  return p.live.stop_timeout + p.live.stop_timeout_per_s * duration
end

-- A bounded nsys call of a window; notes the temporary files nsys names (gpuflame.nsys_temp).
local function window_call(state, step, argv, timeout, name)
  local res = capture.command(state, step, argv, { timeout = timeout, label = "nsys " .. step .. " " .. name,
    keep_on_interrupt = true })
  nsys_temp.note(state, res)
  return res
end

-- After a hung `nsys stop`, nsys 2022.4 keeps the session in state Generation and refuses its later windows
-- ("Configuring is not allowed in this state."); nothing nsys offers brings it back (docs/LIVE.md).
local STUCK = " (nsys 2022.4 keeps a session whose `nsys stop` hung stuck and refuses its later windows: " ..
  "restart the `launch` to capture this job again; docs/LIVE.md, \"A hung `nsys stop`\")"

-- "`nsys stop` hung: it had not returned after 34 s (policy …); it was ended with every process it started"
local function hung(step, res, bound, why)
  return string.format("`nsys %s` hung: it had not returned after %.0f s (%s); it was ended with every process " ..
    "it started", step, res.elapsed or bound, why)
end

-- The window itself, with interrupts held: start, wait, stop (always, once started). Returns the
-- interrupt that arrived (0 when none).
local function run_window(state, e, w, duration, p)
  local lv = p.live
  local prefix = state.dir .. "/" .. p.capture.output_name
  if not wait_until(w.planned) then return core.host.interrupted(), false end
  local argv = nsys_args.start({ nsys = state.nsys.path, session = e.name, prefix = prefix, stacks = e.stacks }, p)
  w.start_called = wall()
  local res = window_call(state, "start", argv, lv.start_timeout, e.name)
  w.started = wall()
  if res.status == "timeout" then
    -- collection may be on: a bounded stop closes it, so that the session can be captured again
    window_call(state, "stop", { state.nsys.path, "stop", "--session=" .. e.name }, stop_bound(0, p), e.name)
    fail(state, errors.CAPTURE, "session %s: %s. Kept: %s", e.name, hung("start", res, lv.start_timeout,
      string.format("policy live.start_timeout = %g s", lv.start_timeout)), capture.kept_list(state))
  end
  if res.status ~= "exited" or res.code ~= 0 then
    if not sessions.alive(e) then fail(state, errors.CAPTURE, "session %s: its workload (pid %s) has ended", e.name, e.pid) end
    local said = nsys_said(res)
    fail(state, errors.CAPTURE, "session %s: nsys start %s %s: %s%s", e.name, res.status, tostring(res.code), said,
      said:find("Configuring is not allowed in this state", 1, true) and STUCK or "")
  end
  sessions.note_window({ name = e.name, since = core.sys.isotime(w.started), out = state.dir, pid = core.proc.getpid() }, p)
  wait_until(w.started + duration)
  local sig = core.host.interrupted()
  core.host.clear_interrupt() -- nsys stop runs to its end even so: the session must be capturable again
  w.stop_called = wall()
  local bound = stop_bound(duration, p)
  res = window_call(state, "stop", { state.nsys.path, "stop", "--session=" .. e.name }, bound, e.name)
  w.stopped = wall()
  if res.status == "timeout" then
    w.stop_hung = hung("stop", res, bound, string.format("policy live.stop_timeout %g s + live.stop_timeout_per_s " ..
      "%g s × the %g s window", lv.stop_timeout, lv.stop_timeout_per_s, duration)) .. STUCK
  end
  sessions.note_window({ name = e.name, since = core.sys.isotime(w.started), stopped = core.sys.isotime(w.stopped),
    out = state.dir }, p)
  if res.status ~= "timeout" and (res.status ~= "exited" or res.code ~= 0) and sessions.alive(e) then
    capture.warn(state, "session %s: nsys stop %s %s: %s", e.name, res.status, tostring(res.code), nsys_said(res))
  end
  return sig, true
end

function window_summary(e, w, duration)
  local function iso(t) return t and core.sys.isotime(t) or core.json.null end
  local function r3(x) return x and math.floor(x * 1000 + 0.5) / 1000 or core.json.null end
  return { session = e.name, service = e.service, pid = e.pid, command = e.command, duration = duration,
    planned_start = iso(w.planned), at = w.at or core.json.null, start_called = iso(w.start_called),
    actual_start = iso(w.started), start_delay_s = r3(w.started and (w.started - w.planned)),
    stop_called = iso(w.stop_called), stopped = iso(w.stopped) }
end

-- opts: {session, duration, at, out, timeline, stacks, title, ...}; the page options as capture.run's
function live.window(opts, ctx)
  local p = ctx.policy()
  local duration = opts.duration or p.capture.duration
  local now = wall()
  local w = { at = opts.at, planned = now }
  if opts.at then
    local t, why = live.parse_at(opts.at, now)
    if not t then errors.raise(errors.USAGE, "--at %s: %s", opts.at, why) end
    if t - now > p.live.max_wait then
      errors.raise(errors.USAGE, "--at %s is %.0f s away, more than policy live.max_wait (%g s)", opts.at, t - now,
        p.live.max_wait)
    end
    if t < now then log.warn("--at %s has passed (%.3f s ago); the window starts now", opts.at, now - t) end
    w.planned = t
  end
  sessions.check_name(opts.session) -- a usage error before the registry is looked at
  local e = sessions.get(opts.session, p)
  local dir = opts.out or os.date(p.capture.out_dir)
  core.fs.mkdirp(dir)
  -- the nsys the session runs under; discovery (its version, its importer) waits until after the window,
  -- so that an --at instant is met
  local state = capture.new_state(dir, { path = e.nsys.path }, p)
  state.workload = e.command
  state.live = { e, w, duration }
  local lock = sessions.open_window(e, { since = "(waiting for " .. core.sys.isotime(w.planned) .. ")", out = dir,
    pid = core.proc.getpid() }, p)
  local ok, sig, started = pcall(core.host.holding_interrupts, run_window, state, e, w, duration, p)
  lock:release()
  state.window = window_summary(e, w, duration)
  if not ok then error(sig, 0) end
  if sig ~= 0 then
    state.status = "interrupted"
    state.error = started and "interrupted during the window; it was stopped" or "interrupted before the window started"
    local cleaned = nsys_temp.clean(state, true, p)
    if cleaned ~= "" then state.error = state.error .. "; " .. cleaned end
    capture.write_summary(state)
    errors.raise(errors.INTERRUPTED, "session %s: %s. Kept: %s", e.name, state.error, capture.kept_list(state))
  end
  if w.stop_hung then fail(state, errors.CAPTURE, "session %s: %s. Kept: %s", e.name, w.stop_hung, capture.kept_list(state)) end
  local found, nsys = errors.try(capture.find_nsys, e.nsys.path, p)
  if not found then fail(state, nsys.code, "%s", nsys.msg) end
  state.nsys = nsys
  local prefix = dir .. "/" .. p.capture.output_name
  local rep = capture.find_report(prefix) or capture.import_qdstrm(state, prefix, function(fmt, ...)
    fail(state, errors.CAPTURE, fmt, ...)
  end)
  if not rep then
    if not sessions.alive(e) then fail(state, errors.CAPTURE, "session %s: its workload (pid %s) ended during the window " ..
      "and nsys wrote no report", e.name, e.pid) end
    fail(state, errors.CAPTURE, "session %s: nsys stop wrote no report (looked for %s.nsys-rep)", e.name, prefix)
  end
  state.report, state.artifacts.report = rep, rep
  nsys_temp.clean(state, false, p)
  log.info("session %s: window %s → %s (started %.3f s after the planned instant)", e.name,
    core.sys.isotime(w.started), dir, w.started - w.planned)
  return capture.views(state, opts, ctx)
end

return live
