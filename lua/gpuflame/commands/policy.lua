-- gpuflame policy: the effective policy shown field by field, or policy files checked; the usage is in the
-- spec below.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local policy = require("gpuflame.policy")
local policy_schema = require("gpuflame.policy_schema")

local cmd = {}

cmd.spec = {
  usage = "policy show | policy check FILE...",
  summary = "print the effective policy as JSON, or validate policy files",
  description = "`show` layers the default policy and every --policy FILE (later wins) and prints the result;\n" ..
    "functions appear as \"<function file:line>\". `check` loads each FILE (with its extends chain) and\n" ..
    "reports the first problem with its file and field, and warns when gpuflame running as root (the\n" ..
    "agent) would refuse the file: owned by another user, or writable by others (docs/ARCHITECTURE.md, Trust).",
  options = {},
}

function cmd.run(opts, ctx)
  local sub = opts.positional[1]
  if sub == "show" then
    local eff = policy_schema.annotate(ctx.policy(), policy_schema.tree,
      core.json.array)
    io.stdout:write(core.json.encode(eff, { pretty = true }), "\n")
    return 0
  elseif sub == "check" then
    local files = table.move(opts.positional, 2, #opts.positional, 1, {})
    if #files == 0 then errors.raise(errors.USAGE, "policy check needs at least one FILE") end
    for _, f in ipairs(files) do
      local merged = policy.load_file(f)
      policy.effective({ f })
      local st = core.fs.stat(f)
      if st and st.type == "file" then -- as root load_file has refused it already
        local trusted, why = core.fs.trusted(f)
        if not trusted then log.warn("%s (what gpuflame does when it runs as root, as the agent does)", why) end
      end
      io.stdout:write(string.format("%s: ok (%d top-level sections)\n", f, (function()
        local n = 0
        for _ in pairs(merged) do n = n + 1 end
        return n
      end)()))
    end
    return 0
  end
  errors.raise(errors.USAGE, "policy: expected `show` or `check FILE` (got %s)", tostring(sub))
end

return cmd
