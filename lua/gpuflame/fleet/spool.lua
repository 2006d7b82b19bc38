-- The spool: a directory of pending deliveries, so a capture is never lost. Each item is ONE file
-- written atomically (temp + fsync + rename): a line of JSON metadata, a newline, then the exact
-- request body bytes (already gzipped for the Studio). Names sort oldest first
-- (<unix ms>-<seq>-<rand>.item). Retry bookkeeping (attempts, next attempt, last error) lives in a
-- small sidecar <name>.state so the body is never rewritten. Nothing secret is stored: tokens are
-- added at send time (studio.session). An item is removed only after its sink answered 2xx.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")

local spool = {}

local seq = 0

local function join(dir, name) return dir .. "/" .. name end

function spool.ensure(dir)
  core.fs.mkdirp(dir, 448) -- 0700: profiles may name internal kernels and hosts
  return dir
end

-- put(dir, meta, body) → item path. meta must be JSON-encodable and free of newlines once encoded.
function spool.put(dir, meta, body)
  spool.ensure(dir)
  local wall = core.sys.now()
  seq = seq + 1
  local name = string.format("%015d-%06d-%d-%04x.item", math.floor(wall * 1000), seq,
    core.proc.getpid(), math.random(0, 0xffff))
  meta.created = meta.created or core.sys.isotime(wall)
  meta.spool_version = 1
  meta.body_bytes = #body
  local head = core.json.encode(meta)
  assert(not head:find("\n", 1, true))
  local path = join(dir, name)
  core.fs.write_atomic(path, head .. "\n" .. body)
  return path
end

-- read(path) → meta, body (raises exit 6 on a malformed item, naming the file)
function spool.read(path)
  local text = core.fs.read(path)
  local nl = text:find("\n", 1, true)
  if not nl then errors.raise(errors.INPUT, "%s: not a spool item (no metadata line)", path) end
  local ok, meta = pcall(core.json.decode, text:sub(1, nl - 1))
  if not ok or type(meta) ~= "table" then errors.raise(errors.INPUT, "%s:1: spool metadata is not JSON", path) end
  local body = text:sub(nl + 1)
  if meta.body_bytes and meta.body_bytes ~= #body then
    errors.raise(errors.INPUT, "%s: body is %d bytes, metadata says %d (truncated?)", path, #body, meta.body_bytes)
  end
  return meta, body
end

function spool.state(path)
  local st = core.fs.stat(path .. ".state")
  if not st then return { attempts = 0, next_at = 0 } end
  local ok, s = pcall(function() return core.json.decode(core.fs.read(path .. ".state")) end)
  if ok and type(s) == "table" then return s end
  return { attempts = 0, next_at = 0 }
end

function spool.set_state(path, s)
  core.fs.write_atomic(path .. ".state", core.json.encode(s))
end

function spool.remove(path)
  os.remove(path .. ".state")
  local ok, err = os.remove(path)
  if not ok and core.fs.stat(path) then errors.raise(errors.ERROR, "cannot remove spool item %s: %s", path, err) end
end

-- list(dir) → item paths, oldest first, with sizes: { {path=, name=, size=}, ... }
function spool.list(dir)
  local names = core.fs.listdir(dir)
  if not names then return {} end
  local items = {}
  for _, n in ipairs(names) do
    if n:match("^%d+%-%d+%-%d+%-%x+%.item$") then
      local p = join(dir, n)
      local st = core.fs.stat(p)
      if st and st.type == "file" then items[#items + 1] = { path = p, name = n, size = st.size } end
    elseif n:match("%.state$") and not core.fs.stat(join(dir, n:gsub("%.state$", ""))) then
      os.remove(join(dir, n)) -- sidecar of an item that was delivered or dropped
    end
  end
  table.sort(items, function(a, b) return a.name < b.name end)
  return items
end

-- Moves an item the server will never accept (e.g. HTTP 400/413) out of the retry queue into
-- <dir>/rejected/, keeping it for a person to look at (never deleted silently).
function spool.reject(path, why)
  local dir, name = path:match("^(.*)/([^/]+)$")
  spool.ensure(dir .. "/rejected")
  core.fs.rename(path, dir .. "/rejected/" .. name)
  os.remove(path .. ".state")
  core.fs.write_atomic(dir .. "/rejected/" .. name .. ".why", why .. "\n")
  log.error("spool: %s rejected by the server (%s); kept in %s/rejected/", name, why, dir)
end

-- enforce(dir, cap) keeps the spool within cap.max_items and cap.max_bytes. cap.on_full:
-- "drop_oldest" (default: keep the newest captures) or "drop_newest". Every dropped item is logged.
-- Returns the list of dropped names and their metadata ({name = meta}; meta is false if unreadable).
function spool.enforce(dir, cap, keep)
  local items = spool.list(dir)
  local total = 0
  for _, it in ipairs(items) do total = total + it.size end
  local max_items, max_bytes = cap.max_items or math.huge, cap.max_bytes or math.huge
  local dropped, metas = {}, {}
  local newest_first = cap.on_full == "drop_newest"
  while #items > 0 and (#items > max_items or total > max_bytes) do
    local idx = newest_first and #items or 1
    if items[idx].path == keep and #items > 1 then idx = newest_first and #items - 1 or 2 end
    local it = table.remove(items, idx)
    total = total - it.size
    local ok, meta = pcall(spool.read, it.path)
    spool.remove(it.path)
    dropped[#dropped + 1] = it.name
    metas[it.name] = ok and meta or false
    log.warn("spool full (%d items, %d bytes; cap %s items, %s bytes, on_full=%s): dropped %s (%s, %d bytes)",
      #items + 1, total + it.size, tostring(cap.max_items), tostring(cap.max_bytes),
      newest_first and "drop_newest" or "drop_oldest",
      it.name, ok and (meta.label or meta.sink or "?") or "unreadable", it.size)
  end
  return dropped, metas
end

return spool
