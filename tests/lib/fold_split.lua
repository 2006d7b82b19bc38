-- tests/cli/test_threads_tsan.sh: a fold of more stacks than one thread sorts (core/stacks_fold.c SORT_SPLIT_MIN):
-- 150,000 adds of 1-4 frames (76,040 stacks, many of them prefixes of others), folded at 1/2000 of the total
-- with THREADS (policy limits.threads), written as folded text to OUT. gpuflame run fold_split.lua THREADS OUT
local core = require("gpuflame.core")
local threads, out = ...
local s = core.stacks.new()
local x = 12345
for _ = 1, 150000 do
  x = (x * 1103515245 + 12345) % 2147483648
  local parts, k = {}, x
  for j = 1, 1 + x % 4 do
    parts[j] = "g" .. (k % 64)
    k = k // 64
  end
  s:add(table.concat(parts, ";"), 1 + x % 1000)
end
local folded, st = s:fold(s:total() // 2000, "[folded]", tonumber(threads))
folded:write_folded(out)
print(s:count(), folded:count(), st.nodes, st.weight)
