-- nsys analyze's gpu-low-util (nsys 2022.4 rules/gpu-low-util.py with gpustats.py), row for row: the
-- span of each process's GPU work on a device cut into `chunks` equal chunks; runs of chunks whose
-- in-use time is below `threshold` percent, coalesced with the weighted average. In-use time is summed
-- over operations, so concurrent work can count more than 100 % (gpu-busy merges instead). docs/RULES.md.
local kit = require("gpuflame.rulekit")

return {
  name = "gpu-low-util",
  description = "GPU Low Utilization: time regions where GPU in-use time is below a threshold",
  nsys = true,
  options = { rows = 50, threshold = 50, chunks = 30 }, -- threshold: percent
  run = function(model, opts)
    local skip = kit.need(model, { "gpu" })
    if skip then return { skipped = skip } end
    if opts.chunks < 1 or opts.chunks > 1000 then
      error(string.format("chunks must be between 1 and 1000 (got %d)", opts.chunks), 0)
    end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local low = model:low_util(win, opts.chunks, opts.threshold, opts.rows)
    local rows, total, idle = {}, 0, 0
    for i, r in ipairs(low) do
      rows[i] = { i, r.in_use, r.dur, r.start, r.pid, r.device, r.context }
      total = total + r.dur
      idle = idle + math.floor(r.dur * (100 - r.in_use) / 100 + 0.5)
    end
    local verdict
    if #low == 0 then
      verdict = string.format("There were no problems detected with GPU utilization. No time regions have an " ..
        "average GPU utilization below %d%%.%s", opts.threshold, kit.other_apis_note(model))
    else
      verdict = string.format("%s below %d%% GPU in-use time, %s in all (lowest %s%% for %s at %d ns on device %d)%s",
        kit.plural(#low, "region"), opts.threshold, kit.dur(total), low[1].in_use_text, kit.dur(low[1].dur),
        low[1].start, low[1].device, kit.other_apis_note(model))
    end
    return {
      columns = { "Row#", { name = "In-Use (%)", format = "%.1f" }, "Duration (ns)", "Start (ns)", "PID", "Device ID",
        "Context ID" },
      rows = rows,
      verdict = verdict,
      breakdown = kit.breakdown(model, win), -- the devices' busy and idle time by its parts (docs/SEMANTICS.md)
      severity = #low > 0 and "warning" or "ok",
      stake_ns = idle, -- the GPU's time not in use in the regions shown
      advice = "Use CPU sampling, OS runtime backtraces or NVTX annotations to see why the GPU is not fed.",
    }
  end,
}
