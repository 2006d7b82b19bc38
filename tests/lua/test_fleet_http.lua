-- core.http against the Studio stand-in: methods, URL-encoded query parameters, headers both ways,
-- gzip request bodies, the Studio's 411/413/400 answers, failure kinds (http, timeout, network,
-- too_large), the response-size cap on a 100 MB and on a never-ending response, and proxies taken
-- from the environment (http_proxy, no_proxy).
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local S = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/studio.lua")
local http = core.http

local dir = t.tmp() .. "/studio"
local s = S.start(dir, { token = "tok-abc-123", service = "svc" })

-- query parameters: encoded, appended to an existing query string
local r = http.request({ url = s.url .. "/echo?a=1", query = { { "key", "a b&c=d/é" }, { "x", "" } },
  headers = { { "X-Test", "v 1" } } })
t.eq("GET /echo status", 200, r.status)
t.eq("GET ok", true, r.ok)
local echo = core.json.decode(r.body)
t.eq("query parameters are URL-encoded and appended", "a=1&key=a%20b%26c%3Dd%2F%C3%A9&x=", echo.raw_query)
t.eq("request header sent", "v 1", echo.headers["X-Test"])
t.eq("response headers come back lowercased", "application/json", r.headers["content-type"])
t.check("elapsed is measured", r.elapsed > 0 and r.elapsed < 10)

-- map form of query and headers
r = http.request({ url = s.url .. "/echo", query = { k = "v" }, headers = { ["X-A"] = "b" } })
echo = core.json.decode(r.body)
t.eq("query given as a map", "k=v", echo.raw_query)
t.eq("headers given as a map", "b", echo.headers["X-A"])

t.raises("header values with line breaks are refused", function()
  http.request({ url = s.url .. "/echo", headers = { { "X-Bad", "a\r\nInjected: 1" } } })
end, "line breaks")
t.raises("non-http URL is refused", function() http.request({ url = "file:///etc/passwd" }) end, "http://")

-- Studio upload rules (§2.3)
local body = core.json.encode({ start_time = "2026-01-01T00:00:00+00:00", end_time = "2026-01-01T00:00:01+00:00",
  hostname = "h", profile = "# {}\na;b 1", gpid = "", cpu_avg = core.json.null, mem_avg = core.json.null,
  spawn_time = "2026-01-01T00:00:00+00:00" })
local hdr = { { "GPROFILER-API-KEY", "tok-abc-123" }, { "GPROFILER-SERVICE-NAME", "svc" },
  { "Content-Type", "application/json" } }
r = http.request({ method = "POST", url = s.url .. "/api/v2/profiles", headers = hdr, body = body, gzip = true })
t.eq("gzip POST accepted", 200, r.status)
t.eq("server answers a gpid", 4711, core.json.decode(r.body).gpid)
t.check("sent bytes are the compressed size", r.sent > 0 and r.sent < #body + 40)
local rec = s.records("/api/v2/profiles")[1]
t.eq("server saw Content-Encoding gzip", "gzip", rec.headers["Content-Encoding"])
t.eq("server saw Content-Length = compressed size", tostring(r.sent), rec.headers["Content-Length"])
t.eq("body arrived intact after gunzip", "h", rec.body.hostname)
t.eq("token is not stored by the stand-in", "<token>", rec.headers["GPROFILER-API-KEY"])

r = http.request({ method = "POST", url = s.url .. "/api/v2/profiles", headers = { hdr[2], hdr[3] }, body = body, gzip = true })
t.eq("missing API key → 400", 400, r.status)
t.eq("400 is kind http", "http", r.kind)
t.eq("400 is not ok", false, r.ok)
t.check("400 has an error message with the status", r.error and r.error:find("HTTP 400", 1, true))
r = http.request({ method = "POST", url = s.url .. "/api/v2/profiles",
  headers = { hdr[1], { "GPROFILER-SERVICE-NAME", "other" } }, body = body, gzip = true })
t.eq("wrong service name → 400", 400, r.status)
t.check("400 text names the header", r.body:find("GPROFILER-SERVICE-NAME", 1, true))
r = http.request({ method = "POST", url = s.url .. "/api/v2/profiles", headers = hdr,
  body = core.json.encode({ profile = "# {}\n", start_time = "x" }), gzip = true })
t.eq("missing gpid → 400", 400, r.status)
r = http.request({ method = "POST", url = s.url .. "/api/v2/profiles", headers = hdr,
  body = core.json.encode({ profile = "not a header\n", gpid = "" }), gzip = true })
t.eq("profile without # header → 400", 400, r.status)
r = http.request({ method = "POST", url = s.url .. "/api/v2/profiles", headers = hdr,
  body = string.rep("x", 4 * 1024 * 1024 + 1) })
t.eq("body over 4 MiB → 413", 413, r.status)
-- 411: libcurl always sends Content-Length for a body; chunked transfer is how a client omits it
r = http.request({ method = "POST", url = s.url .. "/api/v2/profiles",
  headers = { hdr[1], hdr[2], { "Transfer-Encoding", "chunked" } }, body = "abc" })
t.eq("no Content-Length → 411", 411, r.status)

-- PUT
r = http.request({ method = "PUT", url = s.url .. "/put/x.html", body = "<p>hi</p>" })
t.eq("PUT answered 201", 201, r.status)
t.eq("PUT is ok", true, r.ok)
local puts = s.records("/put/x.html")
t.eq("PUT arrived with its body", "<p>hi</p>", s.raw(puts[#puts]))

-- failures on demand
s.ctl("fail", { mode = "500", count = 1, path = "/echo" })
r = http.request({ url = s.url .. "/echo" })
t.eq("injected 500 → kind http", "http", r.kind)
t.eq("injected 500 → status 500", 500, r.status)
s.ctl("fail", { mode = "reset", count = 1, path = "/echo" })
r = http.request({ url = s.url .. "/echo" })
t.eq("connection reset → kind network", "network", r.kind)
t.eq("connection reset → no status", 0, r.status)
s.ctl("fail", { mode = "slow", delay = 8, count = 1, path = "/echo" })
local _, m0 = core.sys.now()
r = http.request({ url = s.url .. "/echo", timeout = 1 })
local _, m1 = core.sys.now()
t.eq("slow response past the total timeout → kind timeout", "timeout", r.kind)
t.check("timeout honoured (1 s asked, < 5 s taken while the server stalls 8 s)", m1 - m0 < 5,
  string.format("took %.2f s", m1 - m0))

-- response size cap
_, m0 = core.sys.now()
r = http.request({ url = s.url .. "/big", query = { n = tostring(100 * 1024 * 1024) }, max_response = 1024 * 1024 })
t.eq("100 MB response over a 1 MiB cap → kind too_large", "too_large", r.kind)
t.check("too_large message names the cap", r.error and r.error:find("1048576", 1, true))
t.eq("no body kept when over the cap", 0, #r.body)
r = http.request({ url = s.url .. "/endless", max_response = 2 * 1024 * 1024, timeout = 30 })
_, m1 = core.sys.now()
t.eq("never-ending response → kind too_large", "too_large", r.kind)
t.check("never-ending response stopped quickly (< 20 s)", m1 - m0 < 20, string.format("took %.1f s", m1 - m0))
r = http.request({ url = s.url .. "/big", query = { n = "5000" } })
t.eq("a response under the cap is returned whole", 5000, #r.body)

-- proxies come from the environment (libcurl's rules): a name that does not resolve reaches the
-- stand-in acting as the proxy; no_proxy exempts it again
local script = t.tmp() .. "/proxy.lua"
core.fs.write_atomic(script, [[
local r = require("gpuflame.core").http.request({ url = "http://gpuflame-proxy-test.invalid/echo", timeout = 10 })
io.write(r.kind, " ", r.status, "\n")]])
local env = core.proc.environ()
env.http_proxy = s.url
local pr = core.proc.run({ argv = { os.getenv("GPUFLAME_BIN") or "gpuflame", "run", script }, env = env })
t.eq("http_proxy from the environment is used", "ok 200", (pr.stdout:gsub("%s+$", "")))
env.no_proxy = "gpuflame-proxy-test.invalid"
pr = core.proc.run({ argv = { os.getenv("GPUFLAME_BIN") or "gpuflame", "run", script }, env = env })
t.eq("no_proxy exempts a host (then the name does not resolve)", "dns 0", (pr.stdout:gsub("%s+$", "")))

-- connect failure on a stopped server
local url = s.url
s.stop()
r = http.request({ url = url .. "/echo", connect_timeout = 2 })
t.eq("stopped server → kind connect", "connect", r.kind)
return t.done()
