-- The heap for a command on large inputs. Huge pages (policy limits.huge_pages; core/host/hugepages.c): before a
-- listed command runs on inputs of at least min_input_bytes (the files named on its command line, a directory's
-- own files included), gpuflame re-executes itself with glibc's transparent-huge-page tunable, which glibc reads
-- only at start-up. The exec costs a few ms of start-up, the pages save seconds on a large import. Freed
-- memory kept (policy limits.keep_freed_memory): later blocks reuse the pages of freed ones instead of fresh
-- pages the kernel zeroes.
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

-- the policy's limits[key] when it lists command and total reaches its min_input_bytes, else nil
local function listed(key, command, total, policy)
  -- a default.lua of one's own on the search path may have no limits at all: nothing then
  local lim = type(policy.limits) == "table" and policy.limits[key]
  if type(lim) ~= "table" or type(lim.commands) ~= "table" or not math.tointeger(lim.min_input_bytes) or
    total < lim.min_input_bytes then
    return nil
  end
  for _, c in ipairs(lim.commands) do
    if c == command then return lim end
  end
end

-- maybe(command, arg_lists, ctx): returns when gpuflame goes on as it is: no input files, the command not
-- listed, its inputs (the paths among the arguments in arg_lists: its positional arguments, a script's)
-- smaller, huge pages already on, or not applicable here (said at -v). Then, where policy
-- limits.keep_freed_memory lists the command for inputs that large, freed blocks stay in the heap for later
-- ones (core/mem.h gf_mem_keep_freed). The policy is read only when there are input files: a command given
-- none loads it (and reports its errors) where it always did.
function M.maybe(command, arg_lists, ctx)
  local total = 0
  for _, list in pairs(arg_lists) do
    for _, a in ipairs(list) do
      if type(a) == "string" then total = total + input_bytes(a) end
    end
  end
  if total == 0 then
    if core.host.huge_pages() then log.debug("huge pages: on for %s (glibc.malloc.hugetlb=1)", command) end
    return
  end
  local policy = ctx.policy()
  need(policy, "hugepages.maybe")
  if core.host.huge_pages() then
    log.debug("huge pages: on for %s (glibc.malloc.hugetlb=1)", command)
  elseif listed("huge_pages", command, total, policy) then
    local _, why = core.host.huge_pages_reexec()
    log.debug("huge pages: not used for %s (%s)", command, why)
  else
    log.debug("huge pages: not used for %s (policy limits.huge_pages does not list it, or its inputs are smaller)",
      command)
  end
  if listed("keep_freed_memory", command, total, policy) then
    log.debug("freed memory kept for later blocks in %s: %s", command,
      core.host.keep_freed_memory() and "yes" or "not here (no glibc)")
  end
end

return M
