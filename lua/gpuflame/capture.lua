-- The capture pipeline as a library: find nsys → nsys profile → (flamegraph) nsys stats with fallbacks
-- → folded stacks → flamegraph page, with summary.json. Every step is a function the timeline view,
-- the NVTX harness and the fleet agent can call on their own:
--
--   capture.find_nsys(explicit, policy)                 → nsys info {path, version}   (exit 3 if none)
--   capture.profile(state, {workload, duration, stacks}) → report path             (exit 4 on failure)
--   capture.stats(state, reports)                       → {report, csv, stacks, tried}  (exit 5 if none)
--   capture.export_sqlite(nsys, rep, out, state|nil, policy) → {ok, path, why, newer}
--   capture.run(opts, ctx)                              → result (see below); writes summary.json
--   capture.views(state, opts, ctx)                     → the views, findings.json, summary.json of
--                                                         state.report (also a live window's, gpuflame.live)
--
-- The argv and environment nsys gets are built in gpuflame.nsys_args.
--
-- `state` is the result table being built: {dir, policy, nsys, commands = {}, warnings = {},
-- reports_tried = {}, artifacts = {}}; capture.new_state(dir, nsys, policy) makes one. Every external
-- command run through capture.command is recorded there (argv redacted, exit code, status, seconds).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local nsys_args = require("gpuflame.nsys_args")
local nsys_mod = require("gpuflame.nsys")
local need = require("gpuflame.policy").need

local capture = {}

-- `policy` is always an effective policy (policy.effective: the default policy with the --policy files
-- merged over it), so every field of policies/default.lua is there; no defaults are repeated here.

function capture.find_nsys(explicit, policy)
  local discover = require("gpuflame.discover")
  local info = discover.find({ explicit = explicit }, need(policy, "capture.find_nsys"))
  return info
end

function capture.new_state(dir, nsys, policy)
  return { dir = dir, policy = need(policy, "capture.new_state"), nsys = nsys, commands = {}, warnings = {},
    reports_tried = {}, artifacts = {}, status = "running", started = core.sys.isotime() }
end

function capture.warn(state, fmt, ...)
  local msg = string.format(fmt, ...)
  state.warnings[#state.warnings + 1] = msg
  log.warn("%s", msg)
end

local function redact_argv(argv)
  local out = {}
  for i, a in ipairs(argv) do out[i] = log.redact(tostring(a)) end
  return out
end

local function tail(s, n)
  s = s or ""
  if #s > n then return s:sub(-n) end
  return s
end

local function fmt_elapsed(s)
  if s < 60 then return string.format("%d s", math.floor(s)) end
  return string.format("%d min %02d s", math.floor(s / 60), math.floor(s % 60))
end

-- Runs one external command with progress, recording it in state.commands. An interrupt (SIGINT)
-- stops the whole process group and raises exit 130 naming what was kept. The process runner sees the
-- signal itself; until the step is recorded and summary.json written, the hook leaves it pending so
-- that nothing between the signal and the message is cut short.
local function run_recorded(state, step, argv, o)
  local spec = { argv = argv, env = o.env, timeout = o.timeout, kill_grace = state.policy.capture.kill_grace,
    capture_limit = state.policy.capture.output_tail, keep_on_interrupt = o.keep_on_interrupt }
  log.progress(step, "%s", o.label or step)
  local h = core.proc.spawn(spec)
  local last, decided_at, stopped_decided = -1, nil, false
  while not h:poll(200) do
    local r = h:result()
    if o.watch then o.watch(r.elapsed) end
    local sec = math.floor(r.elapsed)
    log.progress_tick(step, string.format("%s (%s)", o.label or step, fmt_elapsed(r.elapsed)))
    if log.is_tty and sec ~= last then
      last = sec
      log.progress(step, "%s (%s)", o.label or step, fmt_elapsed(r.elapsed))
    end
    -- nsys has said how it ends (e.g. it skips the import); it is not left to run into the timeout.
    if o.decided_markers and not decided_at then
      local text = r.stdout .. r.stderr
      for _, m in ipairs(o.decided_markers) do
        if text:find(m, 1, true) then decided_at = r.elapsed; break end
      end
    end
    if decided_at and r.elapsed - decided_at > o.decided_grace then
      stopped_decided = true
      h:terminate()
      break
    end
  end
  local res = h:wait()
  res.stopped_after_decided = stopped_decided
  log.progress_done()
  for _, l in ipairs(res.leftovers or {}) do
    capture.warn(state, "%s: ended process %s, which was left running", step, l)
  end
  state.commands[#state.commands + 1] = { step = step, argv = redact_argv(argv), exit_code = res.code,
    status = stopped_decided and "stopped-after-decided" or res.status,
    seconds = math.floor(res.elapsed * 1000 + 0.5) / 1000 }
  -- keep_on_interrupt: the command ran to its end and the caller handles the interrupt (a live window)
  if res.status == "interrupted" or (core.host.interrupted() ~= 0 and not o.keep_on_interrupt) then
    state.status = "interrupted"
    state.error = string.format("interrupted during %s", step)
    capture.write_summary(state)
    return res, capture.kept_list(state)
  end
  return res
end

-- The error that says what was kept is raised while interrupts are still held: raised after, the hook could
-- turn the pending signal into a bare "interrupted" in the instructions between (it did, by chance of where
-- its instruction count fell).
function capture.command(state, step, argv, o)
  return core.host.holding_interrupts(function()
    local res, kept = run_recorded(state, step, argv, o or {})
    if kept then
      errors.raise(errors.INTERRUPTED, "interrupted during %s; stopped nsys and the workload's process group. " ..
        "Kept: %s", step, kept)
    end
    return res
  end)
end

function capture.kept_list(state)
  local kept = {}
  for _, f in ipairs(core.fs.listdir(state.dir) or {}) do
    if not f:match("^%.") then kept[#kept + 1] = f end
  end
  table.sort(kept)
  return state.dir .. " (" .. (#kept > 0 and table.concat(kept, ", ") or "empty") .. ")"
end

-- The report nsys wrote: <prefix>.nsys-rep, else the first <prefix>*.nsys-rep.
function capture.find_report(prefix)
  local exact = prefix .. ".nsys-rep"
  if core.fs.stat(exact) then return exact end
  local m = core.fs.glob(prefix .. "*.nsys-rep")
  table.sort(m)
  return m[1]
end

-- nsys profile. state.nsys must be set. Returns the report path; raises exit 4 on failure.
function capture.profile(state, o)
  local policy = state.policy
  local c = policy.capture
  local prefix = state.dir .. "/" .. c.output_name
  local duration = o.duration or c.duration
  local argv = nsys_args.profile({ nsys = state.nsys.path, prefix = prefix, workload = o.workload,
    duration = duration, stacks = o.stacks }, policy)
  local timeout = duration + c.timeout_extra
  log.debug("nsys profile: %s", table.concat(redact_argv(argv), " "))
  local logpath = state.dir .. "/" .. policy.outputs.profile_log
  local function fail(fmt, ...)
    state.status = "failed"
    state.error = string.format(fmt, ...)
    local cleaned = require("gpuflame.nsys_temp").clean(state, true, policy) -- what nsys left in its temp dir
    if cleaned ~= "" then state.error = state.error .. "; " .. cleaned end
    capture.write_summary(state)
    errors.raise(errors.CAPTURE, "%s", state.error)
  end
  -- nsys's transient start-up failures are tried again (gpuflame.nsys_retry); the log keeps every try
  local res, out = require("gpuflame.nsys_retry").run(state, prefix, logpath, fail, function(watch)
    return capture.command(state, "profile", argv, { env = nsys_args.workload_env(nil, policy), timeout = timeout,
      label = (o.workload and #o.workload > 0) and ("nsys profile " .. o.workload[1]) or "nsys profile (sleep session)",
      decided_markers = c.decided_markers, decided_grace = c.decided_grace, watch = watch })
  end)
  if res.stopped_after_decided then
    capture.warn(state, "nsys profile had skipped the import but did not exit within %g s; it was stopped " ..
      "with every process it started", c.decided_grace)
  elseif res.status == "timeout" then
    fail("nsys profile did not finish within %g s (duration %g + %g s); it was stopped with every process it " ..
      "started (log: %s)", timeout, duration, c.timeout_extra, logpath)
  elseif res.status ~= "exited" then
    fail("nsys profile %s%s; last output: %s", res.status, res.signal ~= 0 and (" by signal " .. res.signal) or "",
      nsys_mod.clean_text(tail(out, 300)))
  elseif res.code ~= 0 then
    -- nsys exits with the workload's status (143 when its --duration stopped the workload): a report it
    -- wrote is still the capture; without one the status is the failure.
    local raw = capture.find_report(prefix) or capture.find_qdstrm(prefix)
    if not raw then
      fail("nsys profile exited with status %d; last output: %s", res.code, nsys_mod.clean_text(tail(out, 300)))
    end
    capture.warn(state, "nsys profile exited with status %d (the workload's status); the report it wrote is kept",
      res.code)
  end
  local rep = capture.find_report(prefix)
  if not rep then rep = capture.import_qdstrm(state, prefix, fail) end
  if not rep then
    fail("nsys profile exited 0 but wrote no report (looked for %s.nsys-rep and %s*.nsys-rep)", prefix, prefix)
  end
  local st = core.fs.stat(rep)
  if st and st.size == 0 then fail("nsys profile wrote an empty report: %s", rep) end
  state.report = rep
  state.artifacts.report = rep
  return rep
end

-- <prefix>.qdstrm, else the first <prefix>*.qdstrm: nsys's raw capture, left when it did not import it
function capture.find_qdstrm(prefix)
  if core.fs.stat(prefix .. ".qdstrm") then return prefix .. ".qdstrm" end
  local m = core.fs.glob(prefix .. "*.qdstrm")
  table.sort(m)
  return m[1]
end

-- nsys-profile.log: nsys's output of each try as lines (its \r progress bars one per line), not-printable
-- bytes escaped, secrets redacted
function capture.write_log(path, texts, policy)
  local text = tail(table.concat(texts, "\n"), policy.capture.output_tail):gsub("\r\n", "\n"):gsub("\r", "\n")
  core.fs.write_atomic(path, core.log.escape(log.redact(text), true))
end

-- nsys left its raw capture (<prefix>.qdstrm) because it did not find QdstrmImporter (Debian's split
-- layout): import it with the one discover found (policy capture.qdstrm), or fail naming the fix.
-- Returns the report path, nil when there is no .qdstrm either.
function capture.import_qdstrm(state, prefix, fail)
  local c = state.policy.capture
  local raw = capture.find_qdstrm(prefix)
  if not raw then return nil end
  state.artifacts.qdstrm = raw
  local imp = state.nsys.importer or {}
  if c.qdstrm ~= "import" or not imp.ok then
    fail("nsys profile left its raw capture %s instead of a report: %s. The capture is kept. Fix: %s%s", raw,
      imp.reason or "its QdstrmImporter was not found", imp.fix or "install Nsight Systems' host part",
      imp.ok and "; or set capture.qdstrm = \"import\" to let gpuflame import it" or "")
  end
  local rep = raw:gsub("%.qdstrm$", "") .. ".nsys-rep"
  local res = capture.command(state, "import", { imp.path, "-i", raw, "-o", rep, "-f" },
    { timeout = c.import_timeout, label = "QdstrmImporter " .. raw:match("[^/]+$") })
  local st = core.fs.stat(rep)
  if res.status ~= "exited" or res.code ~= 0 or not st or st.size == 0 then
    fail("nsys left a .qdstrm and importing it with %s failed (%s%s): %s. The capture is kept: %s", imp.path,
      res.status, res.status == "exited" and (" " .. res.code) or "",
      nsys_mod.clean_text(tail((res.stderr or "") .. " " .. (res.stdout or ""), 300)), raw)
  end
  capture.warn(state, "nsys did not find its QdstrmImporter (%s); gpuflame imported %s with %s. To fix the " ..
    "install: %s", imp.reason or "?", raw:match("[^/]+$"), imp.path, imp.fix or "?")
  if not c.keep_qdstrm then
    os.remove(raw)
    state.artifacts.qdstrm = nil
  end
  return rep
end

local function first_line(s, pat)
  for line in (s or ""):gmatch("[^\r\n]+") do
    if not pat or line:find(pat, 1, true) then return line end
  end
end

-- Runs nsys stats for one report into state.dir. Returns csv path or nil, why.
function capture.stats_report(state, report, base)
  -- capture.views_from = "export": gpuflame writes the CSV from one nsys export (docs/REPORTS.md)
  if state.policy.capture.views_from == "export" then return require("gpuflame.stats").capture_report(state, report, base) end
  local policy = state.policy
  local name = nsys_mod.report_name(report, state.nsys.version, policy)
  local prefix = state.dir .. "/" .. base
  local argv = { state.nsys.path, "stats", "--report", name, "--format", "csv", "--force-export=true",
    "--force-overwrite=true", "-o", prefix, state.report }
  local res = capture.command(state, "stats " .. name, argv,
    { timeout = policy.flamegraph.stats_timeout, label = "nsys stats " .. name })
  local expected = prefix .. "_" .. name .. ".csv"
  if res.status == "timeout" then return nil, "timed out", name end
  if res.status ~= "exited" or res.code ~= 0 then
    return nil, string.format("exit %s: %s", tostring(res.code), nsys_mod.clean_text(
      first_line(res.stderr, "ERROR") or first_line(res.stderr) or first_line(res.stdout) or "no output")), name
  end
  local skipped = first_line((res.stderr or "") .. "\n" .. (res.stdout or ""), "SKIPPED:")
  if skipped then
    -- "Processing [x.sqlite] with [...]... SKIPPED: x.sqlite does not contain CUDA kernel data."
    local st = core.fs.stat(expected)
    if st and st.size == 0 then os.remove(expected) end -- nsys leaves an empty file for a skipped report
    local what = skipped:match("does not contain (.-)%.?%s*$")
    return nil, what and ("SKIPPED (no " .. what .. ")") or nsys_mod.clean_text(skipped:match("SKIPPED:.*$")), name,
      true
  end
  local csv = core.fs.stat(expected) and expected
  if not csv then
    local m = core.fs.glob(prefix .. "*.csv")
    table.sort(m)
    csv = m[1]
  end
  if not csv then
    local said = first_line(res.stderr, "ERROR") or first_line(res.stdout, "ERROR")
    return nil, "no CSV written (" .. expected .. ")" .. (said and (": nsys said " .. nsys_mod.clean_text(said)) or ""),
      name
  end
  local st = core.fs.stat(csv)
  if not st or st.size == 0 then return nil, "empty CSV " .. csv, name end
  return csv, nil, name
end

-- Tries the policy's reports in order (flamegraph.reports); the first that yields rows wins.
-- Returns {report, csv, stacks}; raises exit 5 listing every report tried and why, or with `optional`
-- (the CSVs beside a flamegraph drawn from the export) returns nil.
function capture.stats(state, reports, optional)
  local fg = require("gpuflame.flamegraph")
  local policy = state.policy
  local fp = policy.flamegraph
  reports = reports or fp.reports
  for _, report in ipairs(reports) do
    local base = fp.output_names[report] or report -- a report output_names does not list: its own name
    local csv, why, name, skipped = capture.stats_report(state, report, base)
    local stacks
    if csv then
      local ok, res = errors.try(fg.from_csv, csv, report, nil, policy)
      if not ok then
        why = res.msg
      elseif res:count() == 0 then
        why = "CSV has a header but no rows (" .. csv .. ")"
      else
        stacks = res
      end
      state.artifacts.stats_csv = state.artifacts.stats_csv or {}
      table.insert(state.artifacts.stats_csv, csv)
    end
    state.reports_tried[#state.reports_tried + 1] = { report = name, ok = stacks ~= nil, why = why, csv = csv,
      skipped = skipped }
    if stacks then
      log.debug("stats: %s gave %d stacks", name, stacks:count())
      return { report = report, name = name, csv = csv, stacks = stacks }
    end
    -- a SKIPPED report is summed up in the final message; anything else is news now
    if skipped then log.debug("nsys stats %s: %s", name, why) else log.info("nsys stats %s gave nothing usable: %s", name, why) end
  end
  if optional then return nil end
  local lines, all_skipped = {}, true
  for _, t in ipairs(state.reports_tried) do
    lines[#lines + 1] = t.report .. ": " .. (t.why or "?")
    all_skipped = all_skipped and t.skipped
  end
  state.status = "no-data"
  state.error = "no usable nsys stats CSV (" .. table.concat(lines, "; ") .. ")"
  capture.write_summary(state)
  if all_skipped and #lines > 0 then
    errors.raise(errors.NO_DATA, "%s: the capture holds no CUDA activity to draw (%s). Did the workload use the " ..
      "GPU through CUDA? The report is kept: %s", state.dir, table.concat(lines, "; "), state.report or "?")
  end
  errors.raise(errors.NO_DATA, "%s: no usable nsys stats CSV from %s — tried %s", state.dir, state.report or "?",
    table.concat(lines, "; "))
end

-- nsys export --type sqlite (§6.4). Returns {ok, path, why}; on failure `newer` is the message when the
-- report was recorded by an nsys newer than this one (nsys.newer_report).
function capture.export_sqlite(nsys, rep, out, state, policy)
  need(policy, "capture.export_sqlite")
  if not state then
    state = capture.new_state(out:match("^(.*)/[^/]*$") or ".", nsys, policy)
    state.no_summary = true
  end
  local argv = { nsys.path, "export", "--type", "sqlite", "--force-overwrite", "true", "--output", out, rep }
  local res = capture.command(state, "export sqlite", argv,
    { timeout = policy.flamegraph.export_timeout, label = "nsys export --type sqlite" })
  if res.status ~= "exited" or res.code ~= 0 then
    -- a report recorded by a newer nsys: said so, with the versions (nsys's own words stay in `why`)
    return { ok = false, why = string.format("%s (exit %s): %s", res.status, tostring(res.code),
      nsys_mod.clean_text(first_line(res.stderr) or first_line(res.stdout) or "no output")),
      newer = res.status == "exited" and nsys_mod.newer_report(rep, nsys) or nil }
  end
  local path = out:match("%.sqlite$") and out or (out .. ".sqlite")
  local st = core.fs.stat(path)
  if not st then return { ok = false, why = "no SQLite file written (" .. path .. ")" } end
  if st.size == 0 then return { ok = false, why = "empty SQLite file " .. path } end
  return { ok = true, path = path }
end

-- The stages that read the capture's export live in gpuflame.capture_views.
local capture_views = require("gpuflame.capture_views")
capture.export_trace = capture_views.export_trace
capture.set_gpu_time = capture_views.set_gpu_time
capture.gpu_time_stage = capture_views.gpu_time_stage
capture.flamegraph_stage = capture_views.flamegraph_stage

function capture.write_summary(state)
  if state.no_summary or not state.dir or not core.fs.stat(state.dir) then return end
  local json = core.json
  local nsys = state.nsys
  local tried = {}
  for _, t in ipairs(state.reports_tried) do
    tried[#tried + 1] = { report = t.report, ok = t.ok, why = t.why or json.null, csv = t.csv or json.null }
  end
  local doc = {
    generator = "gpuflame " .. core.host.version,
    status = state.status,
    error = state.error or json.null,
    started = state.started,
    finished = core.sys.isotime(),
    dir = state.dir,
    nsys = nsys and { path = nsys.path, version = nsys.version and nsys.version.string or json.null,
      version_raw = nsys.version and nsys.version.raw or json.null } or json.null,
    workload = state.workload and json.array(redact_argv(state.workload)) or json.null,
    commands = json.array(state.commands),
    reports_tried = json.array(tried),
    artifacts = {},
    warnings = json.array(state.warnings),
    flamegraph = state.flamegraph and {
      report = state.flamegraph.report, stacks = state.flamegraph.stacks, total = state.flamegraph.total,
      unit_ns = state.flamegraph.unit_ns, levels = state.flamegraph.levels or json.null,
      top = json.array((function()
        local t = {}
        for i, s in ipairs(state.flamegraph.top or {}) do t[i] = { name = s.leaf, count = s.weight } end
        return t
      end)()),
    } or json.null,
    timeline = state.timeline or json.null,
    gpu_time = state.gpu_time or json.null, -- per device: every part in ns and share of its span (docs/SEMANTICS.md)
    window = state.window or json.null, -- a live session's capture window (gpuflame.live)
  }
  for k, v in pairs(state.artifacts) do
    doc.artifacts[k] = type(v) == "table" and json.array(v) or v
  end
  local path = state.dir .. "/" .. state.policy.outputs.summary
  doc.artifacts.summary = path
  core.fs.write_atomic(path, json.encode(doc, { pretty = true }) .. "\n")
  state.artifacts.summary = path
  return path
end

-- The timeline hand-over (--timeline / --stacks): gpuflame.views.timeline owns it. Contract:
-- timeline.from_capture(state, opts, ctx) → true when it wrote its artifacts (recorded in
-- state.artifacts / state.timeline), false/nil when the capture has no trace events (→ flamegraph).
local function timeline_stage(state, opts, ctx)
  local ok, view = pcall(require, "gpuflame.views.timeline")
  if not ok then
    state.status = "failed"
    state.error = "the timeline view is not available in this build (gpuflame.views.timeline: " ..
      tostring(errors.wrap(view).msg):match("^[^\n]*") .. ")"
    capture.write_summary(state)
    errors.raise(errors.ERROR, "--timeline/--stacks: %s; the report is kept in %s", state.error, state.dir)
  end
  if type(view.from_capture) ~= "function" then
    errors.raise(errors.ERROR, "gpuflame.views.timeline has no from_capture(state, opts, ctx)")
  end
  return view.from_capture(state, opts, ctx)
end

-- run(opts, ctx) → state. opts: {workload = argv list|nil, duration, out, nsys, timeline,
-- stacks, title, countname, inverted, minwidth, colors}
function capture.run(opts, ctx)
  local policy = need(ctx.policy(), "capture.run")
  local c = policy.capture
  local found, nsys = errors.try(capture.find_nsys, opts.nsys, policy)
  if core.host.interrupted() ~= 0 then errors.raise(errors.INTERRUPTED, "interrupted while looking for nsys") end
  if not found then errors.reraise(nsys) end
  local dir = opts.out or os.date(c.out_dir)
  core.fs.mkdirp(dir)
  local state = capture.new_state(dir, nsys, policy)
  state.workload = opts.workload
  if not opts.workload or #opts.workload == 0 then
    capture.warn(state, "No workload given; capturing a duration-bounded sleep session of %d s (the result " ..
      "will likely be empty: only processes nsys launches are traced)", nsys_args.session_seconds(opts.duration or c.duration))
  end
  capture.profile(state, { workload = opts.workload, duration = opts.duration, stacks = opts.stacks })
  return capture.views(state, opts, ctx)
end

-- views(state, opts, ctx) → state: the report (state.report) into the views (timeline or flamegraph),
-- findings.json and summary.json; the same for a whole capture and for a live session's window.
function capture.views(state, opts, ctx)
  local done = false
  if opts.timeline or opts.stacks then
    done = timeline_stage(state, opts, ctx)
    if not done then
      capture.warn(state, "nsys timeline requested but no trace events; falling back to GPU flamegraph")
    end
  end
  if not done then
    capture.flamegraph_stage(state, { title = opts.title, countname = opts.countname, inverted = opts.inverted,
      minwidth = opts.minwidth, colors = opts.colors })
  end
  require("gpuflame.findings").capture_stage(state) -- findings.json (policy findings.capture)
  capture.gpu_time_stage(state) -- summary.json's gpu_time
  state.status = "ok"
  capture.write_summary(state)
  return state
end

return capture
