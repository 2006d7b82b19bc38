-- What gpuflame tells nsys: the argv of `nsys profile` (a whole capture), of `nsys launch` and `nsys start`
-- (a live session and its windows, docs/LIVE.md), and the profiled workload's environment. All of it is
-- built from the effective policy (capture.*, live.*); the policy's capture.build_args hook sees the
-- profile argv last.
--
--   nsys_args.profile({nsys, prefix, workload, duration, stacks}, policy)  → argv
--   nsys_args.launch({nsys, session, workload, stacks}, policy)            → argv
--   nsys_args.start({nsys, session, prefix, stacks}, policy)               → argv
--   nsys_args.workload_env(env|nil, policy)                                → env table
local core = require("gpuflame.core")
local policy_mod = require("gpuflame.policy")

local A = {}

local function push(argv, ...)
  for _, a in ipairs({ ... }) do argv[#argv + 1] = a end
end

-- §6.2: restore <VAR> from <VAR>_ORIG, else drop path elements containing a bundler pattern.
function A.workload_env(env, policy)
  local c = policy_mod.need(policy, "nsys_args.workload_env").capture
  local e = {}
  for k, v in pairs(env or core.proc.environ()) do e[k] = v end
  local rules = c.env
  for _, var in ipairs(rules.restore_orig) do
    local orig = e[var .. "_ORIG"]
    if orig ~= nil then
      e[var .. "_ORIG"] = nil
      e[var] = orig ~= "" and orig or nil
    elseif e[var] then
      local kept = {}
      for part in e[var]:gmatch("[^:]+") do
        local bad = false
        for _, pat in ipairs(rules.strip_patterns) do
          if part:find(pat, 1, true) then bad = true; break end
        end
        if not bad then kept[#kept + 1] = part end
      end
      e[var] = #kept > 0 and table.concat(kept, ":") or nil
    end
  end
  for k, v in pairs(rules.set) do e[k] = v end
  for _, k in ipairs(rules.unset) do e[k] = nil end
  if type(c.workload_env) == "function" then
    e = policy_mod.call(policy, c.workload_env, e) or e
  end
  return e
end

function A.session_seconds(duration)
  return math.max(1, math.floor(tonumber(duration) or 1))
end

-- The sampling flags: what `nsys profile` and `nsys start` take (`nsys launch` only traces).
local function sampling(argv, stacks, policy)
  local c = policy.capture
  if stacks then
    push(argv, "-s", c.stacks.sample, "-b", c.stacks.backtrace)
  else
    push(argv, "-s", c.sample)
    if c.cpuctxsw ~= "" then push(argv, "--cpuctxsw=" .. c.cpuctxsw) end
  end
end

-- §6.3: the nsys profile argv. o = {nsys, prefix, workload (list or nil), duration, stacks}
function A.profile(o, policy)
  local c = policy_mod.need(policy, "nsys_args.profile").capture
  local argv = { o.nsys, "profile", "-o", o.prefix, "--force-overwrite=true", "-t", c.trace }
  sampling(argv, o.stacks, policy)
  if o.stacks then push(argv, "--cudabacktrace=" .. c.stacks.cudabacktrace) end
  for _, a in ipairs(c.extra_args) do argv[#argv + 1] = a end
  if o.workload and #o.workload > 0 then
    for _, a in ipairs(o.workload) do argv[#argv + 1] = a end
  else
    local d = tostring(A.session_seconds(o.duration))
    push(argv, "--duration", d, "sleep", d)
  end
  if type(c.build_args) == "function" then
    argv = policy_mod.call(policy, c.build_args, argv, { stacks = o.stacks == true, prefix = o.prefix,
      workload = o.workload, duration = o.duration }) or argv
  end
  return argv
end

-- nsys launch: the workload ready to be profiled, collection off. The trace flags are capture's
-- (capture.trace); sampling belongs to `nsys start`. o = {nsys, session, workload, stacks}
function A.launch(o, policy)
  policy_mod.need(policy, "nsys_args.launch")
  local argv = { o.nsys, "launch", "--session-new=" .. o.session, "-t", policy.capture.trace }
  if o.stacks then push(argv, "--cudabacktrace=" .. policy.capture.stacks.cudabacktrace) end
  for _, a in ipairs(policy.live.launch_args) do argv[#argv + 1] = a end
  for _, a in ipairs(o.workload) do argv[#argv + 1] = a end
  return argv
end

-- nsys start: one window of a launched session, written to PREFIX. o = {nsys, session, prefix, stacks}
function A.start(o, policy)
  policy_mod.need(policy, "nsys_args.start")
  local argv = { o.nsys, "start", "--session=" .. o.session, "-o", o.prefix, "--force-overwrite=true" }
  sampling(argv, o.stacks, policy)
  for _, a in ipairs(policy.live.start_args) do argv[#argv + 1] = a end
  return argv
end

return A
