-- Capture backend: nsys, through the capture pipeline (`gpuflame capture`, owned by
-- lua/gpuflame/capture.lua) run as a child process so the agent keeps its heartbeat while nsys runs; for a
-- live-session target, `gpuflame capture --session NAME` (a window of the running job, docs/LIVE.md).
-- The child is its own process group; nsys and the workload are the child's children (their own
-- group, made by the capture library), and a cancel kills the whole tree (fleet/agent.lua).
--
-- A backend is { name, wanted(job, p) → bool, start(job, p) → handle, finish(job, handle, p) → result }
-- with result = { ok = bool, error = msg|nil, files = {...} }.
local core = require("gpuflame.core")
local log = require("gpuflame.log")
local nsys_temp = require("gpuflame.nsys_temp")

local B = { name = "nsys" }

function B.wanted(job, p)
  return job.enable_nsys == true and p.backends.nsys.enabled
end

function B.argv(job)
  local argv = { job.self }
  for _, f in ipairs(job.policy_files or {}) do argv[#argv + 1] = "--policy"; argv[#argv + 1] = f end
  for _, a in ipairs({ "capture", "--out", job.dir, "--duration", tostring(job.duration) }) do argv[#argv + 1] = a end
  if job.timeline then argv[#argv + 1] = "--timeline" end
  if job.timeline and job.stacks then argv[#argv + 1] = "--stacks" end
  if job.session then -- a window of a live session: it runs under its own nsys (docs/LIVE.md)
    for _, a in ipairs({ "--session", job.session }) do argv[#argv + 1] = a end
    if job.at then argv[#argv + 1] = "--at"; argv[#argv + 1] = job.at end
    return argv
  end
  if job.nsys_path then argv[#argv + 1] = "--nsys"; argv[#argv + 1] = job.nsys_path end
  if job.workload and #job.workload > 0 then
    argv[#argv + 1] = "--"
    for _, w in ipairs(job.workload) do argv[#argv + 1] = w end
  end
  return argv
end

function B.start(job, p)
  local argv = B.argv(job)
  log.debug("nsys backend: %s", table.concat(argv, " "))
  -- the child marks nsys's raw capture with this (gpuflame.nsys_temp): B.cleanup finds it by it
  local env = {}
  for k, v in pairs(job.env or core.proc.environ()) do env[k] = v end
  job.nsys_temp = { mark = nsys_temp.new_mark(), since = os.time(), tmpdir = env.TMPDIR or "/tmp", dir = job.dir }
  env.GPUFLAME_CAPTURE_MARK = job.nsys_temp.mark
  return core.proc.spawn({
    argv = argv, env = env, stdout = "file", stdout_path = job.dir .. "/" .. p.outputs.nsys_backend_log,
    stderr = "stdout", timeout = (job.wait or 0) + job.duration + p.capture.timeout_extra + p.backends.nsys.timeout_margin,
    kill_grace = p.agent.stop_grace,
  })
end

local EXIT = { [3] = "nsys not found", [4] = "capture failed", [5] = "no data in the capture", [6] = "bad input",
  [130] = "interrupted" }

-- After the child ended without a capture (it failed, or a cancel killed it): what nsys left in its temp
-- directory under the child's mark, which a child killed before its own clean-up leaves behind.
function B.cleanup(job, p)
  if not job.nsys_temp then return "" end
  local said = nsys_temp.sweep_for(job.nsys_temp, true, p)
  if said ~= "" then log.info("nsys backend: %s", said) end
  return said
end

function B.finish(job, h, p)
  local r = h:result()
  if r.ok then return { ok = true } end
  B.cleanup(job, p)
  local logpath = job.dir .. "/" .. p.outputs.nsys_backend_log
  local logtext = core.fs.stat(logpath) and core.fs.read(logpath) or ""
  local last
  for line in logtext:gmatch("[^\n]+") do
    if line:match("^gpuflame:") then last = line end
  end
  local why = r.status == "exited" and string.format("exit %d (%s)", r.code, EXIT[r.code] or "error") or r.status
  return { ok = false, error = log.redact(string.format("nsys capture %s%s", why, last and (": " .. last:sub(1, 400)) or "")) }
end

return B
