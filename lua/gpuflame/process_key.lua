-- Processes known by what they are, not by their pid (docs/DIFF.md "Processes that line up"): the process
-- frames of `diff` and of multi-report flamegraphs are named by a key that two runs of one program share,
-- the pid kept for display. The key (policy diff.process_key):
--   "auto"        its rank when the capture gives one (the rank of a merged multi-report trace, the process's
--                 rank variable among ranks.label_env in META_DATA_CAPTURE, a main thread named as in
--                 ranks.thread_rank_patterns such as nsys's "MPI Rank N"), else its executable (its main
--                 thread's name, else the PROCESSES name; without directories: either can be the command
--                 as typed, which is never printed whole); processes of one capture that would share a key are
--                 told apart by the hash of their command line, then by " #k" (k >= 2) in order of GPU
--                 work (most first), then pid
--   "executable"  the executable, told apart the same way (ranks ignored)
--   "command"     the executable and the hash of its command line (executable and arguments) when recorded
--   "pid"         the pid as before: "<main thread name> [<pid>]"
--   function(p)   returns the key; p = {pid=, rank=, executable=, thread=, args_hash=} (nil fields unknown)
-- The command line never leaves C: only its hash (core/sqlite_meta.c, "PROCESS_<n>:ARGS_HASH").
local need = require("gpuflame.policy").need
local core = require("gpuflame.core")
local pol = require("gpuflame.policy")

local M = {}

-- kv (core.trace.sqlite_meta's) → {pid → {args_hash=, env={NAME=value}}}
local function launched(kv)
  local by_n, out = {}, {}
  for k, v in pairs(kv or {}) do
    local n, rest = k:match("^PROCESS_(%d+):(.+)$")
    if n then
      local p = by_n[n] or { env = {} }
      by_n[n] = p
      if rest == "PID" then p.pid = tonumber(v)
      elseif rest == "ARGS_HASH" then p.args_hash = v
      else
        local var = rest:match("^ENV:(.+)$")
        if var then p.env[var] = v end
      end
    end
  end
  for _, p in pairs(by_n) do if p.pid then out[p.pid] = p end end
  return out
end

-- The processes of a trace with GPU work: {rank = 0-based merged rank or nil, rank_label=, pid=, thread=},
-- one per (rank, pid); the busiest first.
local function processes_of(tr)
  local idx = {}
  for i, l in ipairs(tr:ranks()) do idx[l] = i - 1 end
  local seen, list = {}, {}
  local function add(rank_label, pid, thread)
    local k = tostring(rank_label) .. "\0" .. pid
    local p = seen[k]
    if not p then
      p = { rank = rank_label and idx[rank_label], rank_label = rank_label, pid = pid }
      seen[k] = p
      list[#list + 1] = p
    end
    if thread and not p.thread then p.thread = thread end
  end
  -- a merged trace's events carry their rank's index as pid (core/trace_ranks.c: a rank is one process of
  -- one report); its lanes keep the process's own pid, which names its main thread
  local merged = #tr:ranks() > 0
  for _, l in ipairs(tr:lanes()) do
    local main = (l.tid == l.pid and l.kind == "cpu") and l.thread or nil
    if merged and l.rank and idx[l.rank] then add(l.rank, idx[l.rank], main)
    elseif not merged and l.pid and l.pid >= 0 then add(nil, l.pid, main) end
  end
  local gpu = {}
  for _, p in ipairs(tr:processes()) do
    gpu[p.pid] = p.gpu_events
    if not merged then add(nil, p.pid) end
  end
  -- only processes with GPU work have a process frame; the busiest first (they keep the plain key)
  local kept = {}
  for _, p in ipairs(list) do
    p.gpu_events = gpu[p.pid] or 0
    if p.gpu_events > 0 then kept[#kept + 1] = p end
  end
  table.sort(kept, function(a, b)
    if (a.rank or -1) ~= (b.rank or -1) then return (a.rank or -1) < (b.rank or -1) end
    if a.gpu_events ~= b.gpu_events then return a.gpu_events > b.gpu_events end
    return a.pid < b.pid
  end)
  return kept
end

-- list(tr, kv, {merged = bool} | nil, policy) → {{pid=, rank=, name=, key=, display=}...} for
-- core.trace_flame.stacks's processes option; {} when the policy keys processes by pid. kv: the export's
-- core.trace.sqlite_meta(...).kv, or nil. merged: tr merges several reports (one rank each): the same
-- program's processes of all ranks share their key (the ranks summed; the rank level, --by-rank, parts
-- them), and only processes of one rank are told apart.
function M.list(tr, kv, opts, policy)
  local p = need(policy, "process_key.list").diff
  local mode = p.process_key
  if mode == "pid" then return {} end
  local fmt = policy.ranks.label_format
  local merged = opts and opts.merged
  local proc_env = launched(kv)
  local procs = processes_of(tr)
  for _, x in ipairs(procs) do
    local l = proc_env[x.pid] or { env = {} }
    x.args_hash = l.args_hash
    local pname = (kv or {})["PROCESSES:" .. x.pid]
    local rank_thread = false
    for _, pat in ipairs(policy.ranks.thread_rank_patterns) do rank_thread = rank_thread or (x.thread or ""):match(pat) end
    if x.thread and not rank_thread and x.thread ~= "" then pname = x.thread end
    x.executable = pname and pname:match("([^/]+)/*$")
    local rank
    for _, var in ipairs(merged and {} or policy.ranks.label_env) do
      if not rank and l.env[var] and l.env[var] ~= "" then rank = string.format(fmt, l.env[var]) end
    end
    for _, pat in ipairs(merged and {} or policy.ranks.thread_rank_patterns) do
      local n = not rank and x.thread and x.thread:match(pat)
      if n then rank = string.format(fmt, n) end
    end
    x.rank_text = rank
    local key
    if type(mode) == "function" then
      key = pol.call(policy, mode, { pid = x.pid, rank = rank, executable = x.executable, thread = x.thread,
        args_hash = x.args_hash })
      if type(key) ~= "string" or key == "" then
        error(string.format("diff.process_key must return a non-empty string (got %s for pid %d)", type(key), x.pid), 0)
      end
    elseif mode == "command" then
      key = (x.executable or "process") .. (x.args_hash and (" (command " .. x.args_hash:sub(1, 8) .. ")") or "")
    elseif mode == "auto" and rank then
      key = rank
    else
      key = x.executable or (rank or "process")
    end
    x.key = key
  end
  -- keys shared inside one capture: the command-line hash, then the position in pid order
  local function split(f)
    local count, k = {}, {}
    local function id(x) return (x.rank or -1) .. "\0" .. x.key end
    for _, x in ipairs(procs) do count[id(x)] = (count[id(x)] or 0) + 1 end
    for _, x in ipairs(procs) do
      local i = id(x)
      if count[i] > 1 then
        k[i] = (k[i] or 0) + 1
        x.key = f(x, k[i])
      end
    end
  end
  split(function(x) return x.args_hash and (x.key .. " (command " .. x.args_hash:sub(1, 8) .. ")") or x.key end)
  split(function(x, n) return n == 1 and x.key or (x.key .. " #" .. n) end)
  local out = {}
  for _, x in ipairs(procs) do
    out[#out + 1] = { pid = x.pid, rank = x.rank, name = x.key, key = x.key,
      display = x.key .. " [pid " .. x.pid .. "]" }
  end
  return out
end

-- pairs(before_list, after_list) → {{key=, before = {pid...}, after = {pid...}}...} (the diff's "processes",
-- first-seen order): which process of each capture each key names; empty when neither side has a list.
function M.pairs(lb, la)
  local by, order = {}, {}
  for side, list in pairs({ before = lb or {}, after = la or {} }) do
    for _, x in ipairs(list) do
      local e = by[x.key]
      if not e then
        e = { key = x.key, before = core.json.array({}), after = core.json.array({}) }
        by[x.key] = e
        order[#order + 1] = x.key
      end
      e[side][#e[side] + 1] = x.pid
    end
  end
  table.sort(order)
  local out = core.json.array({})
  for _, k in ipairs(order) do out[#out + 1] = by[k] end
  return out
end

return M
