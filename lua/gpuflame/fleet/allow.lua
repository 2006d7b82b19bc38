-- What the Studio may make this host run, decided by local policy only (docs/spec/STUDIO.md §7): the
-- allow-list of remote workloads and the privilege drop they run under (agent.remote_workloads), and
-- which running live sessions it may capture windows of (agent.remote_sessions, docs/LIVE.md).
--
--   allow.workload(argv, caller, p)          → true | false, reason
--   allow.privilege_drop(argv, p)            → argv (prefixed with setpriv when policy names a user)
--   allow.session_target(target, caller, p)  → the session's registry entry | raises USAGE with the reason
-- p: the effective policy (required, last); caller: what the policy's decide functions are told
-- ({command_id, hostname}), or nil.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local policy = require("gpuflame.policy")
local sessions = require("gpuflame.sessions")

local allow = {}

local function glob_to_pattern(g)
  local out = g:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".")
  return "^" .. out .. "$"
end

local function matches(patterns, text)
  for _, pat in ipairs(patterns) do
    if pat == text or text:match(glob_to_pattern(pat)) then return true end
  end
  return false
end

function allow.workload(argv, caller, p)
  local rw = p.agent.remote_workloads
  local line = table.concat(argv, " ")
  if type(rw.decide) == "function" then
    local ok, why = policy.call(p, rw.decide, argv, line, caller or {})
    if ok then return true end
    return false, why or "refused by the policy's agent.remote_workloads.decide"
  end
  if not rw.enabled then
    return false, "remote workloads are disabled by local policy (agent.remote_workloads.enabled = false)"
  end
  local patterns = {}
  for _, a in ipairs(rw.allow) do patterns[#patterns + 1] = a end
  local file = rw.allow_file
  if file ~= "" and core.fs.stat(file) then
    for l in core.fs.read(file):gmatch("[^\n]+") do
      l = l:gsub("^%s+", ""):gsub("%s+$", "")
      if l ~= "" and not l:match("^#") then patterns[#patterns + 1] = l end
    end
  end
  if matches(patterns, line) then return true end
  return false, string.format("workload %q is not allowed by local policy (no match in %s%s)", line,
    (file ~= "" and file) or "agent.remote_workloads.allow", #rw.allow > 0 and " or agent.remote_workloads.allow" or "")
end

-- The workload runs unprivileged while nsys, which needs root to trace it, keeps its rights.
function allow.privilege_drop(argv, p)
  local rw = p.agent.remote_workloads
  if rw.run_as == "" then return argv end
  local setpriv = core.fs.which("setpriv")
  if not setpriv then errors.raise(errors.ERROR, "policy agent.remote_workloads.run_as needs setpriv (util-linux)") end
  local out = { setpriv, "--reuid", rw.run_as }
  if rw.run_as_group ~= "" then
    out[#out + 1] = "--regid"; out[#out + 1] = rw.run_as_group
  else
    local r = core.proc.run({ argv = { "id", "-g", rw.run_as }, timeout = 10 })
    local gid = r.ok and r.stdout:match("(%d+)")
    if not gid then errors.raise(errors.ERROR, "policy agent.remote_workloads.run_as: unknown user %q", rw.run_as) end
    out[#out + 1] = "--regid"; out[#out + 1] = gid
  end
  for _, a in ipairs({ "--init-groups", "--" }) do out[#out + 1] = a end
  for _, a in ipairs(argv) do out[#out + 1] = a end
  return out
end

-- Is the Studio allowed to capture this session (a registry entry)? true | false, reason
function allow.session(e, caller, p)
  local rs = p.agent.remote_sessions
  local line = table.concat(e.command or {}, " ")
  if type(rs.decide) == "function" then
    local ok, why = policy.call(p, rs.decide, { name = e.name, service = e.service, command = e.command, pid = e.pid },
      caller or {})
    if ok then return true end
    return false, why or "refused by the policy's agent.remote_sessions.decide"
  end
  if not rs.enabled then
    return false, "session targets are disabled by local policy (agent.remote_sessions.enabled = false)"
  end
  if matches(rs.allow_names, e.name) or matches(rs.allow_commands, line) then return true end
  return false, string.format("session %s (%s) is not allowed by local policy (no match in " ..
    "agent.remote_sessions.allow_names or allow_commands)", e.name, line)
end

-- A command's nsys_session: a session name, or {name = ..., service = ..., command = GLOB}. Exactly one
-- running session must match, and policy must allow it.
function allow.session_target(target, caller, p)
  local want = type(target) == "table" and target or { name = tostring(target) }
  local function is_str(v) return type(v) == "string" and v ~= "" end
  if not (is_str(want.name) or is_str(want.service) or is_str(want.command)) then
    errors.raise(errors.USAGE, "refused: nsys_session names no session (name, service or command)")
  end
  local list, dir = sessions.list(p)
  local hits, names = {}, {}
  for _, e in ipairs(list) do
    if e.state ~= "ended" and (not is_str(want.name) or e.name == want.name)
      and (not is_str(want.service) or e.service == want.service)
      and (not is_str(want.command) or matches({ want.command }, table.concat(e.command or {}, " "))) then
      hits[#hits + 1] = e
      names[#names + 1] = e.name
    end
  end
  local what = core.json.encode(target)
  if #hits == 0 then errors.raise(errors.USAGE, "refused: no running session matches %s in %s", what, dir) end
  if #hits > 1 then
    errors.raise(errors.USAGE, "refused: %d sessions match %s (%s); name one", #hits, what, table.concat(names, ", "))
  end
  local ok, why = allow.session(hits[1], caller, p)
  if not ok then errors.raise(errors.USAGE, "refused: %s", why) end
  return hits[1]
end

return allow
