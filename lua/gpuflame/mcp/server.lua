-- The MCP server of `gpuflame mcp` (docs/MCP.md): JSON-RPC 2.0 over newline-delimited stdio. One request at
-- a time; while a tool works, the lines that arrive are read between its steps (gpuflame.mcp.toolkit's
-- progress): a ping is answered at once, notifications/cancelled for the running request stops it, anything
-- else waits its turn. Every reply is one line on the protocol stream; logs go to stderr.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local tools = require("gpuflame.mcp.tools")
local toolkit = require("gpuflame.mcp.toolkit")

local M = {}

-- The protocol versions gpuflame speaks, newest first: those of the official SDKs (the TypeScript SDK's
-- SUPPORTED_PROTOCOL_VERSIONS). A client asking for another one gets the newest.
M.VERSIONS = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07" }

M.PARSE_ERROR, M.INVALID_REQUEST, M.METHOD_NOT_FOUND, M.INVALID_PARAMS, M.INTERNAL = -32700, -32600, -32601,
  -32602, -32603

local Server = {}
Server.__index = Server

local NULL = core.json.null

-- a JSON object as core.json.decode gives it (arrays carry core.json.array's metatable)
local function is_object(v)
  return type(v) == "table" and getmetatable(v) == nil
end

-- new({roots = {dir...}, write = fn(line), reader = linein | nil}, ctx) → server
function M.new(opts, ctx)
  local s = setmetatable({ ctx = ctx, write_line = opts.write, reader = opts.reader, queue = {},
    cli_roots = opts.roots or {}, client_roots = nil, pending = {}, next_id = 0, initialized = false }, Server)
  s.tk_state = toolkit.state(s, ctx)
  return s
end

function Server:send(msg)
  msg.jsonrpc = "2.0"
  self.write_line(core.json.encode(msg))
end

function Server:reply(id, result) self:send({ id = id, result = result }) end

function Server:fail(id, code, message, data)
  self:send({ id = id == nil and NULL or id, error = { code = code, message = message, data = data } })
end

function Server:notify(method, params) self:send({ method = method, params = params }) end

-- Roots: the --root directories and, when the client offers roots, its file:// roots.
function Server:roots()
  local out = {}
  for _, r in ipairs(self.cli_roots) do out[#out + 1] = r end
  for _, r in ipairs(self.client_roots or {}) do out[#out + 1] = r end
  return out
end

local function uri_path(uri)
  if type(uri) ~= "string" then return nil end
  local p = uri:match("^file://[^/]*(/.*)$")
  if not p then return nil end
  return (p:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

function Server:ask_roots()
  self.next_id = self.next_id + 1
  local id = "gpuflame-roots-" .. self.next_id
  self.pending[id] = function(result, err)
    if err or type(result) ~= "table" or type(result.roots) ~= "table" then
      log.warn("mcp: the client's roots/list failed; only --root directories are readable")
      self.client_roots = {}
      return
    end
    local list = {}
    for _, r in ipairs(result.roots) do
      local p = type(r) == "table" and uri_path(r.uri)
      if p then list[#list + 1] = p else log.warn("mcp: ignoring a root that is not a file:// URI") end
    end
    self.client_roots = list
    log.info("mcp: client roots: %s", #list > 0 and table.concat(list, ", ") or "(none)")
  end
  self.roots_pending = id
  self:send({ id = id, method = "roots/list" })
end

-- A tool is about to read files while the client's roots are still being asked for: wait for them (other
-- messages are kept for later), at most a few seconds.
function Server:await_roots()
  local waited = 0
  while self.roots_pending and self.pending[self.roots_pending] and self.reader and waited < 50 do
    local line, why = self.reader:next(100)
    if line then self:route(line, true) elseif why == "eof" then break else waited = waited + 1 end
  end
  self:raise_cancel()
end

local function pick_version(asked)
  for _, v in ipairs(M.VERSIONS) do
    if v == asked then return v end
  end
  return M.VERSIONS[1]
end

local handlers = {}

function handlers.initialize(s, id, params)
  if type(params.protocolVersion) ~= "string" then
    return s:fail(id, M.INVALID_PARAMS, "initialize: params.protocolVersion must be a string")
  end
  s.client_caps = is_object(params.capabilities) and params.capabilities or {}
  if not is_object(s.client_caps.roots) then s.client_caps.roots = nil end -- roots offered: an object
  s.client_info = type(params.clientInfo) == "table" and params.clientInfo or {}
  s.version = pick_version(params.protocolVersion)
  log.info("mcp: initialize from %s (protocol %s, answering %s)", tostring(s.client_info.name or "?"),
    params.protocolVersion, s.version)
  s:reply(id, {
    protocolVersion = s.version,
    capabilities = { tools = { listChanged = false } },
    serverInfo = { name = "gpuflame", title = "gpuflame", version = core.host.version },
    instructions = "Tools over NVIDIA Nsight Systems captures (SQLite exports, .nsys-rep reports, gpuflame model " ..
      "files) under the server's roots. Times are integer nanoseconds. Long lists are paged: pass next_cursor " ..
      "back as cursor.",
  })
end

function handlers.ping(s, id) s:reply(id, {}) end

function handlers.tools_list(s, id, params)
  if params.cursor ~= nil and params.cursor ~= NULL then
    return s:fail(id, M.INVALID_PARAMS, "tools/list: unknown cursor (the list has one page)")
  end
  local list = {}
  for _, t in ipairs(tools.list()) do list[#list + 1] = tools.describe(t) end
  s:reply(id, { tools = core.json.array(list) })
end

function handlers.tools_call(s, id, params, meta)
  if type(params.name) ~= "string" then return s:fail(id, M.INVALID_PARAMS, "tools/call: params.name must be a string") end
  local args = params.arguments
  if args == nil or args == NULL then args = {} end
  if not is_object(args) then return s:fail(id, M.INVALID_PARAMS, "tools/call: params.arguments must be an object") end
  local tool, why = tools.find(params.name)
  if not tool then return s:fail(id, M.INVALID_PARAMS, why) end
  local bad = tools.check_args(tool, args)
  if bad then return s:fail(id, M.INVALID_PARAMS, string.format("%s: invalid arguments: %s", tool.name, bad)) end
  if s.client_caps and s.client_caps.roots then s:await_roots() end
  local token = type(meta) == "table" and meta.progressToken or nil
  if token ~= nil and type(token) ~= "string" and math.type(token) ~= "integer" then token = nil end
  s.running = { id = id, token = token, progress = 0 }
  local result, cancelled = toolkit.call(s.tk_state, tool, args, s.running)
  s.running = nil
  if cancelled then
    log.info("mcp: %s cancelled by the client", tool.name)
    return
  end
  s:reply(id, result)
end

local METHODS = { initialize = handlers.initialize, ping = handlers.ping, ["tools/list"] = handlers.tools_list,
  ["tools/call"] = handlers.tools_call }

-- Notifications the server acts on; others are ignored (a notification never gets a reply). Requests for
-- a capability the server does not declare (resources, prompts, logging) get "method not found".
local NOTIFICATIONS = {
  ["notifications/initialized"] = function(s)
    s.initialized = true
    if s.client_caps and s.client_caps.roots then s:ask_roots() end
  end,
  ["notifications/roots/list_changed"] = function(s)
    if s.client_caps and s.client_caps.roots then s:ask_roots() end
  end,
  ["notifications/cancelled"] = function() end, -- for a request that is no longer running: nothing to stop
}

local function valid_id(id)
  return type(id) == "string" or math.type(id) == "integer"
end

-- A message the client sent: a request, a notification or the answer to one of ours. Returns an error
-- reply's fields for a request that is not valid JSON-RPC.
function Server:dispatch(msg)
  if type(msg) == "table" and getmetatable(msg) ~= nil then
    return self:fail(nil, M.INVALID_REQUEST, "a batch (JSON array) is not supported: send one message per line")
  end
  if not is_object(msg) then return self:fail(nil, M.INVALID_REQUEST, "a message must be a JSON object") end
  local id = msg.id
  if id == NULL then id = nil end
  if id ~= nil and not valid_id(id) then
    return self:fail(nil, M.INVALID_REQUEST, "id must be a string or an integer")
  end
  if msg.jsonrpc ~= "2.0" then return self:fail(id, M.INVALID_REQUEST, "jsonrpc must be \"2.0\"") end
  if msg.method == nil then -- an answer to a request of ours
    local k = id ~= nil and self.pending[id]
    if k then
      self.pending[id] = nil
      if self.roots_pending == id then self.roots_pending = nil end
      k(msg.result, msg.error)
    end
    return
  end
  if type(msg.method) ~= "string" then return self:fail(id, M.INVALID_REQUEST, "method must be a string") end
  local params = msg.params
  if params == nil or params == NULL then params = {} end
  if not is_object(params) then
    if id == nil then return end
    return self:fail(id, M.INVALID_PARAMS, msg.method .. ": params must be an object")
  end
  if id == nil then
    local h = NOTIFICATIONS[msg.method]
    if h then h(self, params) else log.debug("mcp: ignoring notification %s", msg.method) end
    return
  end
  local h = METHODS[msg.method]
  if not h then return self:fail(id, M.METHOD_NOT_FOUND, "method not found: " .. msg.method) end
  local meta = type(params._meta) == "table" and params._meta or nil
  -- a ping answered while a tool works (route's early read) leaves the tool's call running; a tools/call
  -- that failed is no longer running
  local outer = self.running
  local ok, err = pcall(h, self, id, params, meta)
  self.running = outer
  if not ok then
    if self:interrupted(err) then return end
    local e = errors.wrap(err)
    log.error("mcp: %s: internal error: %s", msg.method, e.msg)
    self:fail(id, M.INTERNAL, "internal error: " .. e.msg)
  end
end

-- An error that is the interrupt: a signal (re-raised: the server stops) or the client's cancellation that
-- reached the hook after its call had ended (cleared: true).
function Server:interrupted(err)
  local e = errors.wrap(err)
  if e.code ~= errors.INTERRUPTED then return false end
  if self.cancelling then
    self.cancelling = false
    core.host.clear_interrupt()
    return true
  end
  if core.host.interrupted() ~= 0 then errors.reraise(e) end
  return false
end

-- route/dispatch under protection: whatever goes wrong in one message is that message's error reply.
function Server:safely(fn, ...)
  local ok, err = pcall(fn, self, ...)
  if ok or self:interrupted(err) then return end
  local e = errors.wrap(err)
  log.error("mcp: internal error: %s", e.msg)
  pcall(self.fail, self, nil, M.INTERNAL, "internal error: " .. e.msg)
end

-- One line from the client. early: read while a tool works or while roots are awaited: only pings,
-- cancellations and answers are handled now, the rest is queued.
function Server:route(line, early)
  if not line:find("[^ \t\r]") then return end
  local ok, msg = pcall(core.json.decode, line, "request")
  if not ok then
    return self:fail(nil, M.PARSE_ERROR, "parse error: " .. errors.wrap(msg).msg)
  end
  if early and type(msg) == "table" then
    local r = self.running
    if msg.method == "notifications/cancelled" and r and type(msg.params) == "table" and
      msg.params.requestId == r.id then
      r.cancelled = true
      self.cancelling = true
      self.cancel_pending = true -- the interrupt is raised once the lines read with this one are handled
      return
    end
    if msg.method == "ping" or msg.method == nil then return self:dispatch(msg) end
    self.queue[#self.queue + 1] = msg
    return
  end
  self:dispatch(msg)
end

-- The running call's cancellation, read by route: the interrupt raised (the running step, an nsys export,
-- stops; the hook raises exit 130). Not before the lines read with it are handled: a ping sent right after the
-- cancellation would be stopped by the hook as it is answered, and never get its answer.
function Server:raise_cancel()
  if self.cancel_pending then
    self.cancel_pending = nil
    core.host.set_interrupt()
  end
end

-- What arrived while a tool works, without waiting (toolkit.progress calls it between steps).
function Server:poll()
  if not self.reader then return end
  for _ = 1, 64 do
    local line, why = self.reader:next(0)
    if line then self:route(line, true)
    elseif why == "too long" then self:fail(nil, M.INVALID_REQUEST, "request longer than policy mcp.max_request_bytes")
    else
      if why == "eof" then self.eof = true end
      break
    end
  end
  self:raise_cancel()
end

-- A long step of the running call (an nsys export): a progress notification about once a second when the
-- request has a progressToken, and what the client sent meanwhile.
function Server:tick(text)
  local r = self.running
  if r and r.token ~= nil then
    local now = core.sys.now()
    if not r.last_tick or now - r.last_tick >= 1 then
      r.last_tick = now
      r.progress = r.progress + 1
      self:notify("notifications/progress", { progressToken = r.token, progress = r.progress, message = text })
    end
  end
  self:poll()
end

-- The loop: until stdin ends. Returns 0.
function Server:run()
  local max = self.ctx.policy().mcp.max_request_bytes
  while true do
    while #self.queue > 0 do self:safely(self.dispatch, table.remove(self.queue, 1)) end
    if self.eof then break end
    local line, why = self.reader:next(-1)
    if line then
      self:safely(self.route, line, false)
    elseif why == "too long" then
      self:fail(nil, M.INVALID_REQUEST, string.format("request longer than %d bytes (policy mcp.max_request_bytes)", max))
    elseif why == "eof" then
      break
    end
  end
  log.info("mcp: the client closed stdin; stopping")
  return 0
end

return M
