-- Logging front end over the C logger (stderr, levels, secret redaction), plus terminal progress.
local core = require("gpuflame.core")

local log = { ERROR = 0, WARN = 1, INFO = 2, DEBUG = 3 }

local function fmt(f, ...)
  if select("#", ...) == 0 then return tostring(f) end
  return string.format(f, ...)
end

function log.error(f, ...) core.log.write(0, fmt(f, ...)) end
function log.warn(f, ...) core.log.write(1, fmt(f, ...)) end
function log.info(f, ...) core.log.write(2, fmt(f, ...)) end
function log.debug(f, ...) core.log.write(3, fmt(f, ...)) end
function log.set_level(l) core.log.set_level(l) end
function log.level() return core.log.level() end
function log.add_secret(s) if type(s) == "string" then core.log.add_secret(s) end end
function log.redact(s) return core.log.redact(s) end

-- Progress for long steps: "gpuflame: [capture] running nsys profile (12 s)". Shown only at INFO
-- level or above; on a terminal the line is rewritten in place.
local tty = core.sys.isatty(2)
local progress_open = false

function log.progress(step, f, ...)
  if core.log.level() < log.INFO then return end
  local line = string.format("gpuflame: [%s] %s", step, fmt(f, ...))
  if tty then
    io.stderr:write("\r\27[K", line)
    progress_open = true
  else
    io.stderr:write(line, "\n")
  end
end

function log.progress_done()
  if progress_open then
    io.stderr:write("\r\27[K")
    progress_open = false
  end
end

-- A listener of long steps (gpuflame mcp: progress notifications and the client's cancellations while nsys
-- exports): progress_sink(fn) sets it and returns the previous one; progress_tick(step, text) calls it, about
-- every 200 ms of a running step (capture's process runner).
local sink
function log.progress_sink(fn)
  local old = sink
  sink = fn
  return old
end

function log.progress_tick(step, text)
  if sink then sink(step, text) end
end

log.is_tty = tty

return log
