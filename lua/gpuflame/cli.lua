-- The command line: global options, then a command found as the module gpuflame.commands.<name>
-- (so a new command is a new file, on disk or in the bundle).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local args = require("gpuflame.args")
local resource = require("gpuflame.resource")
local mpi = require("gpuflame.mpi")

local cli = {}

local GLOBAL_HELP = [[
usage: gpuflame [GLOBAL OPTIONS] COMMAND [ARGS...]

Profile GPU workloads with NVIDIA Nsight Systems and turn the captures into flamegraphs, timelines,
NVTX analyses and exports; upload them to a gProfiler Performance Studio.

global options (anywhere before `--`):
  -v, --verbose          more detail; tracebacks on errors
  -q, --quiet            only warnings and errors (no progress)
  --policy FILE          layer a policy file over the default (repeatable; later wins)
  --lua-path DIR         search DIR first for scripts, policies, templates (repeatable)
  --local PATTERN        multi-report commands: also read the reports PATTERN names, %%q{VAR} replaced from
                         the environment; under MPI each rank its own (docs/MPI.md)
  --version              print the version
  -h, --help             this help; `gpuflame COMMAND --help` for a command

commands:
%s
exit codes: 0 ok, 1 error, 2 usage, 3 nsys not found, 4 capture failed, 5 no data,
            6 bad input, 7 delivery failed (kept in the spool), 10 regression (diff),
            130 interrupted
]]

local function command_names()
  local names = {}
  for _, n in ipairs(resource.list("gpuflame/commands/")) do
    local name = n:match("^gpuflame/commands/([%w%-_]+)%.lua$")
    if name then names[#names + 1] = name end
  end
  table.sort(names)
  return names
end

local function load_command(name)
  if not name:match("^[%w%-_]+$") then return nil end
  local modname = "gpuflame.commands." .. name:gsub("-", "_")
  if not resource.find((modname:gsub("%.", "/")) .. ".lua") then return nil end
  return require(modname)
end

local function command_list()
  local lines = {}
  for _, name in ipairs(command_names()) do
    local ok, cmd = pcall(load_command, name:gsub("_", "-"))
    local summary = ok and cmd and cmd.spec and cmd.spec.summary or ""
    lines[#lines + 1] = string.format("  %-12s %s", name:gsub("_", "-"), summary)
  end
  return table.concat(lines, "\n")
end

-- Strips global options; returns the remaining argv and the globals.
local function take_globals(argv)
  local rest, g = {}, { policy_files = {} }
  local i, passthrough = 1, false
  while i <= #argv do
    local a = argv[i]
    if passthrough then
      rest[#rest + 1] = a
    elseif a == "--" then
      passthrough = true
      rest[#rest + 1] = a
    elseif a == "-v" or a == "--verbose" then
      g.verbose = true
    elseif a == "-q" or a == "--quiet" then
      g.quiet = true
    elseif a == "--policy" then
      i = i + 1
      if not argv[i] then errors.raise(errors.USAGE, "--policy needs a file") end
      g.policy_files[#g.policy_files + 1] = argv[i]
    elseif a:match("^%-%-policy=") then
      g.policy_files[#g.policy_files + 1] = a:sub(10)
    elseif a == "--local" or a:match("^%-%-local=") then
      if a == "--local" then i = i + 1 end
      g.local_pattern = a == "--local" and argv[i] or a:sub(9)
      if not g.local_pattern or g.local_pattern == "" then errors.raise(errors.USAGE, "--local needs a PATTERN") end
      mpi.set_local(g.local_pattern)
    else
      rest[#rest + 1] = a
    end
    i = i + 1
  end
  return rest, g
end

-- The command's context: ctx.policy() is the one way to the effective policy (policies/default.lua with
-- the --policy files, and those of the embedding API, merged over it; loaded once per context). Library
-- functions take it (or ctx) as a required argument; ctx comes last in their signatures. ctx.reload_policy()
-- reads the files again (a long-running agent on SIGHUP): the new policy, or an error with the previous one
-- kept. Command-line overrides are passed explicitly (e.g. flamegraph.settings), never written into it.
-- cli.context(globals, loaded) starts a context on a policy already loaded (the MCP server's calls).
function cli.context(globals, loaded)
  local ctx = { globals = globals or { policy_files = {} }, _policy = loaded }
  function ctx.policy()
    if not ctx._policy then
      ctx._policy = require("gpuflame.policy").effective(ctx.globals.policy_files) -- lazily: start-up (lua_requires.allow)
    end
    return ctx._policy
  end
  function ctx.reload_policy()
    ctx._policy = require("gpuflame.policy").effective(ctx.globals.policy_files)
    return ctx._policy
  end
  return ctx
end

function cli.main(argv)
  local rest, g = take_globals(argv)
  if g.verbose then log.set_level(log.DEBUG) elseif g.quiet then log.set_level(log.WARN) end
  local name = rest[1]
  if name == nil or name == "-h" or name == "--help" or name == "help" then
    if name == "help" and rest[2] then
      local cmd = load_command(rest[2])
      if not cmd then errors.raise(errors.USAGE, "unknown command '%s'", rest[2]) end
      io.stdout:write(args.help(rest[2], cmd.spec))
      return 0
    end
    io.stdout:write(string.format(GLOBAL_HELP, command_list()))
    return name == nil and 2 or 0
  end
  if name == "--version" or name == "version" then
    io.stdout:write("gpuflame " .. core.host.version .. " (" .. _VERSION .. ")\n")
    return 0
  end
  local cmd = load_command(name)
  if not cmd then
    errors.raise(errors.USAGE, "unknown command '%s'; commands: %s", name, table.concat(command_names(), ", "))
  end
  local cargv = table.move(rest, 2, #rest, 1, {})
  for _, a in ipairs(cargv) do
    if a == "--" then break end
    if a == "-h" or a == "--help" then
      io.stdout:write(args.help(name, cmd.spec))
      return 0
    end
  end
  local function start()
    local opts = args.parse(cmd.spec, cargv)
    local ctx = cli.context(g)
    require("gpuflame.hugepages").maybe(name, { opts.positional, opts.rest }, ctx)
    return cmd.run(opts, ctx)
  end
  local code
  if cmd.spec.stop_is_clean then
    -- A long-running service (the agent): SIGTERM/SIGINT at any point, start-up included, is an orderly
    -- stop, not an interrupted run (exit 0, not 130).
    local ok, res = pcall(start)
    if not ok then
      local e = errors.wrap(res)
      if e.code ~= errors.INTERRUPTED then errors.reraise(e) end
      log.info("%s: stopped (signal %d) while starting", name, core.host.interrupted())
      core.host.clear_interrupt()
      res = 0
    end
    code = res
  else
    code = start()
  end
  log.progress_done()
  return math.tointeger(code) or 0
end

-- `gpuflame run SCRIPT.lua ARGS...` and the host's gf_host_run_script: the chunk gets `...` = args
-- and the full global environment (_G: the standard libraries, io and os included, and require of
-- gpuflame modules). Scripts are trusted code like `lua SCRIPT`; a script found on the search path
-- (scripts/NAME.lua) passes the host's root trust check, one named by its path is run as given.
-- The script reaches its context (ctx.policy(): the effective policy) through cli.script_context();
-- ctx nil (the embedding API): a context with the policy files added through gf_host_load_policy.
local script_ctx
function cli.run_script(path, argv, ctx)
  local text, origin
  local st = core.fs.stat(path)
  if st and st.type == "file" then
    text = core.fs.read(path)
    origin = "@" .. path
  else
    local name = path:match("%.lua$") and path or ("scripts/" .. path .. ".lua")
    local t, o = resource.find(name)
    if not t then errors.raise(errors.USAGE, "no script '%s' (not a file, nor scripts/%s.lua on the search path)", path, path) end
    text, origin = t, (o:match("^embedded:") and "=" .. name or "@" .. o)
  end
  local fn, err = load(text, origin, "t")
  if not fn then errors.raise(errors.ERROR, "%s", err) end
  local outer = script_ctx
  script_ctx = ctx or cli.context()
  local res = fn(table.unpack(argv or {}))
  script_ctx = outer
  return math.tointeger(res) or 0
end

-- script_context() → the context of the running script (`gpuflame run`, gf_host_run_script).
function cli.script_context()
  if not script_ctx then
    errors.raise(errors.ERROR, "cli.script_context: internal error: no script is running (commands get ctx as an argument)")
  end
  return script_ctx
end

return cli
