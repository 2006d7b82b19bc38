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
-- The argv and environment nsys gets are built in gpuflame.nsys_args. nsys itself is run through
-- gpuflame.nsys_run (find_nsys, command, export_sqlite, write_summary and the rest are re-exported here);
-- the stages live in gpuflame.capture.* (views, stats_csv, timeline, findings), reached only from here.
--
-- `state` is the result table being built: {dir, policy, nsys, commands = {}, warnings = {},
-- reports_tried = {}, artifacts = {}}; capture.new_state(dir, nsys, policy) makes one. Every external
-- command run through capture.command is recorded there (argv redacted, exit code, status, seconds).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local nsys_args = require("gpuflame.nsys_args")
local nsys_mod = require("gpuflame.nsys")
local nsys_temp = require("gpuflame.nsys_temp")
local need = require("gpuflame.policy").need
local nsys_run = require("gpuflame.nsys_run")
local capture_views = require("gpuflame.capture.views")
local findings_stage = require("gpuflame.capture.findings")
local nsys_retry = require("gpuflame.nsys_retry")

local capture = {}
local redact_argv, tail = nsys_run.redact_argv, nsys_run.tail

-- nsys as a program lives in gpuflame.nsys_run; the pipeline's callers still reach it here.
for _, k in ipairs({ "find_nsys", "new_state", "warn", "command", "kept_list", "find_report", "find_qdstrm",
  "write_log", "export_sqlite", "write_summary" }) do
  capture[k] = nsys_run[k]
end

-- `policy` is always an effective policy (policy.effective: the default policy with the --policy files
-- merged over it), so every field of policies/default.lua is there; no defaults are repeated here.

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
    local cleaned = nsys_temp.clean(state, true, policy) -- what nsys left in its temp dir
    if cleaned ~= "" then state.error = state.error .. "; " .. cleaned end
    capture.write_summary(state)
    errors.raise(errors.CAPTURE, "%s", state.error)
  end
  -- nsys's transient start-up failures are tried again (gpuflame.nsys_retry); the log keeps every try
  local res, out = nsys_retry.run(state, prefix, logpath, fail, function(watch)
    local env = nsys_temp.mark(state, nsys_args.workload_env(nil, policy))
    return capture.command(state, "profile", argv, { env = env, timeout = timeout,
      label = (o.workload and #o.workload > 0) and ("nsys profile " .. o.workload[1]) or "nsys profile (sleep session)",
      decided_markers = c.decided_markers, decided_grace = c.decided_grace, watch = watch })
  end)
  nsys_temp.drop_status(state.nsys_status) -- left by an nsys stopped at a bound
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
    if not raw and res.failed_after_start then
      -- nsys's or the workload's words: the output cannot tell, so the status is said first, then why no retry
      fail("nsys profile exited with status %d; its output holds nsys's start-up failure text (%s), but the " ..
        "workload had started, so it was not tried again: a started workload is never run twice (log: %s)",
        res.code, res.failed_after_start, logpath)
    elseif not raw then
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
-- The stages that read the capture's export live in gpuflame.capture.views.
capture.stats_report = capture_views.stats_report
capture.stats = capture_views.stats
capture.export_trace = capture_views.export_trace
capture.set_gpu_time = capture_views.set_gpu_time
capture.gpu_time_stage = capture_views.gpu_time_stage
capture.flamegraph_stage = capture_views.flamegraph_stage
-- timeline.from_capture(state, opts, ctx) → true when it wrote its artifacts (recorded in
-- state.artifacts / state.timeline), false/nil when the capture has no trace events (→ flamegraph).
local function timeline_stage(state, opts, ctx)
  local ok, view = pcall(require, "gpuflame.capture.timeline")
  if not ok then
    state.status = "failed"
    state.error = "the timeline view is not available in this build (gpuflame.capture.timeline: " ..
      tostring(errors.wrap(view).msg):match("^[^\n]*") .. ")"
    capture.write_summary(state)
    errors.raise(errors.ERROR, "--timeline/--stacks: %s; the report is kept in %s", state.error, state.dir)
  end
  if type(view.from_capture) ~= "function" then
    errors.raise(errors.ERROR, "gpuflame.capture.timeline has no from_capture(state, opts, ctx)")
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
  findings_stage.stage(state) -- findings.json (policy findings.capture)
  capture.gpu_time_stage(state) -- summary.json's gpu_time
  state.status = "ok"
  capture.write_summary(state)
  return state
end

return capture
