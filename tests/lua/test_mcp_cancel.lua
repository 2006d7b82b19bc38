-- The MCP server's reads while a tool works (gpuflame.mcp.server poll): a cancellation of the running call and a
-- ping read in the same batch. The ping is answered before the cancellation raises the interrupt: raised first,
-- the interrupt hook could stop the ping as it is answered, and the client waited for its answer until it gave up
-- (a test_mcp_sdk.mjs run: "MCP error -32001: Request timed out" after an aborted call). The interrupt is raised
-- once the batch is handled, and a ping answered early leaves the running call's record in place, so a later
-- cancellation still finds it. A server with a stand-in reader and writer; no process, no tool runs.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local server = require("gpuflame.mcp.server")
local policy = require("gpuflame.policy").defaults()

-- a reader of these lines, all readable at once (next(0) returns them one by one, then "timeout")
local function reader(lines)
  local k = 0
  return { next = function()
    k = k + 1
    if lines[k] then return lines[k] end
    return nil, "timeout"
  end }
end

local function line(msg) msg.jsonrpc = "2.0"; return core.json.encode(msg) end

local written, flag_when_written = {}, {}
local ctx = { policy = function() return policy end }
local s = server.new({ write = function(l)
  written[#written + 1] = core.json.decode(l)
  flag_when_written[#flag_when_written + 1] = core.host.interrupted()
end, reader = reader({
  line({ method = "notifications/cancelled", params = { requestId = 7 } }),
  line({ id = 8, method = "ping" }),
}) }, ctx)
core.host.clear_interrupt()
local run = { id = 7, progress = 0 }
s.running = run
local ok, err = pcall(s.poll, s)
t.check("the batch read while call 7 runs is handled without an error", ok, err)
t.eq("the ping read with the cancellation is answered", 1, #written)
t.eq("... as ping 8", 8, written[1] and written[1].id)
t.eq("... before the interrupt is raised (the hook cannot stop its answer)", 0, flag_when_written[1])
t.check("the call is marked cancelled", run.cancelled == true)
t.check("the interrupt is raised once the batch is handled (the call's running step stops)",
  core.host.interrupted() ~= 0)
core.host.clear_interrupt()
s.cancelling = false

-- a ping answered while a call runs leaves the call's record: a cancellation after it still finds the call
local run2 = { id = 9, progress = 0 }
s.running = run2
s.reader = reader({ line({ id = 10, method = "ping" }) })
s:poll()
t.check("after a ping answered early, the running call is still the server's", s.running == run2)
s.reader = reader({ line({ method = "notifications/cancelled", params = { requestId = 9 } }) })
s:poll()
t.check("... and a cancellation read later stops it", run2.cancelled == true and core.host.interrupted() ~= 0)
core.host.clear_interrupt()
os.exit(t.done())
