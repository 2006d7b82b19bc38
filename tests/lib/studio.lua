-- Test helper: starts tests/studio_server.py (loopback, random port) and reads what it stored.
-- local S = dofile(top .. "/tests/lib/studio.lua"); local s = S.start(dir, {token = "..."})
local core = require("gpuflame.core")

local S = {}

local top = os.getenv("GF_TOP") or "."

-- The interpreter itself, not a version-manager shim (a pyenv shim costs ~0.5 s per start).
function S.python()
  if not S._py then
    local r = core.proc.run({ argv = { "python3", "-c", "import sys; print(sys.executable)" } })
    S._py = r.ok and r.stdout:match("(%S+)") or "python3"
  end
  return S._py
end

function S.start(dir, opts)
  opts = opts or {}
  local argv = { S.python(), top .. "/tests/studio_server.py", "--dir", dir, "--token", opts.token or "test-token",
    "--max-seconds", tostring(opts.max_seconds or 120) }
  if opts.service then argv[#argv + 1] = "--service"; argv[#argv + 1] = opts.service end
  if opts.max_len then argv[#argv + 1] = "--max-len"; argv[#argv + 1] = tostring(opts.max_len) end
  for _, k in ipairs({ "tls_cert", "tls_key", "client_ca" }) do
    if opts[k] then argv[#argv + 1] = "--" .. k:gsub("_", "-"); argv[#argv + 1] = opts[k] end
  end
  local h = core.proc.spawn({ argv = argv, stdout = "capture", stderr = "capture" })
  local port
  for _ = 1, 100 do -- at most 10 s
    h:poll(100)
    port = h:result().stdout:match("PORT (%d+)")
    if port then break end
  end
  assert(port, "studio stand-in did not start: " .. h:result().stderr)
  local s = { proc = h, port = tonumber(port), url = (opts.tls_cert and "https" or "http") .. "://127.0.0.1:" .. port,
    dir = dir }
  function s.ctl(path, tbl)
    local r = core.http.request({ method = "POST", url = s.url .. "/_control/" .. path,
      body = core.json.encode(tbl or {}), timeout = 10 })
    assert(r.ok, "control " .. path .. " failed: " .. tostring(r.error or r.status))
    return r
  end
  function s.records(filter)
    local out = {}
    local names = core.fs.listdir(dir .. "/log") or {}
    table.sort(names)
    for _, n in ipairs(names) do
      if n:match("%.json$") then
        local rec = core.json.decode(core.fs.read(dir .. "/log/" .. n))
        rec.file = dir .. "/log/" .. n
        if not filter or rec.path == filter then out[#out + 1] = rec end
      end
    end
    return out
  end
  function s.raw(rec) return core.fs.read((rec.file:gsub("%.json$", ".raw"))) end
  function s.stop() h:terminate() end
  return s
end

return S
