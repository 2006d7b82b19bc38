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

-- Report names per version live in policy (nsys.report_eras): the effective policy is required.
local need = require("gpuflame.policy").need

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
  s = require("gpuflame.core").log.escape(s, false)
  max = max or 400
  if #s > max then
    while max > 0 and (s:byte(max + 1) or 0) & 0xC0 == 0x80 do max = max - 1 end
    s = s:sub(1, max) .. "…"
  end
  return s
end

return nsys
