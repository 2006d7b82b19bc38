-- The time breakdown of a GPU (docs/SEMANTICS.md), in one place for every view that speaks of busy or
-- idle (the gpu-busy and launch-overhead rules, gpu-idle, rank-skew): per device (and per rank) the
-- union of each kind's intervals in integer ns — compute, communication (kernels LIKE the policy's
-- gpu_time.communication), copy by direction, memset, the overlap of compute with copy or communication,
-- and idle — computed in C (core.trace_findings.busy), named and formatted here.
local core = require("gpuflame.core")

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

-- breakdown(tr, win, pol [, by_rank]) → rows, capture: per device (per (rank, device) with by_rank; a
-- row's .rank is then the rank's label), each row {device, device_name, rank, ops, first, last, span,
-- busy, idle, kernel_busy, compute, comm, copy, h2d, d2h, d2d, p2p, memset, overlap} in ns; capture =
-- {first=, last=}, the span of every event. win: nsys's filter window or nil.
function M.breakdown(tr, win, pol, by_rank)
  require("gpuflame.policy").need(pol, "gpu_time.breakdown")
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

-- json(row) → {device, device_name, span_ns, busy_ns, <part>_ns...}: integer ns, for JSON documents
function M.json(r)
  local o = { device = r.device, device_name = r.device_name, span_ns = r.span, busy_ns = r.busy,
    first_ns = r.first, last_ns = r.last }
  for _, p in ipairs(M.PARTS) do o[p.field] = r[p.key] end
  return o
end

return M
