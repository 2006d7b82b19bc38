-- Lists the live sessions on this host (`gpuflame launch`), and removes the entries of ended ones.
local core = require("gpuflame.core")
local sessions = require("gpuflame.sessions")

local cmd = {}

cmd.spec = {
  usage = "sessions [--json]",
  summary = "list the live sessions on this host: name, pid, command, state, since when",
  description = "Reads the session registry (policy live.registry_dir). State: waiting (running, collection\n" ..
    "off), capturing (a window is open), ended (its workload or its `gpuflame launch` is gone: listed once,\n" ..
    "and its entry is removed; a launch killed while nsys still ends its workload keeps its entry until the\n" ..
    "workload is gone, so that nsys's status file for it is removed then).",
  options = {
    { "json", help = "one JSON document: {registry, sessions: [{name, pid, command, state, since, ...}]}" },
  },
}

function cmd.run(opts, ctx)
  local list, dir = sessions.list(ctx.policy())
  if opts.json then
    local out = {}
    for i, e in ipairs(list) do
      out[i] = { name = e.name, pid = e.pid, command = core.json.array(e.command or {}), state = e.state,
        since = e.since, started = e.started, service = e.service, host = e.host, nsys = e.nsys,
        flags = core.json.array(e.flags or {}) }
    end
    io.stdout:write(core.json.encode({ registry = dir, sessions = core.json.array(out) }, { pretty = true }), "\n")
    return 0
  end
  if #list == 0 then
    io.stderr:write("gpuflame: no sessions in " .. dir .. "\n")
    return 0
  end
  io.stdout:write(string.format("%-20s %8s  %-9s  %-32s  %s\n", "NAME", "PID", "STATE", "SINCE", "COMMAND"))
  for _, e in ipairs(list) do
    io.stdout:write(string.format("%-20s %8s  %-9s  %-32s  %s\n", e.name, tostring(e.pid), e.state, e.since or "",
      table.concat(e.command or {}, " ")))
  end
  return 0
end

return cmd
