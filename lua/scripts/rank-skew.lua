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
local gpu_time = require("gpuflame.gpu_time")
local rs = require("gpuflame.rank_skew").analyze(inputs, { allow_unrelated = allow_unrelated }, p)
local gpu_rows, by_label, iters, niter, info = rs.gpu_rows, rs.by_label, rs.iters, rs.niter, rs.info
local function document() return rs.document end
local function verdict() return rs.verdict end

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
