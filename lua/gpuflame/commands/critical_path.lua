-- gpuflame critical-path: per step the chain of dependent work that sets its length (lua/gpuflame/critpath.lua,
-- docs/CRITICAL_PATH.md)
local core = require("gpuflame.core")
local critpath = require("gpuflame.critpath")
local errors = require("gpuflame.errors")
local fg = require("gpuflame.flamegraph")
local gpu_time = require("gpuflame.gpu_time")
local log = require("gpuflame.log")
local trace = require("gpuflame.trace")
local critical_path = require("gpuflame.views.critical_path")

local cmd = {}

cmd.spec = {
  usage = "critical-path INPUT... [--step N|median|slowest] [--marker PATTERN] [--window START:END] [--json] " ..
    "[--html FILE] [--folded] [--flamegraph FILE] [--what-if kernel=NAME:F|nvtx=NAME:F|kind=PART:F]...",
  summary = "the critical path of each step: what sets its length, by part, item and rank; what-if edits",
  description = "The graph of a step: its CUDA calls, kernels, copies, memsets and NVTX ranges, joined by host\n" ..
    "order, launches, stream order, synchronisation and (several ranks) collectives, which end when the last\n" ..
    "rank arrives. The longest path through it is the step's length, split into host, launch, queue, compute,\n" ..
    "copy, sync, communication and idle time (docs/SEMANTICS.md \"Critical path\"). --what-if scales the\n" ..
    "lags of the items it names and finds the path again: an edit of the graph only. Steps are those of\n" ..
    "`gpuflame steps`; without NVTX steps, the whole capture (or --window).",
  options = {
    { "step", arg = "N", help = "only step N (its index in `gpuflame steps`), or median or slowest" },
    { "marker", arg = "PATTERN", help = "the steps are the NVTX ranges matching this Lua pattern" },
    { "window", arg = "START:END", help = "no steps: the path through this window (ns on the export's clock)" },
    { "what-if", arg = "SPEC", multi = true, help = "kernel=NAME:F, nvtx=NAME:F or kind=PART:F: scale those " ..
      "items by F (0 removes them) and find the path again (repeatable)" },
    { "json", help = "print the JSON document instead of the table" },
    { "html", arg = "FILE", help = "also write a page: a bar per step stacked by the path's parts, its longest items" },
    { "folded", help = "print the path's time as folded stacks `step N (NAME)[;RANK];KIND;NAME ns` instead of the table" },
    { "flamegraph", arg = "FILE", help = "also write a flamegraph page of only the on-path time (those stacks)" },
    { "nsys", arg = "PATH", help = ".nsys-rep inputs: the nsys to export with" },
    { "allow-unrelated", help = "several reports: accept captures that cannot be one job (policy ranks.max_start_gap_s)" },
  },
}

local function ms(ns) return gpu_time.ms(ns) end

local function pct(x) return string.format("%.1f%%", x * 100) end

-- the run's path over its counted steps (critpath.summary): last, where a long list of steps ends
local function summary_text(out, sm, top)
  local left = sm.steps - sm.counted
  out[#out + 1] = string.format("over %d %s%s: path median %s, longest step %s (%s)", sm.counted,
    sm.warmup_included and "steps (every one a warm-up step)" or "counted steps",
    left > 0 and string.format(" (%d warm-up left out)", left) or "", ms(sm.median_length_ns),
    tostring(sm.longest.index), ms(sm.longest.length_ns))
  local p = {}
  for _, name in ipairs(critpath.PARTS) do
    if sm.parts[name .. "_ns"] > 0 then p[#p + 1] = name .. " " .. pct(sm.shares[name]) end
  end
  out[#out + 1] = "  parts: " .. table.concat(p, ", ")
  if sm.what_if then
    out[#out + 1] = string.format("  what-if: path median %s → %s; median saving %s a step", ms(sm.median_length_ns),
      ms(sm.what_if.median_length_ns), ms(sm.what_if.median_saved_ns))
  end
  if sm.gpu_bound > 0 then
    out[#out + 1] = string.format("  %d of %d GPU-bound: their GPU work outlasts their range, and the path ends " ..
      "with the range", sm.gpu_bound, sm.counted)
  end
  for i = 1, math.min(top, #sm.on_path) do
    local it = sm.on_path[i]
    out[#out + 1] = string.format("  %10s a step  %-6s %s  (%s of the path; on it in %d of %d steps)",
      ms(it.ns / sm.counted), it.kind, it.name, pct(it.share), it.steps, sm.counted)
  end
end

local function text(doc, top)
  local out = { "critical path: " .. doc.rule }
  for _, s in ipairs(doc.steps) do
    out[#out + 1] = string.format("step %s (%s)%s: span %s, path %s", tostring(s.index), s.name,
      s.warmup and " warm-up" or "", ms(s.span_ns), ms(s.length_ns))
    local p = {}
    for _, name in ipairs(critpath.PARTS) do
      if s.parts[name .. "_ns"] > 0 then p[#p + 1] = name .. " " .. ms(s.parts[name .. "_ns"]) end
    end
    out[#out + 1] = "  parts: " .. table.concat(p, ", ")
    if s.gpu_bound then
      out[#out + 1] = string.format("  GPU-bound: its GPU work takes %s, longer than its range: the work after " ..
        "the range's end is not in this graph (`gpuflame steps` times the step by it)", ms(s.step_time_ns))
    end
    for i = 1, math.min(top, #s.on_path) do
      local it = s.on_path[i]
      out[#out + 1] = string.format("  %10s  %-6s %s%s", ms(it.ns), it.kind, it.name,
        it.rank and ("  [" .. tostring(it.rank) .. "]") or "")
    end
    if s.gating then
      local g = s.gating
      out[#out + 1] = string.format("  gated by %s (%s of its own work on the path)", tostring(g.rank), ms(g.ns))
      for _, w in ipairs(g.waits) do
        out[#out + 1] = string.format("  %s waited for %s in %s", tostring(w.waiting_rank),
          tostring(w.late_rank), w.collective or "?")
      end
    end
    if s.what_if then
      out[#out + 1] = string.format("  what-if: path %s (%s shorter); next on the path:", ms(s.what_if.length_ns),
        ms(s.what_if.saved_ns))
      for i = 1, math.min(3, #s.what_if.on_path) do
        local it = s.what_if.on_path[i]
        out[#out + 1] = string.format("  %10s  %-6s %s", ms(it.ns), it.kind, it.name)
      end
    end
  end
  if doc.summary then summary_text(out, doc.summary, top) end
  local bw = doc.between
  if type(bw) == "table" and bw.mostly_between then
    local names = {}
    for i, r in ipairs(bw.ranges) do names[i] = string.format("%s %s (%d)", r.name, ms(r.total_ns), r.count) end
    out[#out + 1] = string.format("between steps: %s of the loop lies outside the steps and their GPU work, and no " ..
      "path above covers it; in the gaps: %s (`gpuflame steps`)", pct(bw.outside_share),
      #names > 0 and table.concat(names, ", ") or "no NVTX range of the steps' thread")
  end
  if doc.what_if then out[#out + 1] = doc.what_if.note end
  return table.concat(out, "\n") .. "\n"
end

function cmd.run(opts, ctx)
  local paths = opts.positional
  if #paths == 0 then errors.raise(errors.USAGE, "critical-path needs an INPUT (see --help)") end
  if opts.window and (opts.step or opts.marker) then
    errors.raise(errors.USAGE, "--window goes without --step and --marker")
  end
  if opts.html == "" then errors.raise(errors.USAGE, "--html needs a FILE") end
  if opts.flamegraph == "" then errors.raise(errors.USAGE, "--flamegraph needs a FILE") end
  if opts.folded and opts.json then errors.raise(errors.USAGE, "--folded and --json: give one") end
  critpath.parse_what_if(opts.what_if) -- usage errors before the import
  local tr = trace.load(paths, { max_events = 0, keep_partners = true, nsys = opts.nsys,
    ranks = #paths > 1 or nil, allow_unrelated = opts.allow_unrelated }, ctx.policy())
  local doc = critpath.document(tr, opts, ctx.policy())
  if opts.html then
    critical_path.build({ document = doc, inputs = paths, out = opts.html }, ctx)
    log.info("wrote %s (%d steps)", opts.html, #doc.steps)
  end
  local stacks = (opts.folded or opts.flamegraph) and critpath.stacks(doc) or nil
  if opts.flamegraph then
    if stacks:count() == 0 then errors.raise(errors.NO_DATA, "%s: no time on the path to draw", paths[1]) end
    fg.render(stacks, opts.flamegraph, fg.page_options({ title = "Critical path: on-path time", countname = "ns",
      subtitle = doc.rule }, ctx.policy()))
    log.info("wrote %s (%d stacks)", opts.flamegraph, stacks:count())
  end
  if opts.folded then
    stacks:write_folded("-")
  elseif opts.json then
    io.stdout:write(core.json.encode(doc), "\n")
  else
    io.stdout:write(text(doc, ctx.policy().critical_path.top))
  end
  return 0
end

return cmd
