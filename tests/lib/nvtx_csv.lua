-- Edits copies of nsys NVTX CSV reports for the analyze tests (read with core.csv, written RFC 4180).
-- As a module: local E = dofile(".../nvtx_csv.lua"); E.edit(path, {{"rename", "3", ":x"}, {"drop", "5"}}).
-- As a script (`gpuflame run tests/lib/nvtx_csv.lua FILE OP ARGS [+ OP ARGS]...`), the same operations:
--   rename RID NAME | set RID COLUMN VALUE | drop RID | dup RID [NEW_RID] | dropcol COLUMN... |
--   prepend RAWLINE | crlf | headeronly
local core = require("gpuflame.core")

local E = {}

local function quote(v)
  if v:find('[",\r\n]') then return '"' .. v:gsub('"', '""') .. '"' end
  return v
end

function E.load(path)
  local r = core.csv.open(path, { allow_short_rows = true })
  local header, rows = r:columns(), {}
  while r:next() do rows[#rows + 1] = r:row() end
  r:close()
  return header, rows
end

function E.save(path, header, rows, eol)
  eol = eol or "\n"
  local out = {}
  local function line(t)
    local q = {}
    for i = 1, #header do q[i] = quote(t[i] or "") end
    out[#out + 1] = table.concat(q, ",") .. eol
  end
  line(header)
  for _, r in ipairs(rows) do line(r) end
  core.fs.write_atomic(path, table.concat(out))
end

local function col(header, name)
  for i, h in ipairs(header) do if h == name then return i end end
  error("no column " .. name)
end

local function one(path, op, a)
  if op == "crlf" then
    local t = core.fs.read(path):gsub("\r\n", "\n"):gsub("\n", "\r\n")
    core.fs.write_atomic(path, t)
    return
  elseif op == "headeronly" then
    core.fs.write_atomic(path, core.fs.read(path):match("^[^\n]*\n"))
    return
  elseif op == "prepend" then
    local t = core.fs.read(path)
    local h, rest = t:match("^([^\n]*\n)(.*)$")
    core.fs.write_atomic(path, h .. a[1] .. "\n" .. rest)
    return
  end
  local header, rows = E.load(path)
  if op == "dropcol" then
    local drop = {}
    for _, c in ipairs(a) do drop[c] = true end
    local keep = {}
    for i, h in ipairs(header) do if not drop[h] then keep[#keep + 1] = i end end
    local nh, nr = {}, {}
    for k, i in ipairs(keep) do nh[k] = header[i] end
    for j, r in ipairs(rows) do
      nr[j] = {}
      for k, i in ipairs(keep) do nr[j][k] = r[i] end
    end
    E.save(path, nh, nr)
    return
  end
  local rid = col(header, "RangeId")
  local at
  for i, r in ipairs(rows) do if r[rid] == a[1] then at = i; break end end
  if not at then error("no row with RangeId " .. a[1]) end
  if op == "rename" then
    rows[at][col(header, "Name")] = a[2]
  elseif op == "set" then
    rows[at][col(header, a[2])] = a[3]
  elseif op == "drop" then
    table.remove(rows, at)
  elseif op == "dup" then
    local c = table.move(rows[at], 1, #header, 1, {})
    if a[2] then c[rid] = a[2] end
    rows[#rows + 1] = c
  else
    error("unknown operation " .. op)
  end
  E.save(path, header, rows)
end

-- edit(path, {{op, args...}, ...})
function E.edit(path, ops)
  for _, o in ipairs(ops) do one(path, o[1], table.move(o, 2, #o, 1, {})) end
end

local argv = { ... }
if #argv >= 2 and type(argv[1]) == "string" and argv[1] ~= "nvtx_csv" then
  local ops, cur = {}, {}
  for i = 2, #argv do
    if argv[i] == "+" then ops[#ops + 1] = cur; cur = {} else cur[#cur + 1] = argv[i] end
  end
  ops[#ops + 1] = cur
  E.edit(argv[1], ops)
  return 0
end
return E
