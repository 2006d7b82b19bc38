-- gpuflame run tests/real/oracle_dump.lua EXPORT.sqlite OUTDIR
-- Writes what gpuflame itself computes from one SQLite export, in exact nanoseconds, for
-- tests/real/oracle_check.py to compare with NVIDIA's own `nsys stats` reports:
--   OUTDIR/totals.json    core.sqlite_kernels.totals (the primitive behind `flamegraph`/`collapse` of an
--                         export) for "kernels" and "api": {kernels = {{name, total_ns, count}...}, ...}
--   OUTDIR/timeline.json  the whole Trace model (core.trace.open_sqlite, nothing trimmed) as the
--                         timeline page embeds it (tr:timeline_json, docs/TIMELINE_DATA.md)
--   OUTDIR/pids.json      per event (same order) the process id the model keeps (tr:event(i).pid): the
--                         page data gives GPU lanes no pid, and nvtxgpuproj joins launches on (pid, corr)
local core = require("gpuflame.core")
local path, outdir = ...
if not path or not outdir then
  io.stderr:write("usage: gpuflame run oracle_dump.lua EXPORT.sqlite OUTDIR\n")
  return 2
end

local totals = {}
for _, src in ipairs({ "kernels", "api" }) do
  local t, why = core.sqlite_kernels.totals(path, src)
  totals[src] = t
  totals[src .. "_why"] = why
end
core.fs.write_atomic(outdir .. "/totals.json", core.json.encode(totals))

local tr = core.trace.open_sqlite(path, { max_events = 0 })
-- flame_min 0: nothing folded (the launch flame is not compared, but keep it exact anyway)
core.fs.write_atomic(outdir .. "/timeline.json", tr:timeline_json("oracle", 0))
local pids = {}
for i = 1, tr:count() do pids[i] = tr:event(i).pid end
core.fs.write_atomic(outdir .. "/pids.json", core.json.encode(pids))
return 0
