-- Runs a job under `nsys launch` with collection off, as a live session whose windows `capture --session`
-- captures while the job keeps running (docs/LIVE.md).
local errors = require("gpuflame.errors")
local live = require("gpuflame.live")

local cmd = {}

cmd.spec = {
  usage = "launch [--session NAME] [--service NAME] [--nsys PATH] [--stacks] -- CMD...",
  summary = "run a job under nsys with collection off, ready for capture windows (`capture --session`)",
  description = "Runs CMD under `nsys launch` (trace flags from policy capture.trace, live.launch_args) and\n" ..
    "registers the session in the registry (policy live.registry_dir; `gpuflame sessions` lists it).\n" ..
    "Stays in the foreground as the job's process: the job's output passes through unchanged, SIGINT and\n" ..
    "SIGTERM are passed on to it, and gpuflame exits with its exit status. When the job ends, nothing of\n" ..
    "nsys is left and the registry entry goes.\n" ..
    "Exit codes: the job's status; 2 the session name is in use, 3 nsys not found, 4 nsys did not start the\n" ..
    "job within policy live.ready_timeout.",
  options = {
    { "session", arg = "NAME", help = "session name (a letter, then letters, digits, . _ -); default gf-<pid>" },
    { "service", arg = "NAME", help = "a label the agent's session targets can match (nsys_session.service)" },
    { "nsys", arg = "PATH", help = "nsys to use (tried first, see `gpuflame discover`)" },
    { "stacks", help = "collect CUDA launch backtraces (--cudabacktrace; windows then sample with capture.stacks)" },
  },
  stop_at_positional = true,
}

function cmd.run(opts, ctx)
  local workload = {}
  if opts.positional[1] then workload[1] = opts.positional[1] end
  for _, a in ipairs(opts.rest or {}) do workload[#workload + 1] = a end
  if #workload == 0 or workload[1] == "" then errors.raise(errors.USAGE, "launch: give the job's command after --") end
  return live.launch({ session = opts.session, service = opts.service, nsys = opts.nsys,
    stacks = opts.stacks, workload = workload }, ctx)
end

return cmd
