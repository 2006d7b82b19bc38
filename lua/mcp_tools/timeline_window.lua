-- MCP tool timeline_window: the events of a capture that start inside a time window (the Trace the timeline
-- page is made from: CUDA calls, kernels, copies, memsets, syncs, NVTX ranges, CPU samples), in start order,
-- paged.
local common = require("gpuflame.mcp.common")

-- the first event (1-based) starting at or after t; the Trace is sorted by start
local function first_at(tr, t)
  local lo, hi = 1, tr:count() + 1
  while lo < hi do
    local mid = (lo + hi) // 2
    if tr:event(mid).start < t then lo = mid + 1 else hi = mid end
  end
  return lo
end

return {
  name = "timeline_window",
  title = "Events in a time window",
  description = "The events of a capture that start in [start_ns, end_ns) on the capture's clock (as in the " ..
    "timeline): kind (kernel, memcpy, memset, cuda_api, sync, nvtx, osrt, cpu_sample, cpu_running), name, " ..
    "start_ns, dur_ns, lane, pid; " ..
    "in start order, paged with limit/cursor. kinds filters by kind. The result gives the capture's first and " ..
    "last event times.",
  inputSchema = {
    type = "object",
    properties = {
      input = common.input_schema,
      start_ns = { type = "integer", minimum = 0 },
      end_ns = { type = "integer", minimum = 0 },
      kinds = { type = "array", maxItems = 32, items = { type = "string", enum = { "kernel", "memcpy", "memset",
        "cuda_api", "sync", "nvtx", "osrt", "cpu_sample", "cpu_running" } }, description = "only these kinds" },
      limit = common.limit_schema,
      cursor = common.cursor_schema,
    },
    required = { "input", "start_ns", "end_ns" },
    additionalProperties = false,
  },
  outputSchema = {
    type = "object",
    properties = {
      input = { type = "string" },
      events = { type = "array", items = { type = "object", properties = { kind = { type = "string" },
        name = { type = "string" }, start_ns = { type = "integer" }, dur_ns = { type = "integer" } } } },
      total = { type = "integer" },
      first_ns = { type = "integer" },
      last_ns = { type = "integer" },
      next_cursor = { type = "string" },
    },
    required = { "input", "events", "total" },
  },
  run = function(args, tk)
    if args.end_ns < args.start_ns then tk:fail("end_ns (%d) is before start_ns (%d)", args.end_ns, args.start_ns) end
    local tr = tk:trace(args.input)
    local n = tr:count()
    local lanes = tr:lanes()
    local want
    if args.kinds and #args.kinds > 0 then
      want = {}
      for _, k in ipairs(args.kinds) do want[k] = true end
    end
    local idx = {}
    for i = first_at(tr, args.start_ns), n do
      local e = tr:event(i)
      if e.start >= args.end_ns then break end
      if not want or want[e.kind] then idx[#idx + 1] = i end
      if #idx > 1000000 then tk:fail("more than 1,000,000 events in the window: ask for a narrower one") end
    end
    local page, nxt, total = tk:page(idx, args)
    local events = common.array({})
    for k, i in ipairs(page) do
      local e = tr:event(i)
      local lane = lanes[e.lane]
      events[k] = { kind = e.kind, name = e.name, start_ns = e.start, dur_ns = e.dur, pid = e.pid,
        lane = lane and lane.label or nil, corr = e.corr >= 0 and e.corr or nil, bytes = e.bytes, grid = e.grid,
        block = e.block }
    end
    local first = n > 0 and tr:event(1).start or nil
    return { input = args.input, events = events, total = total, first_ns = first, next_cursor = nxt,
      last_ns = n > 0 and tr:event(n).start or nil }
  end,
}
