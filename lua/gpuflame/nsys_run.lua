-- nsys as a program, below every user (issue 39): finding it, running it as a recorded command, its
-- report and .qdstrm files, its log, `nsys stats` of one report, `nsys export --type sqlite`, and the
-- result table (`state`) those runs are recorded in with its summary.json. The capture pipeline
-- (gpuflame.capture) and the libraries that export or read reports (gpuflame.exports, gpuflame.stats,
-- gpuflame.nsys_retry, the capture stages) call it; it requires none of them.
--
--   run.find_nsys(explicit, policy)                 → nsys info {path, version}   (exit 3 if none)
--   run.new_state(dir, nsys, policy)                → a result table (below)
--   run.command(state, step, argv, o)               → the process result, recorded in state.commands
--   run.stats_report(state, report, base)           → csv | nil, why, name, skipped   (nsys stats)
--   run.export_sqlite(nsys, rep, out, state|nil, policy) → {ok, path, why, newer}
--   run.write_summary(state)                        → summary.json's path
--
-- `state` is the result table being built: {dir, policy, nsys, commands = {}, warnings = {},
-- reports_tried = {}, artifacts = {}}. Every external command run through run.command is recorded there
-- (argv redacted, exit code, status, seconds).
local core = require("gpuflame.core")
local discover = require("gpuflame.discover")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local nsys_mod = require("gpuflame.nsys")
local nsys_temp = require("gpuflame.nsys_temp")
local need = require("gpuflame.policy").need

local run = {}

-- `policy` is always an effective policy (policy.effective: the default policy with the --policy files
-- merged over it), so every field of policies/default.lua is there; no defaults are repeated here.

function run.find_nsys(explicit, policy)
  local info = discover.find({ explicit = explicit }, need(policy, "capture.find_nsys"))
  return info
end

function run.new_state(dir, nsys, policy)
  return { dir = dir, policy = need(policy, "capture.new_state"), nsys = nsys, commands = {}, warnings = {},
    reports_tried = {}, artifacts = {}, status = "running", started = core.sys.isotime() }
end

function run.warn(state, fmt, ...)
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
    run.warn(state, "%s: ended process %s, which was left running", step, l)
  end
  nsys_temp.drop_agent_shm(res.leftovers)
  state.commands[#state.commands + 1] = { step = step, argv = redact_argv(argv), exit_code = res.code,
    status = stopped_decided and "stopped-after-decided" or res.status,
    seconds = math.floor(res.elapsed * 1000 + 0.5) / 1000 }
  -- keep_on_interrupt: the command ran to its end and the caller handles the interrupt (a live window)
  if res.status == "interrupted" or (core.host.interrupted() ~= 0 and not o.keep_on_interrupt) then
    state.status = "interrupted"
    state.error = string.format("interrupted during %s", step)
    -- nsys wrote its raw capture into its temp directory before it was stopped: not left in /tmp
    nsys_temp.note(state, res)
    local cleaned = nsys_temp.clean(state, true, state.policy)
    if cleaned ~= "" then state.error = state.error .. "; " .. cleaned end
    run.write_summary(state)
    return res, run.kept_list(state) .. (cleaned ~= "" and "; " .. cleaned or "")
  end
  return res
end

-- The error that says what was kept is raised while interrupts are still held: raised after, the hook could
-- turn the pending signal into a bare "interrupted" in the instructions between (it did, by chance of where
-- its instruction count fell).
function run.command(state, step, argv, o)
  return core.host.holding_interrupts(function()
    local res, kept = run_recorded(state, step, argv, o or {})
    if kept then
      errors.raise(errors.INTERRUPTED, "interrupted during %s; stopped nsys and the workload's process group. " ..
        "Kept: %s", step, kept)
    end
    return res
  end)
end

function run.kept_list(state)
  local kept = {}
  for _, f in ipairs(core.fs.listdir(state.dir) or {}) do
    if not f:match("^%.") then kept[#kept + 1] = f end
  end
  table.sort(kept)
  return state.dir .. " (" .. (#kept > 0 and table.concat(kept, ", ") or "empty") .. ")"
end

-- The report nsys wrote: <prefix>.nsys-rep, else the first <prefix>*.nsys-rep.
function run.find_report(prefix)
  local exact = prefix .. ".nsys-rep"
  if core.fs.stat(exact) then return exact end
  local m = core.fs.glob(prefix .. "*.nsys-rep")
  table.sort(m)
  return m[1]
end

-- <prefix>.qdstrm, else the first <prefix>*.qdstrm: nsys's raw capture, left when it did not import it
function run.find_qdstrm(prefix)
  if core.fs.stat(prefix .. ".qdstrm") then return prefix .. ".qdstrm" end
  local m = core.fs.glob(prefix .. "*.qdstrm")
  table.sort(m)
  return m[1]
end

-- nsys-profile.log: nsys's output of each try as lines (its \r progress bars one per line), not-printable
-- bytes escaped, secrets redacted
function run.write_log(path, texts, policy)
  local text = tail(table.concat(texts, "\n"), policy.capture.output_tail):gsub("\r\n", "\n"):gsub("\r", "\n")
  core.fs.write_atomic(path, core.log.escape(log.redact(text), true))
end

local function first_line(s, pat)
  for line in (s or ""):gmatch("[^\r\n]+") do
    if not pat or line:find(pat, 1, true) then return line end
  end
end

-- Runs nsys stats for one report into state.dir. Returns csv path or nil, why. (capture.views_from =
-- "export" is the capture stage's choice: gpuflame.capture.stats_report.)
function run.stats_report(state, report, base)
  local policy = state.policy
  local name = nsys_mod.report_name(report, state.nsys.version, policy)
  local prefix = state.dir .. "/" .. base
  local argv = { state.nsys.path, "stats", "--report", name, "--format", "csv", "--force-export=true",
    "--force-overwrite=true", "-o", prefix, state.report }
  local res = run.command(state, "stats " .. name, argv,
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
-- nsys export --type sqlite (§6.4). Returns {ok, path, why}; on failure `newer` is the message when the
-- report was recorded by an nsys newer than this one (nsys.newer_report).
function run.export_sqlite(nsys, rep, out, state, policy)
  need(policy, "capture.export_sqlite")
  if not state then
    state = run.new_state(out:match("^(.*)/[^/]*$") or ".", nsys, policy)
    state.no_summary = true
  end
  local argv = { nsys.path, "export", "--type", "sqlite", "--force-overwrite", "true", "--output", out, rep }
  local res = run.command(state, "export sqlite", argv,
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


function run.write_summary(state)
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
run.redact_argv = redact_argv
run.tail = tail

return run
