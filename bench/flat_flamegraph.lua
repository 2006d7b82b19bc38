-- The flat GPU flamegraph page as gpuflame drew it before the hierarchical one (issue 25): per-kernel
-- totals by SQL (flamegraph.from_sqlite) → the page. bench/bench_flamegraph_hier.sh's reference.
-- usage: gpuflame run bench/flat_flamegraph.lua EXPORT.sqlite OUT.html
local export, out = ...
local fg = require("gpuflame.flamegraph")
local policy = require("gpuflame.cli").script_context().policy()
local stacks = fg.from_sqlite(export, nil, policy)
fg.render(stacks, out, fg.page_options({ subtitle = "flat" }, policy))
return 0
