-- nsys analyze's cuda-sync-memset (nsys 2022.4 rules/cuda-sync-memset.py), row for row: synchronous
-- cudaMemset* calls (not *async*) on pinned host or managed (Unified) memory. docs/RULES.md.
local kit = require("gpuflame.rulekit")

return kit.copy_rule({
  name = "cuda-sync-memset",
  description = "CUDA Synchronous Memset: synchronous cudaMemset* calls on pinned host or managed memory",
  nsys = true,
  options = { rows = 50 },
  kind = "memset",
  query = function()
    return { api = { like = { "cudaMemset%" }, not_like = { "%async%" } }, mem_kinds = { 1, 4 } }
  end,
  clean = "There were no problems detected related to synchronization APIs.",
  verdict = function(sets, sum, shown)
    return string.format("%s on pinned or managed memory %s the host: %s on the GPU%s%s",
      kit.plural(sum.count, "synchronous memset"), kit.verb(sum.count, "blocks", "block"), kit.dur(sum.total),
      kit.longest(sets), kit.cut(shown, sum.count))
  end,
  advice = "Use cudaMemsetAsync() on a stream instead.",
})
