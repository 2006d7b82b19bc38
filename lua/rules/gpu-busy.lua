-- gpuflame's gpu-busy rule (docs/RULES.md, terms in docs/SEMANTICS.md): per device, the time breakdown of
-- its span (first op start → last op end) from merged intervals (all processes): compute, communication,
-- copy by direction, memset, the overlap of compute with copy or communication, idle. Busy is the union
-- of every op, so overlapping work counts once and busy never exceeds 100 %; the percentages are of a
-- stated denominator: the device's own span or the whole capture. A device whose kernels (compute and
-- communication) fill less than `low` % of it is a warning, however busy its copies keep it.
local kit = require("gpuflame.rulekit")
local gpu_time = require("gpuflame.gpu_time")

return {
  name = "gpu-busy",
  description = "GPU time per device: compute, communication, copies by direction, memset, overlap and idle " ..
    "from merged intervals (docs/SEMANTICS.md)",
  options = { rows = 50, denominator = "span", low = 50 }, -- denominator: "span" | "capture"; low: percent
  run = function(model, opts)
    local skip = kit.need(model, { "gpu" })
    if skip then return { skipped = skip } end
    if opts.denominator ~= "span" and opts.denominator ~= "capture" then
      error("denominator must be span or capture (got " .. tostring(opts.denominator) .. ")", 0)
    end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local devs, cap = kit.device_times(model, win)
    local rows, parts, worst, idle = {}, {}, nil, 0
    local what = opts.denominator == "span" and "device span" or "capture span"
    for i, d in ipairs(devs) do
      local den = opts.denominator == "span" and d.span or (cap.last - cap.first)
      local kpct = kit.pct(d.kernel_busy, den)
      if opts.rows < 0 or i <= opts.rows then
        rows[#rows + 1] = { d.device, d.device_name or false, d.ops, d.span, d.busy, d.compute, d.comm, d.copy,
          d.h2d, d.d2h, d.d2d, d.p2p, d.memset, d.overlap, d.idle, den, kit.pct(d.busy, den), kit.pct(d.compute, den),
          kit.pct(d.comm, den), kit.pct(d.copy, den), kit.pct(d.idle, den), kpct, what }
      end
      parts[#parts + 1] = string.format("device %d: %s", d.device, gpu_time.text(d))
      idle = idle + d.idle
      if not worst or kpct < worst then worst = kpct end
    end
    local verdict
    if #devs == 0 then
      verdict = "No GPU work."
    else
      verdict = "GPU time of each device's span (merged intervals; docs/SEMANTICS.md): " .. table.concat(parts, "; ")
      if opts.denominator == "capture" then
        verdict = verdict .. string.format("; percentages in the table of the capture span (%s)",
          kit.dur(cap.last - cap.first))
      end
    end
    local function pc(name) return { name = name, format = "%.1f" } end
    return {
      columns = { "Device ID", "Device", "Ops", "Span (ns)", "Busy (ns)", "Compute (ns)", "Communication (ns)",
        "Copy (ns)", "H2D (ns)", "D2H (ns)", "D2D (ns)", "P2P (ns)", "Memset (ns)", "Overlap (ns)", "Idle (ns)",
        "Denominator (ns)", pc("Busy (%)"), pc("Compute (%)"), pc("Communication (%)"), pc("Copy (%)"),
        pc("Idle (%)"), pc("Kernel Busy (%)"), "Denominator" },
      rows = rows,
      verdict = verdict,
      breakdown = gpu_time.document(devs, model.policy), -- the parts by name, per device (docs/SEMANTICS.md)
      severity = worst and worst < opts.low and "warning" or (#devs > 0 and "info" or "ok"),
      stake_ns = idle, -- the devices' idle time
      advice = worst and worst < opts.low and "Kernels fill little of the device's time: see which part fills " ..
        "the rest (copies: pin host memory, overlap copies with compute on other streams, keep data on the " ..
        "device; idle: the host does not feed the GPU)." or nil,
    }
  end,
}
