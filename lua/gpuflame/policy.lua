-- Policies: Lua files returning tables. `extends = "default"` layers a file over another (deep merge;
-- lists and functions replace). The effective policy is the default, then every --policy file in
-- order. Policies are trusted code, like a shell rc file (docs/ARCHITECTURE.md, "Trust"): they run
-- with a curated set of globals and under a time budget, which keeps them tidy and stops runaway
-- loops, but that is no sandbox: a policy can reach everything gpuflame can (require("gpuflame.core")
-- runs processes). As root, a policy file must be owned by root and writable by nobody else
-- (core.fs.require_trusted; files found on the search path are checked by the host).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local resource = require("gpuflame.resource")
local schema = require("gpuflame.policy_schema")

local policy = {}

local LOAD_BUDGET = 5 -- seconds a policy file may take to load
local extra_files = {} -- added through the embedding API (gf_host_load_policy)

-- pairs and # only (never next), so that the read-only view of defaults() can be merged and copied too
local function is_list(t)
  if type(t) ~= "table" then return false end
  local n, count = #t, 0
  for _ in pairs(t) do count = count + 1 end
  return count == n
end

local function deep_copy(v)
  if type(v) ~= "table" then return v end
  local c = {}
  for k, x in pairs(v) do c[k] = deep_copy(x) end
  return c
end

-- merge(base, over): tables merge key by key; lists, functions and scalars in `over` replace.
function policy.merge(base, over)
  local out = deep_copy(base)
  for k, v in pairs(over) do
    if type(v) == "table" and type(out[k]) == "table" and not is_list(v) and not is_list(out[k]) then
      out[k] = policy.merge(out[k], v)
    else
      out[k] = deep_copy(v)
    end
  end
  return out
end

-- The globals a policy file sees: what a table of settings and small functions need. Not a security
-- boundary: string/table/math are the shared libraries, and gpuflame modules (gpuflame.core
-- included) can be required. It keeps policies from depending on io/os.execute by accident.
local function policy_env()
  local env = {
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, pcall = pcall,
    select = select, tonumber = tonumber, tostring = tostring, type = type, xpcall = xpcall,
    setmetatable = setmetatable, getmetatable = getmetatable, rawget = rawget, rawset = rawset,
    string = string, table = table, math = math, utf8 = utf8,
    os = { getenv = os.getenv, time = os.time, date = os.date, clock = os.clock },
    require = function(name)
      if type(name) ~= "string" or not name:match("^gpuflame%.[%w_%.]+$") then
        error("policies may only require gpuflame modules (got " .. tostring(name) .. ")", 2)
      end
      return require(name)
    end,
  }
  env._G = env
  return env
end

local function short_name(origin)
  return (origin:gsub("^embedded:", ""))
end

-- Loads one policy file (a path on disk, or a name like "default" found as policies/<name>.lua on
-- the search path) and resolves its `extends` chain. Returns the merged table.
local function load_one(ref, seen, from_dir)
  local text, origin
  local st = core.fs.stat(ref)
  if st and st.type == "file" then
    core.fs.require_trusted(ref) -- as root: owned by root, writable by nobody else (nor its directory)
    text, origin = core.fs.read(ref), ref
  elseif from_dir and not ref:match("^/") and core.fs.stat(from_dir .. "/" .. ref) then
    origin = from_dir .. "/" .. ref
    core.fs.require_trusted(origin)
    text = core.fs.read(origin)
  else
    -- on the search path: the host refuses an untrusted file there itself
    local name = ref:match("%.lua$") and ref or ("policies/" .. ref .. ".lua")
    text, origin = resource.find(name)
    if not text then
      errors.raise(errors.USAGE, "policy %s: no such file (nor %s on the search path)", ref, name)
    end
  end
  if seen[origin] then errors.raise(errors.ERROR, "policy %s: `extends` forms a cycle", short_name(origin)) end
  seen[origin] = true
  local chunkname = origin:match("^embedded:") and ("=" .. short_name(origin)) or ("@" .. origin)
  local fn, err = load(text, chunkname, "t", policy_env())
  if not fn then errors.raise(errors.ERROR, "%s", err) end
  local ok, res = core.host.with_budget(LOAD_BUDGET, fn)
  if not ok then
    local e = errors.wrap(res)
    local prefix = e.msg:find(short_name(origin), 1, true) and "" or ("policy " .. short_name(origin) .. ": ")
    errors.reraise(e, e.code == errors.INTERRUPTED and e.code or errors.ERROR, prefix)
  end
  if type(res) ~= "table" then
    errors.raise(errors.ERROR, "policy %s: must return a table (got %s)", short_name(origin), type(res))
  end
  res = deep_copy(res)
  local base = {}
  if res.extends ~= nil then
    if type(res.extends) ~= "string" then
      errors.raise(errors.ERROR, "policy %s: extends must be a string (got %s)", short_name(origin), type(res.extends))
    end
    local dir = origin:match("^(.*)/[^/]*$")
    base = load_one(res.extends, seen, dir)
  end
  res.extends = nil
  local merged = policy.merge(base, res)
  local okv, verr = schema.validate(res, short_name(origin))
  if not okv then errors.raise(errors.ERROR, "%s", verr) end
  return merged, origin
end

function policy.load_file(ref)
  return load_one(ref, {}, nil)
end

-- A read-only view of t: a proxy whose writes raise, at every depth. pairs (__pairs), ipairs, # (__len)
-- and indexing work on it; next and rawget do not (they see the empty proxy).
local views = setmetatable({}, { __mode = "k" })
local function readonly(t, where)
  if type(t) ~= "table" then return t end
  local cached = views[t]
  if cached then return cached end
  local proxy = {}
  setmetatable(proxy, {
    __index = function(_, k) return readonly(t[k], where .. "." .. tostring(k)) end,
    __newindex = function(_, k)
      error(string.format("%s is read-only (policy.defaults()); cannot set %s", where, tostring(k)), 2)
    end,
    __len = function() return #t end,
    __pairs = function()
      local function iter(_, k)
        local nk, v = next(t, k)
        if nk == nil then return nil end
        return nk, readonly(v, where .. "." .. tostring(nk))
      end
      return iter, proxy, nil
    end,
    __metatable = false,
  })
  views[t] = proxy
  return proxy
end

-- The default policy alone (policies/default.lua: the search path's copy, else the bundle's), loaded
-- once, as a read-only view (writes raise at any depth). For `policy show`-like tools and tests: code
-- that works on behalf of a command uses the command's effective policy (ctx.policy()), never this
-- (tests/cli/test_lint.sh keeps defaults() out of every other file under lua/ and policies/).
local defaults_cache
function policy.defaults()
  if not defaults_cache then defaults_cache = readonly((load_one("default", {}, nil)), "defaults") end
  return defaults_cache
end

-- need(p, where) → p, or a programming error (exit 1) naming `where` when p is not a policy table:
-- library functions take the effective policy as a required argument and never fall back to defaults.
function policy.need(p, where)
  if type(p) ~= "table" then
    errors.raise(errors.ERROR, "%s: internal error: called without the effective policy (got %s); pass " ..
      "ctx.policy()", where, type(p))
  end
  return p
end

function policy.add_file(path)
  extra_files[#extra_files + 1] = path
end

-- effective(files) → the default policy with each file layered on top, validated; `sources` lists
-- where each layer came from.
function policy.effective(files)
  local eff, origin = load_one("default", {}, nil)
  local sources = { origin }
  local all = {}
  for _, f in ipairs(extra_files) do all[#all + 1] = f end
  for _, f in ipairs(files or {}) do all[#all + 1] = f end
  for _, f in ipairs(all) do
    local layer, o = load_one(f, {}, nil)
    eff = policy.merge(eff, layer)
    sources[#sources + 1] = o
  end
  local ok, err = schema.validate(eff, "(effective)")
  if not ok then errors.raise(errors.ERROR, "%s", err) end
  return setmetatable(eff, { __index = { _sources = sources } })
end

-- Calls a policy function under the time budget; errors name the policy file and line.
function policy.call(p, fn, ...)
  local budget = p.limits.function_budget
  local res = table.pack(core.host.with_budget(budget, fn, ...))
  if not res[1] then
    local e = errors.wrap(res[2])
    errors.reraise(e, e.code == errors.INTERRUPTED and e.code or errors.ERROR, "policy function failed: ")
  end
  return table.unpack(res, 2, res.n)
end

-- get(p, "a.b.c") → value or nil
function policy.get(p, path)
  local v = p
  for part in path:gmatch("[^%.]+") do
    if type(v) ~= "table" then return nil end
    v = v[part]
  end
  return v
end

return policy
