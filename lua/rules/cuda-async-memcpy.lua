-- nsys analyze's cuda-async-memcpy (nsys 2022.4 rules/cuda-async-memcpy.py), row for row: copies
-- issued with cudaMemcpy*Async* from or to pageable memory, which the driver runs synchronously.
-- docs/RULES.md.
local kit = require("gpuflame.rulekit")

return kit.copy_rule({
  name = "cuda-async-memcpy",
  description = "CUDA Async Memcpy with Pageable Memory: asynchronous copies that run synchronously",
  nsys = true,
  options = { rows = 50 },
  kind = "memcpy",
  query = function()
    return { api = { like = { "cudaMemcpy%Async%" } }, pageable_only = true }
  end,
  clean = "There were no problems detected related to memcpy operations using pageable memory.",
  verdict = function(_, sum, shown)
    return string.format("%s %s pageable memory and %s synchronously: %s on the GPU, %s%s",
      kit.plural(sum.count, "asynchronous memcpy", "asynchronous memcpys"), kit.verb(sum.count, "uses", "use"),
      kit.verb(sum.count, "runs", "run"), kit.dur(sum.total), kit.bytes(sum.bytes), kit.cut(shown, sum.count))
  end,
  advice = "If applicable, use pinned memory (cudaMallocHost/cudaHostRegister) instead.",
})
