-- nsys analyze's cuda-sync-memcpy (nsys 2022.4 rules/cuda-sync-memcpy.py), row for row: memory
-- transfers made with a synchronous cudaMemcpy* call (not *Async*), except copies within one device and
-- host-to-device copies of 64,000 bytes or less. docs/RULES.md.
local kit = require("gpuflame.rulekit")

return {
  name = "cuda-sync-memcpy",
  description = "CUDA Synchronous Memcpy: transfers made with synchronous cudaMemcpy* calls that block the host",
  nsys = true,
  options = { rows = 50, small_h2d_bytes = 64000 },
  run = function(model, opts)
    local skip = kit.need(model, { "runtime", "memcpy" })
    if skip then return { skipped = skip } end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local copies, sum = model:copies(win, {
      kind = "memcpy", api = { like = { "cudaMemcpy%" }, not_like = { "%Async%" } },
      small_h2d_bytes = opts.small_h2d_bytes, skip_same_device = true, limit = opts.rows,
    })
    local rows = {}
    for i, c in ipairs(copies) do
      rows[i] = { c.dur, c.start, kit.mem_kind(c.src_kind), kit.mem_kind(c.dst_kind), c.bytes and c.bytes / 1e6,
        c.pid, c.device, c.context, c.stream, c.name }
    end
    local verdict
    if sum.count == 0 then
      verdict = "There were no problems detected related to synchronous memcpy operations."
    else
      local longest = copies[1] and (" (longest " .. kit.dur(copies[1].dur) .. ")") or ""
      verdict = string.format("%s %s the host: %s on the GPU, %s%s%s",
        kit.plural(sum.count, "synchronous memcpy", "synchronous memcpys"), kit.verb(sum.count, "blocks", "block"),
        kit.dur(sum.total), kit.bytes(sum.bytes), longest, kit.cut(#rows, sum.count))
    end
    return {
      columns = { "Duration (ns)", "Start (ns)", "Src Kind", "Dst Kind", { name = "Bytes (MB)", format = "%.3f" },
        "PID", "Device ID", "Context ID", "Stream ID", "API Name" },
      rows = rows,
      total_rows = sum.count,
      verdict = verdict,
      severity = sum.count > 0 and "warning" or "ok",
      advice = "Use cudaMemcpy*Async() APIs instead.",
    }
  end,
}
