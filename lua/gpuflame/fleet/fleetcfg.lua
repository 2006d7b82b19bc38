-- Connection settings for `upload` and `agent`, from (highest first) command-line flags, the
-- environment, and a config file. The token should come from GPUFLAME_TOKEN or a token file, not
-- --token: command lines are visible to every user in `ps` and /proc/PID/cmdline.
--
-- Config file (--config FILE, else $GPUFLAME_CONFIG, else /etc/gpuflame/agent.conf if present):
-- `key = value` lines, `#` comments. Keys: server, api_server, service, token_file, token, hostname,
-- interval, state_dir, spool_dir, ca_bundle, client_cert, client_key, api_version.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local sessions = require("gpuflame.sessions")

local cfg = {}

cfg.KEYS = { "server", "api_server", "service", "token_file", "token", "hostname", "interval", "state_dir",
  "spool_dir", "ca_bundle", "client_cert", "client_key", "api_version" }

local DEFAULT_FILE = "/etc/gpuflame/agent.conf"

-- The command-line flags of the settings above that `upload` and `agent` share, after the command's own.
function cfg.with_connection_options(own)
  local shared = {
    { "token", arg = "TOKEN", help = "API token (prefer GPUFLAME_TOKEN or --token-file)" },
    { "token-file", arg = "FILE", help = "read the API token from FILE" },
    { "config", arg = "FILE", help = "key = value settings (default " .. DEFAULT_FILE .. " if present)" },
    { "spool-dir", arg = "DIR", help = "spool directory (default STATE_DIR/spool)" },
    { "hostname", arg = "NAME", help = "hostname to report (default this host's)" },
  }
  local out = {}
  for _, o in ipairs(own) do out[#out + 1] = o end
  for _, o in ipairs(shared) do out[#out + 1] = o end
  return out
end

function cfg.parse_file(path)
  local text = core.fs.read(path)
  local out, row = {}, 0
  local known = {}
  for _, k in ipairs(cfg.KEYS) do known[k] = true end
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    row = row + 1
    local l = line:gsub("^%s+", ""):gsub("%s+$", "")
    if l ~= "" and not l:match("^#") then
      local k, v = l:match("^([%w_%-]+)%s*=%s*(.-)$")
      if not k then errors.raise(errors.INPUT, "%s:%d: expected `key = value` (got %q)", path, row, l:sub(1, 60)) end
      k = k:gsub("-", "_")
      if not known[k] then errors.raise(errors.INPUT, "%s:%d: unknown key %q (known: %s)", path, row, k,
        table.concat(cfg.KEYS, ", ")) end
      v = v:match('^"(.*)"$') or v:match("^'(.*)'$") or v
      out[k] = v
    end
  end
  return out
end

-- load(opts, p) → settings table. opts are the parsed flags (dashes as underscores).
function cfg.load(opts, p)
  local file = opts.config or os.getenv("GPUFLAME_CONFIG")
  local from_file = {}
  if file and file ~= "" then
    from_file = cfg.parse_file(file)
  elseif core.fs.stat(DEFAULT_FILE) then
    from_file = cfg.parse_file(DEFAULT_FILE)
  end
  local c = {}
  for _, k in ipairs(cfg.KEYS) do
    local env = os.getenv("GPUFLAME_" .. k:upper())
    if opts[k] ~= nil then c[k] = opts[k]
    elseif env and env ~= "" then c[k] = env
    else c[k] = from_file[k] end
  end
  if not c.token and c.token_file then
    local st = core.fs.stat(c.token_file)
    if not st then errors.raise(errors.USAGE, "token file %s: %s", c.token_file, "does not exist") end
    c.token = (core.fs.read(c.token_file):gsub("%s+$", ""):gsub("^%s+", ""))
    if st.mode & 0x3f ~= 0 then
      log.warn("token file %s is readable by group or others (mode %o); chmod 600 it", c.token_file, st.mode)
    end
  end
  if c.token == "" then c.token = nil end
  log.add_secret(c.token)
  if opts.token then
    log.warn("--token on the command line is visible in process listings; prefer GPUFLAME_TOKEN or --token-file")
  end
  local agent = p.agent
  c.interval = tonumber(c.interval) or agent.interval
  c.hostname = c.hostname or core.sys.hostname()
  c.api_server = c.api_server or c.server
  c.state_dir = c.state_dir or cfg.default_state_dir(agent.state_dir)
  c.spool_dir = c.spool_dir or (p.deliver.spool.dir ~= "" and p.deliver.spool.dir) or (c.state_dir .. "/spool")
  c.api_version = c.api_version or p.upload.api_version
  c.ca_bundle = c.ca_bundle or p.upload.ca_bundle
  c.client_cert = c.client_cert or p.upload.client_cert
  c.client_key = c.client_key or p.upload.client_key
  c.upload_timeout = p.upload.timeout
  c.connect_timeout = p.upload.connect_timeout
  c.heartbeat_timeout = agent.heartbeat_timeout
  c.health_check_timeout = agent.health_check_timeout
  c.service = c.service
  if c.server and not c.server:match("^https?://") then
    errors.raise(errors.USAGE, "server must be an http:// or https:// URL (got %s)", c.server)
  end
  return c
end

-- The state directory when none is given (flag, GPUFLAME_STATE_DIR, config): policy agent.state_dir; for
-- a user who cannot create it (an agent not run as root: /var/lib is root's), $XDG_STATE_HOME/gpuflame,
-- else ~/.local/state/gpuflame, else <the live state directory>/agent (docs/DEPLOY.md, "Where state lives").
function cfg.default_state_dir(dir)
  if core.sys.uid() == 0 or pcall(core.fs.mkdirp, dir, 448) then return dir end
  local xdg, home = os.getenv("XDG_STATE_HOME"), os.getenv("HOME")
  local d = xdg and xdg:match("^/") and xdg .. "/gpuflame"
    or home and home:match("^/") and home .. "/.local/state/gpuflame"
    or sessions.state_dir() .. "/agent"
  log.info("agent: %s cannot be created by this user (uid %d); state in %s", dir, core.sys.uid(), d)
  return d
end

return cfg
