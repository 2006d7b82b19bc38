-- Structured errors: {code = <exit code>, msg = "..."}. Raised with errors.raise, recognised with
-- errors.is. The C host prints msg and exits with code.
-- The exit codes are defined once, in C (core/gf_err.h): errors.OK, errors.ERROR, ... errors.INTERRUPTED.
local errors = {}
for name, code in pairs(require("gpuflame.core").exit) do errors[name] = code end

local mt = { __tostring = function(e) return e.msg end }

function errors.new(code, fmt, ...)
  local msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt
  return setmetatable({ code = code, msg = msg }, mt)
end

function errors.raise(code, fmt, ...)
  error(errors.new(code, fmt, ...), 0)
end

function errors.is(e)
  return type(e) == "table" and math.type(e.code) == "integer" and type(e.msg) == "string"
end

-- Any error value → structured error (plain strings become code ERROR).
function errors.wrap(e)
  if errors.is(e) then
    if e.msg:match("not enough memory$") then
      e.msg = e.msg .. " (the Lua memory limit was reached: a script or policy allocates without bound? " ..
        "GPUFLAME_LUA_MEM_MB raises the limit)"
    end
    return e
  end
  return errors.wrap(errors.new(errors.ERROR, "%s", tostring(e)))
end

-- Re-raises a structured error with a new code and a prefix, keeping its traceback.
function errors.reraise(e, code, prefix)
  e = errors.wrap(e)
  if code then e.code = code end
  if prefix then e.msg = prefix .. e.msg end
  error(setmetatable(e, mt), 0)
end

-- pcall that returns ok, result-or-structured-error.
function errors.try(fn, ...)
  local res = table.pack(pcall(fn, ...))
  if res[1] then return true, table.unpack(res, 2, res.n) end
  return false, errors.wrap(res[2])
end

return errors
