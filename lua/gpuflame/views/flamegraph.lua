-- The page of `gpuflame flamegraph` (templates/flamegraph.html, docs/PAGES.md): the GPU stacks of one
-- input or of several reports (merged, or a rank frame each), with the findings panel of an export; a
-- two-column folded file gives the differential page instead.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local flamegraph = require("gpuflame.flamegraph")
local inputs = require("gpuflame.inputs")
local log = require("gpuflame.log")
local findings = require("gpuflame.findings")
local mpi = require("gpuflame.mpi")
local trace = require("gpuflame.trace")

local M = {}

-- The findings panel's document for an export: the policy's rules over its trace. The flamegraph does
-- not need the trace, so a trace that cannot load gives a panel that says why, not an error.
-- The stacks' own trace (ctx.stacks_trace) is the one `trace.load` would give when it was loaded from the
-- same file with the same options (every event, the launch partners kept, no backtraces): then it is read
-- once, not twice (issue 42).
local function shared_trace(export_path, ctx)
  local st = ctx.stacks_trace
  ctx.stacks_trace = nil
  if not st or st.path ~= export_path or ctx.policy().timeline.keep_partners == false
    or flamegraph.wants_callchain(st.flame or flamegraph.settings(nil, ctx.policy())) then
    return nil
  end
  return st.trace
end

local function findings_document(input, export_path, ctx)
  local name = findings.source_name(input)
  local shared = shared_trace(export_path, ctx)
  local ok, tr = true, shared
  if not shared then
    ok, tr = errors.try(trace.load, { export_path }, { max_events = 0 }, ctx.policy())
  end
  if ok then
    local _, doc = findings.page(tr, name, ctx.policy())
    return doc
  elseif tr.code == errors.INTERRUPTED then
    errors.reraise(tr)
  end
  log.warn("findings for the page: %s", tr.msg)
  return { input = name, findings = core.json.array({}), note = "findings could not run: " .. tr.msg }
end

-- A single input: a two-column folded file is differential (returns its page's numbers), anything else
-- gives its stacks and, for an export with policy findings.pages, the findings document.
local function one_input(spec, ctx)
  local input = spec.inputs[1]
  local info = inputs.detect(input)
  if info.type == "folded" and info.two_columns then
    local D = require("gpuflame.views.diff").flamegraph_from_difffolded(input, spec.out, {
      title = spec.title or ctx.policy().diff.title,
      subtitle = input:match("[^/]+$"), min_fraction = ctx.policy().diff.min_fraction }, ctx)
    local b, a = D:totals()
    return nil, nil, { differential = true, stacks = D:count(), before = b, after = a }
  end
  -- an .nsys-rep is exported once: the stacks and the findings read the same export
  local resolved = inputs.resolve(input, { nsys = spec.nsys }, ctx)
  local pages = (resolved.type == "sqlite" or resolved.type == "model") and ctx.policy().findings.pages
  -- with the panel, the stacks (and the page's fold) are built on a second thread while its rules run
  -- (flamegraph.start_stacks; policy limits.threads = 1: one after the other); the page is the same
  local stacks = inputs.load_for(resolved.path, { "stacks" }, { nsys = spec.nsys, flame = spec.flame,
    keep_trace = pages or nil, defer = pages or nil, page = true }, ctx)
  local job <close> = ctx.stacks_trace and ctx.stacks_trace.job or nil
  local fdoc, prefolded
  if pages then
    fdoc = findings_document(input, resolved.path, ctx)
  end
  ctx.stacks_trace = nil
  if job then
    stacks, prefolded = job:finish(ctx.policy())
    log.debug("flamegraph: %d stacks built on a second thread beside the findings rules%s: %.2f s there "
      .. "(%.2f s CPU; the rules %.2f s CPU), %.2f s waited for after the rules", flamegraph.count(stacks),
      prefolded.folded and " (and folded there)" or "", prefolded.run_s, prefolded.run_cpu, prefolded.caller_cpu,
      prefolded.wait_s)
  end
  return stacks, fdoc, nil, prefolded
end

-- build(spec, ctx) writes spec.out and returns what the page holds: {stacks = N, total = N, countname = U}
-- or, for a two-column folded input, {differential = true, stacks = N, before = N, after = N}.
-- spec: inputs (paths; none with an MPI --local pattern), out, nsys, by_rank, allow_unrelated, flame (the
-- stacks' settings, flamegraph.settings: --levels, --by-rank; nil: the policy's), step and marker (only the
-- GPU work launched inside that step: --step N|median|slowest, gpuflame.steps), and the page options title,
-- countname, inverted, minwidth, colors (nil: policy flamegraph.*).
function M.build(spec, ctx)
  local input = spec.inputs[1]
  local st = input and core.fs.stat(input)
  local several = mpi.local_pattern() ~= nil or spec.inputs[2] ~= nil
    or (st and st.type == "directory") or (not st and input:find("[%*%?%[]"))
  local ok, res = errors.try(function()
    local stacks, fdoc, clock, diffpage, step, prefolded
    if spec.step then -- one step's GPU work (gpuflame.steps), of one input or of several reports merged
      local paths = {}
      for k, p in ipairs(spec.inputs) do
        paths[k] = several and p or inputs.resolve(p, { nsys = spec.nsys }, ctx).path
      end
      local tr, info = flamegraph.load_trace(paths, { nsys = spec.nsys, ranks = several or spec.by_rank,
        allow_unrelated = spec.allow_unrelated, flame = spec.flame }, ctx.policy())
      if not several and input then tr:source(input) end
      clock = info and info.clock_alignment
      local s
      stacks, s = flamegraph.from_trace_step(tr, spec.step, spec.marker, { flame = spec.flame }, ctx.policy())
      step = flamegraph.step_label(s, spec.step)
    elseif several or spec.by_rank then
      stacks, clock = flamegraph.from_reports(spec.inputs, { nsys = spec.nsys,
        allow_unrelated = spec.allow_unrelated, flame = spec.flame }, ctx.policy())
    elseif st and st.type == "file" then
      stacks, fdoc, diffpage, prefolded = one_input(spec, ctx)
      if diffpage then return diffpage end
    else
      stacks = inputs.load_for(inputs.resolve(input, { nsys = spec.nsys }, ctx).path, { "stacks" },
        { nsys = spec.nsys, flame = spec.flame, page = true }, ctx)
    end
    local o = flamegraph.page_options({
      title = spec.title, countname = spec.countname, inverted = spec.inverted, minwidth = spec.minwidth,
      colors = spec.colors, subtitle = (input and input:match("[^/]+$") or "") .. (step and (" · " .. step) or "") ..
        (clock and (" · " .. clock) or ""),
      findings = fdoc, stacks_countname = flamegraph.countname_of(stacks), prefolded = prefolded,
    }, ctx.policy())
    flamegraph.render(stacks, spec.out, o)
    return { stacks = flamegraph.count(stacks), total = stacks:total(),
      countname = spec.countname or flamegraph.countname_of(stacks) or ctx.policy().flamegraph.countname }
  end)
  inputs.cleanup(ctx)
  if not ok then errors.reraise(res) end
  return res
end

return M
