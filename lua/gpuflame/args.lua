-- Command-line parsing from a declarative spec, so every command's flags are documented in one place
-- and `--help` is generated from the same table.
--
-- spec = { usage = "...", summary = "...", options = {
--   { "out", short = "o", arg = "FILE", help = "..." },            -- string value
--   { "max-events", arg = "N", type = "integer", help = "..." },   -- checked integer
--   { "inverted", help = "..." },                                   -- boolean flag
--   { "policy", arg = "FILE", multi = true, help = "..." },         -- repeatable → list
-- }, positional = "INPUT..." }
local errors = require("gpuflame.errors")

local args = {}

local function find(spec, name, short)
  for _, o in ipairs(spec.options or {}) do
    if (name and o[1] == name) or (short and o.short == short) then return o end
  end
end

local function convert(o, v)
  if o.type == "integer" then
    local n = math.tointeger(tonumber(v))
    if not n then errors.raise(errors.USAGE, "--%s must be an integer (got %q)", o[1], v) end
    if o.min and n < o.min then errors.raise(errors.USAGE, "--%s must be >= %d (got %d)", o[1], o.min, n) end
    return n
  elseif o.type == "number" then
    local n = tonumber(v)
    if not n then errors.raise(errors.USAGE, "--%s must be a number (got %q)", o[1], v) end
    if o.min and n < o.min then errors.raise(errors.USAGE, "--%s must be >= %g (got %g)", o[1], o.min, n) end
    return n
  elseif o.choices then
    for _, c in ipairs(o.choices) do if c == v then return v end end
    errors.raise(errors.USAGE, "--%s must be one of %s (got %q)", o[1], table.concat(o.choices, ", "), v)
  end
  return v
end

local function store(res, o, v)
  local key = o[1]:gsub("-", "_")
  if o.multi then
    res[key] = res[key] or {}
    res[key][#res[key] + 1] = v
  else
    res[key] = v
  end
end

-- parse(spec, argv) → opts table (dashes in names become underscores), opts.positional list,
-- opts.rest (after `--`) list or nil.
function args.parse(spec, argv)
  local res = { positional = {} }
  local i = 1
  while i <= #argv do
    local a = argv[i]
    if a == "--" then
      res.rest = table.move(argv, i + 1, #argv, 1, {})
      break
    elseif a:sub(1, 2) == "--" and #a > 2 then
      local name, val = a:match("^%-%-([^=]+)=(.*)$")
      name = name or a:sub(3)
      local o = find(spec, name)
      if not o then errors.raise(errors.USAGE, "unknown option --%s (see --help)", name) end
      if o.arg then
        if not val then
          i = i + 1
          val = argv[i]
          if val == nil then errors.raise(errors.USAGE, "--%s needs a value (%s)", name, o.arg) end
        end
        store(res, o, convert(o, val))
      else
        if val then errors.raise(errors.USAGE, "--%s takes no value", name) end
        store(res, o, true)
      end
    elseif a:sub(1, 1) == "-" and #a > 1 and not tonumber(a) then
      local short = a:sub(2, 2)
      local o = find(spec, nil, short)
      if not o then errors.raise(errors.USAGE, "unknown option -%s (see --help)", short) end
      if o.arg then
        local val = #a > 2 and a:sub(3) or nil
        if not val then
          i = i + 1
          val = argv[i]
          if val == nil then errors.raise(errors.USAGE, "-%s needs a value (%s)", short, o.arg) end
        end
        store(res, o, convert(o, val))
      else
        if #a > 2 then errors.raise(errors.USAGE, "-%s takes no value", short) end
        store(res, o, true)
      end
    else
      res.positional[#res.positional + 1] = a
      if spec.stop_at_positional then
        res.rest = table.move(argv, i + 1, #argv, 1, {})
        break
      end
    end
    i = i + 1
  end
  for _, o in ipairs(spec.options or {}) do
    local key = o[1]:gsub("-", "_")
    if res[key] == nil and o.default ~= nil then res[key] = o.default end
  end
  return res
end

function args.help(name, spec)
  local out = {}
  out[#out + 1] = "usage: gpuflame " .. (spec.usage or name)
  if spec.summary then out[#out + 1] = "\n" .. spec.summary end
  if spec.description then out[#out + 1] = "\n" .. spec.description end
  if spec.options and #spec.options > 0 then
    out[#out + 1] = "\noptions:"
    for _, o in ipairs(spec.options) do
      local flag = (o.short and ("-" .. o.short .. ", ") or "    ") .. "--" .. o[1]
      if o.arg then flag = flag .. " " .. o.arg end
      local help = o.help or ""
      if o.default ~= nil and o.default ~= false then help = help .. " (default " .. tostring(o.default) .. ")" end
      out[#out + 1] = string.format("  %-28s %s", flag, help)
    end
  end
  if spec.examples then
    out[#out + 1] = "\nexamples:"
    for _, e in ipairs(spec.examples) do out[#out + 1] = "  " .. e end
  end
  return table.concat(out, "\n") .. "\n"
end

return args
