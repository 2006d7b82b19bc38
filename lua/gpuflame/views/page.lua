-- Page templates with their shared code inlined: a template names the page code it uses with an
-- include slot, `{{include:js/flame.js}}` or `{{include:css/page.css}}`, on a line of its own; the
-- named file (templates/<name>, found on the search path like the template itself, then in the
-- bundle) replaces that line before the renderer fills the data slots. So the page JS and CSS live
-- once, as real files (templates/js/*.js, templates/css/*.css), and every written page is still one
-- self-contained file (docs/PAGES.md).
--
--   local page = require("gpuflame.views.page")
--   local text, origin = page.template("templates/diff.html")   -- raises when absent
--   local text, origin = page.expand(text, origin)              -- a template already read
local errors = require("gpuflame.errors")
local resource = require("gpuflame.resource")
local core = require("gpuflame.core")

local M = {}

local MAX_DEPTH = 4

-- An include slot alone on its line (leading blanks allowed); anything else is left to the renderer,
-- which rejects "{{include:...}}" anywhere else as a malformed slot.
local SLOT = "^([ \t]*){{include:([%w_%-%./]+)}}[ \t]*$"

local function expand(text, origin, depth, seen)
  if not text:find("{{include:", 1, true) then return text end
  if depth > MAX_DEPTH then
    errors.raise(errors.ERROR, "template %s: includes nest deeper than %d", origin, MAX_DEPTH)
  end
  local out, lineno = {}, 0
  for line in (text .. (text:sub(-1) == "\n" and "" or "\n")):gmatch("([^\n]*)\n") do
    lineno = lineno + 1
    local _, name = line:match(SLOT)
    if name then
      if name:find("..", 1, true) or name:sub(1, 1) == "/" then
        errors.raise(errors.ERROR, "template %s:%d: include '%s' must be a path inside templates/", origin, lineno, name)
      end
      if seen[name] then
        errors.raise(errors.ERROR, "template %s:%d: '%s' includes itself", origin, lineno, name)
      end
      local body, from = resource.find("templates/" .. name)
      if not body then
        errors.raise(errors.ERROR, "template %s:%d: included file templates/%s not found on the search path",
          origin, lineno, name)
      end
      seen[name] = true
      body = expand(body, from, depth + 1, seen)
      seen[name] = nil
      out[#out + 1] = body:sub(-1) == "\n" and body:sub(1, -2) or body
    else
      out[#out + 1] = line
    end
  end
  local joined = table.concat(out, "\n")
  return text:sub(-1) == "\n" and joined .. "\n" or joined
end

-- expand(text, origin) → the template with every include slot replaced by its file.
function M.expand(text, origin)
  return expand(text, origin or "(template)", 1, {})
end

-- template(name) → the expanded text of templates/<...> named by name, and its origin.
function M.template(name)
  local text, origin = resource.read(name)
  return M.expand(text, origin), origin
end

-- find(name) → like template, or nil and the reason when the template is not on the search path.
function M.find(name)
  local text, origin = resource.find(name)
  if not text then return nil, origin end
  return M.expand(text, origin), origin
end

-- palettes() → the names policy flamegraph.colors and --colors accept, in the table's order: the
-- palettes of templates/palettes.json, the colour table the pages draw flame graphs with.
local palette_names
function M.palettes()
  if not palette_names then
    local text, origin = resource.read("templates/palettes.json")
    local ok, t = pcall(core.json.decode, text)
    if not ok or type(t) ~= "table" or type(t.palettes) ~= "table" then
      errors.raise(errors.ERROR, "%s: not a palette table (%s)", origin, ok and "no 'palettes' list" or tostring(t))
    end
    palette_names = {}
    for _, e in ipairs(t.palettes) do palette_names[#palette_names + 1] = e.name end
  end
  return palette_names
end

return M
