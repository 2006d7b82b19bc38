-- gpuflame agent: the fleet agent driven by the Performance Studio heartbeat.
local agent = require("gpuflame.fleet.agent")
local errors = require("gpuflame.errors")
local fleetcfg = require("gpuflame.fleet.fleetcfg")
local core = require("gpuflame.core")

local cmd = {}

cmd.spec = {
  usage = "agent --server URL --service NAME [--api-server URL] [--interval 30] [--state-dir DIR] [OPTIONS]",
  summary = "heartbeat agent: adhoc GPU captures requested from the Performance Studio",
  description = "Sends POST {api-server}/api/metrics/heartbeat every interval, runs the capture a command asks\n" ..
    "for in the background (one at a time; `stop` cancels it), uploads through the spool and reports\n" ..
    "POST /api/metrics/command_completion. Settings come from flags, then GPUFLAME_<KEY> environment\n" ..
    "variables (GPUFLAME_SERVER, GPUFLAME_TOKEN, GPUFLAME_SERVICE, ...), then the config file.\n" ..
    "Give the token through GPUFLAME_TOKEN or --token-file: --token is visible in process listings.\n" ..
    "Remote workloads run only when allowed by local policy (agent.remote_workloads; default: the\n" ..
    "allow-list file /etc/gpuflame/allowed-workloads). SIGTERM stops cleanly; SIGHUP reloads policies.",
  options = fleetcfg.with_connection_options({
    { "server", arg = "URL", help = "Performance Studio base URL for uploads" },
    { "api-server", arg = "URL", help = "base URL for heartbeat and command calls (default --server)" },
    { "service", arg = "NAME", help = "service name" },
    { "interval", arg = "SECONDS", type = "number", min = 0.1, help = "heartbeat interval (default policy agent.interval, 30)" },
    { "state-dir", arg = "DIR", help = "command history, gpid, spool, captures (default policy agent.state_dir)" },
  }),
  stop_is_clean = true, -- SIGTERM while starting up is a clean stop too (cli.lua)
}

function cmd.run(opts, ctx)
  local p = ctx.policy()
  local c = fleetcfg.load(opts, p)
  for _, k in ipairs({ "server", "service", "token" }) do
    if not c[k] then
      errors.raise(errors.USAGE, "agent needs a %s (--%s, GPUFLAME_%s or the config file)", k,
        k == "token" and "token-file" or k, k:upper())
    end
  end
  core.fs.mkdirp(c.state_dir, 448)
  return agent.new(c, opts, ctx):run()
end

return cmd
