-- bench/bench_import.sh: gpuflame's import alone (an nsys SQLite export or trace CSVs → the Trace model,
-- every event kept) and nothing after it; prints the event count. gpuflame run bench/import_only.lua INPUT...
local trace = require("gpuflame.trace")
local ctx = require("gpuflame.cli").script_context()
local tr = trace.load({ ... }, { max_events = 0 }, ctx.policy())
io.write(tr:count(), "\n")
