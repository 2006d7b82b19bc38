-- gpuflame discover: which nsys would be used, and why every other candidate was not.
local core = require("gpuflame.core")
local discover = require("gpuflame.discover")
local errors = require("gpuflame.errors")

local cmd = {}

cmd.spec = {
  usage = "discover [--nsys PATH] [--json]",
  summary = "find nsys the way a capture would and explain every candidate",
  options = {
    { "nsys", arg = "PATH", help = "try this nsys first" },
    { "json", help = "print the result as JSON" },
  },
}

function cmd.run(opts, ctx)
  local r = discover.run(ctx.policy(), { explicit = opts.nsys })
  if opts.json then
    local out = { chosen = core.json.null, tried = core.json.array({}) }
    for _, t in ipairs(r.tried) do
      local v = t.version
      out.tried[#out.tried + 1] = {
        path = t.path, source = t.source, resolved = t.resolved or core.json.null,
        ok = t.ok == true, reason = t.reason or core.json.null,
        version = v and v.string or core.json.null,
      }
    end
    if r.chosen then
      local v = r.chosen.version
      out.chosen = { path = r.chosen.path, resolved = r.chosen.resolved, source = r.chosen.source,
        version = v.string, version_raw = v.raw, family = v.family,
        year = v.year, release = v.release, patch = v.patch, build = v.build }
    end
    io.stdout:write(core.json.encode(out, { pretty = true }), "\n")
  else
    if r.chosen then
      local v = r.chosen.version
      io.stdout:write(string.format("nsys: %s\nversion: %s (%s)\nsource: %s\n", r.chosen.path, v.string, v.raw,
        r.chosen.source))
    end
    io.stdout:write("candidates tried:\n")
    if #r.tried == 0 then io.stdout:write("  (none: no source in discover.order produced a path)\n") end
    for _, t in ipairs(r.tried) do
      local verdict = t.chosen and ("chosen, version " .. t.version.string) or ("rejected: " .. (t.reason or "?"))
      io.stdout:write(string.format("  [%s] %s — %s\n", t.source, t.path, verdict))
    end
  end
  if not r.chosen then
    io.stderr:write("gpuflame: " .. discover.NOT_FOUND_HINT .. "\n")
    return errors.NO_NSYS
  end
  return 0
end

return cmd
