-- Comparable or not, before better or worse (docs/DIFF.md "Comparable or not"): the work each capture did
-- (bytes per copy direction, kernel instances and launch sizes per kernel, NVTX ranges per name) compared
-- before `diff`'s verdict; captures whose work differs beyond policy (diff.work) are "not comparable"
-- (exit 11) with the differences named, and the figures that still compare once normalised (time per byte
-- copied, per block, per instance) are given with their own direction. compare() takes two work summaries,
-- so any pair of slices (whole captures, or one step of each) can be fed to it.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local need = require("gpuflame.policy").need

local M = {}
local NULL = core.json.null

-- ratios and shares in the JSON are rounded to 1e-6 so the output is stable across platforms (every diff module's)
local function r6(x)
  if x == nil or x ~= x or x == math.huge or x == -math.huge then return nil end
  return math.floor(x * 1e6 + 0.5) / 1e6
end
M.r6 = r6

-- summary(tr, policy) → {copies = {[direction] = {count, bytes, total_ns}}, kernels = {[name] = {count,
-- total_ns, blocks, threads}}, nvtx = {[name] = count}, kernel_ns}: the work of a trace (core/trace_work.h).
-- Memsets are the direction "memset"; NVTX names have their numbers folded to "#" (diff.work.nvtx_fold_numbers).
function M.summary(tr, policy)
  return M.step_summary(tr, nil, policy)
end

-- step_summary(tr, step|nil, policy) → the same over one step ({start=, ["end"]=, pid=, rank=}: the GPU work
-- launched inside it and the NVTX ranges of its process inside it; `diff --step`, gpuflame.steps)
function M.step_summary(tr, step, policy)
  local p = need(policy, "diff_work.summary").diff.work
  local w = { copies = {}, kernels = {}, nvtx = {}, kernel_ns = 0 }
  for _, r in ipairs(tr:work(p.nvtx_depth, step)) do
    if r.kind == "kernel" then
      w.kernels[r.name] = { count = r.count, total_ns = r.total_ns, blocks = r.blocks, threads = r.threads }
      w.kernel_ns = w.kernel_ns + r.total_ns
    elseif r.kind == "copy" or r.kind == "memset" then
      local dir = r.kind == "memset" and "memset" or r.name
      local c = w.copies[dir] or { count = 0, bytes = 0, total_ns = 0 }
      w.copies[dir] = c
      c.count, c.bytes, c.total_ns = c.count + r.count, c.bytes + r.bytes, c.total_ns + r.total_ns
    elseif r.kind == "nvtx" then
      local n = p.nvtx_fold_numbers and (r.name:gsub("%d+", "#")) or r.name
      w.nvtx[n] = (w.nvtx[n] or 0) + r.count
    end
  end
  return w
end

local function rel(b, a)
  if b == a then return 0 end
  if b == 0 then return math.huge end
  return math.abs(a - b) / b
end

local function sorted_keys(t)
  local k = {}
  for n in pairs(t) do k[#k + 1] = n end
  table.sort(k)
  return k
end

local function round1(x) return math.floor(x * 10 + 0.5) / 10 end

-- The work changes between two summaries beyond policy: {{what, before, after, change}...}, largest first.
local function changes(wb, wa, p)
  local out = {}
  local function add(what, b, a)
    out[#out + 1] = { what = what, before = b, after = a, change = r6(b > 0 and (a - b) / b or nil) or NULL,
      _rel = rel(b, a) }
  end
  -- bytes per copy direction (and memsets), each direction that holds min_share of its side's bytes
  local tb, ta = 0, 0
  for _, c in pairs(wb.copies) do tb = tb + c.bytes end
  for _, c in pairs(wa.copies) do ta = ta + c.bytes end
  local dirs = {}
  for d in pairs(wb.copies) do dirs[d] = true end
  for d in pairs(wa.copies) do dirs[d] = true end
  for _, d in ipairs(sorted_keys(dirs)) do
    local b = wb.copies[d] and wb.copies[d].bytes or 0
    local a = wa.copies[d] and wa.copies[d].bytes or 0
    local big = (tb > 0 and b / tb >= p.min_share) or (ta > 0 and a / ta >= p.min_share)
    if big and rel(b, a) > p.bytes_tolerance then
      add(d == "memset" and "bytes set (memset)" or ("bytes copied " .. d), b, a)
    end
  end
  -- kernels on both sides holding min_share of their side's kernel time on both: instances, launch sizes
  for _, n in ipairs(sorted_keys(wb.kernels)) do
    local kb, ka = wb.kernels[n], wa.kernels[n]
    if ka and wb.kernel_ns > 0 and wa.kernel_ns > 0 and kb.total_ns / wb.kernel_ns >= p.min_share
        and ka.total_ns / wa.kernel_ns >= p.min_share then
      if rel(kb.count, ka.count) > p.instances_tolerance then add("instances of " .. n, kb.count, ka.count) end
      local gb, ga = kb.blocks / kb.count, ka.blocks / ka.count
      if rel(gb, ga) > p.launch_tolerance then add("blocks per instance of " .. n, round1(gb), round1(ga)) end
      local hb, ha = kb.threads / kb.count, ka.threads / ka.count
      if rel(hb, ha) > p.launch_tolerance then add("threads per block of " .. n, round1(hb), round1(ha)) end
    end
  end
  -- NVTX ranges per name, names on both sides
  for _, n in ipairs(sorted_keys(wb.nvtx)) do
    local b, a = wb.nvtx[n], wa.nvtx[n]
    if a and rel(b, a) > p.nvtx_tolerance then add("NVTX ranges " .. n, b, a) end
  end
  table.sort(out, function(x, y)
    if x._rel ~= y._rel then return x._rel > y._rel end
    return x.what < y.what
  end)
  for _, c in ipairs(out) do c._rel = nil end
  return out
end

-- Figures that compare across different amounts of work, each with its direction (lower is better; within
-- diff.threshold of each other they are "same"): copy time per byte per direction, kernel time per instance
-- and per block over all kernels, and per instance and per block of each kernel named in work_changes.
local function normalised(wb, wa, work_changes, thr)
  local out = {}
  local function add(what, unit, tb, qb, ta, qa)
    if not (qb and qa and qb > 0 and qa > 0) then return end
    local b, a = tb / qb, ta / qa
    local ch = b > 0 and (a - b) / b or nil
    out[#out + 1] = { what = what, unit = unit, before = r6(b), after = r6(a), change = r6(ch) or NULL,
      direction = (ch == nil or math.abs(ch) <= thr) and "same" or (ch < 0 and "better" or "worse") }
  end
  for _, d in ipairs(sorted_keys(wb.copies)) do
    local cb, ca = wb.copies[d], wa.copies[d]
    if ca and d ~= "memset" then add("copy time per byte, " .. d, "ns/B", cb.total_ns, cb.bytes, ca.total_ns, ca.bytes) end
  end
  local function sums(w)
    local inst, blocks = 0, 0
    for _, k in pairs(w.kernels) do inst, blocks = inst + k.count, blocks + k.blocks end
    return inst, blocks
  end
  local ib, bb = sums(wb)
  local ia, ba = sums(wa)
  add("kernel time per instance", "ns", wb.kernel_ns, ib, wa.kernel_ns, ia)
  add("kernel time per block", "ns", wb.kernel_ns, bb, wa.kernel_ns, ba)
  local named = {}
  for _, c in ipairs(work_changes) do
    local n = c.what:match("^instances of (.+)$") or c.what:match("^blocks per instance of (.+)$")
      or c.what:match("^threads per block of (.+)$")
    if n and not named[n] then
      named[n] = true
      local kb, ka = wb.kernels[n], wa.kernels[n]
      add("time per instance of " .. n, "ns", kb.total_ns, kb.count, ka.total_ns, ka.count)
      add("time per block of " .. n, "ns", kb.total_ns, kb.blocks, ka.total_ns, ka.blocks)
    end
  end
  return out
end

-- compare(before_work, after_work, policy) → {comparable = bool, work_changes = {{what, before, after,
-- change}...}, normalised = {{what, unit, before, after, change, direction}...}}. A summary of nil (the
-- input has no trace: CSV, folded stacks) compares nothing: comparable, with why.
function M.compare(wb, wa, policy)
  local p = need(policy, "diff_work.compare").diff
  if not wb or not wa then
    return { comparable = true, work_changes = core.json.array({}), normalised = core.json.array({}),
      why = string.format("the work was not compared: %s no trace (a stats CSV or folded stacks)",
        (not wb and not wa) and "neither input has" or ((not wb and "BEFORE" or "AFTER") .. " has")) }
  end
  local wc = changes(wb, wa, p.work)
  return { comparable = #wc == 0, work_changes = core.json.array(wc),
    normalised = core.json.array(normalised(wb, wa, wc, p.threshold)) }
end

local function num(v, bytes)
  if bytes and v >= 1024 then
    local u, x = "KiB", v / 1024
    if x >= 1024 then u, x = "MiB", x / 1024 end
    if x >= 1024 then u, x = "GiB", x / 1024 end
    return string.format(x == math.floor(x) and "%d %s" or "%.1f %s", x, u)
  end
  if v == math.floor(v) then return string.format("%d", v) end
  return string.format("%.1f", v)
end

-- One sentence per work change: "bytes copied Host-to-Device: 128 KiB → 2 MiB (+1500.0%)".
function M.change_text(c)
  local bytes = c.what:match("^bytes ") ~= nil
  return string.format("%s: %s → %s%s", c.what, num(c.before, bytes), num(c.after, bytes),
    c.change ~= NULL and string.format(" (%+.1f%%)", c.change * 100) or "")
end

-- apply(d, before_work, after_work, policy): the comparison into d (the --json document with its verdict):
-- verdict.comparable, verdict.work_changes, d.normalised; not comparable → verdict.exit_code 11, reasons
-- led by the work changes (the regression rule's own answer stays in verdict.regression).
function M.apply(d, wb, wa, policy)
  local c = M.compare(wb, wa, policy)
  local v = d.verdict
  v.comparable = c.comparable
  v.work_changes = c.work_changes
  v.work_compared = c.why == nil
  d.normalised = c.normalised
  if not c.comparable then
    v.exit_code = errors.NOT_COMPARABLE
    local reasons = {}
    for i, w in ipairs(c.work_changes) do
      if i > 8 then
        reasons[#reasons] = string.format("… and %d more work changes", #c.work_changes - 7)
        break
      end
      reasons[#reasons + 1] = M.change_text(w)
    end
    for _, r in ipairs(v.reasons) do reasons[#reasons + 1] = "the regression rule alone: " .. r end
    v.reasons = core.json.array(reasons)
  end
  return c
end

return M
