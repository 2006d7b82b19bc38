-- gpuflame upload: artifacts delivered to the policy's sinks, or the spool flushed; the usage is in the spec
-- below.
local deliver = require("gpuflame.fleet.deliver")
local errors = require("gpuflame.errors")
local fleetcfg = require("gpuflame.fleet.fleetcfg")
local log = require("gpuflame.log")
local payload = require("gpuflame.fleet.payload")
local core = require("gpuflame.core")

local cmd = {}

cmd.spec = {
  usage = "upload [OPTIONS] ARTIFACT... | upload --flush [OPTIONS]",
  summary = "deliver a capture to the policy's sinks (Studio, http, dir); spool what fails",
  description = "ARTIFACT is a capture directory (timeline.html, flamegraph.html, gpu.folded, cpu.folded)\n" ..
    "or loose .html / .folded files. Each delivery is written ahead to the spool and removed only after a\n" ..
    "2xx; failures are retried with backoff (policy deliver.retry). --flush re-sends every spooled item,\n" ..
    "oldest first. Exit 7 when something is left in the spool.\n" ..
    "The token comes from GPUFLAME_TOKEN, --token-file or the config file (--token works but is visible\n" ..
    "in process listings).",
  options = fleetcfg.with_connection_options({
    { "server", arg = "URL", help = "Performance Studio base URL (profiles go to URL/api/v2/profiles)" },
    { "service", arg = "NAME", help = "service name (GPROFILER-SERVICE-NAME)" },
    { "state-dir", arg = "DIR", help = "gpid and spool live here (default policy agent.state_dir)" },
    { "flush", help = "re-send everything in the spool" },
    { "stacks", help = "the timeline carries launch backtraces (adds the nsys-stacks tag)" },
    { "agent-tick", help = "(used by the agent) one attempt per due item, outcomes written to the spool" },
  }),
}

function cmd.run(opts, ctx)
  local p = ctx.policy()
  local c = fleetcfg.load(opts, p)
  if #opts.positional == 0 and not opts.flush then
    errors.raise(errors.USAGE, "upload needs ARTIFACT... or --flush")
  end
  local needs_server = false
  for _, s in ipairs(p.deliver.sinks) do if s.type == "studio" then needs_server = true end end
  if needs_server and (not c.server or not c.token or not c.service) and #opts.positional > 0 then
    errors.raise(errors.USAGE, "the studio sink needs --server, --service and a token (GPUFLAME_TOKEN, --token-file)")
  end
  if opts.agent_tick then
    -- the agent's uploader process: it holds the spool's lock so that a sender left from an agent that
    -- died and the new agent's never send the same item at once
    local lock = deliver.lock(c)
    if not lock then
      log.info("upload: another uploader holds %s; nothing to do", c.spool_dir)
      return 0
    end
    local stats = deliver.drain(c, { journal = true }, p)
    log.info("upload: %d delivered, %d failed, %d rejected, %d left", stats.delivered, stats.failed, stats.rejected,
      stats.left)
    lock:release()
    return 0
  end
  local start_wall = core.sys.now()
  for _, a in ipairs(opts.positional) do
    local st = core.fs.stat(a)
    if not st then errors.raise(errors.INPUT, "%s: no such file or directory", a) end
    local pl
    if st.type == "directory" then
      pl = payload.from_dir(a, nil, p)
    else
      pl = payload.from_files({ a })
    end
    if opts.stacks then pl.stacks = true end
    pl.mem_avg = payload.mem_used_percent()
    if next(pl.html) == nil and not pl.folded and not pl.cpu_folded then
      errors.raise(errors.NO_DATA, "%s: nothing to upload (no %s, %s, %s or %s)", a, p.outputs.timeline,
        p.outputs.flamegraph, p.outputs.gpu_folded, p.outputs.cpu_folded)
    end
    local items = deliver.submit(c, pl, p)
    log.debug("upload: %s → %d spooled deliveries", a, #items)
  end
  local stats = deliver.drain(c, { wait = true }, p)
  log.info("upload: %d delivered, %d failed, %d rejected, %d left in %s (%.1f s)", stats.delivered, stats.failed,
    stats.rejected, stats.left, c.spool_dir, core.sys.now() - start_wall)
  if stats.left > 0 then
    io.stderr:write(string.format("gpuflame: %d item(s) kept in the spool %s; `gpuflame upload --flush` re-sends them\n",
      stats.left, c.spool_dir))
    return errors.DELIVERY
  end
  if stats.rejected > 0 then return errors.DELIVERY end
  return 0
end

return cmd
