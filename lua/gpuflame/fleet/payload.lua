-- What a capture directory offers for delivery: the pages (timeline, flamegraph), the folded stacks
-- (GPU from nsys, CPU from the perf backend), and a way to re-render the timeline with fewer events
-- when an upload is too big. File names come from policy.outputs (what the capture writes) and
-- policy.upload.artifacts.timeline_inputs.
local core = require("gpuflame.core")
local log = require("gpuflame.log")
local sidecar = require("gpuflame.sidecar")

local payload = {}

local function exists(p)
  local st = p and core.fs.stat(p)
  return st and st.type == "file" and st.size > 0
end

local function self_exe()
  return core.fs.realpath("/proc/self/exe") or "gpuflame"
end

-- Input files a timeline can be rebuilt from (the trace engineer's `gpuflame timeline INPUT…
-- --max-events N -o FILE`): the SQLite export, else the two trace CSVs.
local function timeline_inputs(dir, groups)
  for _, group in ipairs(groups) do
    local all = {}
    for _, g in ipairs(group) do
      local found = core.fs.glob(dir .. "/" .. g)
      if #found == 0 then all = nil; break end
      all[#all + 1] = found[1]
    end
    if all and #all > 0 then return all end
  end
  return nil
end

-- from_dir(dir, extra|nil, p) → payload table for deliver.submit.
function payload.from_dir(dir, extra, p)
  local names = p.outputs
  local pl = { dir = dir, html = {}, artifacts = {}, label = extra and extra.label or dir }
  local summary
  local summary_path = dir .. "/" .. names.summary
  if exists(summary_path) then
    local ok, s = pcall(function() return core.json.decode(core.fs.read(summary_path)) end)
    if ok and type(s) == "table" then summary = s end
  end
  -- summary.json (written by the capture pipeline) names its artifacts; the policy's names are the
  -- fallback for directories made by other tools.
  local named = summary and type(summary.artifacts) == "table" and summary.artifacts or {}
  local function pick(key, file)
    local p1 = type(named[key]) == "string" and named[key] or nil
    if p1 and exists(p1) then return p1 end
    if exists(dir .. "/" .. file) then return dir .. "/" .. file end
  end
  pl.html.timeline = pick("timeline", names.timeline)
  pl.html.flamegraph = pick("html", names.flamegraph)
  pl.folded = pick("folded", names.gpu_folded)
  -- a timeline capture has no GPU folded file; its launch-stack stacks (when recorded) are the body
  pl.folded = pl.folded or pick("launch_stacks", names.launch_folded)
  for _, f in ipairs({ pl.html.timeline, pl.html.flamegraph, pl.folded }) do pl.artifacts[#pl.artifacts + 1] = f end
  if pl.folded and exists(sidecar.path(pl.folded)) then -- its metadata (gpuflame.sidecar)
    pl.artifacts[#pl.artifacts + 1] = sidecar.path(pl.folded)
  end
  if summary then -- the capture window, when the capture recorded it
    pl.start_time = type(summary.started) == "string" and summary.started or nil
    pl.end_time = type(summary.finished) == "string" and summary.finished or nil
    local w = type(summary.window) == "table" and summary.window or nil
    if w and type(w.session) == "string" and type(w.actual_start) == "string" then -- a live session's window
      pl.session, pl.window = w.session, w.actual_start
      pl.start_time = w.actual_start
      pl.end_time = type(w.stop_called) == "string" and w.stop_called or pl.end_time
    end
  end
  if exists(dir .. "/" .. names.cpu_folded) then
    pl.cpu_folded = dir .. "/" .. names.cpu_folded
    pl.artifacts[#pl.artifacts + 1] = pl.cpu_folded
  end
  table.sort(pl.artifacts)
  pl.gpu = pl.folded ~= nil or next(pl.html) ~= nil
  local tl = summary and type(summary.timeline) == "table" and summary.timeline or {}
  pl.stacks = (tonumber(tl.launches_with_stack) or 0) > 0 or nil -- backtraces were captured
  if pl.html.timeline then
    local inputs = timeline_inputs(dir, p.upload.artifacts.timeline_inputs)
    if inputs then
      pl.retrim = function(n)
        local out = string.format("%s/%s", dir, names.timeline:gsub("%.html$", "") .. "-" .. n .. ".html")
        local argv = { self_exe(), "-q", "timeline" }
        for _, i in ipairs(inputs) do argv[#argv + 1] = i end
        if pl.stacks then argv[#argv + 1] = "--stacks" end
        for _, a in ipairs({ "--max-events", tostring(n), "-o", out }) do argv[#argv + 1] = a end
        local ok, r = pcall(core.proc.run, { argv = argv, timeout = p.upload.retrim_timeout })
        if ok and r.ok and exists(out) then return out end
        log.warn("upload: re-rendering the timeline with %d events failed: %s", n,
          ok and ((r.stderr or ""):match("[^\n]*") or r.status) or tostring(r))
        return nil
      end
    end
  end
  for k, v in pairs(extra or {}) do pl[k] = v end
  return pl
end

-- from_files(files) → payload for loose artifacts given on the command line.
function payload.from_files(files)
  local pl = { html = {}, artifacts = {}, label = table.concat(files, " ") }
  for _, f in ipairs(files) do
    local base = f:match("([^/]+)$")
    if f:match("%.html?$") then
      local kind = base:find("timeline", 1, true) and "timeline" or "flamegraph"
      pl.html[kind] = pl.html[kind] or f
    elseif base:match("^cpu") or base:match("^perf") then
      pl.cpu_folded = f
    else
      pl.folded = f
    end
    pl.artifacts[#pl.artifacts + 1] = f
  end
  pl.gpu = pl.folded ~= nil or next(pl.html) ~= nil
  return pl
end

-- Host CPU and memory use: cpu_sample() now and at the end → cpu_avg percent over the window.
function payload.cpu_sample()
  local f = io.open("/proc/stat", "r")
  if not f then return nil end
  local line = f:read("l")
  f:close()
  local vals = {}
  for n in (line or ""):gmatch("%d+") do vals[#vals + 1] = tonumber(n) end
  if #vals < 4 then return nil end
  local total = 0
  for _, v in ipairs(vals) do total = total + v end
  return { total = total, idle = vals[4] + (vals[5] or 0) }
end

function payload.cpu_avg(a, b)
  if not a or not b or b.total <= a.total then return nil end
  return math.floor((1 - (b.idle - a.idle) / (b.total - a.total)) * 10000 + 0.5) / 100
end

function payload.mem_used_percent()
  local f = io.open("/proc/meminfo", "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  local total = tonumber(text:match("MemTotal:%s*(%d+)"))
  local avail = tonumber(text:match("MemAvailable:%s*(%d+)"))
  if not total or not avail or total == 0 then return nil end
  return math.floor((1 - avail / total) * 10000 + 0.5) / 100
end

return payload
