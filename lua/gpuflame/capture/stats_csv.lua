-- One stats CSV of a capture written by gpuflame from its SQLite export (capture.views_from = "export",
-- gpuflame.capture.views' stats_report).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local nsys = require("gpuflame.nsys")
local nsys_run = require("gpuflame.nsys_run")
local stats = require("gpuflame.stats")

local M = {}

-- capture.views_from = "export": one stats CSV of a capture written by gpuflame from the report's SQLite
-- export (state.dir/capture.sqlite, made once by `nsys export` and shared with the SQLite timeline), in
-- capture.stats_report's shape: csv path | nil, why, report name, skipped.
function M.report(state, report, base)
  local capture = nsys_run
  local name = nsys.canonical_report(report, state.policy)
  local sqlite = state.artifacts.sqlite
  if not sqlite or not core.fs.stat(sqlite) then
    local res = capture.export_sqlite(state.nsys, state.report, state.dir .. "/capture.sqlite", state, state.policy)
    if not res.ok then return nil, "nsys export --type sqlite failed: " .. res.why, name end
    sqlite = res.path
    state.artifacts.sqlite = sqlite
  end
  local path = state.dir .. "/" .. base .. "_" .. name .. ".csv"
  local ok, res = errors.try(stats.write, sqlite, { name },
    { paths = { [name] = path }, format = "csv" }, state.policy)
  if not ok then return nil, res.msg, name end
  local r = res[1]
  if r.skipped then
    os.remove(path)
    local what = r.skipped:match("does not contain (.-)%.?%s*$")
    return nil, what and ("SKIPPED (no " .. what .. ")") or ("SKIPPED: " .. r.skipped), name, true
  end
  if r.rows == 0 then return nil, "empty CSV " .. path, name end
  return path, nil, name
end

return M
