-- gpuflame's nccl-wait rule (docs/RULES.md): time in NCCL kernels per process and device, and their
-- share of that process's GPU busy time there (merged intervals). Skipped when there are none.
local kit = require("gpuflame.rulekit")

return {
  name = "nccl-wait",
  description = "NCCL time per process and device: communication kernels and their share of GPU busy time",
  options = { rows = 50, names = { "%nccl%" }, high_share = 30 }, -- names: LIKE patterns; high_share: percent
  run = function(model, opts)
    local skip = kit.need(model, { "kernel" })
    if skip then return { skipped = skip } end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local groups = model:kernel_match(win, { like = opts.names })
    if #groups == 0 then
      return { skipped = string.format("%s has no NCCL kernels (kernel names LIKE %s).", model.source,
        table.concat(opts.names, ", ")) }
    end
    local rows, worst, total = {}, nil, 0
    for i, g in ipairs(groups) do
      local share = kit.pct(g.busy, g.device_busy)
      if opts.rows < 0 or i <= opts.rows then
        rows[#rows + 1] = { g.pid, g.device, g.kernels, g.total, g.busy, g.device_busy, share, g.max }
      end
      total = total + g.total
      if not worst or share > worst.share then worst = { share = share, g = g } end
    end
    return {
      columns = { "PID", "Device ID", "NCCL Kernels", "NCCL Time (ns)", "NCCL Busy (ns)", "Device Busy (ns)",
        { name = "NCCL Share (%)", format = "%.1f" }, "Longest (ns)" },
      rows = rows,
      verdict = string.format("NCCL kernels take %s in all; the most: %.1f%% of GPU busy time (process %d, " ..
        "device %d, %s)", kit.dur(total), worst.share, worst.g.pid, worst.g.device, kit.dur(worst.g.busy)),
      breakdown = kit.breakdown(model, win), -- the devices' busy and idle time by its parts (docs/SEMANTICS.md)
      severity = worst.share >= opts.high_share and "warning" or "info",
      stake_ns = total, -- the NCCL kernels' time
      advice = "A high share means ranks wait in collectives: look for load imbalance or overlap " ..
        "communication with compute.",
    }
  end,
}
