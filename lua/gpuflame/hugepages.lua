-- Huge pages for a command on large inputs (policy limits.huge_pages; core/host/hugepages.c): before a listed
-- command runs on inputs of at least min_input_bytes (the files named on its command line, a directory's own
-- files included), gpuflame re-executes itself with glibc's transparent-huge-page tunable, which glibc reads
-- only at start-up. The exec costs a few ms of start-up, the pages save seconds on a large import.
local core = require("gpuflame.core")
local log = require("gpuflame.log")
local need = require("gpuflame.policy").need

local M = {}

local function input_bytes(path)
  local st = core.fs.stat(path)
  if not st then return 0 end
  if st.type == "file" then return st.size end
  if st.type ~= "directory" then return 0 end
  local n = 0
  for _, p in ipairs(core.fs.glob(path .. "/*") or {}) do
    local f = core.fs.stat(p)
    if f and f.type == "file" then n = n + f.size end
  end
  return n
end

-- maybe(command, arg_lists, ctx): returns when gpuflame goes on as it is: no input files, the command not
-- listed, its inputs (the paths among the arguments in arg_lists: its positional arguments, a script's)
-- smaller, huge pages already on, or not applicable here (said at -v). The policy is read only when there
-- are input files: a command given none loads it (and reports its errors) where it always did.
function M.maybe(command, arg_lists, ctx)
  if core.host.huge_pages() then
    log.debug("huge pages: on for %s (glibc.malloc.hugetlb=1)", command)
    return
  end
  local total = 0
  for _, list in pairs(arg_lists) do
    for _, a in ipairs(list) do
      if type(a) == "string" then total = total + input_bytes(a) end
    end
  end
  if total == 0 then return end
  local policy = ctx.policy()
  need(policy, "hugepages.maybe")
  -- a default.lua of one's own on the search path may have no limits at all: no huge pages then
  local hp = type(policy.limits) == "table" and policy.limits.huge_pages
  if type(hp) ~= "table" or type(hp.commands) ~= "table" or not math.tointeger(hp.min_input_bytes) or
    total < hp.min_input_bytes then
    return
  end
  local listed = false
  for _, c in ipairs(hp.commands) do listed = listed or c == command end
  if not listed then return end
  local _, why = core.host.huge_pages_reexec()
  log.debug("huge pages: not used for %s (%s)", command, why)
end

return M
