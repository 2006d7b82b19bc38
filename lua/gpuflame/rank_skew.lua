-- The numbers of `gpuflame run rank-skew` (lua/scripts/rank-skew.lua) and of the MCP tool rank_skew, computed
-- once here: per rank its GPU busy/idle, kernel and NCCL time, iterations and devices; the iterations'
-- slowest ranks, the stragglers and the verdict (the script's header says what each number means).
local core = require("gpuflame.core")
local trace = require("gpuflame.trace")
local gpu_time = require("gpuflame.gpu_time")

local M = {}

local function median(v)
  local c = {}
  for i, x in ipairs(v) do c[i] = x end
  table.sort(c)
  local n = #c
  if n == 0 then return 0 end
  if n % 2 == 1 then return c[(n + 1) // 2] end
  return (c[n // 2] + c[n // 2 + 1]) / 2
end

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

  -- iterations: the k-th iteration of every rank is the same step
  local niter = math.huge
  for _, r in ipairs(gpu_rows) do niter = math.min(niter, #r.iterations) end
  if niter == math.huge then niter = 0 end
  local iters, slow_count, dist = {}, {}, {}
  for k = 1, niter do
    local compute, durs = {}, {}
    local best, bestv = nil, -1
    for _, r in ipairs(gpu_rows) do
      local it = r.iterations[k]
      compute[#compute + 1] = it.compute
      durs[#durs + 1] = it.dur
      if it.compute > bestv then best, bestv = r, it.compute end
    end
    local med = median(compute)
    local d = bestv - med
    iters[k] = { index = k, name = gpu_rows[1].iterations[k].name, slowest = best.label, slowest_compute_ns = bestv,
      median_compute_ns = med, distance_ns = d, distance_share = med > 0 and d / med or 0, median_dur_ns = median(durs) }
    slow_count[best.label] = (slow_count[best.label] or 0) + 1
    dist[best.label] = dist[best.label] or {}
    table.insert(dist[best.label], med > 0 and d / med or 0)
  end

  local stragglers = {}
  if niter > 0 then
    for _, r in ipairs(gpu_rows) do
      local c = slow_count[r.label] or 0
      local share = median(dist[r.label] or {})
      if c * 2 >= niter and share > s.straggler_threshold then
        stragglers[#stragglers + 1] = { label = r.label, slowest_in = c, iterations = niter, median_distance_share = share }
      end
    end
  else
    local compute = {}
    for i, r in ipairs(gpu_rows) do compute[i] = r.kernel - r.nccl end
    local med = median(compute)
    for i, r in ipairs(gpu_rows) do
      local share = med > 0 and (compute[i] - med) / med or 0
      if share > s.straggler_threshold then
        stragglers[#stragglers + 1] = { label = r.label, compute_ns = compute[i], median_compute_ns = med,
          median_distance_share = share }
      end
    end
  end

  local function verdict()
    if #gpu_rows < 2 then return string.format("%d rank(s) with GPU work: nothing to compare", #gpu_rows) end
    if #stragglers == 0 then
      return string.format("no straggler: no rank is more than %.0f%% above the median", 100 * s.straggler_threshold)
    end
    local parts = {}
    for _, x in ipairs(stragglers) do
      if x.iterations then
        parts[#parts + 1] = string.format("%s (slowest in %d of %d iterations, median %.1f%% more compute than the " ..
          "median rank)", x.label, x.slowest_in, x.iterations, 100 * x.median_distance_share)
      else
        parts[#parts + 1] = string.format("%s (compute %s, %.1f%% above the median %s)", x.label,
          gpu_time.ms(x.compute_ns), 100 * x.median_distance_share, gpu_time.ms(math.floor(x.median_compute_ns)))
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
    local st = core.json.array({})
    for k, x in ipairs(stragglers) do st[k] = x end
    local it = core.json.array({})
    for k, x in ipairs(iters) do it[k] = x end
    local notes = core.json.array({})
    for k, n in ipairs(info.notes or {}) do notes[k] = n end
    return { ranks = out, stragglers = st, iterations = it, verdict = verdict(), threshold = s.straggler_threshold,
      clock_alignment = info.clock_alignment, notes = notes }
  end
  local doc = document()
  return { document = doc, gpu_rows = gpu_rows, by_label = by_label, iters = iters, niter = niter, info = info,
    verdict = doc.verdict }
end

return M
