-- The comparison and the verdict of `gpuflame diff` (docs/DIFF.md). The sides come from the "side" input
-- loader (gpuflame/inputs/side.lua: the hierarchical GPU stacks of an export or report, a stats CSV's
-- kernel totals, folded stacks); the C union table (core.stacks_diff) holds both sides' stacks; this module
-- decides, from policy, how names match, how the ranked table groups (kernels or NVTX ranges), what makes
-- the comparison unfair, and whether the change is a regression. The page: gpuflame/views/diff.lua.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local need = require("gpuflame.policy").need
local inputs_side = require("gpuflame.inputs.side")
local diff_meta = require("gpuflame.diff_meta")
local diff_loop = require("gpuflame.diff_loop")
local diff_work = require("gpuflame.diff_work")
local pol = require("gpuflame.policy")

local M = {}

M.SCHEMA = "gpuflame.diff/1"
local NULL = core.json.null
local array = core.json.array

local r6 = diff_work.r6
M.r6 = r6

-- 1234567 → "1.235 ms"
function M.ns(v)
  if v == nil then return "—" end
  local a = math.abs(v)
  if a >= 1e9 then return string.format("%.3f s", v / 1e9) end
  if a >= 1e6 then return string.format("%.3f ms", v / 1e6) end
  if a >= 1e3 then return string.format("%.1f µs", v / 1e3) end
  return string.format("%d ns", math.floor(v + 0.5))
end

local function pct(x, signed)
  if x == nil then return "—" end
  return string.format(signed and "%+.1f%%" or "%.1f%%", x * 100)
end
M.pct = pct

-- ---- kernel-name normalisation ----------------------------------------------------------------------

-- normalizer(policy) → fn(name) → name (cached), or nil when the policy has none.
function M.normalizer(policy)
  local fn = need(policy, "diff.normalizer").diff.normalize_name
  if fn == nil then return nil end
  local cache = {}
  return function(names)
    -- one budgeted policy call per batch of names
    local todo = {}
    for _, n in ipairs(names) do if cache[n] == nil then todo[#todo + 1] = n end end
    if #todo > 0 then
      pol.call(policy, function()
        for _, n in ipairs(todo) do
          local v = fn(n)
          if type(v) ~= "string" or v == "" then
            error(string.format("diff.normalize_name(%q) must return a non-empty string (got %s)", n:sub(1, 200),
              type(v) == "string" and '""' or tostring(v)), 0)
          end
          cache[n] = v
        end
      end)
    end
    return cache
  end
end

-- Leaf remap {leaf = new_leaf} of a Stacks value; the "_[G]" marker of launch stacks stays outside.
local function leaf_remap(stacks, norm)
  if not norm then return nil end
  local names, marks = {}, {}
  for _, l in ipairs(stacks:leaves()) do
    local base = l.name:match("^(.*)_%[G%]$")
    names[#names + 1] = base or l.name
    marks[#marks + 1] = base and "_[G]" or ""
  end
  local map = norm(names)
  local remap = {}
  for i, n in ipairs(names) do
    local v = map[n] .. marks[i]
    local orig = n .. marks[i]
    if v ~= orig then remap[orig] = v end
  end
  return remap
end

-- ---- the comparison ---------------------------------------------------------------------------------

local function kernel_rows(side, norm)
  -- {name → {total_ns, count}} after normalisation
  local rows, order = {}, {}
  local list = side.kernels
  if not list then
    list = {}
    -- folded inputs: the leaves are the kernels; weights in the side's unit (× scale)
    for _, l in ipairs(side.stacks:leaves()) do list[#list + 1] = { name = l.name, total_ns = l.weight * side.scale } end
  end
  local map
  if norm then
    local names = {}
    for i, k in ipairs(list) do names[i] = k.name:match("^(.*)_%[G%]$") or k.name end
    map = norm(names)
  end
  for _, k in ipairs(list) do
    local name = k.name
    if map then
      local base = name:match("^(.*)_%[G%]$")
      name = base and (map[base] .. "_[G]") or map[name]
    end
    local r = rows[name]
    if not r then
      r = { total_ns = 0, count = (k.count ~= nil) and 0 or nil, names = {} }
      rows[name] = r
      order[#order + 1] = name
    end
    r.total_ns = r.total_ns + k.total_ns
    if r.count and k.count then r.count = r.count + k.count else r.count = nil end
    r.names[#r.names + 1] = k.name
  end
  return rows, order
end

-- The ranked table grouped by NVTX range ({name → {total_ns, count}}): a row per range name holds the stacks
-- whose path has it (each stack once, however deep the name recurs), so nested ranges overlap; the stacks
-- outside every range make one row of their own.
M.OUTSIDE_NVTX = "(outside NVTX ranges)"
local function nvtx_rows(side)
  local rows, order = {}, {}
  local groups, outside = side.stacks:kind_sums("nvtx")
  local scale = side.scale or 1
  for _, g in ipairs(groups) do
    rows[g.name] = { total_ns = g.weight * scale, count = g.count, names = { g.name } }
    order[#order + 1] = g.name
  end
  if outside.weight > 0 or #order == 0 then
    rows[M.OUTSIDE_NVTX] = { total_ns = outside.weight * scale, count = outside.count > 0 and outside.count or nil,
      names = { M.OUTSIDE_NVTX } }
    order[#order + 1] = M.OUTSIDE_NVTX
  end
  return rows, order
end

local function side_stats(r, total)
  if not r then return NULL end
  local mean = (r.count and r.count > 0) and r6(r.total_ns / r.count) or NULL
  return {
    total_ns = r.total_ns,
    instances = r.count or NULL,
    mean_ns = mean,
    share = total > 0 and r6(r.total_ns / total) or 0,
  }
end

-- Differences that make the comparison unfair, stated plainly: {field, before, after, message}.
function M.caveats(b, a, policy)
  need(policy, "diff.caveats")
  local out = {}
  local function add(field, vb, va, msg)
    out[#out + 1] = { field = field, before = vb == nil and NULL or vb, after = va == nil and NULL or va, message = msg }
  end
  local mb, ma = b.meta, a.meta
  if not mb or not ma then
    local which = (not mb and not ma) and "Neither capture" or (not mb and "BEFORE" or "AFTER")
    add("metadata", mb and "export" or b.source, ma and "export" or a.source, string.format(
      "%s carries capture metadata (%s): GPU, driver, nsys version and capture length cannot be compared. " ..
      "Diff the SQLite exports (or .nsys-rep reports) to check them.", which,
      "only SQLite exports and .nsys-rep reports have it"))
  end
  if b.kind ~= a.kind then
    add("input kind", b.kind, a.kind, string.format("BEFORE is %s and AFTER is %s: their frames and times may not " ..
      "measure the same thing.", M.kind_text(b), M.kind_text(a)))
  elseif b.kind == "api" then
    add("input kind", "api", "api", "Both inputs are CUDA API summaries: this compares CPU-side API time, not GPU time.")
  end
  if b.unit ~= a.unit then
    add("unit", b.unit, a.unit, "One side's folded stacks carry no unit (no gpuflame metadata line): its counts " ..
      "were compared as if they were nanoseconds.")
  end
  if mb and ma then diff_meta.caveats(b, a, add, { ns = M.ns, pct = pct }, policy) end
  return out
end

function M.kind_text(side)
  if side.kind == "kernels" then return "GPU kernel time (" .. (side.source == "csv" and "kernel-summary CSV" or
    "SQLite export") .. ")" end
  if side.kind == "api" then return "CUDA API time (cuda_api_sum CSV)" end
  return "folded stacks" .. (side.unit == "count" and " without a unit" or "")
end

local function side_summary(side, rows, order, total)
  local inst, known = 0, true
  for _, n in ipairs(order) do
    local c = rows[n].count
    if c then inst = inst + c else known = false end
  end
  return {
    input = side.input,
    file = side.file,
    report = side.from_rep or NULL,
    source = side.source,
    kind = side.kind,
    unit = side.unit,
    total_ns = total,
    kernels = #order,
    instances = (known and #order > 0) and inst or NULL,
    meta = diff_meta.view(side),
    step = side.step, -- --step: the step whose GPU work this side is (docs/DIFF.md); absent without --step
  }
end

-- compare(before, after, over, policy) → D (core.stacks_diff, kernel flame), L (launch-stack flame or nil), d
-- (the comparison as plain data: the --json document without the verdict). over: the command's overrides
-- ({group_by = "kernel"|"nvtx"}: --group-by) or nil for policy diff.group_by.
function M.compare(b, a, over, policy)
  local norm = M.normalizer(policy)
  local group_by = over and over.group_by or policy.diff.group_by
  local D = core.stacks_diff.new()
  D:add(1, b.stacks, { remap = leaf_remap(b.stacks, norm), scale = b.scale })
  D:add(2, a.stacks, { remap = leaf_remap(a.stacks, norm), scale = a.scale })
  local rb, ob = kernel_rows(b, norm)
  local ra, oa = kernel_rows(a, norm)
  local tb, ta = 0, 0
  for _, n in ipairs(ob) do tb = tb + rb[n].total_ns end
  for _, n in ipairs(oa) do ta = ta + ra[n].total_ns end
  local summary_b, summary_a = side_summary(b, rb, ob, tb), side_summary(a, ra, oa, ta)
  local by_nvtx = group_by == "nvtx"
  if by_nvtx then
    rb, ob = nvtx_rows(b)
    ra, oa = nvtx_rows(a)
  end
  local names, seen = {}, {}
  for _, o in ipairs({ ob, oa }) do
    for _, n in ipairs(o) do if not seen[n] then seen[n] = true; names[#names + 1] = n end end
  end
  local kernels, new, vanished = {}, {}, {}
  for _, n in ipairs(names) do
    local x, y = rb[n], ra[n]
    local vb, va = x and x.total_ns or 0, y and y.total_ns or 0
    local status
    if not x or (vb == 0 and va > 0) then status = "new"
    elseif not y or (va == 0 and vb > 0) then status = "vanished"
    elseif va > vb then status = "grew"
    elseif va < vb then status = "shrank"
    else status = "same" end
    if status == "new" then new[#new + 1] = n elseif status == "vanished" then vanished[#vanished + 1] = n end
    local sb, sa = tb > 0 and vb / tb or 0, ta > 0 and va / ta or 0
    kernels[#kernels + 1] = {
      name = n,
      status = status,
      before = side_stats(x, tb),
      after = side_stats(y, ta),
      delta_ns = va - vb,
      change = (vb > 0) and r6((va - vb) / vb) or NULL,
      share_delta = r6(sa - sb),
      matched = (norm and not by_nvtx and ((x and (#x.names > 1 or x.names[1] ~= n)) or (y and (#y.names > 1 or y.names[1] ~= n))))
        and array((function()
          local t, s2 = {}, {}
          for _, r in ipairs({ x, y }) do
            for _, o in ipairs(r and r.names or {}) do if not s2[o] then s2[o] = true; t[#t + 1] = o end end
          end
          table.sort(t)
          return t
        end)()) or nil,
    }
  end
  table.sort(kernels, function(p, q)
    local dp, dq = math.abs(p.delta_ns), math.abs(q.delta_ns)
    if dp ~= dq then return dp > dq end
    local mp = math.max(p.before ~= NULL and p.before.total_ns or 0, p.after ~= NULL and p.after.total_ns or 0)
    local mq = math.max(q.before ~= NULL and q.before.total_ns or 0, q.after ~= NULL and q.after.total_ns or 0)
    if mp ~= mq then return mp > mq end
    return p.name < q.name
  end)
  for i, k in ipairs(kernels) do k.rank = i end
  table.sort(new)
  table.sort(vanished)
  local d = {
    schema = M.SCHEMA,
    generator = "gpuflame " .. core.host.version,
    unit = (b.unit == "count" and a.unit == "count") and "count" or "ns",
    normalize_name = policy.diff.normalize_name and "policy" or "exact",
    group_by = group_by,
    before = summary_b,
    after = summary_a,
    total = { before_ns = tb, after_ns = ta, delta_ns = ta - tb, change = tb > 0 and r6((ta - tb) / tb) or NULL },
    kernels = array(kernels),
    new = array(new),
    vanished = array(vanished),
    caveats = array(M.caveats(b, a, policy)),
    loop = diff_loop.compare(b.loop, a.loop, policy),
    stacks = { before_ns = (D:totals()), after_ns = select(2, D:totals()), distinct = D:count() },
  }
  -- launch stacks ending in kernels, when both sides have launch backtraces
  local L
  local cb, ca = b.meta and b.meta.callchains, a.meta and a.meta.callchains
  if cb and ca then
    local sb, sa = inputs_side.load_launch_stacks(b), inputs_side.load_launch_stacks(a)
    L = core.stacks_diff.new()
    L:add(1, sb, { remap = leaf_remap(sb, norm) })
    L:add(2, sa, { remap = leaf_remap(sa, norm) })
    local lb, la = L:totals()
    d.launch_stacks = { available = true, before_ns = lb, after_ns = la, distinct = L:count(), why = NULL }
  else
    local why
    if not cb and not ca then why = "neither capture has launch backtraces (CUDA_CALLCHAINS; capture with --stacks)"
    else why = string.format("only %s has launch backtraces (CUDA_CALLCHAINS)", cb and "BEFORE" or "AFTER") end
    d.launch_stacks = { available = false, why = why }
  end
  return D, L, d
end

-- ---- the verdict ------------------------------------------------------------------------------------

-- The default rule: regression when total GPU time grows by more than diff.threshold, or a kernel among
-- the diff.top_kernels largest (by max(before, after) total) grows by more than diff.kernel_threshold
-- (a new kernel among them counts as growth). When the total falls by more than diff.threshold (and policy
-- diff.notes_when_faster), the kernels' growth is no regression of the run (an optimisation that swaps
-- kernels, e.g. for half-precision ones, makes new ones): it is kept as notes.
function M.default_verdict(d, policy)
  local p = need(policy, "diff.default_verdict").diff
  local thr, kthr, top = p.threshold, p.kernel_threshold, p.top_kernels
  local reasons, kernel_reasons = {}, {}
  local t = d.total
  local change = t.before_ns > 0 and (t.after_ns - t.before_ns) / t.before_ns or nil
  if change and change > thr then
    reasons[#reasons + 1] = string.format("total GPU time grew %s (%s → %s), above the %s threshold",
      pct((t.after_ns - t.before_ns) / t.before_ns, true), M.ns(t.before_ns), M.ns(t.after_ns),
      pct(thr))
  end
  local ranked = {}
  local what = d.group_by == "nvtx" and "NVTX range" or "kernel"
  for _, k in ipairs(d.kernels) do ranked[#ranked + 1] = k end
  local function big(k)
    return math.max(k.before ~= NULL and k.before.total_ns or 0, k.after ~= NULL and k.after.total_ns or 0)
  end
  table.sort(ranked, function(x, y)
    local bx, by = big(x), big(y)
    if bx ~= by then return bx > by end
    return x.name < y.name
  end)
  for i = 1, math.min(top, #ranked) do
    local k = ranked[i]
    local vb = k.before ~= NULL and k.before.total_ns or 0
    local va = k.after ~= NULL and k.after.total_ns or 0
    if vb == 0 and va > 0 then
      kernel_reasons[#kernel_reasons + 1] = string.format("new %s among the top %d: %s (%s)", what, top, k.name,
        M.ns(va))
    elseif vb > 0 and (va - vb) / vb > kthr then
      kernel_reasons[#kernel_reasons + 1] = string.format("%s %s grew %s (%s → %s), above the %s per-kernel " ..
        "threshold", what, k.name, pct((va - vb) / vb, true), M.ns(vb), M.ns(va), pct(kthr))
    end
  end
  -- the loop's mean iteration (gpuflame.diff_loop): a run that does the same GPU work slower per iteration
  local slower = d.loop and diff_loop.regression(d.loop, { ns = M.ns, pct = pct })
  if slower then reasons[#reasons + 1] = slower end
  if p.notes_when_faster and change and change < -thr then
    return { regression = #reasons > 0, reasons = reasons, notes = kernel_reasons }
  end
  for _, r in ipairs(kernel_reasons) do reasons[#reasons + 1] = r end
  return { regression = #reasons > 0, reasons = reasons, notes = {} }
end

local function deep_copy(v, drop_null)
  if type(v) ~= "table" then return v end
  local c = {}
  for k, x in pairs(v) do
    if not (drop_null and x == NULL) then c[k] = deep_copy(x, drop_null) end
  end
  return setmetatable(c, getmetatable(v))
end

-- verdict(d, policy) → {regression, exit_code, reasons, decided_by, threshold, kernel_threshold, top_kernels}
function M.verdict(d, policy)
  local p = need(policy, "diff.verdict").diff
  local res, by
  if p.verdict then
    -- the policy sees JSON nulls as nil (d.total.change == nil when BEFORE had no GPU time)
    local v = pol.call(policy, p.verdict, deep_copy(d, true))
    by = "policy"
    if type(v) == "boolean" then
      res = { regression = v, reasons = {} }
    elseif type(v) == "table" and type(v.regression) == "boolean" then
      res = { regression = v.regression, reasons = {} }
      for _, r in ipairs(type(v.reasons) == "table" and v.reasons or {}) do res.reasons[#res.reasons + 1] = tostring(r) end
    else
      errors.raise(errors.ERROR, "policy function failed: diff.verdict must return true/false or " ..
        "{regression = bool, reasons = {...}} (got %s)", type(v))
    end
    if res.regression and #res.reasons == 0 then res.reasons[1] = "the policy's diff.verdict decided so" end
  else
    res = M.default_verdict(d, policy)
    by = "default"
  end
  local notes = res.notes or {}
  return {
    notes_why = #notes > 0 and string.format("total GPU time fell %s, more than the %s threshold: the kernels' " ..
      "changes are notes, not a regression of the run", pct(-d.total.change), pct(p.threshold)) or nil,
    regression = res.regression,
    exit_code = res.regression and errors.REGRESSION or errors.OK,
    reasons = array(res.reasons),
    notes = array(notes),
    decided_by = by,
    threshold = p.threshold,
    kernel_threshold = p.kernel_threshold,
    top_kernels = p.top_kernels,
  }
end

-- A deep copy of the document (the page's model adds its own fields).
function M.copy(d) return deep_copy(d) end

-- ---- outputs ----------------------------------------------------------------------------------------

function M.folded_meta(d)
  return core.json.encode({ generator = "gpuflame", format = "difffolded", unit = d.unit,
    before = d.before and d.before.input or NULL, after = d.after and d.after.input or NULL })
end

-- One line per verdict for the terminal.
function M.verdict_text(v)
  if v.comparable == false then
    return "verdict: NOT COMPARABLE (exit " .. v.exit_code .. "): " .. table.concat(v.reasons, "; ")
  end
  if not v.regression then
    return "verdict: no regression (exit 0)" .. (v.notes_why and ("; " .. v.notes_why .. ": " ..
      table.concat(v.notes, "; ")) or "")
  end
  return "verdict: REGRESSION (exit " .. v.exit_code .. "): " .. table.concat(v.reasons, "; ")
end

return M
