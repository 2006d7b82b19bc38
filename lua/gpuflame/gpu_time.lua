-- The time breakdown of a GPU (docs/SEMANTICS.md), in one place for every view that speaks of busy or
-- idle (the gpu-busy and launch-overhead rules, gpu-idle, rank-skew): per device (and per rank) the
-- union of each kind's intervals in integer ns — compute, communication (kernels LIKE the policy's
-- gpu_time.communication), copy by direction, memset, the overlap of compute with copy or communication,
-- and idle — computed in C (core.trace_findings.busy), named and formatted here.
local core = require("gpuflame.core")
local need = require("gpuflame.policy").need

local M = {}

-- the parts, in the order every view shows them: key in the rows, label, JSON field
M.PARTS = {
  { key = "compute", label = "compute", field = "compute_ns" },
  { key = "comm", label = "communication", field = "communication_ns" },
  { key = "copy", label = "copy", field = "copy_ns" },
  { key = "h2d", label = "H2D", field = "h2d_ns", copy = true },
  { key = "d2h", label = "D2H", field = "d2h_ns", copy = true },
  { key = "d2d", label = "D2D", field = "d2d_ns", copy = true },
  { key = "p2p", label = "P2P", field = "p2p_ns", copy = true },
  { key = "memset", label = "memset", field = "memset_ns" },
  { key = "overlap", label = "overlap", field = "overlap_ns" },
  { key = "idle", label = "idle", field = "idle_ns" },
}

-- breakdown(tr, win, by_rank|nil, pol) → rows, capture: per device (per (rank, device) with by_rank; a
-- row's .rank is then the rank's label), each row {device, device_name, rank, ops, first, last, span,
-- busy, idle, kernel_busy, compute, comm, copy, h2d, d2h, d2d, p2p, memset, overlap} in ns; capture =
-- {first=, last=}, the span of every event. win: nsys's filter window or nil.
function M.breakdown(tr, win, by_rank, pol)
  need(pol, "gpu_time.breakdown")
  local comm = pol.gpu_time.communication
  local rows, cap = core.trace_findings.busy(tr, win, #comm > 0 and { like = comm } or nil, by_rank and true or false)
  for _, r in ipairs(rows) do r.span = r.last - r.first end
  return rows, cap
end

-- share of the span in percent (0 when the span is empty)
function M.pct(ns, span) return span > 0 and 100 * ns / span or 0 end

-- one number for display: ns as ms with three decimals ("12.345 ms"), the same in every text view
function M.ms(ns) return string.format("%.3f ms", ns / 1e6) end

-- text(row) → "compute 2.3%, communication 0.0%, copy 97.9% (H2D 97.9%), memset 0.0%, overlap 0.1%,
-- idle 0.7% of 960.123 ms": the parts as shares of the device's span (copy directions only when non-zero)
function M.text(r)
  local dirs = {}
  for _, p in ipairs(M.PARTS) do
    if p.copy and r[p.key] > 0 then dirs[#dirs + 1] = string.format("%s %.1f%%", p.label, M.pct(r[p.key], r.span)) end
  end
  local parts = {}
  for _, p in ipairs(M.PARTS) do
    if not p.copy then
      local t = string.format("%s %.1f%%", p.label, M.pct(r[p.key], r.span))
      if p.key == "copy" and #dirs > 0 then t = t .. " (" .. table.concat(dirs, ", ") .. ")" end
      parts[#parts + 1] = t
    end
  end
  return table.concat(parts, ", ") .. " of " .. M.ms(r.span)
end

-- short(o) → "GPU 0 busy 41.0% (compute 12.0%, H2D copy 29.0%), idle 59.0% of 12.345 ms": busy and idle
-- with the parts that fill busy (those that are not zero; copies by direction when they have one) and the
-- overlap, as shares of the span. o: a device as json() gives it (a findings document's breakdown too).
function M.short(o)
  local parts = {}
  local dirs = o.h2d_ns + o.d2h_ns + o.d2d_ns + o.p2p_ns
  for _, p in ipairs(M.PARTS) do
    if p.key ~= "idle" and o[p.field] > 0 and (p.key ~= "copy" or dirs == 0) then
      local label = p.copy and (p.label .. " copy") or p.label
      parts[#parts + 1] = string.format("%s %.1f%%", label, M.pct(o[p.field], o.span_ns))
    end
  end
  return string.format("GPU %d busy %.1f%%%s, idle %.1f%% of %s", o.device, M.pct(o.busy_ns, o.span_ns),
    #parts > 0 and (" (" .. table.concat(parts, ", ") .. ")") or "", M.pct(o.idle_ns, o.span_ns), M.ms(o.span_ns))
end

-- lines(doc) → short() of each device of a breakdown document (document(), a finding's `breakdown`), or
-- nil when there is none
function M.lines(doc)
  local devs = type(doc) == "table" and doc.devices
  if type(devs) ~= "table" or #devs == 0 then return nil end
  local out = {}
  for k, d in ipairs(devs) do out[k] = M.short(d) end
  return out
end

-- the fields of json(): every part, busy and idle, as <name>_ns and <name>_share (of the span)
local SHARES = { { key = "busy", name = "busy" } }
for _, p in ipairs(M.PARTS) do SHARES[#SHARES + 1] = { key = p.key, name = p.field:gsub("_ns$", "") } end

-- json(row) → {device, device_name, rank, span_ns, first_ns, last_ns, busy_ns, <part>_ns...,
-- busy_share, <part>_share...}: integer ns and shares of the span (0..1; 0 when the span is empty), for
-- JSON documents. rank: the rank's label in merged reports, else absent.
function M.json(r)
  local o = { device = r.device, device_name = r.device_name, rank = r.rank, span_ns = r.span, busy_ns = r.busy,
    first_ns = r.first, last_ns = r.last }
  for _, p in ipairs(M.PARTS) do o[p.field] = r[p.key] end
  for _, s in ipairs(SHARES) do o[s.name .. "_share"] = r.span > 0 and r[s.key] / r.span or 0 end
  return o
end

-- document(rows, pol) → the breakdown as a JSON document's field (summary.json's gpu_time, a finding's
-- breakdown): {definitions = "docs/SEMANTICS.md", communication = [LIKE patterns], devices = [json(row)]}
function M.document(rows, pol)
  need(pol, "gpu_time.document")
  local json = core.json
  local devs = {}
  for i, r in ipairs(rows) do
    devs[i] = M.json(r)
    if devs[i].rank == nil then devs[i].rank = json.null end -- one report: no rank known
  end
  local comm = {}
  for i, c in ipairs(pol.gpu_time.communication) do comm[i] = c end
  return { definitions = M.DEFINITIONS_DOC, communication = json.array(comm), devices = json.array(devs) }
end

-- where the words are defined, and the definitions themselves in short (the pages show them)
M.DEFINITIONS_DOC = "docs/SEMANTICS.md"
M.DEFINITIONS = {
  { "span", "first operation start to last operation end on the device" },
  { "busy", "the union of every operation (kernels, copies, memsets of every process): the time at least one runs" },
  { "idle", "span minus busy: nothing runs on the device" },
  { "compute", "the union of the kernels that are not communication" },
  { "communication", "the union of the kernels whose name is LIKE policy gpu_time.communication (NCCL, NVSHMEM, collectives)" },
  { "copy", "the union of the memory copies; H2D, D2H, D2D, P2P by direction" },
  { "memset", "the union of the memsets" },
  { "overlap", "compute running at the same time as a copy or communication" },
  { "shares", "of the device's span; parts can overlap, so they can add up to more than busy" },
}

return M
