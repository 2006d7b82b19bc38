-- The CPU/GPU timeline view: trace inputs → self-contained timeline page (templates/timeline.html,
-- data contract docs/TIMELINE_DATA.md), or the policy's fallback when the capture has no trace events.
--
--   local tl = require("gpuflame.views.timeline")
--   local r = tl.build({ inputs = {path...}, out = "timeline.html", stacks = bool, max_events = N,
--                        title = T, fallback = function(out) ... end }, ctx)
--   r = { kind = "timeline"|"flamegraph", path = out, shown = n, total = m, lanes = k,
--         warnings = {...}, flame_total = ns }
-- capture.lua hands --timeline/--stacks captures to V.from_capture(state, opts, ctx): trace CSVs from
-- `nsys stats` (policy timeline.source = "csv", the reference) or the SQLite export (source "sqlite",
-- always with --stacks, and when the CSVs hold no CUDA events: a CPU-side capture's NVTX, OS runtime and
-- CPU samples are only in the export); warnings go to state.warnings (summary.json).
local core = require("gpuflame.core")
local critpath = require("gpuflame.critpath")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local page = require("gpuflame.views.page")
local trace = require("gpuflame.trace")
local findings = require("gpuflame.findings")
local document = require("gpuflame.findings.document")
local steps = require("gpuflame.steps")
local need = require("gpuflame.policy").need

local V = {}

V.NO_EVENTS_WARNING = "nsys timeline requested but no trace events; falling back to GPU flamegraph"

-- settings(over|nil, policy): the page settings from policy.timeline (the effective policy, required),
-- max_events, keep_partners and title overridden by the command line.
function V.settings(over, policy)
  local pol = need(policy, "views.timeline.settings")
  local tp = pol.timeline
  over = over or {}
  local keep = over.keep_partners
  if keep == nil then keep = tp.keep_partners end
  return {
    max_events = over.max_events or tp.local_max_events,
    bounded = over.max_events ~= nil, -- --max-events: the import keeps N events, never the whole trace
    initial_view = tp.initial_view,
    view_events = tp.view_events,
    preview_min_events = tp.preview_min_events,
    compress = tp.compress,
    threads = pol.limits.threads,
    keep_partners = keep,
    title = over.title or tp.title,
    template = tp.template,
    fallback = tp.fallback,
    flame_min_fraction = tp.flame_min_fraction,
    communication = pol.gpu_time.communication,
  }
end

-- The steps of the capture for the page's axis ({{json:steps}}, js/timeline_steps.js): {rule, steps = [{index,
-- name, rank, start, end}]} (the trace's ns), or null when it has none (gpuflame.steps).
local function steps_slot(tr, policy)
  local ok, wins, rule = errors.try(steps.find, tr, nil, policy)
  if not ok then
    if wins.code == errors.INTERRUPTED then error(wins, 0) end
    return { json = "null" }
  end
  local list, idx = {}, {}
  for k, w in ipairs(wins) do
    local pk = w.rank .. "/" .. w.pid
    idx[pk] = (idx[pk] or -1) + 1
    list[k] = { index = idx[pk], name = w.name, rank = w.rank_label, start = w.start, ["end"] = w["end"] }
  end
  return { json = core.json.encode({ rule = steps.rule_text(rule), steps = core.json.array(list) }) }
end

-- render(tr, out, settings [, findings_doc [, policy]]) writes the page atomically; findings_doc (findings.page)
-- fills the findings panel ({{json:findings}}; null: no panel); with policy the capture's steps mark the axis.
function V.render(tr, out, s, fdoc, policy)
  local cp = "null"
  if policy and s.critical_path then
    if tr:count() < tr:total() then -- a trimmed trace: its event indices are not those of the path
      log.warn("--critical-path: the page keeps %d of %d events (policy timeline.local_max_events); no path drawn",
        tr:count(), tr:total())
    else
      cp = core.json.encode(critpath.page_data(tr, policy))
    end
  end
  local tmpl, origin = page.find(s.template)
  if not tmpl then
    errors.raise(errors.ERROR, "timeline template %s not found on the search path", s.template)
  end
  log.debug("timeline: template %s", origin)
  -- the steps for the page's axis are found once its columns are compressing (a function slot: issue 42, 0.1-
  -- 0.2 s of one core on the 368 MB export); the binding collects their garbage before the page is written
  local steps_json = { json = policy and function() return steps_slot(tr, policy).json end or "null" }
  -- what finding the steps made (a Lua table per NVTX name and thread: 326k, 28 MB on a 5M-event export) is
  -- garbage by now: collected before the page is written, not held beside it (issue 42: the peak RSS)
  collectgarbage()
  tr:write_timeline(tmpl, out, { title = s.title, initial_view = s.initial_view, compress = s.compress,
    threads = s.threads, view_events = s.view_events, preview_min_events = s.preview_min_events,
    findings = document.page_slot(fdoc),
    -- the GPU time breakdown of the window in view (docs/SEMANTICS.md): which kernels are communication
    gputime = { json = core.json.encode({ communication = core.json.array(s.communication or {}) }) },
    steps = steps_json,
    -- --critical-path: per step the events on its path (gpuflame.critpath, js/timeline_steps.js)
    critpath = { json = cp } },
    s.template, s.flame_min_fraction)
end

-- load(inputs, s, extra, on_whole|nil, policy) → trace, results, findings_doc. With policy findings.pages the whole
-- trace is imported, the policy's rules run over it, and it is then trimmed to the page's max_events
-- (gf_trace_trim gives the events a trimming import keeps); otherwise the import trims as it reads. A
-- bounded run (--max-events, as the agent's upload retrim asks) always trims as it reads, so its memory
-- follows N and not the input: its findings panel says why it has no findings. on_whole(tr), when given,
-- sees the whole trace before it is trimmed (capture's time breakdown).
local function load_for_page(inputs, s, extra, on_whole, policy)
  local pages = need(policy, "views.timeline.load").findings.pages
  local whole = pages and not s.bounded
  local o = { max_events = whole and 0 or s.max_events, keep_partners = s.keep_partners }
  for k, v in pairs(extra) do o[k] = v end
  local tr = trace.load(inputs, o, policy)
  -- NVTX ranges projected onto the GPU join the page's events once the rules have run over the import. A
  -- bounded run has none: the projection reads every NVTX range and GPU operation, the memory it must not use.
  local function proj()
    if tr:count() == 0 then return end
    if s.bounded then
      local kind = #inputs == 1 and trace.classify(inputs[1], policy)
      if policy.timeline.nvtx_projection and (kind == "sqlite" or kind == "model") and (tr:totals().nvtx or 0) > 0 then
        tr:warn(string.format("NVTX ranges not projected onto the GPU: --max-events %d reads with memory bounded " ..
          "by N, and the projection needs every range (run without --max-events for it)", s.max_events))
      end
      return
    end
    trace.add_nvtx_proj(tr, inputs, s.max_events, policy)
  end
  if not pages or tr:count() == 0 then proj(); return tr end
  local name = #inputs == 1 and findings.source_name(inputs[1]) or tr:source()
  if not whole then
    proj()
    return tr, nil, { input = name, findings = core.json.array({}), note = string.format(
      "Findings not run: --max-events %d reads only the %d longest events (memory bounded by them); " ..
      "the rules need every event, so run without --max-events (or gpuflame findings) for them.",
      s.max_events, s.max_events) }
  end
  -- A trace the trim leaves as it is gets its projection computed on a second thread (policy limits.threads
  -- permitting) while the rules and on_whole read it, merged once they are done; the page is the same. A
  -- Lua error before the merge closes the job (<close>): its thread is joined, never left running.
  local keep_all = s.max_events == 0 or tr:count() <= s.max_events
  local job <close> = keep_all and trace.nvtx_proj_start(tr, inputs, s.max_events, policy) or nil
  local results, doc = findings.page(tr, name, policy)
  if on_whole then on_whole(tr) end
  -- the rules' Lua garbage (e.g. a table per NVTX name and thread: 28 MB on a 5M-event export) goes before the
  -- projection's columns are merged into the trace's, not beside them (issue 42: the timeline's peak RSS)
  collectgarbage()
  if job then
    job:finish()
  else
    tr:trim(s.max_events, s.keep_partners)
    proj()
  end
  return tr, results, doc
end

local function flamegraph_fallback(spec, warnings, ctx)
  if spec.fallback then return spec.fallback(spec.out, warnings) end
  -- the SQLite export also holds the kernel summary the flamegraph needs
  local ok, fg = pcall(require, "gpuflame.flamegraph")
  if not ok then errors.raise(errors.NO_DATA, "no trace events, and no flamegraph module to fall back to") end
  local sqlite
  for _, p in ipairs(spec.inputs) do
    if trace.classify(p, ctx.policy()) == "sqlite" then sqlite = p end
  end
  if not sqlite then errors.raise(errors.NO_DATA, "no trace events in %s", table.concat(spec.inputs, ", ")) end
  local policy = ctx.policy()
  local stacks = fg.from_sqlite(sqlite, nil, policy)
  fg.render(stacks, spec.out, fg.page_options({}, policy))
  return { kind = "flamegraph", path = spec.out, warnings = warnings }
end

function V.build(spec, ctx)
  local policy = ctx.policy()
  local s = V.settings({ max_events = spec.max_events, title = spec.title,
    keep_partners = spec.critical_path or spec.keep_partners }, policy)
  s.critical_path = spec.critical_path
  local tr, _, fdoc = load_for_page(spec.inputs, s, { stacks = spec.stacks, nsys = spec.nsys,
    allow_unrelated = spec.allow_unrelated }, nil, policy)
  local warnings = tr:warnings()
  if tr:count() == 0 then
    log.warn("%s", V.NO_EVENTS_WARNING)
    table.insert(warnings, 1, V.NO_EVENTS_WARNING)
    if s.fallback == "none" then errors.raise(errors.NO_DATA, "%s", "no trace events in the capture") end
    return flamegraph_fallback(spec, warnings, ctx)
  end
  local fl = tr:flame()
  if spec.stacks and fl.launches == 0 and policy.stacks.missing == "error" then
    errors.raise(errors.NO_DATA, "%s", warnings[1] or "no launch backtraces in the capture")
  end
  for _, w in ipairs(warnings) do log.warn("%s", w) end
  V.render(tr, spec.out, s, fdoc, policy)
  return {
    kind = "timeline", path = spec.out, shown = tr:count(), total = tr:total(), lanes = #tr:lanes(),
    warnings = warnings, flame_total = fl.total, launches_with_stack = fl.launches, trace = tr,
  }
end

-- Loader used by exporters and scripts: the whole trace (no trimming unless asked). ctx (required)
-- gives the effective policy.
function V.load(paths, opts, ctx)
  opts = opts or {}
  return trace.load(paths, { max_events = opts.max_events or 0, keep_partners = opts.keep_partners,
    stacks = opts.stacks }, ctx.policy())
end

V.load_for_page = load_for_page -- the capture's timeline stage (gpuflame.capture.timeline)
V.core = core
return V
