-- Exporter plug-ins: any exporters/<name>.lua on the search path (disk first, then the bundle) that
-- returns { name, description, accepts = {"trace"|"stacks"|"analysis"...}, write = function(model, out, opts, ctx) }
-- (opts: kind, input, title; ctx: the command's context, ctx.policy() the effective policy).
local errors = require("gpuflame.errors")
local resource = require("gpuflame.resource")

local exporters = {}

local function validate(e, origin)
  if type(e) ~= "table" then errors.raise(errors.ERROR, "exporter %s must return a table", origin) end
  if type(e.name) ~= "string" then errors.raise(errors.ERROR, "exporter %s: `name` must be a string", origin) end
  if type(e.write) ~= "function" then errors.raise(errors.ERROR, "exporter %s: `write` must be a function", origin) end
  if type(e.accepts) ~= "table" then errors.raise(errors.ERROR, "exporter %s: `accepts` must be a list", origin) end
  return e
end

function exporters.load(name)
  if not name:match("^[%w%-_]+$") then errors.raise(errors.USAGE, "invalid exporter name %q", name) end
  local path = "exporters/" .. name .. ".lua"
  if not resource.find(path) then
    local names = {}
    for _, e in ipairs(exporters.list()) do names[#names + 1] = e.name end
    errors.raise(errors.USAGE, "no exporter '%s' (available: %s)", name, table.concat(names, ", "))
  end
  local fn, origin = resource.load(path)
  local e = validate(fn(), origin)
  e.origin = origin
  return e
end

function exporters.list()
  local out = {}
  for _, n in ipairs(resource.list("exporters/")) do
    local name = n:match("^exporters/([%w%-_]+)%.lua$")
    if name then
      local ok, e = pcall(exporters.load, name)
      if ok then
        out[#out + 1] = e
      else
        out[#out + 1] = { name = name, description = "(broken: " .. tostring(errors.wrap(e).msg) .. ")", accepts = {} }
      end
    end
  end
  return out
end

return exporters
