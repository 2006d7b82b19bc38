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
-- The straggler of an iteration is the rank with the most compute time in it (the others wait for it in
-- NCCL); a rank is named a straggler when it is the slowest in at least half of the iterations and its
-- median distance from the median rank exceeds ranks.straggler_threshold; without iterations, when its
-- compute time (kernel_ns - nccl_ns) exceeds the median by that share.
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

local function median(v)
  local c = {}
  for i, x in ipairs(v) do c[i] = x end
  table.sort(c)
  local n = #c
  if n == 0 then return 0 end
  if n % 2 == 1 then return c[(n + 1) // 2] end
  return (c[n // 2] + c[n // 2 + 1]) / 2
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
