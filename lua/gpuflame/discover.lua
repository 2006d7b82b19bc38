-- nsys discovery. The policy decides the order of sources (discover.order) and the globs of each;
-- this module checks candidates: a regular file (symlinks resolved), executable, and
-- `nsys --version` parses. Every candidate tried is reported with the reason it was rejected.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local nsys = require("gpuflame.nsys")

local discover = {}

-- Version number embedded in an install path ("/opt/nvidia/nsight-systems/2025.6.1/bin/nsys").
local function path_version(path)
  local y, rest = path:match("/(%d%d%d%d)%.([%d%.]+)")
  if not y then return nil end
  local parts = { tonumber(y) }
  for n in rest:gmatch("%d+") do parts[#parts + 1] = tonumber(n) end
  return { year = parts[1], release = parts[2] or 0, patch = parts[3] or 0, build = parts[4] or 0 }
end

-- check(path, timeout) → info table; info.ok tells whether it is usable, info.reason why not.
-- timeout: seconds `--version` may take (policy discover.version_timeout).
function discover.check(path, timeout)
  local info = { path = path }
  local st = core.fs.stat(path)
  if not st then
    info.reason = "does not exist"
    return info
  end
  local resolved = core.fs.realpath(path) or path
  info.resolved = resolved
  if st.type ~= "file" then
    info.reason = "not a regular file (" .. st.type .. ")"
    return info
  end
  if not st.executable then
    info.reason = "not executable"
    return info
  end
  local ok, res = pcall(core.proc.run, {
    argv = { path, "--version" }, timeout = timeout, kill_grace = 1, capture_limit = 65536,
  })
  if not ok then
    info.reason = "cannot run: " .. tostring(errors.wrap(res).msg)
    return info
  end
  if res.status == "timeout" then
    info.reason = string.format("`--version` did not finish within %g s", timeout)
    return info
  end
  local text = res.stdout
  if not text:match("%S") then text = res.stderr end
  info.version_text, info.version_code = text, res.code -- the whole output (NVTX analysis provenance)
  local v = nsys.parse_version(text)
  if not v then
    local first = nsys.clean_text(text:match("[^\r\n]+") or "", 80)
    info.reason = string.format("`--version` output does not parse (exit %s): \"%s\"", tostring(res.code), first)
    return info
  end
  info.version = v
  info.ok = true
  return info
end

local function expand(entry, p, opts)
  if entry == "explicit" then
    return opts.explicit and { opts.explicit } or {}, false
  elseif entry == "env" then
    local var = p.discover.env_var
    local v = os.getenv(var)
    return (v and v ~= "") and { v } or {}, false
  elseif entry == "path" then
    local found = core.fs.which("nsys")
    return found and { found } or {}, false
  end
  local globs = p.discover.sources[entry]
  if not globs then
    if entry:sub(1, 1) == "/" then globs = { entry } else return nil end
  end
  local out = {}
  for _, g in ipairs(globs) do
    for _, m in ipairs(core.fs.glob(g)) do out[#out + 1] = m end
  end
  return out, true
end

-- run({explicit = path, all = bool}|nil, policy) → {chosen = info|nil, tried = {info...}, found = {info...}}
-- Policy discover.prefer: "order" — the first source of discover.order with a usable nsys gives it (within a
-- glob source the newest version); "newest" — every source is looked at and the newest version wins (the
-- earlier source on a tie). A usable --nsys wins either way. opts.all: every source is looked at even when
-- the choice is made, so that `found` lists every usable nsys with its version (`gpuflame discover`).
function discover.run(opts, p)
  opts = opts or {}
  local tried, seen, found = {}, {}, {}
  local timeout = p.discover.version_timeout
  local newest = p.discover.prefer == "newest"
  local chosen
  for _, entry in ipairs(p.discover.order) do
    if chosen and not opts.all and (not newest or chosen.source == "explicit") then break end
    local cands, is_glob = expand(entry, p, opts)
    if cands == nil then
      log.warn("discover: unknown source %q in discover.order (skipped)", entry)
      cands = {}
    end
    if is_glob then
      -- newest first by the version in the path, so the first usable one is the newest
      table.sort(cands, function(a, b)
        local va, vb = path_version(a), path_version(b)
        if va and vb then
          local c = nsys.compare(va, vb)
          if c ~= 0 then return c > 0 end
        elseif va or vb then
          return va ~= nil
        end
        return a > b
      end)
    end
    local best
    for _, c in ipairs(cands) do
      local rp = core.fs.realpath(c) or c
      if seen[rp] then
        tried[#tried + 1] = { path = c, source = entry, reason = "duplicate of an earlier candidate" }
      else
        seen[rp] = true
        local info = discover.check(c, timeout)
        info.source = entry
        tried[#tried + 1] = info
        if info.ok then
          info.usable = true
          found[#found + 1] = info
          if not best or nsys.compare(info.version, best.version) > 0 then
            if best then best.ok, best.reason = false, "a newer version was found in the same location" end
            best = info
          else
            info.ok, info.reason = false, "older than " .. best.path
          end
        else
          log.debug("discover: rejected %s (%s): %s", c, entry, info.reason)
          if entry == "explicit" or entry == "env" then
            local from = entry == "env" and p.discover.env_var or "--nsys"
            log.warn("nsys candidate %s from %s rejected: %s", c, from, info.reason)
          end
        end
      end
    end
    if best then
      if not chosen then
        chosen = best
      elseif newest and chosen.source ~= "explicit" and nsys.compare(best.version, chosen.version) > 0 then
        chosen.ok, chosen.reason = false, "older than " .. best.path .. " (discover.prefer = \"newest\")"
        chosen = best
      else
        best.ok = false
        best.reason = newest and chosen.source ~= "explicit" and ("not newer than " .. chosen.path) or
          (chosen.path .. " comes first" .. (chosen.source == "explicit" and " (--nsys)" or " in discover.order"))
      end
    end
  end
  if chosen then
    chosen.reason = nil
    chosen.chosen = true
    chosen.importer = discover.check_install(chosen, p)
  end
  return { chosen = chosen, tried = tried, found = found }
end

local function dirname(p) return p:match("^(.*)/[^/]*$") or "." end

-- "/a/b/../c/./d" → "/a/c/d" (lexically; the paths are only shown and tested, never resolved here)
local function tidy(path)
  local parts = {}
  for c in path:gmatch("[^/]+") do
    if c == ".." and #parts > 0 and parts[#parts] ~= ".." then parts[#parts] = nil
    elseif c ~= "." then parts[#parts + 1] = c end
  end
  return (path:sub(1, 1) == "/" and "/" or "") .. table.concat(parts, "/")
end

local function executable(path)
  local st = core.fs.stat(path)
  return st and st.type == "file" and st.executable
end

-- Version line of a QdstrmImporter ("NVIDIA Nsight Systems 2022.4.2.1-df9881f"), parsed like nsys's.
local function importer_version(path, timeout)
  local ok, res = pcall(core.proc.run, { argv = { path, "--version" }, timeout = timeout, kill_grace = 1,
    capture_limit = 65536 })
  if not ok or res.status ~= "exited" then return nil end
  local text = (res.stdout or "") .. "\n" .. (res.stderr or "")
  return nsys.parse_version((text:gsub("Systems%s+(%d%d%d%d)", "Systems version %1")))
end

-- The install check of a usable nsys: can it turn a capture (.qdstrm) into a report? nsys looks for
-- QdstrmImporter in policy discover.importer_dirs beside its own (resolved) binary; Debian's split
-- packages put it elsewhere (discover.importer_sources). Returns
-- {ok, found_by_nsys, path, version, expected_dirs, fix, reason}.
function discover.check_install(info, p)
  local d = p.discover
  local bin_dir = dirname(info.resolved or info.path)
  local imp = { expected_dirs = {} }
  for _, rel in ipairs(d.importer_dirs) do
    local dir = tidy(bin_dir .. "/" .. rel)
    imp.expected_dirs[#imp.expected_dirs + 1] = dir
    local cand = dir .. "/QdstrmImporter"
    if executable(cand) then
      imp.ok, imp.found_by_nsys, imp.path = true, true, core.fs.realpath(cand) or cand
      return imp
    end
  end
  local mismatched
  for _, g in ipairs(d.importer_sources) do
    local found = core.fs.glob(g)
    table.sort(found, function(a, b) return a > b end)
    for _, cand in ipairs(found) do
      if executable(cand) then
        local v = importer_version(cand, d.version_timeout)
        if v and info.version and nsys.compare(v, info.version) == 0 then
          imp.ok, imp.found_by_nsys, imp.path, imp.version = true, false, cand, v.string
          imp.fix = string.format("ln -s %s %s/QdstrmImporter", cand, bin_dir)
          imp.reason = string.format("nsys looks for QdstrmImporter in %s, but it is in %s (a split install " ..
            "such as Debian's): nsys leaves a .qdstrm instead of a report", table.concat(imp.expected_dirs, ", "),
            dirname(cand))
          return imp
        end
        mismatched = mismatched or { path = cand, version = v and v.string or "unknown" }
      end
    end
  end
  imp.ok = false
  if mismatched then
    imp.reason = string.format("no QdstrmImporter of nsys %s: %s is version %s", info.version and
      info.version.string or "?", mismatched.path, mismatched.version)
  else
    imp.reason = "no QdstrmImporter found (looked in " .. table.concat(imp.expected_dirs, ", ") .. " and " ..
      table.concat(d.importer_sources, ", ") .. ")"
  end
  imp.fix = "install the host part of Nsight Systems of the same version (Debian: nsight-systems; NVIDIA's " ..
    "packages ship it in host-linux-*/)"
  return imp
end

discover.NOT_FOUND_HINT = "nsys (NVIDIA Nsight Systems) was not found. Install Nsight Systems on this host " ..
  "(nsys is never bundled with gpuflame), or point to it with --nsys PATH or NSYS_PATH=/path/to/nsys. " ..
  "Run `gpuflame discover -v` to see every place that was searched."

-- find(opts|nil, policy) → info; raises exit 3 when nothing usable was found.
function discover.find(opts, p)
  local r = discover.run(opts, p)
  if not r.chosen then errors.raise(errors.NO_NSYS, "%s", discover.NOT_FOUND_HINT) end
  return r.chosen, r
end

return discover
