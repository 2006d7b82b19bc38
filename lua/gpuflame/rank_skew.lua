-- The numbers of `gpuflame run rank-skew` (lua/scripts/rank-skew.lua) and of the MCP tool rank_skew, computed
-- once here: per rank its GPU busy/idle, kernel and NCCL time, iterations and devices; the iterations'
-- slowest ranks, the stragglers (gpuflame.stragglers' noise floor), the largest gap and the verdict (the
-- script's header says what each number means).
local core = require("gpuflame.core")
local trace = require("gpuflame.trace")
local gpu_time = require("gpuflame.gpu_time")
local st = require("gpuflame.stragglers")

local M = {}

-- analyze(inputs, opts, pol) → r: {document = the --json document, gpu_rows = the ranks with GPU work,
-- by_label = rank label → its devices' breakdowns, iters, niter, info = {clock_alignment, notes}, verdict}.
-- opts: allow_unrelated. Under MPI (gpuflame-mpi) each rank computes its reports' statistics and rank 0
-- alone gets the result (trace.rank_stats).
function M.analyze(inputs, opts, pol)
  local s = pol.ranks
  local rows, info = trace.rank_stats(inputs, { allow_unrelated = opts.allow_unrelated }, pol)
  local by_label = {} -- rank label → its devices' breakdowns
  for _, r in ipairs(rows) do by_label[r.label] = r.devices end
  local gpu_rows = {}
  for _, r in ipairs(rows) do
    if r.kernels > 0 or r.busy > 0 then gpu_rows[#gpu_rows + 1] = r end
  end

  local median = st.median

  -- iterations: the k-th iteration of every rank is the same step; its slowest rank lags the median of the
  -- others, above the noise floor or not (gpuflame.stragglers, docs/SEMANTICS.md)
  local niter = math.huge
  for _, r in ipairs(gpu_rows) do niter = math.min(niter, #r.iterations) end
  if niter == math.huge then niter = 0 end
  local iters, slow_count, dist, lags = {}, {}, {}, {}
  local gap -- the largest lag seen: {label=, x=, iteration=}
  for k = 1, niter do
    local compute, durs = {}, {}
    local best = 1
    for i, r in ipairs(gpu_rows) do
      local it = r.iterations[k]
      compute[i] = it.compute
      durs[i] = it.dur
      if it.compute > compute[best] then best = i end
    end
    local ref = median(durs)
    local x = st.lag(compute, best, ref, s)
    local label = gpu_rows[best].label
    iters[k] = { index = k, name = gpu_rows[1].iterations[k].name, slowest = label, slowest_compute_ns = x.value,
      median_compute_ns = x.median, distance_ns = x.lag, distance_share = x.share, median_dur_ns = ref,
      above_noise = x.above, noise_floor_ns = math.floor(x.floor) }
    if x.above then
      slow_count[label] = (slow_count[label] or 0) + 1
      dist[label] = dist[label] or {}
      lags[label] = lags[label] or {}
      table.insert(dist[label], x.share)
      table.insert(lags[label], x.lag)
    end
    if not gap or x.lag > gap.x.lag then gap = { label = label, x = x, iteration = k } end
  end

  local stragglers = {}
  if niter > 0 then
    for _, r in ipairs(gpu_rows) do
      local c = slow_count[r.label] or 0
      if c > 0 and c * 2 >= niter then
        stragglers[#stragglers + 1] = { label = r.label, slowest_in = c, iterations = niter,
          median_distance_share = median(dist[r.label]), median_lag_ns = math.floor(median(lags[r.label])) }
      end
    end
  else
    -- without iterations: each rank's compute time against the other ranks', the reference being the job's span
    local compute, first, last = {}, math.huge, -math.huge
    for i, r in ipairs(gpu_rows) do
      compute[i] = r.kernel - r.nccl
      if r.kernels > 0 or r.busy > 0 then first, last = math.min(first, r.first), math.max(last, r.last) end
    end
    local span = last > first and last - first or 0
    for i, r in ipairs(gpu_rows) do
      local x = st.lag(compute, i, span, s)
      if x.above then
        stragglers[#stragglers + 1] = { label = r.label, compute_ns = x.value, median_compute_ns = x.median,
          median_distance_share = x.share, lag_ns = x.lag }
      end
      if not gap or x.lag > gap.x.lag then gap = { label = r.label, x = x, span = span } end
    end
  end

  -- the largest gap in words, and why it is not a straggler (docs/SEMANTICS.md)
  local function gap_text()
    local x = gap.x
    local what
    if gap.iteration then
      local it = iters[gap.iteration]
      what = string.format("the largest gap is %s in iteration %d (%s): %s more compute than the median of the " ..
        "other ranks %s (%+.1f%%)", gap.label, gap.iteration, it.name, gpu_time.ms(math.floor(x.lag)),
        gpu_time.ms(math.floor(x.median)), 100 * x.share)
    else
      what = string.format("the largest gap is %s: compute %s, %s above the median of the other ranks %s (%+.1f%%)",
        gap.label, gpu_time.ms(x.value), gpu_time.ms(math.floor(x.lag)), gpu_time.ms(math.floor(x.median)),
        100 * x.share)
    end
    local ref_what = gap.iteration and "the iteration's median duration" or
      ("the job's GPU span " .. gpu_time.ms(gap.span or 0))
    if not x.above then
      return what .. ", within noise: not above " .. st.floor_text(x, ref_what, s, gpu_time.ms)
    end
    return string.format("%s, above the noise floor, but %s is the slowest above it in only %d of %d iterations " ..
      "(a straggler is, in at least half)", what, gap.label, slow_count[gap.label] or 0, niter)
  end

  local function verdict()
    if #gpu_rows < 2 then return string.format("%d rank(s) with GPU work: nothing to compare", #gpu_rows) end
    if #stragglers == 0 then return "no straggler: " .. gap_text() end
    local parts = {}
    for _, x in ipairs(stragglers) do
      if x.iterations then
        parts[#parts + 1] = string.format("%s (slowest in %d of %d iterations, median %.1f%% more compute than the " ..
          "median of the other ranks, above the noise floor)", x.label, x.slowest_in, x.iterations,
          100 * x.median_distance_share)
      else
        parts[#parts + 1] = string.format("%s (compute %s, %.1f%% above the median of the other ranks %s, above the " ..
          "noise floor)", x.label, gpu_time.ms(x.compute_ns), 100 * x.median_distance_share,
          gpu_time.ms(math.floor(x.median_compute_ns)))
      end
    end
    return "straggler" .. (#parts > 1 and "s: " or ": ") .. table.concat(parts, "; ")
  end

  -- the --json document
  local function document()
    local out = core.json.array({})
    for _, r in ipairs(gpu_rows) do
      local its = core.json.array({})
      for k, it in ipairs(r.iterations) do
        its[k] = { name = it.name, start_ns = it.start, dur_ns = it.dur, compute_ns = it.compute, nccl_ns = it.nccl }
      end
      local devs = core.json.array({})
      for k, d in ipairs(by_label[r.label] or {}) do devs[k] = gpu_time.json(d) end
      out[#out + 1] = { label = r.label, busy_ns = r.busy, idle_ns = r.idle, kernel_ns = r.kernel, nccl_ns = r.nccl,
        kernels = r.kernels, iterations = its, devices = devs }
    end
    local sl = core.json.array({})
    for k, x in ipairs(stragglers) do sl[k] = x end
    local it = core.json.array({})
    for k, x in ipairs(iters) do it[k] = x end
    local notes = core.json.array({})
    for k, n in ipairs(info.notes or {}) do notes[k] = n end
    local noise = { noise_floor_ns = s.noise_floor_ns, noise_floor_share = s.noise_floor_share,
      straggler_mad_k = s.straggler_mad_k, straggler_threshold = s.straggler_threshold }
    local largest = gap and { label = gap.label, lag_ns = math.floor(gap.x.lag), floor_ns = math.floor(gap.x.floor),
      floor_part = gap.x.why, above_noise = gap.x.above, iteration = gap.iteration } or nil
    return { ranks = out, stragglers = sl, iterations = it, verdict = verdict(), threshold = s.straggler_threshold,
      noise = noise, largest_gap = largest, clock_alignment = info.clock_alignment, notes = notes }
  end
  local doc = document()
  return { document = doc, gpu_rows = gpu_rows, by_label = by_label, iters = iters, niter = niter, info = info,
    verdict = doc.verdict }
end

return M
