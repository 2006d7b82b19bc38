-- Findings as text: the cells of a rule's rows, and the output formats of `gpuflame findings` other than
-- the JSON document (gpuflame.findings.document): CSV, Markdown and the aligned columns of a terminal.
local core = require("gpuflame.core")
local gpu_time = require("gpuflame.gpu_time")

local M = {}

local function col_name(c) return type(c) == "table" and c.name or c end
M.col_name = col_name

-- steps_text(r): the steps a result's rows fall in (gpuflame.findings.in_steps sets r.steps) →
-- "in step 3 (ProfilerStep#3: 2 rows), step 5 (…)" or nil
function M.steps_text(r)
  if not r.steps then return nil end
  local parts = {}
  for i, e in ipairs(r.steps) do
    if i > 8 then parts[#parts + 1] = string.format("and %d more steps", #r.steps - 8); break end
    parts[#parts + 1] = string.format("step %d (%s%s: %d row%s)", e.index, e.name, e.rank and (", " .. e.rank) or "",
      e.rows, e.rows == 1 and "" or "s")
  end
  return "in " .. table.concat(parts, ", ")
end

-- a cell as text: nil/false → "", NULL (core.json.null) → "None" as nsys prints it, integers as
-- integers, formats from the column
local function cell(c, v)
  if v == nil or v == false then return "" end
  if v == core.json.null then return "None" end
  if type(c) == "table" and c.format and type(v) == "number" then return string.format(c.format, v) end
  if math.type(v) == "integer" then return string.format("%d", v) end
  if type(v) == "number" then
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%d", math.tointeger(v)) end
    for digits = 15, 17 do -- the shortest text that reads back as the same double (99.4, not 99.400000000000006)
      local s = string.format("%." .. digits .. "g", v)
      if digits == 17 or tonumber(s) == v then return s end
    end
  end
  return tostring(v)
end
M.cell = cell

local function csv_field(s)
  if s:find('[,"\r\n]') then return '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- CSV of one result: header + rows, "" when it has no rows (as nsys prints nothing then)
function M.csv(r)
  if r.error or r.skipped or #r.rows == 0 then return "" end
  local out, hdr = {}, {}
  for i, c in ipairs(r.columns) do hdr[i] = csv_field(col_name(c)) end
  out[1] = table.concat(hdr, ",")
  for _, row in ipairs(r.rows) do
    local f = {}
    for i, c in ipairs(r.columns) do f[i] = csv_field(cell(c, row[i])) end
    out[#out + 1] = table.concat(f, ",")
  end
  return table.concat(out, "\n") .. "\n"
end

local function status_line(r)
  if r.error then return "ERROR: " .. r.error end
  if r.skipped then return "SKIPPED: " .. r.skipped end
  return r.verdict
end
M.status_line = status_line

local function md_escape(s) return (s:gsub("|", "\\|"):gsub("\n", " ")) end

function M.format_md(results, input)
  local out = { "# Findings: " .. md_escape(input or "") .. "\n" }
  for _, r in ipairs(results) do
    out[#out + 1] = "\n## " .. r.name .. (r.description ~= "" and (" — " .. md_escape(r.description)) or "") .. "\n\n"
    out[#out + 1] = (r.error and "**ERROR**: " or r.skipped and "*Skipped*: " or ("**" .. (r.severity or "") .. "**: "))
      .. md_escape(r.error or r.skipped or r.verdict) .. "\n"
    local lines = gpu_time.lines(r.breakdown) -- busy/idle by its parts (docs/SEMANTICS.md)
    if lines then out[#out + 1] = "\n" .. md_escape(table.concat(lines, "; ")) .. " (docs/SEMANTICS.md)\n" end
    local st = M.steps_text(r)
    if st then out[#out + 1] = "\n" .. md_escape(st) .. "\n" end
    if not r.error and not r.skipped and #r.rows > 0 then
      local hdr, sep = {}, {}
      for i, c in ipairs(r.columns) do
        hdr[i] = md_escape(col_name(c))
        sep[i] = "---"
      end
      out[#out + 1] = "\n| " .. table.concat(hdr, " | ") .. " |\n| " .. table.concat(sep, " | ") .. " |\n"
      for _, row in ipairs(r.rows) do
        local f = {}
        for i, c in ipairs(r.columns) do f[i] = md_escape(cell(c, row[i])) end
        out[#out + 1] = "| " .. table.concat(f, " | ") .. " |\n"
      end
    end
  end
  return table.concat(out)
end

-- Human-readable columns (the default on a terminal): verdict, then an aligned table.
function M.format_text(results, max_rows)
  local out = {}
  for _, r in ipairs(results) do
    local tag = r.error and "ERROR" or r.skipped and "skipped" or (r.severity or "")
    out[#out + 1] = string.format("%s [%s] %s\n", r.name, tag, status_line(r):gsub("^ERROR: ", ""):gsub("^SKIPPED: ", ""))
    for _, l in ipairs(gpu_time.lines(r.breakdown) or {}) do -- busy/idle by its parts
      out[#out + 1] = "    " .. l .. "\n"
    end
    local st = M.steps_text(r) -- the steps the rows fall in
    if st then out[#out + 1] = "    " .. st .. "\n" end
    if not r.error and not r.skipped and #r.rows > 0 then
      local w, cells = {}, {}
      for i, c in ipairs(r.columns) do w[i] = #col_name(c) end
      local n = math.min(#r.rows, max_rows or #r.rows)
      for k = 1, n do
        cells[k] = {}
        for i, c in ipairs(r.columns) do
          local s = cell(c, r.rows[k][i]):gsub("%c", " ")
          if #s > 60 then s = s:sub(1, 57) .. "..." end
          cells[k][i] = s
          if #s > w[i] then w[i] = #s end
        end
      end
      local hdr = {}
      for i, c in ipairs(r.columns) do hdr[i] = string.format("%-" .. w[i] .. "s", col_name(c)) end
      out[#out + 1] = "    " .. table.concat(hdr, "  ") .. "\n"
      for k = 1, n do
        local f = {}
        for i, c in ipairs(r.columns) do
          local s = cells[k][i]
          local numeric = type(r.rows[k][i]) == "number"
          f[i] = string.format("%" .. (numeric and "" or "-") .. w[i] .. "s", s)
          if type(c) == "table" and c.align == "left" then f[i] = string.format("%-" .. w[i] .. "s", s) end
        end
        out[#out + 1] = "    " .. table.concat(f, "  ") .. "\n"
      end
      if n < #r.rows then out[#out + 1] = string.format("    ... %d more row(s)\n", #r.rows - n) end
    end
    out[#out + 1] = "\n"
  end
  return table.concat(out)
end

return M
