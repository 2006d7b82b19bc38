-- gpuflame discover: which nsys would be used, and why every other candidate was not.
local core = require("gpuflame.core")
local discover = require("gpuflame.discover")
local errors = require("gpuflame.errors")

local cmd = {}

cmd.spec = {
  usage = "discover [--nsys PATH] [--json]",
  summary = "find nsys the way a capture would, list every nsys found with its version, explain every candidate",
  options = {
    { "nsys", arg = "PATH", help = "try this nsys first" },
    { "json", help = "print the result as JSON" },
  },
}

function cmd.run(opts, ctx)
  local r = discover.run({ explicit = opts.nsys, all = true }, ctx.policy())
  if opts.json then
    local out = { chosen = core.json.null, tried = core.json.array({}), found = core.json.array({}) }
    for _, t in ipairs(r.found) do
      out.found[#out.found + 1] = { path = t.path, resolved = t.resolved or core.json.null, source = t.source,
        version = t.version.string, family = t.version.family, chosen = t.chosen == true }
    end
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
      local imp = r.chosen.importer or {}
      local null = core.json.null
      out.chosen = { path = r.chosen.path, resolved = r.chosen.resolved, source = r.chosen.source,
        version = v.string, version_raw = v.raw, family = v.family,
        year = v.year, release = v.release, patch = v.patch, build = v.build,
        install = { importer = { ok = imp.ok == true, found_by_nsys = imp.found_by_nsys == true,
          path = imp.path or null, version = imp.version or null, reason = imp.reason or null, fix = imp.fix or null,
          expected_dirs = core.json.array(imp.expected_dirs or {}) } } }
    end
    io.stdout:write(core.json.encode(out, { pretty = true }), "\n")
  else
    if r.chosen then
      local v = r.chosen.version
      io.stdout:write(string.format("nsys: %s\nversion: %s (%s)\nsource: %s\n", r.chosen.path, v.string, v.raw,
        r.chosen.source))
      local imp = r.chosen.importer or {}
      if imp.found_by_nsys then
        io.stdout:write(string.format("importer: %s (nsys finds it)\n", imp.path))
      elseif imp.ok then
        io.stdout:write(string.format("importer: %s (nsys does NOT find it: %s)\n  gpuflame imports the .qdstrm " ..
          "itself (policy capture.qdstrm); to fix the install: %s\n", imp.path, imp.reason, imp.fix))
      else
        io.stdout:write(string.format("importer: missing — %s\n  fix: %s\n", imp.reason or "?", imp.fix or "?"))
      end
    end
    io.stdout:write("nsys found:\n")
    if #r.found == 0 then io.stdout:write("  (none)\n") end
    for _, t in ipairs(r.found) do
      io.stdout:write(string.format("  %s  %s [%s]%s\n", t.version.string, t.path, t.source,
        t.chosen and " (chosen)" or ""))
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
