-- MCP tool summary: one look at a capture: per device the GPU time breakdown of docs/SEMANTICS.md (the gpu-busy
-- rule's, as `gpuflame findings -r gpu-busy -f json` gives it), the top kernels (`stats -r cuda_gpu_kern_sum`),
-- the top NVTX ranges (`stats -r nvtx_sum`), each finding's headline, and the loop when the capture has steps.
local common = require("gpuflame.mcp.common")
local core = require("gpuflame.core")
local diff_loop = require("gpuflame.diff_loop")
local errors = require("gpuflame.errors")
local findings = require("gpuflame.findings")
local steps = require("gpuflame.steps")

local TOP = 5

return {
  name = "summary",
  title = "Capture summary",
  description = "Where a capture's GPU time went: per device compute_ns, communication_ns, copy_ns, memset_ns, " ..
    "overlap_ns, idle_ns and span_ns (with shares of the span), the top kernels and NVTX ranges by total time, " ..
    "each findings rule's verdict, and, when the capture has steps, its loop: the mean iteration split into the " ..
    "steps with their GPU work and the time outside them (between_share, outside_share), and the NVTX ranges " ..
    "that fill the gaps. Start here; kernels, nvtx_ranges, findings and steps give the details.",
  inputSchema = {
    type = "object",
    properties = { input = common.input_schema },
    required = { "input" },
    additionalProperties = false,
  },
  outputSchema = {
    type = "object",
    properties = {
      input = { type = "string" },
      devices = { type = "array", items = { type = "object", properties = {
        device = { type = "integer" }, compute_ns = { type = "integer" }, communication_ns = { type = "integer" },
        copy_ns = { type = "integer" }, memset_ns = { type = "integer" }, idle_ns = { type = "integer" },
        span_ns = { type = "integer" } }, required = { "device", "compute_ns", "communication_ns", "copy_ns",
        "memset_ns", "idle_ns", "span_ns" } } },
      top_kernels = { type = "array", items = { type = "object" } },
      top_nvtx_ranges = { type = "array", items = { type = "object" } },
      findings = { type = "array", items = { type = "object", properties = { rule = { type = "string" },
        verdict = { type = "string" }, severity = { type = "string" } } } },
      definitions = { type = "string" },
      loop = { type = { "object", "null" } },
    },
    required = { "input", "devices", "top_kernels", "top_nvtx_ranges", "findings" },
  },
  run = function(args, tk)
    local pol = tk:policy()
    local specs = findings.parse_specs(nil)
    local has_busy = false
    for _, s in ipairs(findings.select(specs, pol)) do if s.name == "gpu-busy" then has_busy = true end end
    local sel = findings.select(specs, pol)
    if not has_busy then sel[#sel + 1] = { name = "gpu-busy", args = {}, order = {}, text = "gpu-busy" } end
    local plan = findings.plan(sel, pol)
    local tr, real = tk:trace(args.input)
    tk:progress("running the rules")
    local results = findings.analyze(tr, findings.source_name(real), sel, plan, false, pol)
    local devices, heads = common.array({}), common.array({})
    for _, r in ipairs(results) do
      if r.name == "gpu-busy" and r.breakdown then
        for i, d in ipairs(r.breakdown.devices) do devices[i] = d end
      end
      heads[#heads + 1] = { rule = r.name, verdict = r.verdict or r.skipped or r.error, severity = r.severity,
        status = r.error and "error" or r.skipped and "skipped" or "ran" }
    end
    tk:progress("kernels and NVTX ranges")
    local top_k, top_r = common.array({}), common.array({})
    for i, r in ipairs(tk:stats(args.input, "cuda_gpu_kern_sum") or {}) do
      if i > TOP then break end
      top_k[i] = common.kernel_row(r)
    end
    for i, r in ipairs(tk:stats(args.input, "nvtx_sum") or {}) do
      if i > TOP then break end
      top_r[i] = common.range_row(r)
    end
    -- the loop per iteration (docs/DIFF.md "The loop"), as `diff` reads each side's; null without steps
    local okl, doc = errors.try(steps.loop, tr, nil, pol)
    if not okl and doc.code == errors.INTERRUPTED then error(doc, 0) end
    return { input = args.input, devices = devices, top_kernels = top_k, top_nvtx_ranges = top_r, findings = heads,
      loop = okl and diff_loop.of(doc) or core.json.null,
      definitions = "docs/SEMANTICS.md: busy = the union of the device's GPU work; idle = span - busy; the loop's " ..
        "iteration = a step's start to the next step's start, docs/SEMANTICS.md \"Steps\"" }
  end,
}
