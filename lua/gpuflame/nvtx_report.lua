-- Human summaries of analysis.json (docs/spec/NVTX_ANALYSIS.md §10): the report model, its Markdown form,
-- and run-to-run comparison. Vocabulary is deliberate: host times are CPU-side NVTX range durations
-- (never "GPU latency"); the GPU projection is a span from the first to the last GPU operation launched
-- inside a range (idle gaps included, not a sum of kernel times); nested ranges overlap, so totals of
-- different rows are never added.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local document = require("gpuflame.findings.document")
local format = require("gpuflame.findings.format")
local need = require("gpuflame.policy").need

local R = {}

local NULL = core.json.null

local function isnull(v) return v == nil or v == NULL end
R.isnull = isnull

local function show(v)
  if isnull(v) then return "—" end
  if type(v) == "table" then return core.json.encode(v) end
  return tostring(v)
end
R.show = show

-- 1234567 → "1.235 ms" (explicit unit on every number).
function R.ns(v)
  if isnull(v) then return "—" end
  local a = math.abs(v)
  if a >= 1e9 then return string.format("%.3f s", v / 1e9) end
  if a >= 1e6 then return string.format("%.3f ms", v / 1e6) end
  if a >= 1e3 then return string.format("%.1f µs", v / 1e3) end
  if v == math.floor(v) then return string.format("%d ns", math.floor(v)) end
  return string.format("%.1f ns", v)
end

local function cv(s)
  if isnull(s) or not s.mean_ns or s.mean_ns == 0 then return nil end
  return s.stddev_ns / s.mean_ns
end
R.cv = cv

local function pct(x) return x and string.format("%.0f%%", x * 100) or "—" end

-- Markdown-safe cell: escape pipes and backslashes, keep everything on one line.
local function cell(s)
  s = tostring(s):gsub("\\", "\\\\"):gsub("|", "\\|"):gsub("[\r\n]+", " ")
  return s
end
R.cell = cell

local function code(s) return "`" .. tostring(s):gsub("`", "'") .. "`" end

-- Reads analysis.json (a run directory — the file named by policy outputs.analysis in it — or the file
-- itself) → analysis, path
function R.load(target, policy)
  need(policy, "nvtx_report.load")
  local path = target
  local st = core.fs.stat(target)
  if st and st.type == "directory" then
    path = (target:sub(-1) == "/" and target or target .. "/") ..
      policy.outputs.analysis
    st = core.fs.stat(path)
    if not st then
      errors.raise(errors.NO_DATA, "%s: no analysis.json in this run directory; run `gpuflame analyze --run-dir %s` first",
        target, target)
    end
  elseif not st then
    errors.raise(errors.INPUT, "%s: no such run directory or analysis.json", target)
  end
  local a = core.json.decode(core.fs.read(path), path)
  if type(a) ~= "table" or a.schema_version == nil or type(a.run) ~= "table" then
    errors.raise(errors.INPUT, "%s: not an NVTX analysis (analysis.json with schema_version)", path)
  end
  if a.schema_version ~= 1 and a.schema_version ~= 2 then
    errors.raise(errors.INPUT, "%s: unsupported schema_version %s (this gpuflame reads 1 and 2)", path,
      tostring(a.schema_version))
  end
  return a, path
end

-- The manifest beside an analysis (for target/inputs), or nil.
function R.manifest_of(a, path)
  local mp = a.provenance and a.provenance.manifest_path
  if type(mp) ~= "string" then return nil end
  if mp:sub(1, 1) ~= "/" then
    local dir = path:match("^(.*)/[^/]*$") or "."
    mp = dir .. "/" .. mp
  end
  local ok, m = pcall(core.yaml.load, mp)
  if ok and type(m) == "table" then return m, mp end
  return nil
end

function R.sync_policy(cuda)
  local parts = {}
  if type(cuda) ~= "table" then return "not recorded" end
  local keys = {}
  for k in pairs(cuda) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. show(cuda[k]) end
  if #parts == 0 then return "not recorded in the manifest" end
  return table.concat(parts, ", ")
end

local function sorted_by(list, key, n)
  local out = {}
  for _, x in ipairs(list or {}) do out[#out + 1] = x end
  table.sort(out, function(a, b)
    local x, y = key(a), key(b)
    if x ~= y then return x > y end
    return (a.name or "") < (b.name or "")
  end)
  while #out > n do table.remove(out) end
  return out
end

local function median(xs)
  if #xs == 0 then return nil end
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  local m = #s // 2
  if #s % 2 == 1 then return s[m + 1] end
  return (s[m] + s[m + 1]) / 2
end

-- Findings a person should not miss: warnings, missing data, first-iteration effects, variance.
-- opts (required): first_iteration_factor, high_variance_cv (the effective policy's analyze table or a
-- table built from it).
local function need_opts(opts, where)
  if type(opts) ~= "table" then
    error(where .. ": internal error: no options (the effective policy's analyze table)", 3)
  end
end

function R.findings(a, opts)
  need_opts(opts, "nvtx_report.findings")
  local factor = opts.first_iteration_factor
  local cv_limit = opts.high_variance_cv
  local f = {}
  local function add(kind, text) f[#f + 1] = { kind = kind, text = text } end
  for _, w in ipairs(a.warnings or {}) do add("warning", w) end
  local its = a.iterations or {}
  local is = a.iteration_summary or {}
  if #its == 0 then
    add("missing", "No harness iterations were found: no `iteration N` range directly under the capture range '" ..
      tostring(a.run.capture_range) .. "'. Per-iteration statistics are unavailable.")
  end
  if #(a.gpu_projected_ranges or {}) == 0 and (is.gpu_projected_iterations or 0) == 0 then
    add("missing", "No GPU projection data: the GPU report is empty (a CPU-only capture, or no GPU work inside any " ..
      "NVTX range). GPU measurements are null, not zero.")
  end
  -- first iteration vs the rest
  for _, side in ipairs({ { "host", "inclusive_ns", "host-inclusive" }, { "gpu_projection", "projected_ns",
    "GPU-projected" } }) do
    local first, rest = nil, {}
    for _, it in ipairs(its) do
      local v = it[side[1]]
      if not isnull(v) then
        if first == nil then first = { index = it.index, v = v[side[2]] } else rest[#rest + 1] = v[side[2]] end
      end
    end
    local med = median(rest)
    if first and med and med > 0 and first.v > factor * med then
      add("first_iteration", string.format("First-iteration effect (%s): iteration %d took %s, %.1f× the median " ..
        "of the other %d iteration%s (%s). Warm-up work (allocation, autotuning, lazy loading) is probably " ..
        "inside the capture; the median is the better steady-state figure.", side[3], first.index, R.ns(first.v),
        first.v / med, #rest, #rest == 1 and "" or "s", R.ns(med)))
    end
  end
  for _, s in ipairs({ { is.host_inclusive, "host-inclusive iteration time" },
    { is.gpu_projected, "GPU-projected iteration time" } }) do
    local c = cv(s[1])
    if c and c > cv_limit then
      add("variance", string.format("Large variance in %s: stddev %s is %s of the mean %s (min %s, max %s). " ..
        "Single numbers from this run are not reliable; look at the per-iteration values.", s[2],
        R.ns(s[1].stddev_ns), pct(c), R.ns(s[1].mean_ns), R.ns(s[1].minimum_ns), R.ns(s[1].maximum_ns)))
    end
  end
  local cuda = a.run.cuda
  if type(cuda) == "table" and cuda.synchronize_each_iteration == false then
    add("note", "synchronize_each_iteration=false: a host-inclusive iteration time covers launching (enqueueing) " ..
      "the work, not its completion on the GPU; use the GPU projection for device-side time.")
  end
  return f
end

local function summary_row(label, s, unit_note)
  if isnull(s) then
    return string.format("| %s | 0 | — | — | — | — | — | — | — |", label)
  end
  local n = 0
  if s.mean_ns and s.mean_ns ~= 0 then n = math.floor(s.total_ns / s.mean_ns + 0.5) end
  return string.format("| %s | %d | %s | %s | %s | %s | %s | %s | %s |", label, n, R.ns(s.total_ns), R.ns(s.mean_ns),
    R.ns(s.median_ns), R.ns(s.minimum_ns), R.ns(s.maximum_ns), R.ns(s.stddev_ns), pct(cv(s))) .. (unit_note or "")
end

-- The Markdown report. opts (required): top_ranges and the findings' thresholds (policy analyze).
-- The rules' findings (a `findings -f json` document, gpuflame.findings.document.read_document) as Markdown lines:
-- a verdict table, then per rule with rows its first `top` rows.
function R.rules_markdown(doc, fpath, top)
  local fcell = format.cell
  local L = {}
  local function w(x) L[#L + 1] = x or "" end
  w("## Rule findings")
  w()
  w("From " .. cell(code(fpath)) .. (type(doc.input) == "string" and (" (" .. cell(code(doc.input)) .. ")") or "") ..
    ": `gpuflame findings` rules over the capture's trace (docs/RULES.md).")
  w()
  if #doc.findings == 0 then
    w("No rules ran.")
    w()
    return L
  end
  w("| Rule | Severity | Verdict |")
  w("|---|---|---|")
  for _, f in ipairs(doc.findings) do
    local sev = f.error and "error" or f.skipped and "skipped" or f.severity
    w(string.format("| %s | %s | %s |", cell(code(f.rule)), cell(sev),
      cell(f.error or f.skipped or document.with_parts(f, f.verdict))))
  end
  w()
  for _, f in ipairs(doc.findings) do
    local rows = type(f.rows) == "table" and f.rows or {}
    if not f.error and not f.skipped and #rows > 0 and type(f.columns) == "table" and #f.columns > 0 then
      w("### " .. cell(f.rule))
      w()
      if type(f.advice) == "string" then
        w(cell(f.advice))
        w()
      end
      local hdr, sep = {}, {}
      for i, c in ipairs(f.columns) do hdr[i], sep[i] = cell(c), "---" end
      w("| " .. table.concat(hdr, " | ") .. " |")
      w("| " .. table.concat(sep, " | ") .. " |")
      for k = 1, math.min(top, #rows) do
        local cells = {}
        for i, c in ipairs(f.columns) do cells[i] = cell(fcell(c, rows[k][c])) end
        w("| " .. table.concat(cells, " | ") .. " |")
      end
      local total = math.max(#rows, f.total_rows or 0)
      if total > math.min(top, #rows) then
        w()
        w(string.format("%d of %d rows.", math.min(top, #rows), total))
      end
      w()
    end
  end
  return L
end

function R.markdown(a, path, opts)
  need_opts(opts, "nvtx_report.markdown")
  local top = opts.top_ranges
  local run, prov, is = a.run, a.provenance or {}, a.iteration_summary or {}
  local wl = type(run.workload) == "table" and run.workload or {}
  local L = {}
  local function w(s) L[#L + 1] = s or "" end
  w(string.format("# NVTX analysis: %s / %s", show(run.profile_name), show(run.run_id)))
  w()
  w("| | |")
  w("|---|---|")
  w("| Profile | " .. cell(show(run.profile_name)) .. " |")
  w("| Run ID | " .. cell(show(run.run_id)) .. " |")
  w("| Git commit | " .. cell(show(run.git_commit)) .. " |")
  w("| Device | " .. cell(show(run.device)) .. " |")
  w("| Nsight Systems | " .. cell(show(prov.nsys_version)) .. " |")
  w("| Capture range | " .. cell(show(run.capture_range)) .. " |")
  w("| Warm-up passes | " .. cell(show(wl.warmup)) .. " (outside the capture) |")
  w("| Iterations (manifest) | " .. cell(show(wl.iterations)) .. " |")
  w("| Records | " .. cell(show(run.record_count)) .. (wl.record_loading and (" (" .. cell(show(wl.record_loading)) ..
    " loading)") or "") .. " |")
  w("| Synchronization policy | " .. cell(R.sync_policy(run.cuda)) .. " |")
  w("| Analysis | " .. cell(path) .. " (schema_version " .. show(a.schema_version) .. ") |")
  w()
  local findings = R.findings(a, opts)
  w("## Findings")
  w()
  if #findings == 0 then w("No warnings; no missing data; no first-iteration effect or large variance detected.") end
  local label = { warning = "Warning", missing = "Missing data", first_iteration = "First iteration",
    variance = "Variance", note = "Note" }
  for _, f in ipairs(findings) do w("- **" .. label[f.kind] .. ":** " .. f.text) end
  w()
  if opts.rules then -- the rules' findings (report --findings, or findings.json beside analysis.json)
    for _, line in ipairs(R.rules_markdown(opts.rules, opts.rules_path, top)) do w(line) end
  end
  w("## Iterations")
  w()
  w(string.format("%d harness iteration%s found: %d with host ranges, %d with a GPU projection.",
    is.iterations or 0, (is.iterations == 1) and "" or "s", is.host_iterations or 0, is.gpu_projected_iterations or 0))
  w()
  w("| Per iteration | n | total | mean | median | min | max | stddev | CV |")
  w("|---|---|---|---|---|---|---|---|---|")
  w(summary_row("Host inclusive (CPU time of the `iteration N` range)", is.host_inclusive))
  w(summary_row("Host exclusive (the iteration range itself, without its child ranges)", is.host_exclusive))
  w(summary_row("GPU projected (first to last GPU op launched in the iteration)", is.gpu_projected))
  w()
  local its = a.iterations or {}
  if #its > 0 then
    w("| Iteration | Host inclusive | Host exclusive | GPU projected | GPU ops |")
    w("|---|---|---|---|---|")
    local shown = 0
    for i, it in ipairs(its) do
      if #its <= 30 or i <= 10 or i > #its - 5 then
        local h, g = it.host, it.gpu_projection
        w(string.format("| %d | %s | %s | %s | %s |", it.index, isnull(h) and "missing" or R.ns(h.inclusive_ns),
          isnull(h) and "missing" or R.ns(h.exclusive_ns), isnull(g) and "missing" or R.ns(g.projected_ns),
          isnull(g) and "—" or tostring(g.gpu_operation_count)))
        shown = shown + 1
      elseif i == 11 then
        w(string.format("| … | %d iterations not shown | | | |", #its - 15))
      end
    end
    w()
  end
  w("## Ranges with the largest host totals")
  w()
  w("Inclusive time contains nested child ranges, so a parent and its children overlap: never add rows.")
  w()
  local hr = a.host_ranges or {}
  if #hr == 0 then
    w("No host ranges.")
  else
    w("| Range | Instances | Inclusive total | Median | Stddev | Exclusive total |")
    w("|---|---|---|---|---|---|")
    for _, r in ipairs(sorted_by(hr, function(x) return x.inclusive.total_ns end, top)) do
      w(string.format("| %s | %d | %s | %s | %s | %s |", cell(code(r.name)), r.instances, R.ns(r.inclusive.total_ns),
        R.ns(r.inclusive.median_ns), R.ns(r.inclusive.stddev_ns), R.ns(r.exclusive.total_ns)))
    end
  end
  w()
  w("## Ranges with the largest projected GPU totals")
  w()
  w("A projection is the span from the first to the last GPU operation launched inside the range (idle gaps " ..
    "included), not a sum of kernel times; a parent's projection covers its children's.")
  w()
  local gr = a.gpu_projected_ranges or {}
  if #gr == 0 then
    w("No GPU-projected ranges (the GPU report had no rows).")
  else
    w("| Range | Style | Instances | Projected total | Median | Stddev | GPU ops | Host total |")
    w("|---|---|---|---|---|---|---|---|")
    for _, r in ipairs(sorted_by(gr, function(x) return x.projected.total_ns end, top)) do
      w(string.format("| %s | %s | %d | %s | %s | %s | %d | %s |", cell(code(r.name)), cell(r.style), r.instances,
        R.ns(r.projected.total_ns), R.ns(r.projected.median_ns), R.ns(r.projected.stddev_ns),
        r.gpu_operation_count, R.ns(r.host_total_ns)))
    end
  end
  w()
  local cw = a.capture_gpu_work
  if type(cw) == "table" then
    w("## Capture-wide CUDA work (schema_version 2)")
    w()
    w("Kernel time is the sum of kernel durations over the whole capture (cuda_gpu_kern_sum); it is not " ..
      "comparable with the projected spans above.")
    w()
    if #(cw.kernels or {}) == 0 then w("No kernels.") else
      w("| Kernel | Instances | Total time |")
      w("|---|---|---|")
      for _, k in ipairs(sorted_by(cw.kernels, function(x) return x.cumulative_duration_ns end, top)) do
        w(string.format("| %s | %d | %s |", cell(code(k.name)), k.instances, R.ns(k.cumulative_duration_ns)))
      end
    end
    w()
    if #(cw.memory_transfers or {}) == 0 then w("No memory transfers.") else
      w("| Transfer | Instances | Bytes | Total time |")
      w("|---|---|---|---|")
      for _, x in ipairs(cw.memory_transfers) do
        w(string.format("| %s → %s | %d | %d B | %s |", cell(x.source_memory_kind), cell(x.destination_memory_kind),
          x.instances, x.total_bytes, R.ns(x.cumulative_duration_ns)))
      end
    end
    w()
  end
  return table.concat(L, "\n"), findings
end

-- ---- compare ---------------------------------------------------------------------------------------

local function canon(v)
  if isnull(v) then return "null" end
  if type(v) == "table" then return core.json.encode(v) end
  return tostring(v)
end

-- Context differences between two runs: {field, a, b}.
function R.context_differences(a, ma, b, mb)
  local d = {}
  local function cmp(field, x, y)
    if canon(x) ~= canon(y) then d[#d + 1] = { field = field, a = canon(x), b = canon(y) } end
  end
  cmp("target", ma and ma.target, mb and mb.target)
  cmp("inputs: data_source", ma and ma.data_source, mb and mb.data_source)
  cmp("inputs: record_ids", ma and ma.record_ids, mb and mb.record_ids)
  cmp("inputs: record_count", a.run.record_count, b.run.record_count)
  cmp("inputs: workload", a.run.workload, b.run.workload)
  cmp("device", a.run.device, b.run.device)
  cmp("synchronization policy", a.run.cuda, b.run.cuda)
  cmp("capture range", a.run.capture_range, b.run.capture_range)
  cmp("Nsight Systems version", a.provenance and a.provenance.nsys_version, b.provenance and b.provenance.nsys_version)
  cmp("git commit", a.run.git_commit, b.run.git_commit)
  return d
end

local function spread(s)
  if isnull(s) then return "—" end
  return string.format("sd %s, %s–%s", R.ns(s.stddev_ns), R.ns(s.minimum_ns), R.ns(s.maximum_ns))
end

local function delta_row(label, sa, sb)
  local ma, mb = not isnull(sa) and sa.median_ns or nil, not isnull(sb) and sb.median_ns or nil
  local dv, dp = "—", "—"
  if ma and mb then
    dv = (mb >= ma and "+" or "-") .. R.ns(math.abs(mb - ma))
    if ma ~= 0 then dp = string.format("%+.1f%%", (mb - ma) / ma * 100) end
  end
  return string.format("| %s | %s | %s | %s | %s | %s | %s |", label, ma and R.ns(ma) or "—", mb and R.ns(mb) or "—",
    dv, dp, spread(sa), spread(sb)), (ma and mb) and math.abs(mb - ma) or -1
end

function R.compare_markdown(a, pa, b, pb)
  local ma, mb = R.manifest_of(a, pa), R.manifest_of(b, pb)
  local L = {}
  local function w(s) L[#L + 1] = s or "" end
  w("# NVTX run comparison")
  w()
  w("- A: " .. pa .. " (" .. show(a.run.profile_name) .. " / " .. show(a.run.run_id) .. ")")
  w("- B: " .. pb .. " (" .. show(b.run.profile_name) .. " / " .. show(b.run.run_id) .. ")")
  w()
  w("## What differs besides the code")
  w()
  local d = R.context_differences(a, ma, b, mb)
  if not ma or not mb then
    w("(manifest.yaml not found beside " .. ((not ma and not mb) and "either analysis" or (not ma and "A" or "B")) ..
      ": target and inputs are compared from analysis.json only)")
    w()
  end
  if #d == 0 then
    w("No differences in target, inputs, device, synchronization policy, capture range or Nsight Systems version.")
  else
    for _, x in ipairs(d) do
      w(string.format("- **%s** differs: A `%s`, B `%s`", x.field, x.a:gsub("`", "'"), x.b:gsub("`", "'")))
    end
    w()
    w("Timing differences below may come from these changes rather than from the code.")
  end
  w()
  w("## Median deltas (B − A)")
  w()
  w("**One run per side cannot establish a regression.** Each number below comes from a single capture; " ..
    "run-to-run noise (clocks, caches, other tenants) is not measured. Repeat each side several times and " ..
    "compare the distributions before concluding anything.")
  w()
  local ia, ib = a.iteration_summary or {}, b.iteration_summary or {}
  w("| Per iteration | A median | B median | Δ | Δ% | A spread | B spread |")
  w("|---|---|---|---|---|---|---|")
  w((delta_row("Host inclusive", ia.host_inclusive, ib.host_inclusive)))
  w((delta_row("Host exclusive", ia.host_exclusive, ib.host_exclusive)))
  w((delta_row("GPU projected", ia.gpu_projected, ib.gpu_projected)))
  w()
  for _, side in ipairs({ { "host_ranges", "Host ranges (inclusive)", function(r) return r.name end,
    function(r) return r.inclusive end },
    { "gpu_projected_ranges", "GPU-projected ranges", function(r) return r.name .. " [" .. r.style .. "]" end,
      function(r) return r.projected end } }) do
    local A, B, keys = {}, {}, {}
    for _, r in ipairs(a[side[1]] or {}) do
      local k = side[3](r)
      if not A[k] and not B[k] then keys[#keys + 1] = k end
      A[k] = r
    end
    for _, r in ipairs(b[side[1]] or {}) do
      local k = side[3](r)
      if not A[k] and not B[k] then keys[#keys + 1] = k end
      B[k] = r
    end
    w("### " .. side[2])
    w()
    if #keys == 0 then
      w("None in either run.")
    else
      local rows = {}
      for _, k in ipairs(keys) do
        local sa = A[k] and side[4](A[k]) or nil
        local sb = B[k] and side[4](B[k]) or nil
        local line, mag = delta_row(cell(code(k)), sa, sb)
        if not A[k] then line = line .. " only in B" elseif not B[k] then line = line .. " only in A" end
        rows[#rows + 1] = { line = line, mag = mag, k = k }
      end
      table.sort(rows, function(x, y) if x.mag ~= y.mag then return x.mag > y.mag end return x.k < y.k end)
      w("| Range | A median | B median | Δ | Δ% | A spread | B spread |")
      w("|---|---|---|---|---|---|---|")
      for _, r in ipairs(rows) do w(r.line) end
    end
    w()
  end
  return table.concat(L, "\n")
end

return R
