-- Capture backend: CPU sampling with Linux perf, in parallel with nsys (opt-in: backends.perf.enabled).
-- `perf record -F <freq> -a -g -o DIR/perf.data -- sleep <duration>`, then `perf script` into
-- DIR/perf.script, folded in C (core/stacks_perf.c) into DIR/cpu.folded (comm;root;…;leaf count —
-- kernel frames get the gProfiler `_[k]` suffix). The folded stacks become the upload's profile body; the GPU page stays
-- the preferred flamegraph_html. (File names: policy outputs.perf_data, perf_script, cpu_folded.)
local core = require("gpuflame.core")
local log = require("gpuflame.log")

local B = { name = "perf" }

function B.wanted(job, p)
  return p.backends.perf.enabled == true and job.perf ~= false
end

local function perf_bin(p)
  return p.backends.perf.path or core.fs.which("perf") or "perf" -- path unset: perf on PATH
end

function B.start(job, p)
  local cfg = p.backends.perf
  local argv = { perf_bin(p), "record", "-F", tostring(cfg.frequency) }
  for _, a in ipairs(cfg.args) do argv[#argv + 1] = a end
  for _, a in ipairs({ "-o", job.dir .. "/" .. p.outputs.perf_data, "--", "sleep", tostring(job.duration) }) do
    argv[#argv + 1] = a
  end
  return core.proc.spawn({
    argv = argv, env = job.env, stdout = "file", stdout_path = job.dir .. "/" .. p.outputs.perf_backend_log,
    stderr = "stdout",
    timeout = job.duration + cfg.timeout_extra, kill_grace = p.agent.stop_grace,
  })
end

-- fold(path) → Stacks (core.stacks), stats {lines, samples, frames, skipped_frames, orphan_frames}.
-- Input: `perf script` output (a header line per sample, then one frame per line leaf first, a blank
-- line between samples), streamed and folded in C (core/stacks_perf.c, where the rules are written down).
function B.fold(path)
  return core.stacks.from_perf_script(path)
end

function B.finish(job, h, p)
  local r = h:result()
  local data = job.dir .. "/" .. p.outputs.perf_data
  if not r.ok and not core.fs.stat(data) then
    local logpath = job.dir .. "/" .. p.outputs.perf_backend_log
    local text = core.fs.stat(logpath) and core.fs.read(logpath) or ""
    return { ok = false, error = "perf record " .. r.status .. " " .. tostring(r.code) .. ": " ..
      ((text:match("[^\n]+") or ""):sub(1, 300)) }
  end
  local script = job.dir .. "/" .. p.outputs.perf_script
  local s = core.proc.run({ argv = { perf_bin(p), "script", "-i", data }, env = job.env, stdout = "file",
    stdout_path = script, stderr = "capture", timeout = p.backends.perf.script_timeout })
  if not s.ok then
    return { ok = false, error = "perf script failed: " .. ((s.stderr or ""):match("[^\n]+") or s.status) }
  end
  local stacks, st = B.fold(script)
  local n = stacks:count()
  if n == 0 then return { ok = false, error = "perf recorded no samples" } end
  stacks:write_folded(job.dir .. "/" .. p.outputs.cpu_folded, { meta = false })
  log.info("perf backend: %d unique CPU stacks from %d samples", n, st.samples)
  return { ok = true }
end

return B
