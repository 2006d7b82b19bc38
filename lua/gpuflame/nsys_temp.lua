-- What nsys calls leave outside a capture's directory (docs/LIVE.md "Bounds of the nsys calls"): nsys
-- writes the raw capture into its temp directory (`Generating '/tmp/nsys-report-3e57.qdstrm'`) and imports
-- it from there; a live window or a capture that fails (a hung `nsys stop`, a job that ended, a profile past
-- its timeout) leaves it there. The paths are the ones nsys itself printed for this capture, so nothing of
-- another is touched. At the end of a window (and when a capture fails) they are removed, or moved into its
-- --out directory when policy live.keep_failed_raw asks (a failed one only).
local core = require("gpuflame.core")
local log = require("gpuflame.log")

local T = {}

-- note(state, res): remembers the temporary files nsys named in one call's output (state.nsys_temp)
function T.note(state, res)
  state.nsys_temp = state.nsys_temp or {}
  local text = (res.stdout or "") .. "\n" .. (res.stderr or "")
  for path in text:gmatch("(/[^%s'\"]-nsys%-report%-[%w]+%.[%w%-]+)") do
    if (path:match("%.qdstrm$") or path:match("%.nsys%-rep$")) and not state.nsys_temp[path] then
      state.nsys_temp[path] = true
      state.nsys_temp[#state.nsys_temp + 1] = path
    end
  end
end

local function inside(path, dir)
  local rp, rd = core.fs.realpath(path) or path, core.fs.realpath(dir) or dir
  return rp:sub(1, #rd + 1) == rd .. "/"
end

-- clean(state, failed, policy) → a sentence saying what became of them ("" when nothing was left)
function T.clean(state, failed, policy)
  local done = {}
  for _, path in ipairs(state.nsys_temp or {}) do
    local st = core.fs.stat(path, false)
    if st and st.type == "file" and not inside(path, state.dir) then
      if failed and policy.live.keep_failed_raw then
        local dest = state.dir .. "/" .. path:match("[^/]+$")
        local ok = pcall(core.fs.rename, path, dest) or (pcall(core.fs.copy, path, dest) and os.remove(path))
        done[#done + 1] = ok and ("moved nsys's temporary " .. path .. " to " .. dest) or ("could not move " .. path)
      else
        local ok, why = os.remove(path)
        done[#done + 1] = ok and ("removed nsys's temporary " .. path) or ("could not remove " .. path .. ": " .. tostring(why))
      end
      log.debug("window: %s", done[#done])
    end
  end
  state.nsys_temp = {}
  return table.concat(done, "; ")
end

return T
