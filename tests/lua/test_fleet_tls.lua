-- TLS options of core.http against the stand-in serving HTTPS with certificates made here by the
-- openssl CLI: a private CA, a server certificate for 127.0.0.1, a client certificate (mTLS).
-- Verification against the CA bundle succeeds; the system store rejects the private CA (kind tls);
-- a missing client certificate is refused when the server requires one; HTTPS to a plain HTTP port
-- is a TLS failure.
local top = os.getenv("GF_TOP") or "."
local t = dofile(top .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local S = dofile(top .. "/tests/lib/studio.lua")
local d = t.tmp() .. "/pki"
core.fs.mkdirp(d)
if not core.fs.which("openssl") then
  t.skip("TLS options", "openssl CLI not installed (needed to make test certificates)")
  return t.done()
end
local function ossl(...)
  local r = core.proc.run({ argv = { "openssl", ... }, cwd = d, timeout = 60 })
  assert(r.ok, "openssl " .. table.concat({ ... }, " ") .. ": " .. r.stderr)
end
core.fs.write_atomic(d .. "/san.ext", "subjectAltName=IP:127.0.0.1\n")
ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
  "-subj", "/CN=gpuflame test CA")
ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=127.0.0.1")
ossl("x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "srv.pem",
  "-days", "2", "-extfile", "san.ext")
ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "cli.key", "-out", "cli.csr", "-subj", "/CN=gpu-host")
ossl("x509", "-req", "-in", "cli.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "cli.pem",
  "-days", "2")

local s = S.start(t.tmp() .. "/srv", { tls_cert = d .. "/srv.pem", tls_key = d .. "/srv.key" })
local r = core.http.request({ url = s.url .. "/echo", ca_bundle = d .. "/ca.pem", timeout = 20 })
t.eq("HTTPS verified against the CA bundle", 200, r.status)
r = core.http.request({ url = s.url .. "/echo", timeout = 20 })
t.eq("the system trust store rejects the private CA: kind tls", "tls", r.kind)
r = core.http.request({ url = s.url .. "/echo", ca_bundle = d .. "/no-such-ca.pem", timeout = 20 })
t.eq("a missing CA bundle file: kind tls", "tls", r.kind)
s.stop()

s = S.start(t.tmp() .. "/srv2", { tls_cert = d .. "/srv.pem", tls_key = d .. "/srv.key", client_ca = d .. "/ca.pem" })
r = core.http.request({ url = s.url .. "/echo", ca_bundle = d .. "/ca.pem", client_cert = d .. "/cli.pem",
  client_key = d .. "/cli.key", timeout = 20 })
t.eq("mTLS with the client certificate and key", 200, r.status)
r = core.http.request({ url = s.url .. "/echo", ca_bundle = d .. "/ca.pem", timeout = 20 })
t.check("mTLS without a client certificate is refused", not r.ok and (r.kind == "tls" or r.kind == "network"),
  tostring(r.kind) .. " " .. tostring(r.error))
s.stop()

local plain = S.start(t.tmp() .. "/srv3", {})
r = core.http.request({ url = (plain.url:gsub("^http:", "https:")) .. "/echo", timeout = 10 })
t.eq("HTTPS to a plain HTTP port: kind tls", "tls", r.kind)
plain.stop()
return t.done()
