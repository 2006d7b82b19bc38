-- gpuflame mcp: a Model Context Protocol server on stdio over gpuflame's analyses (docs/MCP.md); the usage is
-- in the spec below, the protocol in gpuflame.mcp.server, the tools in mcp_tools/*.lua.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local mcp_server = require("gpuflame.mcp.server")
local toolkit = require("gpuflame.mcp.toolkit")

local cmd = {}

cmd.spec = {
  usage = "mcp [--root DIR]... [--policy FILE]",
  summary = "a Model Context Protocol server on stdio: the analyses as tools for coding assistants (docs/MCP.md)",
  description = "A client (Claude Desktop / Claude Code, VS Code, Cursor, ...) starts it as a subprocess and speaks\n" ..
    "JSON-RPC 2.0 on its stdin/stdout, one message per line; logs go to stderr. Tools: summary, findings,\n" ..
    "kernels, nvtx_ranges, steps, diff, rank_skew, stats, timeline_window, and every mcp_tools/NAME.lua on the\n" ..
    "search path (GPUFLAME_PATH, ~/.config/gpuflame, /etc/gpuflame). Only files under the --root directories\n" ..
    "(and the client's roots, when it offers them) are read; `..` and symlinks leading out are refused. No\n" ..
    "tool runs a program other than `nsys export` of a report (policy mcp.export_reports, mcp.run_programs).\n" ..
    "The export cache is the CLI's (policy exports). Ends when the client closes stdin (or on SIGTERM).",
  options = {
    { "root", arg = "DIR", multi = true, help = "a directory whose files the tools may read (repeatable)" },
  },
  examples = {
    "gpuflame mcp --root ~/captures",
    "claude mcp add gpuflame -- gpuflame mcp --root /data/profiles",
  },
  stop_is_clean = true, -- SIGTERM/SIGINT: an orderly stop (exit 0)
}

function cmd.run(opts, ctx)
  if opts.positional and opts.positional[1] then
    errors.raise(errors.USAGE, "mcp takes no INPUT: the client names files in its tool calls (see mcp --help)")
  end
  local roots = {}
  for _, r in ipairs(opts.root or {}) do
    local real = core.fs.realpath(r)
    local st = real and core.fs.stat(real)
    if not st or st.type ~= "directory" then errors.raise(errors.USAGE, "--root %s: not a directory", r) end
    roots[#roots + 1] = real
  end
  local pol = ctx.policy()
  local out = core.linein.claim_stdout()
  local reader = core.linein.open(0, pol.mcp.max_request_bytes)
  local server = mcp_server.new({ roots = roots, reader = reader, write = function(line)
    out:write(line, "\n")
    out:flush()
  end }, ctx)
  local sink = log.progress_sink(function(_, text) server:tick(text) end) -- a long nsys export: heard every 200 ms
  log.info("mcp: serving on stdio (roots: %s)", #roots > 0 and table.concat(roots, ", ") or "none yet")
  local ok, res = pcall(server.run, server)
  log.progress_sink(sink)
  toolkit.close(server.tk_state)
  reader:close()
  if not ok then errors.reraise(errors.wrap(res)) end
  return res
end

return cmd
