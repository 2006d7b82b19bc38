-- gpuflame's launch-overhead rule (docs/RULES.md, terms in docs/SEMANTICS.md): per kernel name, the launch
-- call's time and the queue delay (kernel start - launch call end), and a diagnosis from the GPU's side:
--   launch-bound  the streams idle between kernels while the CPU still issues launches: short queue delay
--                 (median below queue_factor x the mean launch call), the streams wait on launches for at
--                 least wait_share % of their time (waits + kernels), and those waits are about as long as
--                 the launch calls (mean wait at most gap_factor x the mean launch call);
--   queue-bound   launches wait behind earlier work: long queue delay (median at least queue_factor x the
--                 mean launch call) on devices busy for at least `busy` % of their span;
--   none          neither.
-- With fewer than min_kernels launched kernels (a first launch's lazy loading, a toy program) the
-- diagnosis is none. Advice is given for the diagnosed case only. A "storm" (a name with at least min_kernels kernels whose
-- launch calls take longer in all than the kernels) is still marked per name, but decides nothing.
local kit = require("gpuflame.rulekit")
local gpu_time = require("gpuflame.gpu_time")

local ADVICE = {
  ["launch-bound"] = "The GPU waits for the CPU to launch kernels: fuse small kernels, batch work per launch, " ..
    "or capture the sequence in a CUDA graph.",
  ["queue-bound"] = "The GPU is the bottleneck: launches wait behind earlier work, so launch overhead is not " ..
    "the problem; make the device's work faster or smaller (the longest kernels, copies that could overlap).",
}

-- the numbers that decide, and the diagnosis
local function diagnose(sum, busy_pct, opts)
  if sum.launched < opts.min_kernels then return "none", nil end
  local mean_launch = sum.api_total // sum.launched
  local mean_wait = sum.waits > 0 and sum.wait_total // sum.waits or 0
  local wait_share = kit.pct(sum.wait_total, sum.wait_total + sum.kernel_total)
  local q = { mean_launch = mean_launch, median_delay = sum.delay_median, mean_wait = mean_wait,
    wait_share = wait_share, busy = busy_pct }
  if sum.delay_median >= opts.queue_factor * mean_launch and busy_pct >= opts.busy then
    return "queue-bound", q
  end
  if sum.delay_median < opts.queue_factor * mean_launch and wait_share >= opts.wait_share and sum.waits > 0 and
    mean_wait <= opts.gap_factor * mean_launch then
    return "launch-bound", q
  end
  return "none", q
end

-- the deciding numbers; the devices' busy time named by its parts (gpu_time.short), not a bare busy %
local function numbers(q, devs)
  local busy = {}
  for i, d in ipairs(devs) do busy[i] = gpu_time.short(gpu_time.json(d)) end
  return string.format("median queue delay %s, mean launch call %s, streams waiting on launches %.1f%% of " ..
    "their time (mean wait %s), %s", kit.dur(q.median_delay), kit.dur(q.mean_launch),
    q.wait_share, kit.dur(q.mean_wait), table.concat(busy, "; "))
end

return {
  name = "launch-overhead",
  description = "Launch-bound or queue-bound: launch call time, queue delay and stream waits (docs/SEMANTICS.md)",
  options = { rows = 20, min_kernels = 100, queue_factor = 10, busy = 50, wait_share = 20, gap_factor = 4 },
  -- model:launches holds the scratch gate (docs/RULES.md): on pages this rule runs after the others
  scratch_gate = true,
  -- the launches on a second thread while the other rules run (gpuflame.findings analyze, the findings command)
  prefetch = function(model, opts)
    if kit.need(model, { "kernel" }) then return end
    local win, why = model:window(opts)
    if not why then model:prefetch_launches(win, opts.min_kernels) end
  end,
  run = function(model, opts)
    local skip = kit.need(model, { "kernel" })
    if skip then return { skipped = skip } end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local names, sum = model:launches(win, opts.min_kernels, opts.rows)
    local rows = {}
    for i, r in ipairs(names) do
      rows[i] = { r.kernels, r.launched, r.api_total, r.launched > 0 and r.api_total // r.launched or false,
        r.kernel_total, r.kernel_total // r.kernels, r.launched > 0 and r.delay_total // r.launched or false,
        r.launched > 0 and r.delay_max or false, r.tiny, r.storm and "storm" or "", r.name }
    end
    local verdict, severity
    local diagnosis, q, devs, idle = "none", nil, nil, nil
    if sum.kernels == 0 then
      verdict, severity = "No kernels.", "ok"
    elseif sum.launched == 0 then
      verdict, severity = string.format("%s, none with its launch call in the trace (no CUDA API trace?)",
        kit.plural(sum.kernels, "kernel")), "info"
    else
      local busy, span = 0, 0
      devs = kit.device_times(model, win)
      for _, d in ipairs(devs) do
        busy, span = busy + d.busy, span + d.span
      end
      idle = span - busy
      diagnosis, q = diagnose(sum, kit.pct(busy, span), opts)
      local head = {
        ["launch-bound"] = "Launch-bound: the GPU idles between kernels while the CPU issues launches",
        ["queue-bound"] = "Queue-bound: launches wait behind earlier work on a busy GPU",
        none = "Neither launch-bound nor queue-bound",
      }
      if q then
        verdict = string.format("%s (%s; %s launched by calls of %s in all, kernels %s)", head[diagnosis],
          numbers(q, devs), kit.plural(sum.launched, "kernel"), kit.dur(sum.api_total), kit.dur(sum.kernel_total))
      else
        verdict = string.format("%s: too few launched kernels to judge (%d, fewer than min_kernels %d)",
          head.none, sum.launched, opts.min_kernels)
      end
      severity = diagnosis == "launch-bound" and "warning" or "info"
    end
    return {
      columns = { "Kernels", "Launched", "Launch Total (ns)", "Launch Mean (ns)", "Kernel Total (ns)",
        "Kernel Mean (ns)", "Queue Mean (ns)", "Queue Max (ns)", "Shorter Than Launch", "Storm", "Name" },
      rows = rows,
      total_rows = sum.names,
      verdict = verdict,
      severity = severity,
      stake_ns = idle, -- the devices' idle time the launches leave
      diagnosis = diagnosis,
      decided_by = q and { median_queue_delay_ns = q.median_delay, mean_launch_ns = q.mean_launch,
        mean_wait_ns = q.mean_wait, wait_share_pct = q.wait_share, busy_pct = q.busy } or nil,
      advice = ADVICE[diagnosis],
      breakdown = devs and gpu_time.document(devs, model.policy) or nil, -- the devices' time by its parts
    }
  end,
}
