-- Helpers for findings rules (lua/rules/*.lua, and rules users drop on the search path): nsys's fixed
-- tables and messages, units and short verdict text. Nothing here loops over events.
local gpu_time = require("gpuflame.gpu_time")
local K = {}

-- An SQL NULL in a row: nsys prints it as None (its rows go through Python's str()); JSON null.
K.NULL = require("gpuflame.core").json.null

-- memory kind name, or NULL for a NULL or unknown id (nsysstats.py's LEFT JOIN on MemKindStrs)
function K.mem_kind(id)
  local n = id ~= nil and K.MEM_KIND[id]
  if n then return n end
  return K.NULL
end

-- nsysstats.py MEM_KIND_STRS_CTE (ENUM_CUDA_MEM_KIND ids); other ids print as an empty cell (NULL)
K.MEM_KIND = { [0] = "Pageable", [1] = "Pinned", [2] = "Device", [3] = "Array", [4] = "Managed",
  [5] = "Device Static", [6] = "Managed Static", [7] = "Unknown" }

-- nsys's SKIPPED messages ({DBFILE} = the export's file name)
K.NEEDS = {
  runtime = "%s could not be analyzed because it does not contain the required CUDA data." ..
    " Does the application use CUDA runtime APIs?",
  memcpy = "%s could not be analyzed because it does not contain the required CUDA data." ..
    " Does the application use CUDA memcpy APIs?",
  memset = "%s could not be analyzed because it does not contain the required CUDA data." ..
    " Does the application use CUDA memset APIs?",
  kernel = "%s could not be analyzed because it does not contain CUDA kernel data.",
  gpu = "%s could not be analyzed because it does not contain the required data." ..
    " Does the application launch GPU operations?",
}

-- need(model, {"runtime", "memcpy"}) → the SKIPPED message of the first table the export lacks, or nil.
-- "gpu" = any GPU work table (kernel, memcpy, memset; nsys also counts Vulkan/OpenGL/DX12 work).
function K.need(model, tables)
  for _, t in ipairs(tables) do
    local have
    if t == "gpu" then
      local tb = model.tables
      have = tb.kernel or tb.memcpy or tb.memset or tb.vulkan or tb.opengl or tb.dx12
    else
      have = model.tables[t]
    end
    if not have then return string.format(K.NEEDS[t] or "%s has no " .. t .. " data.", model.source) end
  end
  return nil
end

-- Vulkan/OpenGL/DX12 GPU work is in nsys's GPU operation table but not in gpuflame's model.
function K.other_apis_note(model)
  local tb, names = model.tables, {}
  if tb.vulkan then names[#names + 1] = "VULKAN_WORKLOAD" end
  if tb.opengl then names[#names + 1] = "OPENGL_WORKLOAD" end
  if tb.dx12 then names[#names + 1] = "DX12_WORKLOAD" end
  if #names == 0 then return "" end
  return " (not analysed: " .. table.concat(names, ", ") .. ")"
end

-- 1234567 → "1.23 ms"
function K.dur(ns)
  if ns == nil then return "?" end
  local a = math.abs(ns)
  if a >= 1e9 then return string.format("%.2f s", ns / 1e9) end
  if a >= 1e6 then return string.format("%.2f ms", ns / 1e6) end
  if a >= 1e3 then return string.format("%.1f µs", ns / 1e3) end
  return string.format("%d ns", ns)
end

function K.bytes(b)
  if b >= 1e9 then return string.format("%.2f GB", b / 1e9) end
  if b >= 1e6 then return string.format("%.2f MB", b / 1e6) end
  if b >= 1e3 then return string.format("%.1f kB", b / 1e3) end
  return string.format("%d B", b)
end

-- breakdown(model, win) → the devices' time breakdown as a finding's `breakdown` field (gpuflame.gpu_time
-- document: every part by name, per device, in ns and as shares of the span), for a rule that speaks of
-- busy, idle or utilization: the findings panels show it beside the verdict (docs/SEMANTICS.md)
function K.breakdown(model, win)
  return gpu_time.document(K.device_times(model, win), model.policy)
end

-- device_times(model, win) → rows, capture: gpu_time.breakdown of the model's trace in that window (nil:
-- all), computed once per model and window: five rules ask for the same whole-capture breakdown, each a
-- pass over every event. The rows are copies, so a rule may change its own.
local times_memo = setmetatable({}, { __mode = "k" })
function K.device_times(model, win)
  local memo = times_memo[model]
  if not memo then memo = {}; times_memo[model] = memo end
  local key = win and string.format("%d:%d:%d:%d", win.start, win["end"], win.pid or -1, win.tid or -1) or ""
  if not memo[key] then
    memo[key] = table.pack(gpu_time.breakdown(model.trace, win, nil, model.policy))
  end
  local rows, cap = {}, {}
  for i, r in ipairs(memo[key][1]) do
    rows[i] = {}
    for k, v in pairs(r) do rows[i][k] = v end
  end
  for k, v in pairs(memo[key][2]) do cap[k] = v end
  return rows, cap
end

function K.pct(a, b)
  if not b or b <= 0 then return 0 end
  return 100 * a / b
end

function K.plural(n, one, many)
  return string.format("%d %s", n, n == 1 and one or (many or one .. "s"))
end

-- the verb for a count: K.verb(1, "blocks", "block") → "blocks"
function K.verb(n, one, many)
  return n == 1 and one or many
end

-- "only the first N rows are shown" suffix when a row limit cut the list
function K.cut(shown, total)
  if total and total > shown then return string.format(" (%d shown)", shown) end
  return ""
end

-- " (longest 1.2 ms)" for a verdict, from the first (longest) item; "" when nothing is listed
function K.longest(items)
  return items[1] and (" (longest " .. K.dur(items[1].dur) .. ")") or ""
end

local COPY_COLUMNS = {
  memcpy = { "Duration (ns)", "Start (ns)", "Src Kind", "Dst Kind", { name = "Bytes (MB)", format = "%.3f" },
    "PID", "Device ID", "Context ID", "Stream ID", "API Name" },
  memset = { "Duration (ns)", "Start (ns)", "Memory Kind", { name = "Bytes (MB)", format = "%.3f" }, "PID",
    "Device ID", "Context ID", "Stream ID", "API Name" },
}

local function copy_row(kind, c)
  local mb = c.bytes and c.bytes / 1e6
  if kind == "memset" then
    return { c.dur, c.start, K.mem_kind(c.mem_kind), mb, c.pid, c.device, c.context, c.stream, c.name }
  end
  return { c.dur, c.start, K.mem_kind(c.src_kind), K.mem_kind(c.dst_kind), mb, c.pid, c.device, c.context,
    c.stream, c.name }
end

-- A rule over memory operations joined to their runtime call (nsys's cuda-*-memcpy/memset rules): spec has
-- the rule's name, description, nsys, options, kind ("memcpy" or "memset"), query(opts) (model:copies's
-- query less kind and limit), clean (the verdict when nothing is found), verdict(items, sum, shown) and
-- advice. The rows and columns are nsys's for the kind.
function K.copy_rule(spec)
  return {
    name = spec.name,
    description = spec.description,
    nsys = spec.nsys,
    options = spec.options,
    run = function(model, opts)
      local skip = K.need(model, { "runtime", spec.kind })
      if skip then return { skipped = skip } end
      local win, why = model:window(opts)
      if why then return { skipped = why } end
      local query = spec.query(opts)
      query.kind, query.limit = spec.kind, opts.rows
      local items, sum = model:copies(win, query)
      local rows = {}
      for i, c in ipairs(items) do rows[i] = copy_row(spec.kind, c) end
      return {
        columns = COPY_COLUMNS[spec.kind],
        rows = rows,
        total_rows = sum.count,
        verdict = sum.count == 0 and spec.clean or spec.verdict(items, sum, #rows),
        severity = sum.count > 0 and "warning" or "ok",
        stake_ns = sum.total, -- the copies' time: they run synchronously (gpuflame.findings top)
        advice = spec.advice,
      }
    end,
  }
end

return K
