-- gpuflame steps: the iterations of a training or benchmark loop found in a capture, each with the GPU work it
-- launched (lua/gpuflame/steps.lua, docs/STEPS.md)
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local steps = require("gpuflame.steps")
local gpu_time = require("gpuflame.gpu_time")
local core = require("gpuflame.core")
local mpi = require("gpuflame.mpi")
local trace = require("gpuflame.trace")
local views_steps = require("gpuflame.views.steps")

local cmd = {}

cmd.spec = {
  usage = "steps INPUT... [--marker PATTERN] [--json] [--html FILE] [--all]",
  summary = "find the steps (iterations) in a capture: per step its time, GPU work and breakdown",
  description = "Steps are NVTX ranges: those matching policy steps.markers (ProfilerStep#N, `step 12`,\n" ..
    "`iteration 3`, `Warm-up Step 2`, train_step, ...) or --marker (a Lua pattern), else the range that repeats\n" ..
    "on the main thread. A step's GPU work is every kernel, copy and memset whose launch call starts inside it\n" ..
    "on its process; per device its compute, communication, copy, memset and idle time (docs/SEMANTICS.md).\n" ..
    "Warm-up steps are flagged and left out of the summary; outliers are flagged by a MAD rule (policy\n" ..
    "steps). Several reports (or processes): step k of every rank side by side, the slowest with its margin.",
  options = {
    { "marker", arg = "PATTERN", help = "the steps are the NVTX ranges whose text matches this Lua pattern " ..
      "(e.g. '^Batch %d+$')" },
    { "json", help = "print the JSON document (rule, steps, summary, ranks) instead of the table" },
    { "html", arg = "FILE", help = "also write a page: a bar per step, stacked by the time breakdown" },
    { "all", help = "the table lists every step (default: at most policy steps.text_rows: the first and last, " ..
      "the slowest and the outliers furthest from the median)" },
    { "nsys", arg = "PATH", help = ".nsys-rep inputs: the nsys to export with" },
    { "allow-unrelated", help = "several reports: accept captures that cannot be one job (policy ranks.max_start_gap_s)" },
  },
}

-- load(paths, opts, ctx) → trace: every event of the inputs (several reports merged with ranks)
function cmd.load(paths, opts, ctx)
  return (trace.load(paths, { max_events = 0, keep_partners = true, nsys = opts.nsys,
    ranks = #paths > 1 or nil, allow_unrelated = opts.allow_unrelated }, ctx.policy()))
end

local function ms(ns) return string.format("%.3f", ns / 1e6) end

-- shown(doc, limit) → nil (every row), or {[position] = true} for the table's rows when the steps are more than
-- limit: the first and last few, the slowest counted step, then the outliers furthest from the median
local function shown(doc, limit)
  local list, n = doc.steps, #doc.steps
  if not limit or n <= limit then return nil end
  local keep, k = {}, 0
  local function add(i)
    if not keep[i] and k < limit then keep[i], k = true, k + 1 end
  end
  local head, tail = math.max(1, limit // 6), math.max(1, limit // 12)
  for i = 1, head do add(i) end
  for i = n - tail + 1, n do add(i) end
  local slowest, out = nil, {}
  for i, s in ipairs(list) do
    if not s.warmup or doc.summary.warmup_included then
      if not slowest or s.time_ns > list[slowest].time_ns then slowest = i end
    end
    if s.outlier then out[#out + 1] = i end
  end
  if slowest then add(slowest) end
  local med = doc.summary.median_ns
  table.sort(out, function(a, b)
    local da, db = math.abs(list[a].time_ns - med), math.abs(list[b].time_ns - med)
    if da ~= db then return da > db end
    return a < b
  end)
  for _, i in ipairs(out) do add(i) end
  return keep
end

-- "32, 90, 103 and 394 more": a list of at most max numbers
local function capped(list, max)
  local head = {}
  for i = 1, math.min(#list, max) do head[i] = list[i] end
  return table.concat(head, ", ") .. (#list > max and string.format(" and %d more", #list - max) or "")
end

local function rank_name(sl) return type(sl.rank) == "string" and sl.rank or ("pid " .. sl.pid) end

-- the ranks side by side: which rank is the slowest how often, then a line per step index; past limit steps,
-- the largest margins above the noise floor, in step order
local function rank_lines(out, ranks, limit)
  if #ranks == 0 then return end
  local count, order = {}, {}
  for _, r in ipairs(ranks) do
    local w = rank_name(r.slowest)
    if not count[w] then count[w] = { n = 0, above = 0 }; order[#order + 1] = w end
    count[w].n, count[w].above = count[w].n + 1, count[w].above + (r.above_noise and 1 or 0)
  end
  table.sort(order, function(a, b) return count[a].n > count[b].n or (count[a].n == count[b].n and a < b) end)
  for i, w in ipairs(order) do
    order[i] = string.format("%s in %d (above the noise floor in %d)", w, count[w].n, count[w].above)
  end
  out[#out + 1] = string.format("slowest rank of each of the %d steps: %s", #ranks, table.concat(order, ", "))
  local keep
  if limit and #ranks > limit then
    local above = {}
    for i, r in ipairs(ranks) do if r.above_noise then above[#above + 1] = i end end
    table.sort(above, function(a, b)
      return ranks[a].margin_ns > ranks[b].margin_ns or (ranks[a].margin_ns == ranks[b].margin_ns and a < b)
    end)
    keep = {}
    for k = 1, math.min(limit, #above) do keep[above[k]] = true end
  end
  local listed = 0
  for i, r in ipairs(ranks) do
    if not keep or keep[i] then
      local sl = r.slowest
      out[#out + 1] = string.format("step %d: slowest %s (compute %s), %s more than the others' median; %s",
        r.index, rank_name(sl), gpu_time.ms(sl.compute_ns), gpu_time.ms(r.margin_ns),
        (r.above_noise and "above" or "within") .. " the noise floor " .. gpu_time.ms(r.noise_ns))
      listed = listed + 1
    end
  end
  if keep then
    out[#out + 1] = string.format("… %d of the %d steps' lines shown: the largest margins above the noise floor " ..
      "(policy steps.text_rows; --all shows every one)", listed, #ranks)
  end
end

local function text(doc, limit)
  local out = {}
  out[#out + 1] = "steps: " .. doc.rule_text
  local multi = #doc.processes > 0
  out[#out + 1] = string.format("%s%5s  %-24s %12s %12s %12s %10s %12s %12s %10s %10s %10s %8s %8s  %s",
    multi and string.format("%-14s ", "rank/pid") or "", "#", "name", "start ms", "time ms", "dur ms", "gap ms",
    "gpu span ms", "compute ms", "comm ms", "copy ms", "idle ms", "kernels", "launches", "flags")
  local keep, skipped = shown(doc, limit), 0
  local function gap_line()
    if skipped > 0 then out[#out + 1] = string.format("%s  … %d step%s not shown", multi and string.rep(" ", 15) or "",
      skipped, skipped == 1 and "" or "s") end
    skipped = 0
  end
  for i, s in ipairs(doc.steps) do
    if keep and not keep[i] then
      skipped = skipped + 1
      goto continue
    end
    gap_line()
    local copy, idle = 0, 0
    for _, d in ipairs(s.devices) do copy, idle = copy + d.copy_ns, idle + d.idle_ns end
    local flags = {}
    if s.warmup then flags[#flags + 1] = "warm-up" end
    if s.outlier then flags[#flags + 1] = "OUTLIER" end
    if s.gpu_bound then flags[#flags + 1] = "gpu-bound" end
    local who = multi and string.format("%-14s ", rank_name(s)) or ""
    local name = #s.name > 24 and (s.name:sub(1, 23) .. "…") or s.name
    out[#out + 1] = string.format("%s%5d  %-24s %12s %12s %12s %10s %12s %12s %10s %10s %10s %8d %8d  %s", who,
      s.index, name, ms(s.start_ns), ms(s.time_ns), ms(s.duration_ns),
      math.type(s.gap_ns) == "integer" and ms(s.gap_ns) or "-", ms(s.gpu_span_ns), ms(s.compute_ns),
      ms(s.communication_ns), ms(copy), ms(idle), s.kernels, s.launches, table.concat(flags, ","))
    ::continue::
  end
  gap_line()
  local m = doc.summary
  out[#out + 1] = string.format("summary: %d steps (%d warm-up %s), median %s, p90 %s, max %s (step %s); " ..
    "%d outlier(s)%s", m.steps, m.warmup, m.warmup_included and "included: every step is warm-up" or "left out",
    gpu_time.ms(m.median_ns), gpu_time.ms(m.p90_ns), gpu_time.ms(m.max_ns),
    tostring(m.slowest) .. (multi and type(m.slowest_rank) == "string" and (" of " .. m.slowest_rank) or ""), #m.outliers,
    #m.outliers > 0 and (": " .. (limit and capped(m.outliers, math.max(1, limit // 3)) or
      table.concat(m.outliers, ", "))) or "") ..
    (m.gpu_bound > 0 and string.format("; %d of %d steps GPU-bound: their busiest GPU's work outlasts their CPU " ..
      "range (median %s), and their time is that work's", m.gpu_bound, m.counted, gpu_time.ms(m.median_duration_ns)) or "")
  local dr = m.drift
  if type(dr) == "table" and type(dr.direction) == "string" then
    local slower = dr.direction == "slower"
    local part = dr.parts[slower and 1 or #dr.parts]
    out[#out + 1] = string.format("drift: the steps get %s over the run: the last third's median %s against the " ..
      "first third's %s (%+.1f %%); the later step is the %s in %.0f %% of the pairs of a first-third and a " ..
      "last-third step; %s %s most (median %s to %s)", dr.direction, gpu_time.ms(dr.last_median_ns),
      gpu_time.ms(dr.first_median_ns), 100 * dr.share, dr.direction,
      100 * (slower and dr.later_slower or 1 - dr.later_slower), part.part, slower and "grew" or "shrank",
      gpu_time.ms(part.first_median_ns), gpu_time.ms(part.last_median_ns))
  end
  local bw = m.between
  if type(bw) == "table" then
    local names = {}
    for i, r in ipairs(bw.ranges) do
      names[i] = string.format("%s %s (%d)", r.name, gpu_time.ms(r.total_ns), r.count)
    end
    local after = multi and type(bw.longest_rank) == "string" and (bw.longest_rank .. " ") or ""
    out[#out + 1] = string.format("between steps: %.1f %% of the loop (%s of %s in %d gaps after the counted steps; " ..
      "median gap %s, longest %s after %sstep %d); the steps' GPU work ran on into them for %s: %.1f %% of the loop " ..
      "is outside both%s", 100 * bw.share, gpu_time.ms(bw.total_ns), gpu_time.ms(bw.loop_ns), bw.gaps,
      gpu_time.ms(bw.median_ns), gpu_time.ms(bw.max_ns), after, bw.longest_after, gpu_time.ms(bw.tail_ns),
      100 * bw.outside_share, bw.mostly_between and ": most of the loop, which the steps' times above leave out" or "")
    if #names > 0 or bw.launches > 0 then
      out[#out + 1] = string.format("in the gaps: NVTX ranges on the steps' thread: %s; GPU work launched: %d " ..
        "kernels, %d copies, %d memsets, busy %s", #names > 0 and table.concat(names, ", ") or "none", bw.kernels,
        bw.copies, bw.memsets, gpu_time.ms(bw.busy_ns))
    elseif bw.mostly_between then -- most of the loop, and nothing recorded says what it is
      out[#out + 1] = "in the gaps: no NVTX range of the steps' thread and no GPU work launched: nothing the " ..
        "capture recorded says what the loop does then (mark its other phases, e.g. its data loading, with NVTX " ..
        "ranges to see them)"
    end
  end
  rank_lines(out, doc.ranks, limit)
  if keep then
    local nk = 0
    for _ in pairs(keep) do nk = nk + 1 end
    out[#out + 1] = string.format("table: %d of %d steps (the first and last, the slowest and the outliers furthest " ..
      "from the median; policy steps.text_rows); --all lists every one, --json and --html have them all", nk, #doc.steps)
  end
  return table.concat(out, "\n") .. "\n"
end

function cmd.run(opts, ctx)
  local paths = opts.positional
  if #paths == 0 and mpi.local_pattern() == nil then
    errors.raise(errors.USAGE, "steps needs an INPUT (see --help)")
  end
  if opts.html == "" then errors.raise(errors.USAGE, "--html needs a FILE") end
  local tr = cmd.load(paths, opts, ctx)
  local doc = steps.document(tr, opts.marker, ctx.policy())
  if opts.html then
    views_steps.build({ document = doc, inputs = paths, out = opts.html }, ctx)
    log.info("wrote %s (%d steps)", opts.html, #doc.steps)
  end
  if opts.json then
    io.stdout:write(core.json.encode(doc), "\n")
  else
    io.stdout:write(text(doc, not opts.all and ctx.policy().steps.text_rows or nil))
  end
  return 0
end

return cmd
