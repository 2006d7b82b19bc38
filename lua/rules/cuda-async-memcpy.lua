-- nsys analyze's cuda-async-memcpy (nsys 2022.4 rules/cuda-async-memcpy.py), row for row: copies
-- issued with cudaMemcpy*Async* from or to pageable memory, which the driver runs synchronously.
-- docs/RULES.md.
local kit = require("gpuflame.rulekit")

return {
  name = "cuda-async-memcpy",
  description = "CUDA Async Memcpy with Pageable Memory: asynchronous copies that run synchronously",
  nsys = true,
  options = { rows = 50 },
  run = function(model, opts)
    local skip = kit.need(model, { "runtime", "memcpy" })
    if skip then return { skipped = skip } end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local copies, sum = model:copies(win, {
      kind = "memcpy", api = { like = { "cudaMemcpy%Async%" } }, pageable_only = true, limit = opts.rows,
    })
    local rows = {}
    for i, c in ipairs(copies) do
      rows[i] = { c.dur, c.start, kit.mem_kind(c.src_kind), kit.mem_kind(c.dst_kind), c.bytes and c.bytes / 1e6,
        c.pid, c.device, c.context, c.stream, c.name }
    end
    local verdict
    if sum.count == 0 then
      verdict = "There were no problems detected related to memcpy operations using pageable memory."
    else
      verdict = string.format("%s %s pageable memory and %s synchronously: %s on the GPU, %s%s",
        kit.plural(sum.count, "asynchronous memcpy", "asynchronous memcpys"), kit.verb(sum.count, "uses", "use"),
        kit.verb(sum.count, "runs", "run"), kit.dur(sum.total), kit.bytes(sum.bytes), kit.cut(#rows, sum.count))
    end
    return {
      columns = { "Duration (ns)", "Start (ns)", "Src Kind", "Dst Kind", { name = "Bytes (MB)", format = "%.3f" },
        "PID", "Device ID", "Context ID", "Stream ID", "API Name" },
      rows = rows,
      total_rows = sum.count,
      verdict = verdict,
      severity = sum.count > 0 and "warning" or "ok",
      advice = "If applicable, use pinned memory (cudaMallocHost/cudaHostRegister) instead.",
    }
  end,
}
