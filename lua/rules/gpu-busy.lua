-- gpuflame's gpu-busy rule (docs/RULES.md): per device, the union of its kernels, memcpys and memsets
-- (all processes) — overlapping work counts once, so busy never exceeds 100 % — over a stated
-- denominator: the device's own span (first op start → last op end) or the whole capture.
local kit = require("gpuflame.rulekit")

return {
  name = "gpu-busy",
  description = "GPU busy time per device from merged kernel+memcpy+memset intervals (never above 100 %)",
  options = { rows = 50, denominator = "span", low = 50 }, -- denominator: "span" | "capture"; low: percent
  run = function(model, opts)
    local skip = kit.need(model, { "gpu" })
    if skip then return { skipped = skip } end
    if opts.denominator ~= "span" and opts.denominator ~= "capture" then
      error("denominator must be span or capture (got " .. tostring(opts.denominator) .. ")", 0)
    end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local devs, cap = model:busy(win)
    local rows, parts, worst = {}, {}, nil
    local what = opts.denominator == "span" and "device span" or "capture span"
    for i, d in ipairs(devs) do
      local den = opts.denominator == "span" and (d.last - d.first) or (cap.last - cap.first)
      local pct = kit.pct(d.busy, den)
      if opts.rows < 0 or i <= opts.rows then
        rows[#rows + 1] = { d.device, d.device_name or false, d.ops, d.busy, den - d.busy, den, pct,
          kit.pct(d.kernel_busy, den), what }
      end
      parts[#parts + 1] = string.format("device %d %.1f%%", d.device, pct)
      if not worst or pct < worst then worst = pct end
    end
    local verdict
    if #devs == 0 then
      verdict = "No GPU work."
    else
      verdict = string.format("GPU busy (merged kernels, memcpys, memsets) of the %s: %s", opts.denominator == "span"
        and "device's span, first op start to last op end" or string.format("capture span (%s)",
          kit.dur(cap.last - cap.first)), table.concat(parts, ", "))
    end
    return {
      columns = { "Device ID", "Device", "Ops", "Busy (ns)", "Idle (ns)", "Denominator (ns)",
        { name = "Busy (%)", format = "%.1f" }, { name = "Kernel Busy (%)", format = "%.1f" }, "Denominator" },
      rows = rows,
      verdict = verdict,
      severity = worst and worst < opts.low and "warning" or (#devs > 0 and "info" or "ok"),
    }
  end,
}
