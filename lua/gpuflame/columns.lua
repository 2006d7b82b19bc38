-- Column alias tables for nsys stats CSVs (docs/spec/NSYS.md §6.2-6.3). C never guesses a column: Lua picks
-- the index here and hands it to the C reader, so a renamed column is a one-line change in this file
-- (or in a policy: policy.columns[report][key] = {...} is consulted first, see columns.spec).
--
-- A column spec is { exact = {names, in order of preference}, contains_all = {{"total","ns"}, ...},
-- contains = {"time", ...}, fallback = "last" }: exact names compare trimmed and case-insensitively;
-- then substring rules, first header (left to right) that matches wins.
local errors = require("gpuflame.errors")
local need = require("gpuflame.policy").need

local columns = {}

local NAME = { exact = { "Name", "Kernel Name", "Kernel" }, fallback = "last" }
-- gProfiler's weight rule (docs/spec/STUDIO.md §6.5)
local TOTAL = { exact = { "Total Time (ns)", "Total Time(ns)", "Total (ns)", "Time (ns)" },
  contains_all = { { "total", "ns" } }, contains = { "time" } }

columns.reports = {
  cuda_gpu_kern_sum = { name = NAME, total = TOTAL,
    instances = { exact = { "Instances", "Count", "Num Calls" } } },
  cuda_api_sum = { name = NAME, total = TOTAL,
    calls = { exact = { "Num Calls", "Calls", "Count", "Instances" } } },
  cuda_gpu_trace = {
    start = { exact = { "Start (ns)", "Start Time (ns)", "Start" }, contains = { "start" } },
    duration = { exact = { "Duration (ns)", "Duration" }, contains = { "duration" } },
    name = { exact = { "Name", "Kernel Name", "Kernel" } },
    corr = { exact = { "CorrId", "CorrID", "Correlation ID" }, contains = { "corrid" } },
    device = { exact = { "Device" } },
    context = { exact = { "Ctx", "Context" } },
    stream = { exact = { "Strm", "Stream" } },
    bytes = { exact = { "Bytes (MB)", "Bytes (B)", "Bytes" } },
  },
  cuda_api_trace = {
    start = { exact = { "Start (ns)", "Start Time (ns)", "Start" }, contains = { "start" } },
    duration = { exact = { "Duration (ns)", "Duration" }, contains = { "duration" } },
    name = { exact = { "Name", "API Function" } },
    corr = { exact = { "CorrID", "CorrId", "Correlation ID" }, contains = { "corrid" } },
    pid = { exact = { "Pid", "PID" } },
    tid = { exact = { "Tid", "TID" } },
    result = { exact = { "Result" } },
    thread = { exact = { "Thread Name" } },
  },
  nvtx_pushpop_trace = {
    start = { exact = { "Start (ns)", "Start Time (ns)" } },
    finish = { exact = { "End (ns)", "End Time (ns)" } },
    duration = { exact = { "Duration (ns)" } },
    name = { exact = { "Name", "Range" } },
    pid = { exact = { "PID", "Pid" } }, tid = { exact = { "TID", "Tid" } },
    level = { exact = { "Lvl", "Level" } },
    range_id = { exact = { "RangeId" } }, parent_id = { exact = { "ParentId" } },
    range_stack = { exact = { "RangeStack" } },
  },
  nvtx_gpu_proj_trace = {
    name = { exact = { "Name", "Range" } },
    proj_start = { exact = { "Projected Start (ns)" } },
    proj_duration = { exact = { "Projected Duration (ns)" } },
    orig_start = { exact = { "Orig Start (ns)" } },
    orig_duration = { exact = { "Orig Duration (ns)" } },
    pid = { exact = { "PID", "Pid" } }, tid = { exact = { "TID", "Tid" } },
    gpu_ops = { exact = { "NumGPUOps" } },
    level = { exact = { "Lvl", "Level" } },
    range_id = { exact = { "RangeId" } }, parent_id = { exact = { "ParentId" } },
  },
  nvtx_sum = { name = { exact = { "Range", "Name" } }, total = TOTAL,
    instances = { exact = { "Instances", "Count" } }, style = { exact = { "Style" } } },
}
-- pre-2023.1 report names read the same columns
columns.reports.gpukernsum = columns.reports.cuda_gpu_kern_sum
columns.reports.cudaapisum = columns.reports.cuda_api_sum
columns.reports.gputrace = columns.reports.cuda_gpu_trace
columns.reports.cudaapitrace = columns.reports.cuda_api_trace
columns.reports.nvtxpptrace = columns.reports.nvtx_pushpop_trace
columns.reports.nvtxsum = columns.reports.nvtx_sum

-- The spec for (report, key), a policy override (policy.columns[report][key]) winning.
function columns.spec(report, key, policy)
  local set = need(policy, "columns.spec").columns -- unset by default
  local over = set and set[report]
  if over and over[key] then return over[key] end
  local r = columns.reports[report]
  if not r then errors.raise(errors.ERROR, "columns: unknown report '%s'", tostring(report)) end
  return r[key]
end

-- Index (1-based) of the column spec in reader (a core.csv reader), or nil.
function columns.pick(reader, spec)
  if spec.exact then
    local i = reader:find(spec.exact)
    if i then return i end
  end
  local cols = reader:columns()
  for _, all in ipairs(spec.contains_all or {}) do
    for i, c in ipairs(cols) do
      local lc, hit = c:lower(), true
      for _, w in ipairs(all) do
        if not lc:find(w, 1, true) then hit = false; break end
      end
      if hit then return i end
    end
  end
  for _, w in ipairs(spec.contains or {}) do
    for i, c in ipairs(cols) do
      if c:lower():find(w, 1, true) then return i end
    end
  end
  if spec.fallback == "last" and #cols > 0 then return #cols end
  return nil
end

local function describe(spec)
  local parts = {}
  for _, n in ipairs(spec.exact or {}) do parts[#parts + 1] = "'" .. n .. "'" end
  for _, all in ipairs(spec.contains_all or {}) do parts[#parts + 1] = "a name containing " .. table.concat(all, "+") end
  for _, w in ipairs(spec.contains or {}) do parts[#parts + 1] = "a name containing '" .. w .. "'" end
  return table.concat(parts, ", ")
end

-- find(reader, report, key, {required=true}|nil, policy) → index or nil. A missing required column raises
-- a bad-input error naming the report, the file and the columns it has.
function columns.find(reader, report, key, opts, policy)
  opts = opts or {}
  local spec = columns.spec(report, key, policy)
  if not spec then errors.raise(errors.ERROR, "columns: report '%s' has no column key '%s'", report, key) end
  local i = columns.pick(reader, spec)
  if not i and opts.required ~= false then
    errors.raise(errors.INPUT, "%s: %s report has no %s column (looked for %s; the file has: %s)", reader:path(),
      report, key, describe(spec), table.concat(reader:columns(), ", "))
  end
  return i
end

-- find_all(reader, report, {"name", "total"}, opts|nil, policy) → { name = i, total = j }
function columns.find_all(reader, report, keys, opts, policy)
  local out = {}
  for _, k in ipairs(keys) do out[k] = columns.find(reader, report, k, opts, policy) end
  return out
end

return columns
