-- per-rank GPU busy/idle, kernel and NCCL time, iteration times and stragglers
-- (gpuflame run rank-skew INPUTS... [--json] [--html FILE] [--allow-unrelated]: --html also writes a page with a
-- per-rank bar chart; one capture given twice counts once, captures that cannot be one job are refused with
-- exit 6 unless --allow-unrelated: gpuflame.related)
-- INPUTS: one SQLite export / .nsys-rep / gpuflame model file per rank (files, a directory, a glob, or the
-- global --local PATTERN), or one export holding several processes. Under MPI (bin/gpuflame-mpi, docs/MPI.md)
-- the reports are split across the MPI ranks and only per-rank statistics reach rank 0.
-- A rank is a (report, process) pair (labels: policy ranks.label_env). Heavy loops run in C
-- (tr:rank_stats); this script only ranks the numbers and writes the verdict.
--   busy_ns    union of the rank's GPU work intervals (kernels, memcpy, memset)
--   idle_ns    (last GPU op end - first GPU op start) - busy_ns
--   kernel_ns  sum of kernel durations; nccl_ns: of kernels named with a policy ranks.nccl_prefixes prefix
--   iterations NVTX ranges named with a ranks.iteration_prefixes prefix (outermost), in order: per
--              iteration its duration and the rank's compute (non-NCCL kernel) time inside it
-- The slowest rank of an iteration is the one with the most compute time in it (the others wait for it in
-- NCCL); its lag is its compute minus the median of the other ranks', and counts only above the noise floor
-- (gpuflame.stragglers: policy ranks.noise_floor_ns, noise_floor_share of the iteration's median duration,
-- straggler_mad_k × the others' MAD, straggler_threshold × their median). A rank is a straggler when it is the
-- slowest above the noise floor in at least half of the iterations; without iterations, when its compute time
-- (kernel_ns - nccl_ns) lags the others' median above the floor (the share then of the job's GPU span).
-- Otherwise the verdict is "no straggler" with the largest gap and why it is not one (docs/SEMANTICS.md).
--   devices    per device of the rank, its time breakdown (docs/SEMANTICS.md: compute, communication,
--              copy by direction, memset, overlap, idle, in ns; communication = policy gpu_time.communication)
-- Times print in ms everywhere in the text output (gpuflame.gpu_time.ms); JSON carries integer ns.
local core = require("gpuflame.core")
local trace = require("gpuflame.trace")
local ctx = require("gpuflame.cli").script_context()

local inputs, json, html, allow_unrelated = {}, false, nil, false
local args = { ... }
local ai = 1
while ai <= #args do
  local a = args[ai]
  if a == "--json" then json = true
  elseif a == "--html" then html = args[ai + 1]; ai = ai + 1
  elseif a == "--allow-unrelated" then allow_unrelated = true
  else inputs[#inputs + 1] = a end
  ai = ai + 1
end
if (#inputs == 0 and not require("gpuflame.mpi").local_pattern()) or html == "" or (args[#args] == "--html") then
  io.stderr:write("usage: gpuflame run rank-skew INPUT... [--json] [--html FILE] [--allow-unrelated]\n")
  return 2
end
local p = ctx.policy()
local s = p.ranks

-- under MPI (gpuflame-mpi) each rank computes its reports' statistics and rank 0 alone goes on from here
local rows, info = trace.rank_stats(inputs, { allow_unrelated = allow_unrelated }, p)
local gpu_time = require("gpuflame.gpu_time")
local by_label = {} -- rank label → its devices' breakdowns
for _, r in ipairs(rows) do by_label[r.label] = r.devices end
local gpu_rows = {}
for _, r in ipairs(rows) do
  if r.kernels > 0 or r.busy > 0 then gpu_rows[#gpu_rows + 1] = r end
end

local st = require("gpuflame.stragglers")
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

if html then
  require("gpuflame.views.rank_skew").build({ document = document(), inputs = inputs, out = html }, ctx)
  io.stderr:write("gpuflame: wrote ", html, "\n")
end
if json then
  io.stdout:write(core.json.encode(document()), "\n")
  return 0
end

local function ms(ns) return ns / 1e6 end
if info.clock_alignment then io.stdout:write(info.clock_alignment, "\n") end
for _, n in ipairs(info.notes or {}) do io.stdout:write("note: ", n, "\n") end
if info.clock_alignment or info.notes then io.stdout:write("\n") end
io.stdout:write(string.format("%-28s %11s %11s %11s %11s %8s\n", "rank", "busy (ms)", "idle (ms)", "kernel (ms)",
  "nccl (ms)", "kernels"))
for _, r in ipairs(gpu_rows) do
  io.stdout:write(string.format("%-28s %11.3f %11.3f %11.3f %11.3f %8d\n", r.label, ms(r.busy), ms(r.idle),
    ms(r.kernel), ms(r.nccl), r.kernels))
end
io.stdout:write("\nper rank and device (docs/SEMANTICS.md)\n")
for _, r in ipairs(gpu_rows) do
  for _, d in ipairs(by_label[r.label] or {}) do
    io.stdout:write(string.format("%-28s device %d: %s\n", r.label, d.device, gpu_time.text(d)))
  end
end
if niter > 0 then
  io.stdout:write(string.format("\n%-5s %-16s %13s %-28s %15s %9s\n", "iter", "name", "median (ms)", "slowest rank",
    "compute (ms)", "vs median"))
  for _, x in ipairs(iters) do
    io.stdout:write(string.format("%-5d %-16s %13.3f %-28s %15.3f %+8.1f%%\n", x.index, x.name:sub(1, 16),
      ms(x.median_dur_ns), x.slowest, ms(x.slowest_compute_ns), 100 * x.distance_share))
  end
end
io.stdout:write("\n", verdict(), "\n")
return 0
