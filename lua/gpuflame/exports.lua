-- The SQLite exports of .nsys-rep/.qdrep reports: one cache for every command (docs/POLICY.md "exports").
-- An entry is keyed by the report's content (SHA-256) and the version of the nsys that exported it, so two
-- captures with one name (report1.nsys-rep, report1.qdrep) never share an export and a new nsys exports
-- again. The cache is the XDG cache directory unless the policy names another; when it is over its size
-- the least recently used entries go. An export is written under a temporary name in the cache and renamed
-- into place, so processes exporting one report at once each leave a whole file. Nothing is written beside
-- the report unless the policy asks (exports.beside).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local need = require("gpuflame.policy").need
local nsys_run = require("gpuflame.nsys_run")

local M = {}

-- The cache directory: exports.cache_dir, else $XDG_CACHE_HOME/gpuflame/exports, else
-- ~/.cache/gpuflame/exports; nil when none can be named (no HOME).
function M.dir(policy)
  local e = need(policy, "exports.dir").exports
  if e.cache_dir ~= "" then return e.cache_dir end
  local xdg = os.getenv("XDG_CACHE_HOME")
  if xdg and xdg:match("^/") then return xdg .. "/gpuflame/exports" end
  local home = os.getenv("HOME")
  if home and home:match("^/") then return home .. "/.cache/gpuflame/exports" end
  return nil
end

-- key(report, nsys_info) → "<sha256 of the content>-<nsys version>"
function M.key(rep, nsys_info)
  local v = nsys_info and nsys_info.version
  local ver = v and v.string or "unknown"
  return core.sha256.file(rep) .. "-nsys" .. ver:gsub("[^%w%.]", "_")
end

-- Removes the least recently used entries until the cache holds at most max_bytes (never `keep`), and
-- temporary directories of exports that ended without cleaning up (older than `stale` seconds).
function M.evict(dir, max_bytes, keep, stale)
  local entries, total = {}, 0
  local now = os.time()
  for _, name in ipairs(core.fs.listdir(dir) or {}) do
    local path = dir .. "/" .. name
    local st = core.fs.stat(path, false)
    if st and st.type == "file" and name:match("%.sqlite$") then
      entries[#entries + 1] = { path = path, size = st.size, mtime = st.mtime }
      total = total + st.size
    elseif st and st.type == "directory" and name:match("^%.tmp%-") and now - st.mtime > stale then
      pcall(core.fs.remove_tree, path)
    end
  end
  table.sort(entries, function(a, b) return a.mtime < b.mtime end)
  for _, e in ipairs(entries) do
    if total <= max_bytes then break end
    if e.path ~= keep and os.remove(e.path) then
      total = total - e.size
      log.debug("exports: evicted %s (%d bytes; the cache is limited to %d bytes)", e.path, e.size, max_bytes)
    end
  end
end

local function export_to(rep, out, nsys_info, policy)
  local res = nsys_run.export_sqlite(nsys_info, rep, out, nil, policy)
  if not res.ok then M.raise_failed(rep, res) end
  return res.path
end

-- The error of a failed `nsys export` of `rep` (exit 6, an unreadable input): the versions when the report
-- is newer than the nsys, nsys's own words in any case.
function M.raise_failed(rep, res)
  if res.newer then
    errors.raise(errors.INPUT, "%s: %s. nsys export said: %s", rep, res.newer, res.why)
  end
  errors.raise(errors.INPUT, "%s: nsys export --type sqlite failed: %s", rep, res.why)
end

local function mtime(path)
  local st = core.fs.stat(path)
  return st and st.size > 0 and st.mtime
end

-- exports.beside: <report file name>.sqlite beside the report (report1.nsys-rep.sqlite, so that
-- report1.qdrep's export is another file), reused while it is not older than the report.
local function beside(rep, nsys_info, opts, policy)
  local path = rep .. ".sqlite"
  local rt, ct = mtime(rep), mtime(path)
  if not opts.force and rt and ct and ct >= rt then
    log.debug("exports: reusing %s (not older than %s)", path, rep)
    return path, { ran = false, nsys = nsys_info }
  end
  log.info("exports: exporting %s to %s (policy exports.beside)", rep, path)
  return export_to(rep, path, nsys_info, policy), { ran = true, nsys = nsys_info }
end

local function usable_dir(dir)
  if not dir then return false end
  local ok = pcall(core.fs.mkdirp, dir, tonumber("700", 8))
  local st = ok and core.fs.stat(dir)
  return st and st.type == "directory" and pcall(function() core.fs.remove_tree(core.fs.mkdtemp(dir .. "/.tmp-")) end)
end

-- get(report, opts, policy) → export path, {ran = nsys exported now, nsys = nsys_info, tmpdir = a
-- temporary directory to remove, or nil}.
-- opts: nsys (explicit nsys path), nsys_info (already found), force (export again), cleanup (a list the
-- temporary directory is appended to: inputs.cleanup removes ctx.cleanup).
function M.get(rep, opts, policy)
  opts = opts or {}
  local e = need(policy, "exports.get").exports
  local nsys_info = opts.nsys_info or nsys_run.find_nsys(opts.nsys, policy)
  if e.beside then return beside(rep, nsys_info, opts, policy) end
  local dir = M.dir(policy)
  if not usable_dir(dir) then
    local tmp = core.fs.mkdtemp("/tmp/gpuflame-export-")
    if opts.cleanup then opts.cleanup[#opts.cleanup + 1] = tmp end
    log.info("exports: no usable cache directory (%s); exporting %s into %s for this run", dir or "HOME unset",
      rep, tmp)
    return export_to(rep, tmp .. "/export.sqlite", nsys_info, policy), { ran = true, nsys = nsys_info, tmpdir = tmp }
  end
  local path = dir .. "/" .. M.key(rep, nsys_info) .. ".sqlite"
  if not opts.force and mtime(path) then
    core.fs.touch(path)
    log.debug("exports: %s is cached as %s", rep, path)
    return path, { ran = false, nsys = nsys_info }
  end
  log.info("exporting %s to SQLite (once: kept in the export cache)", rep)
  log.debug("exports: %s → %s", rep, path)
  local tmp = core.fs.mkdtemp(dir .. "/.tmp-")
  local ok, res = errors.try(export_to, rep, tmp .. "/export.sqlite", nsys_info, policy)
  if ok then ok, res = pcall(core.fs.rename, res, path) end
  pcall(core.fs.remove_tree, tmp)
  if not ok then errors.reraise(res) end
  M.evict(dir, e.cache_max_mb * 1024 * 1024, path, policy.flamegraph.export_timeout * 2)
  return path, { ran = true, nsys = nsys_info }
end

return M
