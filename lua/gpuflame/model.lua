-- The per-report model as a file (issue 27; the layout is docs/MODEL_FORMAT.md): `gpuflame import`
-- writes one per report, every multi-report command reads it where it reads a report, MPI ranks send it
-- to rank 0. C (core.model) writes and checks the binary parts; this module writes and checks the
-- provenance, a JSON document inside the file: which report it came from and the capture's metadata
-- (host, session start, nsys version, the rank variables gpuflame labels ranks with).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")

local M = {}

M.EXT = ".gfmodel"
M.FORMAT = "gpuflame-model"


-- provenance(db, source, label_env) → table: what the model's provenance records about the report whose
-- SQLite export is db (source: the path the user gave, the report itself when it is an .nsys-rep).
-- meta is what gpuflame.ranks reads from an export (session start, host, the label_env variables of each
-- process); capture is core.sqlite_meta.read's (nsys and schema versions, GPUs, start time; the command
-- line and host only as SHA-256).
function M.provenance(db, source, label_env)
  local label_names = core.json.array({})
  for i, n in ipairs(label_env) do label_names[i] = n end
  local meta = core.trace.sqlite_meta(db, label_env)
  -- JSON numbers are doubles to most readers: the session start (ns since the epoch) is a decimal string
  if meta.session_start then meta.session_start = string.format("%d", meta.session_start) end
  return {
    format = M.FORMAT, version = core.model.version, generator = "gpuflame " .. core.host.version,
    source = source, meta = meta, label_env = label_names,
    capture = core.sqlite_meta.read(db),
  }
end

-- save(tr, path, prov [, db]): db (the report's SQLite export) gives the model the export's tables that
-- `gpuflame stats` reads (docs/MODEL_FORMAT.md "Tables"); without it the model has none.
function M.save(tr, path, prov, db)
  if not db then return core.model.save(tr, path, core.json.encode(prov)) end
  local tmp = core.fs.mkdtemp()
  local ok, err = pcall(function()
    core.model.build_tables(db, tmp .. "/tables.sqlite")
    core.model.save(tr, path, core.json.encode(prov), tmp .. "/tables.sqlite")
  end)
  core.fs.remove_tree(tmp)
  if not ok then error(err, 0) end
end

-- stats_db(path, cleanup) → an SQLite database with the export's tables the model carries, for
-- `gpuflame stats` (written into a temporary directory added to cleanup); exit 6 when the model has none.
function M.stats_db(path, cleanup)
  local tmp = core.fs.mkdtemp()
  cleanup[#cleanup + 1] = tmp
  local db = tmp .. "/tables.sqlite"
  if not core.model.tables(path, db) then
    errors.raise(errors.INPUT, "%s: a gpuflame model file imported with --no-stats: it has none of the export's " ..
      "tables that stats reads (give the report, or import it again without --no-stats)", path)
  end
  return db
end

-- is_model(path) → true when the file starts with the model magic
function M.is_model(path)
  local f = io.open(path, "rb")
  if not f then return false end
  local head = f:read(8) or ""
  f:close()
  return core.model.is_model(head)
end

-- check(prov_text, name) → provenance table; a provenance that is not this format's is exit 6 naming name
function M.check(text, name)
  local ok, prov = pcall(core.json.decode, text)
  if not ok or type(prov) ~= "table" or prov.format ~= M.FORMAT or type(prov.meta) ~= "table" then
    errors.raise(errors.INPUT, "%s: damaged gpuflame model file: its provenance is not a %s document", name,
      M.FORMAT)
  end
  prov.meta.kv = prov.meta.kv or {}
  if prov.meta.session_start ~= nil then
    local v = math.tointeger(tonumber(prov.meta.session_start))
    if not v then errors.raise(errors.INPUT, "%s: damaged gpuflame model file: bad session_start in its provenance", name) end
    prov.meta.session_start = v
  end
  return prov
end

-- open(path) → trace, provenance (exit 6 naming path when the file is damaged, foreign, or of another
-- format version)
function M.open(path)
  local tr, text = core.model.open(path)
  return tr, M.check(text, path)
end

-- The rank variables a model's provenance kept are those of the policy it was imported under: a
-- variable the current policy labels by that the model did not keep is a warning, not a silent change.
function M.missing_label_env(prov, label_env)
  local have = {}
  for _, n in ipairs(prov.label_env or {}) do have[n] = true end
  local missing = {}
  for _, n in ipairs(label_env) do if not have[n] then missing[#missing + 1] = n end end
  return missing
end

return M
