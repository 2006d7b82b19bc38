-- Delivery: the sinks the policy lists (deliver.sinks; several may be active), with retries,
-- exponential backoff with jitter, and the spool so that no capture is lost.
--
-- Every network delivery is written ahead to the spool (one atomic file holding the exact request
-- body), then sent; it is deleted only after a 2xx. A crash or SIGKILL mid-upload leaves the item in
-- the spool and the next `gpuflame upload --flush` or agent tick sends it again (at-least-once: the
-- server may see a duplicate if the kill came between its 2xx and our delete).
--
-- Sinks:
--   { type = "studio" }                           POST {server}/api/v2/profiles (docs/spec/STUDIO.md §2)
--   { type = "http", url = "https://h/{hostname}/{name}", method = "PUT"|"POST",
--     headers = { ["Authorization"] = "Bearer {token}" }, artifact = "html"|"folded"|"all" }
--   { type = "dir", path = "/srv/profiles/{hostname}" }   atomic copies of the artifacts
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local policy = require("gpuflame.policy")
local spool = require("gpuflame.fleet.spool")
local studio = require("gpuflame.fleet.studio")

local deliver = {}

local function basename(p) return (p:match("([^/]+)$")) end

-- {name} templates: hostname, service, name (artifact file name), kind, time (UTC compact), command.
local function expand(tpl, vars)
  return (tpl:gsub("{([%w_]+)}", function(k)
    local v = vars[k]
    if v == nil then return "{" .. k .. "}" end
    return tostring(v)
  end))
end

-- Tags (docs/spec/STUDIO.md §4.2): names from policy.upload.tag_names, then the policy's `tags`
-- function (if any) may add, remove or reorder them; it runs under the policy time budget.
function deliver.tags(what, p)
  local names = p.upload.tag_names
  local tags = {}
  if what.gpu then tags[#tags + 1] = names.gpu end
  if what.gpu and what.timeline then tags[#tags + 1] = names.timeline end
  if what.gpu and what.stacks then tags[#tags + 1] = names.stacks end
  if what.perf and names.perf ~= "" then tags[#tags + 1] = names.perf end
  if what.session and names.session ~= "" then tags[#tags + 1] = names.session .. ":" .. what.session end
  if what.window and names.window ~= "" then tags[#tags + 1] = names.window .. ":" .. what.window end
  if type(p.tags) == "function" then
    local res = policy.call(p, p.tags, what, tags)
    if type(res) == "table" then tags = res end
  end
  local clean, seen = {}, {}
  for _, t in ipairs(tags) do
    t = tostring(t):gsub("[,%c]", "_")
    if t ~= "" and not seen[t] then clean[#clean + 1], seen[t] = t, true end
  end
  return clean
end

-- Which page becomes flamegraph_html: the first kind in policy.upload.prefer that exists.
function deliver.choose_html(payload, p)
  for _, kind in ipairs(p.upload.prefer) do
    local path = payload.html and payload.html[kind]
    if path and core.fs.stat(path) then return kind, path end
  end
  return nil
end

local function read_opt(path)
  if not path then return nil end
  local st = core.fs.stat(path)
  if not st or st.type ~= "file" then return nil end
  return core.fs.read(path)
end

local function load_gpid(state_dir)
  if not state_dir then return "" end
  local t = read_opt(state_dir .. "/gpid")
  t = t and t:match("^%s*(%S+)") or ""
  return math.tointeger(tonumber(t)) or t
end

function deliver.save_gpid(state_dir, gpid)
  if not state_dir or gpid == nil or gpid == core.json.null then return end
  core.fs.mkdirp(state_dir, 448)
  core.fs.write_atomic(state_dir .. "/gpid", tostring(gpid) .. "\n")
end

-- Builds the Studio upload for a payload: returns {gz = bytes, meta = {...}, html_kind, tags} or
-- raises DELIVERY when it cannot be made to fit the size limit (policy.upload.oversize steps).
function deliver.studio_item(cfg, payload, p)
  local up = p.upload
  local limit = up.max_compressed_bytes
  local kind, html_path = deliver.choose_html(payload, p)
  local folded = read_opt(payload.cpu_folded) or read_opt(payload.folded) or ""
  local function build(hkind, hpath, with_html)
    local tags = deliver.tags({
      gpu = payload.gpu == true, timeline = hkind == "timeline", stacks = payload.stacks == true and hkind == "timeline",
      perf = payload.cpu_folded ~= nil, hostname = cfg.hostname, service = cfg.service, command = payload.command,
      session = payload.session, window = payload.window,
      html = hkind, artifacts = payload.artifacts,
    }, p)
    local header = studio.header({
      hostname = cfg.hostname, service = cfg.service, tags = tags, api_version = cfg.api_version,
      perf_mode = up.perf_mode, html = with_html and hpath and core.fs.read(hpath) or nil,
      cpu_avg = payload.cpu_avg, mem_avg = payload.mem_avg, continuous = false,
      extra = payload.metadata,
    })
    local body = studio.body({
      start_time = payload.start_time or core.sys.isotime(), end_time = payload.end_time or core.sys.isotime(),
      hostname = cfg.hostname, profile = studio.profile_text(header, folded),
      cpu_avg = payload.cpu_avg, mem_avg = payload.mem_avg, spawn_time = cfg.spawn_time or core.sys.isotime(),
      gpid = load_gpid(cfg.state_dir),
    })
    return core.http.gzip(body), tags
  end
  local gz, tags = build(kind, html_path, true)
  local notes = {}
  if #gz > limit then
    for _, step in ipairs(up.oversize) do
      if #gz <= limit then break end
      if step == "retrim" and kind == "timeline" and payload.retrim then
        for _, n in ipairs(up.retrim_events) do
          local newpath = payload.retrim(n)
          if newpath then
            html_path = newpath
            gz, tags = build(kind, html_path, true)
            notes[#notes + 1] = string.format("timeline re-trimmed to %d events (%d bytes compressed)", n, #gz)
            log.warn("upload: %s", notes[#notes])
            if #gz <= limit then break end
          end
        end
      elseif step == "retrim" and kind == "timeline" then
        notes[#notes + 1] = "timeline could not be re-trimmed (no re-render available for this capture)"
        log.warn("upload: %s", notes[#notes])
      elseif step == "flamegraph" and kind ~= "flamegraph" and payload.html and payload.html.flamegraph
        and core.fs.stat(payload.html.flamegraph) then
        kind, html_path = "flamegraph", payload.html.flamegraph
        gz, tags = build(kind, html_path, true)
        notes[#notes + 1] = string.format("sending the flamegraph instead (%d bytes compressed)", #gz)
        log.warn("upload: %s", notes[#notes])
      elseif step == "no_html" then
        gz, tags = build(kind, html_path, false)
        kind = nil
        notes[#notes + 1] = string.format("sending the stacks without a page (%d bytes compressed)", #gz)
        log.warn("upload: %s", notes[#notes])
      end
    end
  end
  if #gz > limit then
    errors.raise(errors.DELIVERY, "upload is %d bytes compressed, over the Studio limit of %d bytes even after: %s " ..
      "(the artifacts stay in %s)", #gz, limit, #notes > 0 and table.concat(notes, "; ") or "no oversize step applied",
      payload.dir or "the capture directory")
  end
  return { gz = gz, html_kind = kind, tags = tags, notes = notes }
end

-- Writes a payload's deliveries ahead into the spool (and runs dir sinks at once). Returns the
-- list of spooled item paths, the list of dir copies made, and the metadata of items the spool cap
-- dropped ({name = meta}).
function deliver.submit(cfg, payload, p)
  local items, copies = {}, {}
  local vars = { hostname = cfg.hostname, service = cfg.service or "", time = os.date("!%Y%m%dT%H%M%SZ"),
    command = payload.command or "" }
  for i, sink in ipairs(p.deliver.sinks) do
    local t = sink.type
    if t == "studio" then
      if not cfg.server then
        log.warn("deliver: sink %d (studio) skipped: no server configured (--server, config file, GPUFLAME_SERVER)", i)
      else
        local it = deliver.studio_item(cfg, payload, p)
        items[#items + 1] = spool.put(cfg.spool_dir, {
          sink = "studio", server = cfg.server, api_version = cfg.api_version, label = payload.label,
          command_id = payload.command_id, tags = core.json.array(it.tags), html = it.html_kind or core.json.null,
          notes = core.json.array(it.notes),
        }, it.gz)
      end
    elseif t == "http" then
      local files = {}
      local which = sink.artifact or p.deliver.http_sink.artifact
      if which == "html" then
        local _, path = deliver.choose_html(payload, p)
        files[#files + 1] = path
      elseif which == "folded" then
        files[#files + 1] = payload.cpu_folded or payload.folded
      else
        for _, a in ipairs(payload.artifacts or {}) do files[#files + 1] = a end
      end
      for _, f in ipairs(files) do
        local v = setmetatable({ name = basename(f) }, { __index = vars })
        local headers = {}
        for k, val in pairs(sink.headers or {}) do headers[#headers + 1] = { k, val } end -- templates; {token} at send time
        table.sort(headers, function(a, b) return a[1] < b[1] end)
        items[#items + 1] = spool.put(cfg.spool_dir, {
          sink = "http", method = sink.method or p.deliver.http_sink.method, url = expand(sink.url, v),
          headers = core.json.array(headers),
          label = payload.label, command_id = payload.command_id,
          content_type = f:match("%.html?$") and "text/html; charset=utf-8" or "application/octet-stream",
        }, core.fs.read(f))
      end
    elseif t == "dir" then
      local dest = expand(sink.path, vars)
      core.fs.mkdirp(dest)
      for _, a in ipairs(payload.artifacts or {}) do
        local to = dest .. "/" .. (sink.prefix and expand(sink.prefix, vars) or "") .. basename(a)
        core.fs.copy(a, to)
        copies[#copies + 1] = to
      end
      log.info("deliver: copied %d artifacts to %s", #(payload.artifacts or {}), dest)
    else
      errors.raise(errors.ERROR, "policy deliver.sinks[%d]: unknown sink type %q (studio, http, dir)", i, tostring(t))
    end
  end
  local dropped = {}
  if #items > 0 then
    local _
    _, dropped = spool.enforce(cfg.spool_dir, p.deliver.spool, items[#items])
  end
  return items, copies, dropped
end

-- One attempt at one spooled item. Returns the http result.
function deliver.attempt(cfg, meta, body)
  if meta.sink == "studio" then
    if not cfg.token then -- never send (and get a 400 that would reject the item) without a token
      return { ok = false, kind = "config", status = 0, body = "",
        error = "no API token configured (GPUFLAME_TOKEN, --token-file or token_file in the config file)" }
    end
    local c = setmetatable({ server = cfg.server or meta.server, api_version = meta.api_version or cfg.api_version },
      { __index = cfg })
    return studio.send_profile(c, body)
  elseif meta.sink == "http" then
    local headers = { { "Content-Type", meta.content_type or "application/octet-stream" } }
    for _, h in ipairs(meta.headers or {}) do
      if h[2]:find("{token}", 1, true) then log.add_secret(cfg.token) end
      headers[#headers + 1] = { h[1], (h[2]:gsub("{token}", function() return cfg.token or "" end)) }
    end
    return core.http.request({ method = meta.method, url = meta.url, headers = headers, body = body,
      timeout = cfg.upload_timeout, connect_timeout = cfg.connect_timeout, max_response = 1 << 20,
      ca_bundle = cfg.ca_bundle, client_cert = cfg.client_cert, client_key = cfg.client_key })
  end
  return { ok = false, kind = "error", status = 0, error = "unknown sink " .. tostring(meta.sink) }
end

-- retryable(r, p): transport failures are worth another try, and the HTTP statuses policy
-- deliver.retry.statuses lists (numbers, or classes such as "5xx"); other answers never will be.
-- p: the effective policy (required).
function deliver.retryable(r, p)
  policy.need(p, "deliver.retryable")
  if r.ok then return false end
  if r.kind == "http" then
    local class = tostring(r.status // 100) .. "xx"
    for _, s in ipairs(p.deliver.retry.statuses) do
      if s == r.status or s == class then return true end
    end
    return false
  end
  return r.kind ~= "interrupted"
end

-- Backoff before attempt n+1 after n failures: min(cap, base * 2^(n-1)), minus up to `jitter` of it.
function deliver.backoff(retry, n)
  local d = math.min(retry.cap, retry.base * 2 ^ math.max(0, n - 1))
  return d * (1 - retry.jitter * math.random())
end

local function target_of(cfg, meta)
  if meta.sink == "studio" then return cfg.server or meta.server end
  return (meta.url or ""):match("^(%a+://[^/]+)") or meta.url
end

-- Outcomes written for the agent by an uploader process (opts.journal): <spool>/outcomes/<item>.<event>.json,
-- each written before the item leaves the spool, so a delivery made after the agent died is still
-- reported by the next agent (deliver.outcomes reads them back, oldest first).
local function journal(cfg, it, event, fields)
  local dir = spool.ensure(cfg.spool_dir .. "/outcomes")
  fields.event = event
  core.fs.write_atomic(string.format("%s/%s.%s.json", dir, it.name, event), core.json.encode(fields))
end

-- outcomes(spool_dir) → { {path=, event=, meta=, error=, status=, attempts=, rejected=}, ... } oldest first
function deliver.outcomes(spool_dir)
  local dir = spool_dir .. "/outcomes"
  local names = core.fs.listdir(dir) or {}
  table.sort(names)
  local out = {}
  for _, n in ipairs(names) do
    if n:match("%.json$") then
      local path = dir .. "/" .. n
      local ok, o = pcall(function() return core.json.decode(core.fs.read(path)) end)
      if ok and type(o) == "table" then
        o.path = path
        out[#out + 1] = o
      else
        log.error("spool: unreadable outcome %s (removed)", path)
        os.remove(path)
      end
    end
  end
  return out
end

-- The lock an uploader holds on a spool: one sender at a time, even across agent restarts.
function deliver.lock(cfg)
  spool.ensure(cfg.spool_dir)
  return core.lock.try(cfg.spool_dir .. "/.uploader.lock")
end

-- drain(cfg, opts, p) sends spooled items oldest first.
--   opts.wait = true: each item gets up to deliver.retry.count attempts with backoff sleeps (CLI);
--   otherwise one attempt per due item (agent tick), the next one scheduled with backoff.
--   opts.on_delivered(meta, result), opts.on_exhausted(meta, result, attempts) callbacks;
--   opts.journal = true writes each outcome for the agent instead (see journal above).
-- Returns {delivered = n, failed = n, rejected = n, left = n items still in the spool}.
function deliver.drain(cfg, opts, p)
  opts = opts or {}
  local retry = p.deliver.retry
  local stats = { delivered = 0, failed = 0, rejected = 0, left = 0 }
  local down = {}
  for _, it in ipairs(spool.list(cfg.spool_dir)) do
    if core.host.interrupted() ~= 0 then break end
    local okr, meta, body = pcall(spool.read, it.path)
    if not okr then
      log.error("spool: %s", errors.wrap(meta).msg)
      spool.reject(it.path, "unreadable: " .. errors.wrap(meta).msg)
      stats.rejected = stats.rejected + 1
      goto next
    end
    do
      local st = spool.state(it.path)
      local wall = core.sys.now()
      if not opts.wait and (st.next_at or 0) > wall then goto next end
      local target = target_of(cfg, meta)
      if down[target] then goto next end
      local tries = 0
      while true do
        tries = tries + 1
        local r = deliver.attempt(cfg, meta, body)
        st.attempts = (st.attempts or 0) + 1
        local reply
        if meta.sink == "studio" then
          r = studio.json_reply(r)
          reply = r.json
        end
        if r.ok then
          if reply and reply.gpid ~= nil then deliver.save_gpid(cfg.state_dir, reply.gpid) end
          if opts.journal then journal(cfg, it, "delivered", { meta = meta }) end
          spool.remove(it.path)
          stats.delivered = stats.delivered + 1
          log.info("delivered %s (%s, %d bytes) after %d attempt%s", meta.label or it.name, meta.sink, #body,
            st.attempts, st.attempts == 1 and "" or "s")
          if opts.on_delivered then opts.on_delivered(meta, r) end
          break
        end
        st.last_error = log.redact(r.error or ("HTTP " .. tostring(r.status)))
        st.last_kind = r.kind
        if not deliver.retryable(r, p) then
          if r.kind == "interrupted" then
            spool.set_state(it.path, st)
            break
          end
          if opts.journal then
            journal(cfg, it, "exhausted", { meta = meta, error = r.error or core.json.null, status = r.status or 0,
              attempts = st.attempts, rejected = true })
          end
          spool.reject(it.path, st.last_error .. " " .. (r.body or ""):sub(1, 200))
          stats.rejected = stats.rejected + 1
          if opts.on_exhausted then opts.on_exhausted(meta, r, st.attempts, true) end
          break
        end
        local delay = deliver.backoff(retry, st.attempts)
        log.warn("delivery of %s failed (attempt %d of %d): %s", meta.label or it.name, st.attempts, retry.count,
          st.last_error)
        if st.attempts >= retry.count then
          if not st.exhausted and opts.on_exhausted then opts.on_exhausted(meta, r, st.attempts, false) end
          if not st.exhausted and opts.journal then
            journal(cfg, it, "exhausted", { meta = meta, error = r.error or core.json.null, status = r.status or 0,
              attempts = st.attempts, rejected = false })
          end
          st.exhausted = true
          delay = retry.cap
        end
        st.next_at = core.sys.now() + delay
        spool.set_state(it.path, st)
        if not opts.wait or tries >= retry.count or core.host.interrupted() ~= 0 then
          stats.failed = stats.failed + 1
          if r.kind ~= "http" then down[target] = true end
          break
        end
        core.sys.sleep(delay)
      end
    end
    ::next::
  end
  stats.left = #spool.list(cfg.spool_dir)
  return stats
end

return deliver
