-- nsys analyze's gpu-starv (nsys 2022.4 rules/gpu-starv.py with gpustats.py), row for row: gaps longer
-- than `gap` ms between the GPU work of a process on a device (kernels, memcpy, memset and the CUDA
-- profiling overhead nsys counts as busy). docs/RULES.md.
local kit = require("gpuflame.rulekit")

return {
  name = "gpu-starv",
  description = "GPU Starvation: time ranges where a GPU is idle for longer than a threshold",
  nsys = true,
  options = { rows = 50, gap = 500 }, -- gap: milliseconds
  -- the gaps on a second thread while the other rules run (gpuflame.findings analyze, the findings command)
  prefetch = function(model, opts)
    if kit.need(model, { "gpu" }) then return end
    local win, why = model:window(opts)
    if not why then model:prefetch_gaps(win, opts.gap * 1000000, opts.rows) end
  end,
  run = function(model, opts)
    local skip = kit.need(model, { "gpu" })
    if skip then return { skipped = skip } end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local gaps = model:gaps(win, opts.gap * 1000000, opts.rows)
    local rows, total = {}, 0
    for i, g in ipairs(gaps) do
      rows[i] = { i, g.dur, g.start, g.pid, g.device, g.context }
      total = total + g.dur
    end
    local verdict
    if #gaps == 0 then
      verdict = string.format("There were no problems detected with GPU utilization. GPU was not found to be " ..
        "idle for more than %dms.%s", opts.gap, kit.other_apis_note(model))
    else
      verdict = string.format("%s over %d ms where a GPU is idle, %s in all (longest %s at %d ns on device %d)%s",
        kit.plural(#gaps, "gap"), opts.gap, kit.dur(total), kit.dur(gaps[1].dur), gaps[1].start, gaps[1].device,
        kit.other_apis_note(model))
    end
    return {
      columns = { "Row#", "Duration (ns)", "Start (ns)", "PID", "Device ID", "Context ID" },
      rows = rows,
      verdict = verdict,
      breakdown = kit.breakdown(model, win), -- the devices' busy and idle time by its parts (docs/SEMANTICS.md)
      severity = #gaps > 0 and "warning" or "ok",
      stake_ns = total, -- the GPU idle in the gaps shown
      advice = "Use CPU sampling, OS runtime backtraces or NVTX annotations to see what the CPU does in these gaps.",
    }
  end,
}
