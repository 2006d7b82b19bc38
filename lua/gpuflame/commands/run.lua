-- gpuflame run: a Lua script (a path, or a bundled or search-path script by name) with gpuflame's modules;
-- the usage is in the spec below.
local cli = require("gpuflame.cli")
local resource = require("gpuflame.resource")
local policy = require("gpuflame.policy")

local cmd = {}

cmd.spec = {
  usage = "run SCRIPT.lua|NAME [ARGS...] | run --list",
  summary = "run a Lua script with the gpuflame API (bundled scripts by NAME)",
  description = "A NAME is looked up as scripts/NAME.lua on the search path (GPUFLAME_PATH, ~/.config/gpuflame,\n" ..
    "/etc/gpuflame, then the bundle). The script receives its arguments as `...` and may\n" ..
    "`require(\"gpuflame.core\")` and any gpuflame module; its integer return value is the exit code.",
  options = { { "list", help = "list the scripts found on the search path" } },
  stop_at_positional = true,
}

function cmd.run(opts, ctx)
  if opts.list then
    for _, n in ipairs(resource.list("scripts/")) do
      local name = n:match("^scripts/(.+)%.lua$")
      if name then
        local text = resource.read(n)
        local doc = text:match("^%-%-%s*([^\n]+)") or ""
        io.stdout:write(string.format("  %-16s %s\n", name, doc))
      end
    end
    return 0
  end
  local script = opts.positional[1]
  if not script then
    io.stderr:write("usage: gpuflame run SCRIPT.lua|NAME [ARGS...]\n")
    return 2
  end
  -- --policy files apply to the script: its context's policy (cli.script_context().policy()) has them,
  -- and so has policy.effective() called by the script's own code (added process-wide here, hence the
  -- script's context names no files of its own)
  for _, f in ipairs(ctx.globals.policy_files or {}) do
    policy.load_file(f)
    policy.add_file(f)
  end
  local sglobals = {}
  for k, v in pairs(ctx.globals) do sglobals[k] = v end
  sglobals.policy_files = {}
  return cli.run_script(script, opts.rest or {}, cli.context(sglobals))
end

return cmd
