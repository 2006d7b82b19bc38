-- The perf backend on the real `perf` when this machine allows it (perf_event_open may be forbidden
-- in a sandbox or container; then the case is skipped and tests/fake/perf covers the code path in
-- test_fleet_units.lua and test_fleet_agent.sh): `perf record -a -g` for 1 s, `perf script`, folding.
local top = os.getenv("GF_TOP") or "."
local t = dofile(top .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local policy = require("gpuflame.policy")
local perf = dofile(top .. "/lua/backends/perf.lua")

local perf_bin = core.fs.which("perf")
local dir = t.tmp() .. "/perfcap"
core.fs.mkdirp(dir)
if not perf_bin then
  t.skip("real perf record → folded", "perf not installed")
  return t.done()
end
local probe = core.proc.run({ argv = { perf_bin, "record", "-a", "-g", "-F", "99", "-o", dir .. "/probe.data", "--", "true" },
  timeout = 30 })
if not probe.ok then
  t.skip("real perf record → folded", "perf record not permitted here: " .. ((probe.stderr or ""):match("[^\n]+") or probe.status))
  return t.done()
end
local p = policy.effective({})
p.backends.perf.enabled = true
p.backends.perf.frequency = 25 -- few samples: `perf script` symbolisation is the slow part
-- something to sample for the duration, in the kernel too (every 1-byte read/write is a system call),
-- so kernel frames are in the profile however loaded the machine is
local busy = core.proc.spawn({ argv = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=100000000" } })
local job = { dir = dir, duration = 1 }
t.eq("backend wanted when enabled by policy", true, perf.wanted(job, p))
local h = perf.start(job, p)
h:wait()
local res = perf.finish(job, h, p)
busy:terminate()
t.check("real perf capture finished ok", res.ok, res.error)
local st = core.fs.stat(dir .. "/cpu.folded")
t.check("cpu.folded written", st and st.size > 0)
if st then
  local n, total, bad = 0, 0, 0
  for line in io.lines(dir .. "/cpu.folded") do
    local stack, count = line:match("^(.+) (%d+)$")
    if stack then
      n = n + 1
      total = total + tonumber(count)
    else
      bad = bad + 1
    end
  end
  t.check("every folded line is `frames count`", bad == 0 and n > 0, string.format("%d good, %d bad", n, bad))
  t.check("samples were recorded (1 s at 25 Hz on every CPU)", total >= 5, "total " .. total)
  local text = core.fs.read(dir .. "/cpu.folded")
  t.check("kernel frames carry the _[k] suffix", text:find("_[k]", 1, true) ~= nil)
end
return t.done()
