-- nsys analyze's cuda-sync-api (nsys 2022.4 rules/cuda-sync-api.py), row for row: CUDA runtime calls
-- that block the host until the work issued before them is done. docs/RULES.md.
local kit = require("gpuflame.rulekit")

return {
  name = "cuda-sync-api",
  description = "CUDA Synchronization APIs: cudaDeviceSynchronize/cudaStreamSynchronize calls that block the host",
  nsys = true,
  options = { rows = 50 },
  run = function(model, opts)
    local skip = kit.need(model, { "runtime" })
    if skip then return { skipped = skip } end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local calls, sum = model:api_calls(win, { like = { "cudaDeviceSynchronize%", "cudaStreamSynchronize%" } },
      opts.rows)
    local rows = {}
    for i, c in ipairs(calls) do rows[i] = { c.dur, c.start, c.pid, c.tid, c.name } end
    local verdict
    if sum.count == 0 then
      verdict = "There were no problems detected related to synchronization APIs."
    else
      local first = calls[1]
      verdict = string.format("%s %s the host for %s in all%s%s", kit.plural(sum.count, "synchronization call"),
        kit.verb(sum.count, "blocks", "block"), kit.dur(sum.total),
        first and string.format(" (longest %s, %s at %d ns)", kit.dur(first.dur), first.display_name, first.start) or "",
        kit.cut(#rows, sum.count))
    end
    return {
      columns = { "Duration (ns)", "Start (ns)", "PID", "TID", "API Name" },
      rows = rows,
      total_rows = sum.count,
      verdict = verdict,
      severity = sum.count > 0 and "warning" or "ok",
      stake_ns = sum.total, -- the host blocked
      advice = "Avoid excessive synchronization; use asynchronous CUDA event calls, such as " ..
        "cudaStreamWaitEvent() and cudaEventSynchronize(), to prevent host synchronization.",
    }
  end,
}
