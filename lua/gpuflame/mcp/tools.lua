-- The MCP server's tools: every mcp_tools/<name>.lua on the search path (--lua-path, GPUFLAME_PATH,
-- ~/.config/gpuflame, /etc/gpuflame, then the bundle; a file on disk shadows the bundled one of its name),
-- read again at each tools/list and tools/call, so a tool dropped in appears without a rebuild or a restart.
-- A tool file returns {name, title?, description, inputSchema, outputSchema, run = function(args, tk, ctx)}
-- (docs/MCP.md "Adding a tool"); run returns the structured result, or raises through tk.fail.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local resource = require("gpuflame.resource")

local M = {}

local NULL = core.json.null

local function validate(t, origin, name)
  local function bad(what) errors.raise(errors.ERROR, "MCP tool %s: %s", origin, what) end
  if type(t) ~= "table" then bad("must return a table") end
  if t.name ~= name then bad(string.format("name must be %q (its file name)", name)) end
  if type(t.description) ~= "string" then bad("description must be a string") end
  if type(t.run) ~= "function" then bad("run must be a function") end
  for _, k in ipairs({ "inputSchema", "outputSchema" }) do
    local sch = t[k]
    if type(sch) ~= "table" or sch.type ~= "object" then bad(k .. " must be a JSON Schema of type \"object\"") end
  end
  return t
end

-- load(name) → tool (raises naming the file when it is broken)
function M.load(name)
  local path = "mcp_tools/" .. name .. ".lua"
  local fn, origin = resource.load(path)
  local t = validate(fn(), origin, name)
  t.origin = origin
  return t
end

-- list() → the tools that load, by name; a broken file is logged (stderr) and left out.
function M.list()
  local out = {}
  for _, n in ipairs(resource.list("mcp_tools/")) do
    local name = n:match("^mcp_tools/([%w_%-]+)%.lua$")
    if name then
      local ok, t = pcall(M.load, name)
      if ok then out[#out + 1] = t else log.warn("mcp: tool %s left out: %s", n, errors.wrap(t).msg) end
    end
  end
  table.sort(out, function(a, b) return a.name < b.name end)
  return out
end

function M.find(name)
  if not name:match("^[%w_%-]+$") or not resource.find("mcp_tools/" .. name .. ".lua") then
    return nil, "unknown tool: " .. name
  end
  local ok, t = pcall(M.load, name)
  if not ok then return nil, "tool " .. name .. " is broken: " .. errors.wrap(t).msg end
  return t
end

-- A JSON Schema with the arrays marked (an empty list stays []); the fields every result may carry
-- (truncated, note) added to an output schema.
local function as_json(v, key)
  if type(v) ~= "table" then return v end
  local n, count = #v, 0
  for _ in pairs(v) do count = count + 1 end
  if (n > 0 and n == count) or key == "required" or key == "enum" then
    local a = {}
    for i, x in ipairs(v) do a[i] = as_json(x) end
    return core.json.array(a)
  end
  local o = {}
  for k, x in pairs(v) do o[k] = as_json(x, k) end
  return o
end

function M.output_schema(t)
  local s = as_json(t.outputSchema)
  s.properties = s.properties or {}
  s.properties.truncated = { type = "boolean", description = "true when the result was cut to policy mcp.max_result_bytes" }
  s.properties.note = { type = "string", description = "what was cut or left out, and how to get the rest" }
  return s
end

function M.describe(t)
  return { name = t.name, title = t.title, description = t.description, inputSchema = as_json(t.inputSchema),
    outputSchema = M.output_schema(t), annotations = { readOnlyHint = true, openWorldHint = false,
      title = t.title } }
end

-- ---- arguments against the input schema (the subset the tools use) --------------------------------------

local function type_ok(v, ty)
  if ty == "string" then return type(v) == "string"
  elseif ty == "integer" then return math.type(v) == "integer" or math.tointeger(v) ~= nil
  elseif ty == "number" then return type(v) == "number"
  elseif ty == "boolean" then return type(v) == "boolean"
  elseif ty == "array" then return type(v) == "table" and (getmetatable(v) ~= nil or next(v) == nil)
  elseif ty == "object" then return type(v) == "table" and getmetatable(v) == nil
  elseif ty == "null" then return v == NULL end
  return true
end

local function check(v, sch, at)
  if type(sch) ~= "table" then return nil end
  if sch.type and not type_ok(v, sch.type) then return string.format("%s must be of type %s", at, sch.type) end
  if sch.enum then
    local hit = false
    for _, e in ipairs(sch.enum) do if e == v then hit = true end end
    if not hit then return string.format("%s must be one of %s", at, table.concat(sch.enum, ", ")) end
  end
  if type(v) == "number" then
    if sch.minimum and v < sch.minimum then return string.format("%s must be >= %s", at, tostring(sch.minimum)) end
    if sch.maximum and v > sch.maximum then return string.format("%s must be <= %s", at, tostring(sch.maximum)) end
  elseif type(v) == "string" then
    if sch.maxLength and #v > sch.maxLength then return string.format("%s is longer than %d bytes", at, sch.maxLength) end
    if sch.minLength and #v < sch.minLength then return string.format("%s is shorter than %d bytes", at, sch.minLength) end
  elseif type(v) == "table" and sch.type == "array" then
    if sch.maxItems and #v > sch.maxItems then return string.format("%s has more than %d items", at, sch.maxItems) end
    if sch.minItems and #v < sch.minItems then return string.format("%s needs at least %d items", at, sch.minItems) end
    for i, x in ipairs(v) do
      local e = check(x, sch.items, string.format("%s[%d]", at, i - 1))
      if e then return e end
    end
  elseif type(v) == "table" and sch.type == "object" then
    for _, k in ipairs(sch.required or {}) do
      if v[k] == nil or v[k] == NULL then return string.format("%s.%s is required", at, k) end
    end
    for k, x in pairs(v) do
      local ps = sch.properties and sch.properties[k]
      if ps then
        if x ~= NULL then
          local e = check(x, ps, at .. "." .. tostring(k))
          if e then return e end
        end
      elseif sch.additionalProperties == false then
        return string.format("%s.%s is not an argument of this tool", at, tostring(k))
      end
    end
  end
  return nil
end

-- check_args(tool, args) → nil, or what is wrong. JSON nulls become absent.
function M.check_args(t, args)
  local e = check(args, t.inputSchema, "arguments")
  if e then return e end
  local props = t.inputSchema.properties or {}
  for k, v in pairs(args) do
    if v == NULL then args[k] = nil
    elseif math.type(v) == "float" and type(props[k]) == "table" and props[k].type == "integer" then
      args[k] = math.tointeger(v) -- 2^53 and above arrive as floats from the JSON reader
    end
  end
  return nil
end

return M
