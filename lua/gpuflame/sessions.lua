-- The live-session registry (docs/LIVE.md): one JSON file per session that `gpuflame launch` runs under
-- `nsys launch`, in a directory private to the user (policy live.registry_dir). An entry names the
-- workload by pid AND start time and the launching gpuflame the same way, so an entry whose processes
-- are gone (a `launch` killed with SIGKILL) is recognised as ended and removed by the next reader.
--
-- Locks (flock, released by the kernel when their holder dies, however it dies):
--   <name>.lock    held by `launch` for the session's whole life: one session per name
--   <name>.window  held by `capture --session` while its window is open: one window at a time
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local nsys_temp = require("gpuflame.nsys_temp")
local procfs = require("gpuflame.procfs")
local need = require("gpuflame.policy").need

local S = {}

-- state_dir() → the directory of this user's live state (docs/LIVE.md, "Where state lives"), private
-- (0700, owned by the user, checked: core.fs.private_dir): $XDG_RUNTIME_DIR/gpuflame when that variable
-- names a directory, else /run/gpuflame for root, else <$TMPDIR or /tmp>/gpuflame-<uid>.
function S.state_dir()
  local run = os.getenv("XDG_RUNTIME_DIR")
  local d
  if run and run:match("^/") then
    d = run .. "/gpuflame"
  else
    local uid = core.sys.uid()
    local st = uid == 0 and core.fs.stat("/run")
    if st and st.type == "directory" then
      d = "/run/gpuflame"
    else
      local tmp = os.getenv("TMPDIR")
      d = (tmp and tmp:match("^/") and tmp:gsub("/+$", "") or "/tmp") .. "/gpuflame-" .. uid
    end
  end
  core.fs.private_dir(d)
  return d
end

-- The registry directory: policy live.registry_dir (its parents created), else <state_dir>/sessions;
-- private either way (it says which jobs run and what they run).
function S.dir(policy)
  local d = need(policy, "sessions.dir").live.registry_dir
  if d == "" then
    d = S.state_dir() .. "/sessions"
  else
    d = d:gsub("(.)/+$", "%1")
    local parent = d:match("^(.*)/[^/]+$")
    if parent and parent ~= "" then core.fs.mkdirp(parent, 448) end
  end
  core.fs.private_dir(d)
  return d
end

-- A session name is a file name and an nsys session name: a letter, then letters, digits, . _ -
function S.check_name(name)
  if type(name) ~= "string" or not name:match("^[A-Za-z][A-Za-z0-9._-]*$") or #name > 64 then
    errors.raise(errors.USAGE, "session name %q: use a letter, then letters, digits, '.', '_' or '-' (64 at most)",
      tostring(name))
  end
  return name
end

local function path(dir, name, ext) return dir .. "/" .. name .. ext end

local function read_entry(file)
  local ok, e = pcall(function() return core.json.decode(core.fs.read(file)) end)
  if ok and type(e) == "table" and type(e.name) == "string" then return e end
  return nil
end

-- alive(entry) → true while the workload and the launching gpuflame both run (pid + start time)
function S.alive(e)
  return procfs.alive({ pid = e.pid, start = e.pid_start }) and
    procfs.alive({ pid = e.launcher_pid, start = e.launcher_start })
end

-- The window lock's holder, without taking it: true when a window is open.
local function window_open(dir, name)
  local h = core.lock.try(path(dir, name, ".window"))
  if h then h:release(); return false end
  return true
end

-- An ended session's files; a lock file only when nobody holds it; the status file nsys's launcher kept for
-- its workload, left when the launch was killed (gpuflame.nsys_temp). A session whose launch was killed while
-- its workload, or the nsys-launcher that writes that file once the workload ends, still runs (nsys ends them a
-- moment later) keeps its entry, so that the reader that finds both gone removes that file: forgotten now, the
-- file would be nobody's.
local function forget(dir, name, e)
  -- only a path that names the entry's own workload: the entry is a file, and what it names is removed
  if e and type(e.nsys_status) == "string" and math.tointeger(e.pid) and
    e.nsys_status:match("/nsys_termination_status_(%d+)$") == tostring(math.tointeger(e.pid)) then
    -- the writer as recorded: nsys_temp checks its fields (procfs.alive), an entry without one counts as before
    local w = { path = e.nsys_status, pid = e.pid, start = e.pid_start, writer = e.nsys_status_writer }
    if not nsys_temp.workload_ended(w) then return end
    nsys_temp.drop_status({ w })
  end
  for _, ext in ipairs({ ".json", ".window.json" }) do os.remove(path(dir, name, ext)) end
  for _, ext in ipairs({ ".window", ".lock" }) do
    local h = core.fs.stat(path(dir, name, ext)) and core.lock.try(path(dir, name, ext))
    if h then os.remove(path(dir, name, ext)); h:release() end
  end
end

-- state(dir, entry) → "waiting" | "capturing" | "ended", and since when (ISO 8601)
function S.state(dir, e)
  if not S.alive(e) then return "ended", e.started end
  if window_open(dir, e.name) then
    local w = read_entry(path(dir, e.name, ".window.json"))
    return "capturing", w and w.since or e.started
  end
  local w = read_entry(path(dir, e.name, ".window.json"))
  return "waiting", w and w.stopped or e.started
end

-- list(policy) → entries with .state and .since, by name; ended ones are removed from the registry
-- (they are listed once more, as ended, so the caller can say so), but for one whose launch was killed while
-- its workload still runs: it stays, ended, until a reader finds the workload gone (forget).
function S.list(policy)
  local dir = S.dir(policy)
  local out = {}
  for _, f in ipairs(core.fs.listdir(dir) or {}) do
    local name = f:match("^(.-)%.json$")
    if name and not name:match("%.window$") then
      local e = read_entry(dir .. "/" .. f)
      if e then
        e.state, e.since = S.state(dir, e)
        if e.state == "ended" then forget(dir, name, e) end
        out[#out + 1] = e
      end
    end
  end
  table.sort(out, function(a, b) return a.name < b.name end)
  return out, dir
end

-- get(name, policy) → the running session's entry; exit 4 naming the session when there is none or its
-- workload has ended (the stale entry is removed).
function S.get(name, policy)
  S.check_name(name)
  local dir = S.dir(policy)
  local e = read_entry(path(dir, name, ".json"))
  if not e then
    errors.raise(errors.CAPTURE, "session %s: not running (no entry in %s: it has ended, or was never launched; " ..
      "see `gpuflame sessions`)", name, dir)
  end
  if not S.alive(e) then
    forget(dir, name, e)
    errors.raise(errors.CAPTURE, "session %s: its workload (pid %s, %s) has ended", name, tostring(e.pid),
      table.concat(e.command or {}, " "))
  end
  return e, dir
end

-- claim(name, policy) → lock handle for `launch`; exit 2 when a live session holds the name.
function S.claim(name, policy)
  S.check_name(name)
  local dir = S.dir(policy)
  local h = core.lock.try(path(dir, name, ".lock"))
  if not h then errors.raise(errors.USAGE, "session %s is already running (%s)", name, path(dir, name, ".json")) end
  for _, ext in ipairs({ ".json", ".window.json" }) do os.remove(path(dir, name, ext)) end -- an earlier one's
  return h
end

function S.register(entry, policy)
  core.fs.write_atomic(path(S.dir(policy), entry.name, ".json"), core.json.encode(entry, { pretty = true }) .. "\n")
end

-- release(name, lock, policy): the session has ended; its entry, files and launch lock go.
function S.release(name, lock, policy)
  local dir = S.dir(policy)
  forget(dir, name)
  os.remove(path(dir, name, ".lock"))
  lock:release()
end

-- open_window(entry, info, policy) → lock handle; exit 4 when a window is already open on the session.
function S.open_window(e, info, policy)
  local dir = S.dir(policy)
  local h = core.lock.try(path(dir, e.name, ".window"))
  if not h then
    local w = read_entry(path(dir, e.name, ".window.json"))
    errors.raise(errors.CAPTURE, "session %s: a window is already open (since %s, into %s); one window at a time",
      e.name, w and w.since or "?", w and w.out or "?")
  end
  info.name = e.name
  S.note_window(info, policy)
  return h
end

function S.note_window(info, policy)
  core.fs.write_atomic(path(S.dir(policy), info.name, ".window.json"), core.json.encode(info) .. "\n")
end

return S
