-- Pieces the bundled MCP tools share (lua/mcp_tools/*.lua): argument schemas, the stats rows in the tools'
-- field names, and the range × kernel sums of a capture.
local core = require("gpuflame.core")

local M = {}

M.input_schema = { type = "string", minLength = 1, maxLength = 4096,
  description = "a capture under the server's roots: an nsys SQLite export, an .nsys-rep/.qdrep report (exported " ..
    "once through nsys into the export cache) or a gpuflame model file; relative paths are taken from each root" }
M.limit_schema = { type = "integer", minimum = 1, description = "rows per page (default policy mcp.page_size)" }
M.cursor_schema = { type = "string", maxLength = 64, description = "next_cursor of the previous page" }

function M.array(t) return core.json.array(t) end

-- paged_steps(doc, args, tk) → a command's JSON document (steps, critical-path) as a tool's result: its fields,
-- the input as asked, and its steps cut to the page args.limit/args.cursor ask for (next_cursor, total)
function M.paged_steps(doc, args, tk)
  local out = {}
  for k, v in pairs(doc) do out[k] = v end
  out.input = args.input
  out.steps, out.next_cursor, out.total = tk:page(doc.steps, args)
  return out
end

-- a cuda_gpu_kern_sum row (`stats -f json`) in the tools' names
function M.kernel_row(r)
  return { name = r["Name"], total_ns = r["Total Time (ns)"], instances = r["Instances"], time_pct = r["Time (%)"],
    avg_ns = r["Avg (ns)"], med_ns = r["Med (ns)"], min_ns = r["Min (ns)"], max_ns = r["Max (ns)"],
    stddev_ns = r["StdDev (ns)"] }
end

-- an nvtx_sum row in the tools' names
function M.range_row(r)
  return { range = r["Range"], style = r["Style"], total_ns = r["Total Time (ns)"], instances = r["Instances"],
    time_pct = r["Time (%)"], avg_ns = r["Avg (ns)"], med_ns = r["Med (ns)"], min_ns = r["Min (ns)"],
    max_ns = r["Max (ns)"], stddev_ns = r["StdDev (ns)"] }
end

-- range_kernels(tk, input) → {{nvtx_path, kernel, total_ns}} by total_ns (largest first): the hierarchical GPU
-- stacks of the capture with the levels nvtx and kernel (`gpuflame collapse` with policy flamegraph.levels =
-- {"nvtx", "kernel"}: the same stacks and ns). GPU work outside any range has the path "".
function M.range_kernels(tk, input)
  local tr = tk:trace(input)
  local pol = tk:policy()
  local stacks = core.stacks.new()
  core.trace_flame.stacks(tr, stacks, { levels = { "nvtx", "kernel" }, startend = pol.flamegraph.nvtx_startend,
    nolaunch = pol.flamegraph.nolaunch_frame })
  local path = tk:scratch() .. "/range_kernels.folded"
  stacks:write_folded(path)
  local text = core.fs.read(path)
  os.remove(path)
  local out = {}
  for line in text:gmatch("[^\n]+") do
    local frames, count = line:match("^(.*) (%d+)$")
    if frames then
      local rng, leaf = frames:match("^(.*);([^;]*)$")
      out[#out + 1] = { nvtx_path = rng or "", kernel = leaf or frames, total_ns = math.tointeger(tonumber(count)) }
    end
  end
  table.sort(out, function(a, b)
    if a.total_ns ~= b.total_ns then return a.total_ns > b.total_ns end
    if a.nvtx_path ~= b.nvtx_path then return a.nvtx_path < b.nvtx_path end
    return a.kernel < b.kernel
  end)
  return out
end

return M
