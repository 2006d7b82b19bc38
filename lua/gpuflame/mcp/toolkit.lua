-- What an MCP tool is given (tk, docs/MCP.md "Adding a tool"): its inputs checked against the roots, the
-- same loaders the CLI commands use (a Trace, a stats report's rows, the export cache), paging, progress and
-- tool errors; and toolkit.call, which runs one tool call and bounds its result (policy mcp).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local cli = require("gpuflame.cli")
local inputs = require("gpuflame.inputs")
local side = require("gpuflame.inputs.side")
local model = require("gpuflame.model")
local ranks = require("gpuflame.ranks")
local stats = require("gpuflame.stats")
local trace = require("gpuflame.trace")

local M = {}

local TOOL_ERROR = "gpuflame.mcp.tool_error"

-- state(server, ctx) → the server's toolkit state: its scratch directory (removed by close).
function M.state(server, ctx)
  return { server = server, ctx = ctx }
end

function M.close(st)
  if st.tmp then pcall(core.fs.remove_tree, st.tmp) end
  st.tmp = nil
end

local function scratch(st)
  if not st.tmp then st.tmp = core.fs.mkdtemp("/tmp/gpuflame-mcp-") end
  return st.tmp
end

-- ---- the roots rule -------------------------------------------------------------------------------------

local function under(path, root)
  return path == root or path:sub(1, #root + 1) == root .. "/" or root == "/"
end

-- resolve(path, roots) → the real path of a file or directory under one of the roots, or nil and why (the
-- message names the rule).
function M.resolve(path, roots)
  if type(path) ~= "string" or path == "" then return nil, "a path must be a non-empty string" end
  if path:find("%z") then return nil, "refused by the roots rule: the path contains a NUL byte" end
  for part in path:gmatch("[^/]+") do
    if part == ".." then
      return nil, string.format("refused by the roots rule: %s contains '..' (paths may not climb out of a root)", path)
    end
  end
  if #roots == 0 then
    return nil, "refused by the roots rule: the server has no roots (start it with --root DIR, or use a client " ..
      "that offers roots)"
  end
  local real_roots, names = {}, {}
  for i, r in ipairs(roots) do
    real_roots[i] = core.fs.realpath(r)
    names[i] = r
  end
  local candidates = {}
  if path:sub(1, 1) == "/" then candidates[1] = path
  else for i, r in ipairs(roots) do candidates[i] = r:gsub("/+$", "") .. "/" .. path end end
  local found
  for _, c in ipairs(candidates) do
    local real = core.fs.realpath(c)
    if real then
      for _, rr in ipairs(real_roots) do
        if rr and under(real, rr) then return real end
      end
      found = found or { c, real }
    end
  end
  if not found then return nil, string.format("%s: no such file under the roots (%s)", path, table.concat(names, ", ")) end
  local lexical = false
  for _, r in ipairs(roots) do if under(found[1], (r:gsub("/+$", ""))) then lexical = true end end
  if lexical then
    return nil, string.format("refused by the roots rule: %s leads through a symlink to %s, outside the roots (%s)",
      path, found[2], table.concat(names, ", "))
  end
  return nil, string.format("refused by the roots rule: %s is outside the roots (%s)", path, table.concat(names, ", "))
end

-- ---- the toolkit of one call -------------------------------------------------------------------------

local Tk = {}
Tk.__index = Tk

-- tk.fail(fmt, ...): ends the call with a tool error (isError: the model reads the message).
function Tk.fail(_, fmt, ...)
  error(setmetatable({ msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt }, { __name = TOOL_ERROR }), 0)
end

function Tk:policy() return self.ctx.policy() end

-- tk:scratch() → the server's private scratch directory (removed when it stops)
function Tk:scratch() return scratch(self.st) end

-- tk:may_run(what): a tool that would run a program other than nsys export asks first (policy mcp.run_programs).
function Tk:may_run(what)
  if not self:policy().mcp.run_programs then
    self:fail("refused: running %s needs policy mcp.run_programs = true (off by default)", what)
  end
end

-- tk:progress(message): a progress notification when the request asked for them (a progressToken), and a
-- look at what the client sent meanwhile (a cancellation stops the call at the next step).
function Tk:progress(message)
  local r = self.run
  if r.token ~= nil then
    r.progress = r.progress + 1
    self.st.server:notify("notifications/progress", { progressToken = r.token, progress = r.progress,
      message = message })
  end
  self.st.server:poll()
end

-- tk:input(path) → the real path of an input under the roots (else a tool error naming the rule), and
-- what it is (gpuflame.inputs.detect). A directory is refused unless allow_dir: a tool that takes one checks
-- the files it leads to (tk:dir_files, tk:dir_capture) with this rule again.
function Tk:input(path, what, allow_dir)
  local real, why = M.resolve(path, self.st.server:roots())
  if not real then self:fail("%s%s", what and (what .. ": ") or "", why) end
  local st = core.fs.stat(real)
  if st and st.type == "directory" then
    if not allow_dir then self:fail("%s%s is a directory: give a capture file (an export, a report, a model file)",
      what and (what .. ": ") or "", path) end
    return real, { type = "directory" }
  end
  local info = inputs.detect(real)
  if (info.type == "nsys-rep") and not self:policy().mcp.export_reports then
    self:fail("refused: %s is a report and policy mcp.export_reports is false (give its SQLite export)", path)
  end
  return real, info
end

-- tk:dir_files(dir) → the reports a directory holds (as `run rank-skew DIR` finds them), each checked
-- against the roots (a symlink in the directory leading out is refused)
function Tk:dir_files(dir)
  local out = {}
  for i, f in ipairs(ranks.expand({ dir })) do out[i] = (self:input(f, dir)) end
  return out
end

-- tk:dir_capture(dir) → the file of a capture directory `diff` reads (its summary.json's artifacts first),
-- checked against the roots (an artifact path leading out is refused)
function Tk:dir_capture(dir)
  return (self:input(side.pick_from_dir(dir), dir))
end

local function exporting(tk, real, info)
  if info.type == "nsys-rep" then
    tk:progress("the SQLite export of " .. real .. " (nsys export once, then the export cache shared with the CLI)")
  end
end

-- tk:trace(path) → the whole Trace of an input (every event), as `findings` and `diff` load it.
function Tk:trace(path)
  local real, info = self:input(path)
  exporting(self, real, info)
  self:progress("importing " .. real)
  local tr = trace.load({ real }, { max_events = 0 }, self:policy())
  self:progress("imported " .. real)
  return tr, real
end

-- tk:export(path) → the SQLite export of an input for the stats reports (a model file: its tables), as
-- `gpuflame stats` finds it.
function Tk:export(path)
  local real, info = self:input(path)
  if info.type == "nsys-rep" then
    exporting(self, real, info)
    return (stats.export_for(real, { cleanup = self.ctx.cleanup }, self:policy())), real
  elseif info.type == "model" then
    return model.stats_db(real, self.ctx.cleanup), real
  elseif info.type ~= "sqlite" then
    self:fail("%s: a %s is not an nsys export (give an SQLite export, an .nsys-rep or a gpuflame model file)", path,
      inputs.describe(info))
  end
  return real, real
end

-- tk:stats(path, report) → the rows of `gpuflame stats -r REPORT -f json INPUT` (a list of objects), or nil
-- and why when the export lacks the report's tables.
function Tk:stats(path, report)
  local db = self:export(path)
  local out = scratch(self.st) .. "/stats.json"
  local res = stats.write(db, { report }, { paths = { [report] = out }, format = "json" }, self:policy())
  if res[1].skipped then return nil, res[1].skipped end
  local text = core.fs.read(out)
  os.remove(out)
  if text == "" then return core.json.array({}) end
  return core.json.decode(text, report)
end

-- tk:page(list, args) → the page of list that args.cursor and args.limit ask for, and the cursor of the
-- next page (nil at the end). A cursor is the opaque string a previous page gave.
function Tk:page(list, args)
  local p = self:policy().mcp
  local limit = args.limit or p.page_size
  if limit > p.max_page_size then self:fail("limit %d is over policy mcp.max_page_size (%d)", limit, p.max_page_size) end
  local from = 0
  if args.cursor ~= nil then
    from = tonumber(type(args.cursor) == "string" and args.cursor:match("^gf1:(%d+)$") or nil)
    if not from or from > #list then self:fail("invalid cursor %q (pass back a next_cursor this tool gave)", tostring(args.cursor)) end
  end
  local out = core.json.array({})
  for i = from + 1, math.min(#list, from + limit) do out[#out + 1] = list[i] end
  local nxt = from + limit < #list and ("gf1:" .. (from + limit)) or nil
  return out, nxt, #list
end

-- ---- one call -------------------------------------------------------------------------------------------

-- The longest list reachable from v (depth <= 4): {parent, key, length, path}.
local function longest(v, path, depth, best)
  if type(v) ~= "table" or depth > 4 then return best end
  if #v > 1 and (not best or #v > best.n) then
    best = { parent = nil, list = v, n = #v, path = path }
  end
  for k, x in pairs(v) do
    if type(x) == "table" then best = longest(x, path .. (type(k) == "number" and ("[" .. k .. "]") or ("." .. k)), depth + 1, best) end
  end
  return best
end

-- bound(result, max) → text: the result's JSON, its longest lists halved until it fits in max bytes (the
-- result then says truncated = true and a note names what was cut).
function M.bound(result, max)
  local text = core.json.encode(result)
  local cut = {}
  for _ = 1, 64 do
    if #text <= max then break end
    local b = longest(result, "", 0, nil)
    if not b then break end
    local keep = b.n // 2
    for i = b.n, keep + 1, -1 do b.list[i] = nil end
    cut[b.path] = true
    result.truncated = true
    local names = {}
    for k in pairs(cut) do names[#names + 1] = k:gsub("^%.", "") end
    table.sort(names)
    result.note = string.format("cut to policy mcp.max_result_bytes (%d bytes): %s shortened; ask for smaller " ..
      "pages (limit) or fewer rows", max, table.concat(names, ", "))
    text = core.json.encode(result)
  end
  if #text > max then
    return nil, string.format("the result is over policy mcp.max_result_bytes (%d bytes) even with its lists cut", max)
  end
  return text
end

local function tool_result(text, structured)
  return { content = core.json.array({ { type = "text", text = text } }), structuredContent = structured }
end

local function tool_error(msg)
  return { content = core.json.array({ { type = "text", text = msg } }), isError = true }
end

-- call(st, tool, args, run) → the tools/call result, or nil, true when the client cancelled the call.
function M.call(st, tool, args, run)
  local ctx = cli.context(st.ctx.globals, st.ctx.policy())
  ctx.cleanup = {}
  local tk = setmetatable({ st = st, ctx = ctx, run = run, args = args }, Tk)
  local ok, res = xpcall(tool.run, function(e)
    if type(e) == "table" then return e end
    return { msg = tostring(e), trace = debug.traceback(tostring(e), 2) }
  end, args, tk, ctx)
  if run.cancelled then -- first: the interrupt the cancellation set must not reach the hook again
    core.host.clear_interrupt()
    st.server.cancelling = false
  end
  inputs.cleanup(ctx)
  if run.cancelled then return nil, true end
  if not ok then
    local mt = getmetatable(res)
    if mt and mt.__name == TOOL_ERROR then return tool_error(res.msg) end
    local e = errors.wrap(res)
    if e.code == errors.INTERRUPTED then errors.reraise(e) end -- a signal: the server stops
    if res.trace then log.debug("%s", res.trace) end
    log.warn("mcp: %s failed: %s", tool.name, e.msg)
    return tool_error(string.format("%s failed: %s", tool.name, e.msg))
  end
  if type(res) ~= "table" or getmetatable(res) ~= nil then
    return tool_error(tool.name .. " failed: its run returned no object")
  end
  local text, why = M.bound(res, st.ctx.policy().mcp.max_result_bytes)
  if not text then return tool_error(tool.name .. ": " .. why) end
  return tool_result(text, res)
end

return M
