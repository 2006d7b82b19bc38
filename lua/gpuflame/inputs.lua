-- INPUT files recognised by content, and a registry of loaders that turn them into models.
--
-- detect(path) → info: { type = "csv", report = "cuda_gpu_kern_sum", preamble = bool } | { type = "folded" }
--   | { type = "sqlite", nsys = bool } | { type = "nsys-rep" } | { type = "model" } (gpuflame import); anything
--   else is a bad-input error (exit 6).
--
-- Loaders are files gpuflame/inputs/<name>.lua on the search path (lua/gpuflame/inputs/ in the tree),
-- each returning { kind = "stacks"|"trace"|..., accepts = function(info, ctx) → bool,
-- load = function(path, info, ctx, opts) → model }. Adding an input kind is adding a file.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local resource = require("gpuflame.resource")
local sidecar = require("gpuflame.sidecar")

local inputs = {}

-- Header shapes (lower-cased, trimmed column names). First match wins; order matters.
local function has(set, ...)
  for _, n in ipairs({ ... }) do if set[n] then return true end end
  return false
end

local function has_total(set)
  return has(set, "total time (ns)", "total time(ns)", "total (ns)", "time (ns)")
end

inputs.csv_shapes = {
  { report = "nvtx_pushpop_trace", match = function(s) return has(s, "rangestack") and has(s, "durchild (ns)") end },
  { report = "nvtx_gpu_proj_trace", match = function(s) return has(s, "projected start (ns)") end },
  { report = "nvtx_gpu_proj_sum", match = function(s) return has(s, "total proj time (ns)") end },
  { report = "cuda_gpu_trace", match = function(s)
    return has(s, "start (ns)", "start time (ns)", "start") and has(s, "duration (ns)", "duration")
      and has(s, "corrid") and has(s, "grdx", "strm", "device")
  end },
  { report = "cuda_api_trace", match = function(s)
    return has(s, "start (ns)", "start time (ns)", "start") and has(s, "duration (ns)", "duration")
      and has(s, "corrid") and has(s, "tid", "pid")
  end },
  { report = "cuda_kern_exec_trace", match = function(s) return has(s, "kernel start (ns)") end },
  { report = "nvtx_kern_sum", match = function(s) return has(s, "nvtx range") and has(s, "kernel name") end },
  { report = "nvtx_sum", match = function(s) return has_total(s) and has(s, "range") and has(s, "style") end },
  { report = "nvtx_pushpop_sum", match = function(s) return has_total(s) and has(s, "range") end },
  { report = "cuda_gpu_mem_time_sum", match = function(s) return has_total(s) and has(s, "operation") end },
  { report = "cuda_gpu_kern_sum", match = function(s)
    return has_total(s) and has(s, "instances") and has(s, "name", "kernel name", "kernel")
  end },
  { report = "cuda_api_sum", match = function(s) return has_total(s) and has(s, "num calls") and has(s, "name") end },
}

local function header_set(line)
  line = line:gsub("^\239\187\191", ""):gsub("\r$", "")
  if not line:find(",", 1, true) then return nil end
  local set, n = {}, 0
  for cell in (line .. ","):gmatch("([^,]*),") do
    cell = cell:gsub('^%s*"?', ""):gsub('"?%s*$', ""):lower()
    set[cell] = true
    n = n + 1
  end
  return n >= 2 and set or nil
end

function inputs.classify_header(line)
  local set = header_set(line)
  if not set then return nil end
  for _, shape in ipairs(inputs.csv_shapes) do
    if shape.match(set) then return shape.report end
  end
  return nil
end

local FOLDED_LINE = "^%S.-%s+%d+%.?%d*%s*$"
local TWO_COUNTS = "%s%d+%.?%d*%s+%d+%.?%d*%s*$"

-- difffolded.pl's two-column folded ("stack BEFORE AFTER"): gpuflame's own files say which they are in
-- their sidecar PATH.json (gpuflame.sidecar), or in a "# {json}" first line (files written before the
-- sidecar): format = "difffolded", or generator = "gpuflame" without it: one column; others when every
-- stack line among the first ones ends in two counts (flamegraph.pl's rule).
function inputs.is_two_column(lines, path)
  local first = (lines[1] or ""):gsub("\r$", "")
  local side = path and select(2, sidecar.read(path))
  if side or first:match("^# {") then
    local ok, meta = true, side
    if not side then ok, meta = pcall(core.json.decode, first:sub(3)) end
    -- gpuflame's own files say which they are
    if ok and type(meta) == "table" and (meta.format ~= nil or meta.generator == "gpuflame") then
      return meta.format == "difffolded"
    end
  end
  local n = 0
  for _, line in ipairs(lines) do
    line = line:gsub("\r$", "")
    if line:match("%S") and not line:match("^%s*#") then
      if not line:match(TWO_COUNTS) then return false end
      n = n + 1
    end
  end
  return n > 0
end

function inputs.detect(path)
  local st = core.fs.stat(path)
  if not st then errors.raise(errors.INPUT, "%s: no such file", path) end
  if st.type ~= "file" then errors.raise(errors.INPUT, "%s: not a regular file (%s)", path, st.type) end
  local f, e = io.open(path, "rb")
  if not f then
    -- io.open's message already starts with the path: keep only the reason
    local why = tostring(e)
    if why:sub(1, #path + 2) == path .. ": " then why = why:sub(#path + 3) end
    errors.raise(errors.INPUT, "%s: cannot read: %s", path, why)
  end
  local head = f:read(65536) or ""
  f:close()
  if head:sub(1, 16) == "SQLite format 3\0" then
    return { type = "sqlite", path = path }
  end
  if core.model.is_model(head) then
    return { type = "model", path = path } -- gpuflame import's per-report model (docs/MODEL_FORMAT.md)
  end
  if path:match("%.gfmodel$") then
    errors.raise(errors.INPUT, "%s: not a gpuflame model file (no GFMODEL magic)", path)
  end
  if path:match("%.nsys%-rep$") or path:match("%.qdrep$") then
    return { type = "nsys-rep", path = path }
  end
  if head == "" then errors.raise(errors.NO_DATA, "%s: empty file", path) end
  if head:find("\0", 1, true) then
    errors.raise(errors.INPUT, "%s: unrecognised binary file (expected a stats CSV, folded stacks, an SQLite " ..
      "export or an .nsys-rep)", path)
  end
  local lines = {}
  -- plain find, not gmatch("([^\n]*)\n"): that pattern rescans to the end from every byte of a long
  -- unterminated line (quadratic: a minute on a 64 KiB head)
  local pos = 1
  while #lines < 40 do
    local nl = head:find("\n", pos, true)
    if not nl then break end
    lines[#lines + 1] = head:sub(pos, nl - 1)
    pos = nl + 1
  end
  if #lines == 0 then lines[1] = head end
  lines[1] = lines[1]:gsub("^\239\187\191", "")
  -- a stats CSV: its header on the first line, or after console lines (captured stdout)
  for i, line in ipairs(lines) do
    local report = inputs.classify_header(line)
    if report then return { type = "csv", report = report, preamble = i > 1, path = path } end
  end
  -- folded stacks: every non-comment line among the first ones ends in a count
  local n, good = 0, 0
  for _, line in ipairs(lines) do
    line = line:gsub("\r$", "")
    if line:match("%S") and not line:match("^%s*#") then
      n = n + 1
      if line:match(FOLDED_LINE) then good = good + 1 end
    end
  end
  if n > 0 and (good == n or (n > 1 and good >= n - 1)) then
    return { type = "folded", path = path, two_columns = inputs.is_two_column(lines, path) }
  end
  if n == 0 and lines[1]:match("^# {") then
    return { type = "folded", path = path, two_columns = inputs.is_two_column(lines, path) }
  end
  errors.raise(errors.INPUT, "%s: unrecognised input: not an nsys stats CSV (known headers: kern/api sum, gpu/api " ..
    "trace, NVTX reports), folded stacks, an SQLite export or an .nsys-rep; first line: %q", path,
    (lines[1] or ""):sub(1, 100))
end

-- Describes info for messages: "cuda_gpu_kern_sum CSV", "SQLite export", ...
function inputs.describe(info)
  if info.type == "csv" then return info.report .. " CSV" end
  if info.type == "sqlite" then return "SQLite export" end
  if info.type == "nsys-rep" then return "nsys report" end
  if info.type == "model" then return "gpuflame model file" end
  return info.type .. " file"
end

local registry
function inputs.loaders()
  if registry then return registry end
  registry = {}
  for _, name in ipairs(resource.list("gpuflame/inputs/")) do
    local mod = name:match("^gpuflame/inputs/([%w_%-]+)%.lua$")
    if mod then
      local l = require("gpuflame.inputs." .. mod)
      for _, one in ipairs(l.kind and { l } or l) do
        if type(one.kind) ~= "string" or type(one.accepts) ~= "function" or type(one.load) ~= "function" then
          errors.raise(errors.ERROR, "input loader %s must return {kind, accepts, load}", name)
        end
        one.name = one.name or mod
        registry[#registry + 1] = one
      end
    end
  end
  return registry
end

-- Adds a loader at run time (scripts, tests).
function inputs.register(loader)
  local r = inputs.loaders()
  r[#r + 1] = loader
end

-- An .nsys-rep is exported to SQLite through nsys (found by discovery), once, into the export cache
-- (gpuflame.exports; a temporary directory when there is none, removed by inputs.cleanup).
local function export_rep(path, opts, ctx)
  ctx.cleanup = ctx.cleanup or {}
  local sqlite = require("gpuflame.exports").get(path, { nsys = opts and opts.nsys, cleanup = ctx.cleanup }, ctx.policy())
  log.debug("the export of %s: %s", path, sqlite)
  return sqlite
end

-- resolve(path, opts, ctx) → info as detect, with an .nsys-rep's SQLite export from the export cache
-- (info.path is the export, info.from_rep the report; a temporary directory is removed by inputs.cleanup(ctx)).
function inputs.resolve(path, opts, ctx)
  local info = inputs.detect(path)
  if info.type == "nsys-rep" then
    local sqlite = export_rep(path, opts, ctx)
    info = inputs.detect(sqlite)
    info.from_rep = path
  end
  return info
end

-- load_for(path, accepts, opts, ctx) → model, kind. The first kind in `accepts` that a loader can
-- produce from this input wins (its load(path, info, opts, ctx)).
function inputs.load_for(path, accepts, opts, ctx)
  local info = inputs.resolve(path, opts, ctx)
  for _, kind in ipairs(accepts) do
    for _, l in ipairs(inputs.loaders()) do
      if l.kind == kind and l.accepts(info, ctx) then
        return l.load(info.path, info, opts or {}, ctx), kind
      end
    end
  end
  errors.raise(errors.INPUT, "%s: a %s cannot be used here (needs: %s)", path, inputs.describe(info),
    table.concat(accepts, " or "))
end

-- Removes temporary directories made while loading (ctx.cleanup).
function inputs.cleanup(ctx)
  for _, d in ipairs(ctx.cleanup or {}) do pcall(core.fs.remove_tree, d) end
  ctx.cleanup = nil
end

return inputs
