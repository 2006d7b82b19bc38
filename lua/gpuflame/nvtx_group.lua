-- NVTX range names grouped by policy (nvtx.group; docs/POLICY.md "nvtx", docs/SEMANTICS.md "NVTX names"):
-- PyTorch's emit_nvtx writes "aten::view, seq = 12, op_id = 314290, sizes = [[2, 3]]" where a person reads
-- "aten::view". The rules are decided here, in Lua, once per distinct text; C only applies the resulting
-- map of string ids (core trace: Trace:set_nvtx_groups) in gpuflame's own views. `stats` never sees it.
--
--   local ng = require("gpuflame.nvtx_group")
--   local g = ng.compile(policy.nvtx.group)   -- or ng.for_policy(policy)
--   g("aten::view, seq = 12, op_id = 3")      -- "aten::view" (memoized per text)
--   ng.apply(tr, policy)                        -- the trace's NVTX names grouped in every view of tr
--   ng.map(tr, policy)                          -- the map apply sets (flamegraph's job sets it itself)
local errors = require("gpuflame.errors")
local need = require("gpuflame.policy").need

local M = {}

-- The rule sets of a policy's nvtx.group in the order they apply: by set name (a fleet's "50-mine" after
-- the default "10-pytorch-emit_nvtx"), each set's rules in list order. Returns a flat list of
-- {pattern, replacement, name = "set[i]"}.
function M.rules(group)
  if type(group) ~= "table" then errors.raise(errors.ERROR, "nvtx.group must be a table of rule sets") end
  local names, out = {}, {}
  for k in pairs(group) do names[#names + 1] = k end
  table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(names) do
    local set = group[k]
    if type(set) ~= "table" then errors.raise(errors.ERROR, "nvtx.group.%s must be a list of {pattern, replacement}", k) end
    for i, r in ipairs(set) do
      if type(r) ~= "table" or type(r[1]) ~= "string" or type(r[2]) ~= "string" then
        errors.raise(errors.ERROR, "nvtx.group.%s[%d] must be {pattern, replacement} (two strings)", k, i)
      end
      out[#out + 1] = { r[1], r[2], name = string.format("nvtx.group.%s[%d]", k, i) }
    end
  end
  return out
end

-- compile(group) → fn(text) → grouped text. group: a policy's nvtx.group (named sets) or a plain ordered
-- list of {pattern, replacement}. Each rule is string.gsub(text, pattern, replacement) on the result of the
-- one before; a result that would be empty keeps the text as it was. A rule that fails (a malformed
-- pattern, a bad %N) is an error naming it.
function M.compile(group)
  local rules
  if type(group) == "table" and (group[1] ~= nil or next(group) == nil) then
    rules = {}
    for i, r in ipairs(group) do
      if type(r) ~= "table" or type(r[1]) ~= "string" or type(r[2]) ~= "string" then
        errors.raise(errors.ERROR, "nvtx group rule %d must be {pattern, replacement} (two strings)", i)
      end
      rules[i] = { r[1], r[2], name = "rule " .. i }
    end
  else
    rules = M.rules(group)
  end
  local memo = {}
  return function(text)
    local v = memo[text]
    if v then return v end
    local s = text
    for _, r in ipairs(rules) do
      local ok, res = pcall(string.gsub, s, r[1], r[2])
      if not ok then errors.raise(errors.ERROR, "%s: %s", r.name, tostring(res)) end
      s = res
    end
    if s == "" then s = text end
    memo[text] = s
    return s
  end
end

-- for_policy(policy) → the grouping function of policy nvtx.group.
function M.for_policy(policy)
  return M.compile(need(policy, "nvtx_group.for_policy").nvtx.group)
end

-- map(tr, policy) → map, {names = distinct NVTX texts, grouped = how many of them changed, groups = distinct
-- results}: what apply sets, without setting it; map is {[raw name id] = grouped text} of the names that change.
function M.map(tr, policy)
  local g = M.for_policy(policy)
  local map, n, changed, seen, groups = {}, 0, 0, {}, 0
  for id, text in pairs(tr:nvtx_names()) do
    n = n + 1
    local s = g(text)
    if s ~= text then
      map[id] = s
      changed = changed + 1
    end
    if not seen[s] then
      seen[s] = true
      groups = groups + 1
    end
  end
  return map, { names = n, grouped = changed, groups = groups }
end

-- apply(tr, policy) → map's counts. Sets the grouping map of trace tr (C: flamegraph stacks, exports,
-- timeline, findings and the rank views read it); the raw names stay in tr. Calling it again replaces the map.
function M.apply(tr, policy)
  local map, counts = M.map(tr, policy)
  tr:set_nvtx_groups(map)
  return counts
end

return M
