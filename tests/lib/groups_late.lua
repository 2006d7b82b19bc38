-- tests/cli/test_flamegraph_job.sh, test_threads_tsan.sh: the flamegraph's stacks job told to wait for the
-- trace's NVTX groups (flamegraph.start_stacks's groups), which come late: the caller spends DELAY seconds
-- before job:set_groups, so a thread that went on to the frames without them would draw the raw names. Writes
-- the job's stacks as folded text to OUT_JOB and the serial stacks of the same export, grouped first (what
-- trace.load gives), to OUT_SERIAL. gpuflame --policy P run groups_late.lua EXPORT DELAY OUT_JOB OUT_SERIAL
local core = require("gpuflame.core")
local flamegraph = require("gpuflame.flamegraph")
local nvtx_group = require("gpuflame.nvtx_group")
local export, delay, out_job, out_serial = ...
local policy = require("gpuflame.cli").script_context().policy()

local tr = flamegraph.load_trace({ export }, { group_later = true }, policy)
local job <close> = flamegraph.start_stacks(tr, { groups = true }, policy)
assert(job, "no job: policy limits.threads must be 2 or more")
local map = nvtx_group.map(tr, policy)
local t0 = select(2, core.sys.now())
while select(2, core.sys.now()) - t0 < tonumber(delay) do end -- the thread runs meanwhile
job:set_groups(map)
local stacks = job:finish(policy)
stacks:write_folded(out_job)

local serial = flamegraph.from_trace(flamegraph.load_trace({ export }, nil, policy), nil, policy)
serial:write_folded(out_serial)
print(stacks:count(), serial:count())
