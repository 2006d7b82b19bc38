-- nsys analyze's cuda-sync-memcpy (nsys 2022.4 rules/cuda-sync-memcpy.py), row for row: memory
-- transfers made with a synchronous cudaMemcpy* call (not *Async*), except copies within one device and
-- host-to-device copies of 64,000 bytes or less. docs/RULES.md.
local kit = require("gpuflame.rulekit")

return kit.copy_rule({
  name = "cuda-sync-memcpy",
  description = "CUDA Synchronous Memcpy: transfers made with synchronous cudaMemcpy* calls that block the host",
  nsys = true,
  options = { rows = 50, small_h2d_bytes = 64000 },
  kind = "memcpy",
  query = function(opts)
    return { api = { like = { "cudaMemcpy%" }, not_like = { "%Async%" } }, small_h2d_bytes = opts.small_h2d_bytes,
      skip_same_device = true }
  end,
  clean = "There were no problems detected related to synchronous memcpy operations.",
  verdict = function(copies, sum, shown)
    return string.format("%s %s the host: %s on the GPU, %s%s%s",
      kit.plural(sum.count, "synchronous memcpy", "synchronous memcpys"), kit.verb(sum.count, "blocks", "block"),
      kit.dur(sum.total), kit.bytes(sum.bytes), kit.longest(copies), kit.cut(shown, sum.count))
  end,
  advice = "Use cudaMemcpy*Async() APIs instead.",
})
