-- Processes as /proc shows them (Linux): a process's identity across time is its pid AND its start time
-- (field 22 of /proc/PID/stat), so a reused pid is never mistaken for it. Used by the agent's journal and
-- the live-session registry.
local core = require("gpuflame.core")

local P = {}

function P.read(pid, what)
  local f = io.open(string.format("/proc/%d/%s", pid, what), "rb")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

-- stat(pid) → {state, ppid, pgid, start, comm} from /proc/PID/stat, or nil when there is no such process
function P.stat(pid)
  local text = P.read(pid, "stat")
  if not text then return nil end
  local comm, rest = text:match("^%d+ %((.*)%)%s+(.*)$")
  if not rest then return nil end
  local f = {}
  for w in rest:gmatch("%S+") do f[#f + 1] = w end
  -- after the comm: 1 state, 2 ppid, 3 pgrp, ..., 20 starttime (field 22 of proc(5))
  return { state = f[1], ppid = tonumber(f[2]), pgid = tonumber(f[3]), start = f[20], comm = comm }
end

-- start(pid) → the process's start time (clock ticks since boot, as text), nil when it is gone
function P.start(pid)
  local st = pid and P.stat(pid)
  return st and st.start or nil
end

-- A recorded process {pid, start} is alive when a process with its pid AND its start time exists and is
-- not a zombie (an orphan whose new parent has not reaped it yet has ended).
function P.alive(pr)
  local st = type(pr) == "table" and math.tointeger(pr.pid) and P.stat(pr.pid)
  return st ~= nil and st.start == pr.start and st.state ~= "Z" and st.state ~= "X"
end

-- all() → every process's stat, with pid
function P.all()
  local out = {}
  for _, n in ipairs(core.fs.listdir("/proc") or {}) do
    local pid = math.tointeger(tonumber(n))
    if pid then
      local st = P.stat(pid)
      if st then st.pid = pid; out[#out + 1] = st end
    end
  end
  return out
end

-- children(pid) → the stats (with pid) of its live children
function P.children(pid)
  local out = {}
  for _, st in ipairs(P.all()) do
    if st.ppid == pid and st.state ~= "Z" then out[#out + 1] = st end
  end
  return out
end

-- cmdline(pid) → argv list, nil when gone
function P.cmdline(pid)
  local text = P.read(pid, "cmdline")
  if not text then return nil end
  local argv = {}
  for a in text:gmatch("[^%z]*%z") do argv[#argv + 1] = a:sub(1, -2) end
  return argv
end

return P
