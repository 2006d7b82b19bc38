-- nsys analyze's cuda-sync-memset (nsys 2022.4 rules/cuda-sync-memset.py), row for row: synchronous
-- cudaMemset* calls (not *async*) on pinned host or managed (Unified) memory. docs/RULES.md.
local kit = require("gpuflame.rulekit")

return {
  name = "cuda-sync-memset",
  description = "CUDA Synchronous Memset: synchronous cudaMemset* calls on pinned host or managed memory",
  nsys = true,
  options = { rows = 50 },
  run = function(model, opts)
    local skip = kit.need(model, { "runtime", "memset" })
    if skip then return { skipped = skip } end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local sets, sum = model:copies(win, {
      kind = "memset", api = { like = { "cudaMemset%" }, not_like = { "%async%" } }, mem_kinds = { 1, 4 },
      limit = opts.rows,
    })
    local rows = {}
    for i, c in ipairs(sets) do
      rows[i] = { c.dur, c.start, kit.mem_kind(c.mem_kind), c.bytes and c.bytes / 1e6, c.pid, c.device, c.context,
        c.stream, c.name }
    end
    local verdict
    if sum.count == 0 then
      verdict = "There were no problems detected related to synchronization APIs."
    else
      local longest = sets[1] and (" (longest " .. kit.dur(sets[1].dur) .. ")") or ""
      verdict = string.format("%s on pinned or managed memory %s the host: %s on the GPU%s%s",
        kit.plural(sum.count, "synchronous memset"), kit.verb(sum.count, "blocks", "block"), kit.dur(sum.total),
        longest, kit.cut(#rows, sum.count))
    end
    return {
      columns = { "Duration (ns)", "Start (ns)", "Memory Kind", { name = "Bytes (MB)", format = "%.3f" }, "PID",
        "Device ID", "Context ID", "Stream ID", "API Name" },
      rows = rows,
      total_rows = sum.count,
      verdict = verdict,
      severity = sum.count > 0 and "warning" or "ok",
      advice = "Use cudaMemsetAsync() on a stream instead.",
    }
  end,
}
