-- The gProfiler Performance Studio wire protocol (docs/spec/STUDIO.md §2, §3, §5): the profile text
-- with its `# {json}` header, the upload body, the session headers and query parameters, the health
-- check, the heartbeat and command completion. No decisions here: what to send comes from the
-- caller (deliver.lua, agent.lua) and the policy. `cfg` is gpuflame.fleet.fleetcfg's settings table, which
-- carries the policy's timeouts and API version.
local core = require("gpuflame.core")
local log = require("gpuflame.log")

local studio = {}

studio.VERSION = core.host.version
local null = core.json.null

local function trim_slash(u) return (u:gsub("/+$", "")) end

-- The header keys the server and indexer read (§2.2). Never the whole argument dict: the reference
-- agent leaks its token that way (§7). `m` = {hostname, service, tags = {...}, html = string|nil,
-- cpu_avg, mem_avg, api_version, perf_mode, continuous, containers, instance_type, extra = {...}};
-- api_version and perf_mode (the policy's upload.api_version / upload.perf_mode) are required.
function studio.header(m)
  for _, k in ipairs({ "api_version", "perf_mode" }) do
    if type(m[k]) ~= "string" then
      error(string.format("studio.header: internal error: %s missing (the policy's upload.%s)", k, k), 2)
    end
  end
  local run_arguments = {
    service_name = m.service,
    profile_api_version = m.api_version,
    perf_mode = m.perf_mode, -- never "disabled": the indexer would drop the tags (§4.2)
    perf_events = table.concat(m.tags or {}, ","),
    continuous = m.continuous == true,
  }
  return {
    containers = core.json.array(m.containers or {}),
    container_names_enabled = false,
    application_metadata = core.json.array({ null }),
    application_metadata_enabled = false,
    profiling_mode = m.profiling_mode or "cpu",
    hwmetrics = null,
    htmlblob = null,
    metrics = { cpu_avg = m.cpu_avg or null, mem_avg = m.mem_avg or null },
    metadata = {
      hostname = m.hostname,
      agent_version = "gpuflame-" .. studio.VERSION,
      cloud_info = { instance_type = m.instance_type or null },
      current_time = core.sys.isotime(),
      profiling_mode = m.profiling_mode or "cpu",
      run_arguments = run_arguments,
      external_metadata = m.extra or null,
    },
    flamegraph_html = m.html or null,
  }
end

-- profile_text(header, folded) → "# {json}\n<stacks>" (stack lines kept as given, blank and `#`
-- lines dropped, so a folded file with its own header does not end up with two).
function studio.profile_text(header, folded)
  local lines = { "# " .. core.json.encode(header) }
  for line in (folded or ""):gmatch("[^\n]+") do
    if not line:match("^#") and line:match("%S") then lines[#lines + 1] = (line:gsub("\r$", "")) end
  end
  return table.concat(lines, "\n")
end

-- body(fields) → the JSON text of the upload (§2.1); gzip is applied by the caller so that the size
-- can be checked and the exact bytes spooled.
function studio.body(f)
  return core.json.encode({
    start_time = f.start_time, end_time = f.end_time, hostname = f.hostname, profile = f.profile,
    cpu_avg = f.cpu_avg or null, mem_avg = f.mem_avg or null, spawn_time = f.spawn_time,
    gpid = f.gpid or "",
  })
end

-- Headers and query parameters on every request (§2.1). The token is added here, at send time, and
-- is registered as a log secret; it never enters spool files or metadata.
function studio.session(cfg, extra_query)
  log.add_secret(cfg.token)
  local headers = {
    { "GPROFILER-API-KEY", cfg.token or "" },
    { "GPROFILER-SERVICE-NAME", cfg.service or "" },
  }
  local query = {
    { "key", cfg.token or "" }, { "service", cfg.service or "" }, { "hostname", cfg.hostname or "" },
    { "timestamp", core.sys.isotime() },
  }
  for _, q in ipairs(extra_query or {}) do query[#query + 1] = q end
  return headers, query
end

local function tls(cfg, req)
  req.ca_bundle, req.client_cert, req.client_key = cfg.ca_bundle, cfg.client_cert, cfg.client_key
  return req
end

function studio.profiles_url(cfg)
  return trim_slash(cfg.server) .. "/api/" .. cfg.api_version .. "/profiles"
end

-- send_profile(cfg, gz) → http result; gz is the gzip-compressed JSON body.
function studio.send_profile(cfg, gz)
  local headers, query = studio.session(cfg, { { "version", "gpuflame-" .. studio.VERSION } })
  headers[#headers + 1] = { "Content-Type", "application/json" }
  headers[#headers + 1] = { "Content-Encoding", "gzip" }
  return core.http.request(tls(cfg, {
    method = "POST", url = studio.profiles_url(cfg), query = query, headers = headers, body = gz,
    timeout = cfg.upload_timeout, connect_timeout = cfg.connect_timeout,
    max_response = 1 << 20,
  }))
end

function studio.health_check(cfg)
  local headers, query = studio.session(cfg)
  return core.http.request(tls(cfg, {
    method = "GET", url = trim_slash(cfg.server) .. "/api/v1/health_check", query = query, headers = headers,
    timeout = cfg.health_check_timeout, connect_timeout = cfg.connect_timeout, max_response = 1 << 20,
  }))
end

-- The Studio answers with JSON; a 2xx that is not JSON (a captive proxy's HTML page, a wrong --server)
-- was not handled by a Studio, so it is a failure worth another try: r.json holds the decoded reply.
function studio.json_reply(r)
  if not r.ok then return r end
  local okj, j = pcall(core.json.decode, r.body or "")
  if okj and type(j) == "table" then
    r.json = j
    return r
  end
  return { ok = false, kind = "reply", status = r.status, body = r.body,
    error = string.format("HTTP %s but the reply is not JSON (not a Performance Studio, or a proxy " ..
      "in between?): %q", tostring(r.status), (r.body or ""):sub(1, 80)) }
end

-- JSON POST to the API server with the Bearer token (§5.1): heartbeat and command completion.
local function api_post(cfg, path, obj)
  log.add_secret(cfg.token)
  local r = core.http.request(tls(cfg, {
    method = "POST", url = trim_slash(cfg.api_server or cfg.server) .. path,
    headers = { { "Authorization", "Bearer " .. (cfg.token or "") }, { "Content-Type", "application/json" } },
    body = core.json.encode(obj), timeout = cfg.heartbeat_timeout,
    connect_timeout = cfg.connect_timeout, max_response = 4 << 20,
  }))
  return studio.json_reply(r)
end

function studio.heartbeat(cfg, body) return api_post(cfg, "/api/metrics/heartbeat", body) end
function studio.command_completion(cfg, body) return api_post(cfg, "/api/metrics/command_completion", body) end

return studio
