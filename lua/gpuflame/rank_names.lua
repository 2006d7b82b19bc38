-- Ranks by their own names (issue 41; docs/SEMANTICS.md "Rank names"): what a capture says about the rank of
-- one of its processes, in this order:
--   1. the environment nsys captured (META_DATA_CAPTURE: the first of policy ranks.label_env that is set),
--   2. a thread name (nsys's MPI tracing names the main thread of rank N `MPI Rank N`: ranks.thread_rank_patterns),
--   3. an NVTX range or mark of the process (NCCL/NVSHMEM markers: ranks.marker_rank_patterns),
--   4. none: the caller labels the process by host and pid.
-- The patterns are Lua patterns whose first capture is the rank.
local M = {}

-- The rank variable of a process from the report's META_DATA_CAPTURE: PROCESS_n whose PID is pid, or,
-- when the report traced a single GPU process, the one launched process that has the variable (the
-- launched process is often a wrapper such as a shell or torchrun's child).
local function env_rank(meta, pid, single, names)
  local kv = meta.kv or {}
  local by_proc = {}
  for k, v in pairs(kv) do
    local n, rest = k:match("^PROCESS_(%d+):(.+)$")
    if n then
      by_proc[n] = by_proc[n] or { env = {} }
      if rest == "PID" then by_proc[n].pid = tonumber(v)
      else
        local var = rest:match("^ENV:(.+)$")
        if var then by_proc[n].env[var] = v end
      end
    end
  end
  local function pick(env)
    for _, name in ipairs(names) do
      if env[name] and env[name] ~= "" then return env[name], name end
    end
  end
  for _, p in pairs(by_proc) do
    if p.pid == pid then
      local v, name = pick(p.env)
      if v then return v, name end
    end
  end
  if single then
    local found, fname, count = nil, nil, 0
    for _, p in pairs(by_proc) do
      local v, name = pick(p.env)
      if v then found, fname, count = v, name, count + 1 end
    end
    if count == 1 then return found, fname end
  end
end

-- The literal head of a Lua pattern ("^MPI Rank (%d+)$" → "MPI Rank "): what C compares names with
-- (tr:processes(prefixes)) before the pattern is applied here. A pattern not anchored with ^ has none ("").
local function head(pat)
  if pat:sub(1, 1) ~= "^" then return "" end
  return (pat:sub(2):match("^[^%^%$%(%)%%%.%[%]%*%+%-%?]*"))
end

-- prefixes(s) → the names tr:processes must report for these settings (s: the policy's ranks table)
function M.prefixes(s)
  local out, seen = {}, {}
  for _, list in ipairs({ s.thread_rank_patterns, s.marker_rank_patterns }) do
    for _, pat in ipairs(list) do
      local h = head(pat)
      if not seen[h] then seen[h] = true; out[#out + 1] = h end
    end
  end
  return out
end

local function match(names, patterns)
  for _, pat in ipairs(patterns) do
    for _, n in ipairs(names or {}) do
      local v = n:match(pat)
      if v and v ~= "" then return v, n end
    end
  end
end

-- rank(meta, p, single, s) → value, source, what: the rank of process p (a tr:processes() row with threads and
-- markers) of a report with metadata meta; single: the report traced one GPU process and p is it.
-- source: "env" (what = the variable), "thread" or "marker" (what = the name); nil when the capture says none.
function M.rank(meta, p, single, s)
  local v, var = env_rank(meta, p.pid, single, s.label_env)
  if v then return v, "env", var end
  local name
  v, name = match(p.threads, s.thread_rank_patterns)
  if v then return v, "thread", name end
  v, name = match(p.markers, s.marker_rank_patterns)
  if v then return v, "marker", name end
end

return M
