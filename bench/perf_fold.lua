-- gpuflame run bench/perf_fold.lua IN OUT: what the perf backend does after `perf script` (C folding,
-- core/stacks_perf.c, then the collapse table's folded writer). Compare bench/ref_perf_fold.lua.
local core = require("gpuflame.core")
local inp, out = ...
local S, st = core.stacks.from_perf_script(inp)
S:write_folded(out, { meta = false })
io.stderr:write(string.format("%d samples, %d unique stacks\n", st.samples, S:count()))
return 0
