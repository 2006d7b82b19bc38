-- MCP tool findings: the findings document of `gpuflame findings -f json INPUT [-r RULE]...` (the same rules,
-- numbers and rows): NVIDIA's nsys analyze rules and gpuflame's own (docs/RULES.md).
local common = require("gpuflame.mcp.common")
local findings = require("gpuflame.findings")
local fdoc = require("gpuflame.findings.document")

return {
  name = "findings",
  title = "Expert findings",
  description = "The findings rules over a capture (nsys analyze's cuda-sync-*, gpu-starv, gpu-low-util, and " ..
    "gpuflame's launch-overhead, cuda-graphs, gpu-busy, nccl-wait): per rule its verdict, severity, advice and " ..
    "rows. rules: nsys analyze's syntax, e.g. [\"gpu-starv:gap=100\"]; default the policy's findings.rules.",
  inputSchema = {
    type = "object",
    properties = {
      input = common.input_schema,
      rules = { type = "array", maxItems = 64, items = { type = "string", maxLength = 512 },
        description = "RULE[:key=value...] specs (gpuflame findings -r)" },
    },
    required = { "input" },
    additionalProperties = false,
  },
  outputSchema = {
    type = "object",
    properties = {
      input = { type = "string" },
      findings = { type = "array", items = { type = "object", properties = { rule = { type = "string" } },
        required = { "rule" } } },
    },
    required = { "input", "findings" },
  },
  run = function(args, tk)
    local pol = tk:policy()
    local ok, specs = pcall(findings.parse_specs, args.rules)
    if not ok then tk:fail("%s", require("gpuflame.errors").wrap(specs).msg) end
    local okp, plan = pcall(findings.plan, specs, pol)
    if not okp then tk:fail("%s", require("gpuflame.errors").wrap(plan).msg) end
    local tr, real = tk:trace(args.input)
    tk:progress("running the rules")
    local results = findings.analyze(tr, findings.source_name(real), specs, plan, false, pol)
    local list = {}
    for i, r in ipairs(results) do list[i] = fdoc.to_table(r) end
    return { input = args.input, findings = common.array(list) }
  end,
}
