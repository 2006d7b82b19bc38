-- nsys as an external program: version parsing, report names by version, command building helpers.
local nsys = {}

-- parse_version(text) → {year, release, patch, build, family = "YYYY.R", raw = line} or nil.
-- Searches (not anchored) for YYYY.R[.P[.B]] after the word "version" (docs/spec/NSYS.md §2.1).
function nsys.parse_version(text)
  if type(text) ~= "string" then return nil end
  for line in text:gmatch("[^\r\n]+") do
    local after = line:match("[Vv]ersion%s*(.*)$")
    if after then
      local y, r, rest = after:match("(%d%d%d%d)%.(%d+)(.*)$")
      if y then
        local p, b = rest:match("^%.(%d+)%.(%d+)")
        if not p then p = rest:match("^%.(%d+)") end
        local v = {
          year = tonumber(y), release = tonumber(r), patch = tonumber(p) or 0, build = tonumber(b) or 0,
          raw = (line:gsub("^%s+", ""):gsub("%s+$", "")),
        }
        v.family = string.format("%d.%d", v.year, v.release)
        v.string = string.format("%d.%d.%d.%d", v.year, v.release, v.patch, v.build)
        v.short = string.format("%d.%d.%d", v.year, v.release, v.patch)
        return v
      end
    end
  end
  return nil
end

-- compare(a, b) → -1, 0, 1 over (year, release, patch, build)
function nsys.compare(a, b)
  for _, k in ipairs({ "year", "release", "patch", "build" }) do
    local x, y = a[k] or 0, b[k] or 0
    if x ~= y then return x < y and -1 or 1 end
  end
  return 0
end

local function version_of(y, r, p, b, how)
  local v = { year = tonumber(y), release = tonumber(r), patch = tonumber(p) or 0, build = tonumber(b) or 0, how = how }
  v.family = string.format("%d.%d", v.year, v.release)
  v.string = string.format("%d.%d.%d.%d", v.year, v.release, v.patch, v.build)
  v.short = string.format("%d.%d.%d", v.year, v.release, v.patch)
  return v
end

-- The footer of a report (its last bytes, before "[END]") is a protobuf message that names the nsys which
-- recorded it twice in a row: field 6 then field 7, each "YYYY.R.P.B-<hash>" (tag 0x32, then 0x3a, one
-- length byte each). Seen in every report of the fixtures, 2020.3 to 2023.4.
local function footer_version(tail)
  local found
  local pos = 1
  while true do
    local at = tail:find("\x32", pos, true)
    if not at then break end
    local len = tail:byte(at + 1) or 0
    local s = tail:sub(at + 2, at + 1 + len)
    if len > 0 and len < 128 and tail:byte(at + 2 + len) == 0x3a and tail:byte(at + 3 + len) == len and
      tail:sub(at + 4 + len, at + 3 + 2 * len) == s then
      local y, r, p, b = s:match("^(%d%d%d%d)%.(%d+)%.(%d+)%.(%d+)")
      if y then found = version_of(y, r, p, b, "footer") end
    end
    pos = at + 1
  end
  return found
end

-- report_version(path) → the version of the nsys that recorded a report (.nsys-rep/.qdrep), or nil when the
-- file does not say. The first line is "NVIDIA Tegra Profiler Report <V>.": V is "1" up to nsys 2023.3 and
-- the recording version itself from 2023.4 ("2023@4@4@54-234433681190v0", the text nsys 2022.4 calls "an
-- invalid version number"); otherwise the footer is read (see footer_version).
function nsys.report_version(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local head = f:read(96) or ""
  local y, r, p, b = head:match("^NVIDIA Tegra Profiler Report (%d%d%d%d)@(%d+)@(%d+)@(%d+)")
  if y then
    f:close()
    return version_of(y, r, p, b, "header")
  end
  if not head:match("^NVIDIA Tegra Profiler Report ") then f:close(); return nil end
  local size = f:seek("end") or 0
  f:seek("set", math.max(0, size - 65536))
  local tail = f:read(65536) or ""
  f:close()
  return footer_version(tail)
end

-- newer_report(rep, nsys_info) → a message when `rep` was recorded by an nsys newer than the one given
-- (which then cannot read it), else nil. Only asked after that nsys failed on the report.
function nsys.newer_report(rep, info)
  local rec = nsys.report_version(rep)
  local v = info and info.version
  if not rec or not v or nsys.compare(rec, v) <= 0 then return nil end
  local src = info.source
  local where = src == "path" and ", found on PATH" or src == "env" and ", from NSYS_PATH" or
    (src and src ~= "explicit" and (", discover source " .. src)) or ""
  return string.format("recorded by nsys %s; the nsys used here (%s, %s%s) cannot read newer reports: use an " ..
    "nsys ≥ %s (`--nsys PATH`, `NSYS_PATH`; `gpuflame discover` lists the nsys found)", rec.short,
    string.format("%d.%d.%d", v.year, v.release, v.patch or 0), info.path or "?", where, rec.family), rec
end

-- Report names per version live in policy (nsys.report_eras): the effective policy is required.
local need = require("gpuflame.policy").need
local core = require("gpuflame.core")

local function parse_since(s)
  local parts = {}
  for n in s:gmatch("%d+") do parts[#parts + 1] = tonumber(n) end
  return { year = parts[1] or 0, release = parts[2] or 0, patch = parts[3] or 0, build = parts[4] or 0 }
end

-- The era (a table of renamed reports) that applies to a version; an unknown version is the newest.
local function era_for(version, policy)
  local eras = policy.nsys.report_eras
  if not version then return eras[1] and eras[1].names or {} end
  local best, best_since
  for _, e in ipairs(eras) do
    local since = parse_since(e.since)
    if nsys.compare(version, since) >= 0 and (not best_since or nsys.compare(since, best_since) > 0) then
      best, best_since = e, since
    end
  end
  return best and best.names or {}
end

-- report_name("cuda_gpu_kern_sum", version, policy) → the name this nsys knows ("gpukernsum" < 2023.1).
function nsys.report_name(name, version, policy)
  need(policy, "nsys.report_name")
  local canonical = nsys.canonical_report(name, policy)
  return era_for(version, policy)[canonical] or canonical
end

-- True when this version uses the current report names.
function nsys.uses_new_report_names(version, policy)
  need(policy, "nsys.uses_new_report_names")
  return next(era_for(version, policy)) == nil
end

-- Canonical (current) name of a report given any era's spelling.
function nsys.canonical_report(name, policy)
  for _, e in ipairs(need(policy, "nsys.canonical_report").nsys.report_eras) do
    for canonical, old in pairs(e.names) do
      if old == name then return canonical end
    end
  end
  return name
end

-- nsys's own text made safe for one line of a message: runs of whitespace (newlines included) become one
-- space, then every byte that is not printable UTF-8 is escaped as \xNN by the one escaping function
-- (core.log.escape, core/textsafe.c). A damaged report makes nsys echo raw header bytes.
function nsys.clean_text(text, max)
  local s = tostring(text or ""):gsub("[ \t\n\r\v\f]+", " "):match("^ *(.-) *$")
  s = core.log.escape(s, false)
  max = max or 400
  if #s > max then
    while max > 0 and (s:byte(max + 1) or 0) & 0xC0 == 0x80 do max = max - 1 end
    s = s:sub(1, max) .. "…"
  end
  return s
end

return nsys
