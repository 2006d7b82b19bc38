-- Files on the gpuflame search path (--lua-path, GPUFLAME_PATH, ~/.config/gpuflame, /etc/gpuflame)
-- with the embedded bundle behind them.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")

local resource = {}

-- read(name) → text, origin ("path" or "embedded:name"); raises when absent.
function resource.read(name)
  local text, origin = core.host.resource(name)
  if not text then errors.raise(errors.ERROR, "%s", origin) end
  return text, origin
end

function resource.find(name)
  return core.host.resource(name)
end

function resource.list(prefix)
  return core.host.list(prefix)
end

function resource.dirs()
  return core.host.dirs()
end

-- Loads a Lua resource as a chunk (text mode only) with an optional environment table.
function resource.load(name, env)
  local text, origin = resource.read(name)
  local chunkname = origin:match("^embedded:") and ("=" .. name) or ("@" .. origin)
  -- load(..., env) with an explicit nil env would leave the chunk without globals
  local fn, err
  if env ~= nil then fn, err = load(text, chunkname, "t", env) else fn, err = load(text, chunkname, "t") end
  if not fn then errors.raise(errors.ERROR, "%s", err) end
  return fn, origin
end

return resource
