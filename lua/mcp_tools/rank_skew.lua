-- MCP tool rank_skew: the document of `gpuflame run rank-skew --json INPUTS...` (gpuflame.rank_skew, the same
-- numbers): per rank busy/idle/kernel/NCCL time, devices' breakdowns, iterations, stragglers and the verdict.
local common = require("gpuflame.mcp.common")

return {
  name = "rank_skew",
  title = "Skew between ranks",
  description = "Per-rank GPU time of a multi-process or multi-report run (one SQLite export/.nsys-rep/model per " ..
    "rank, or one export holding several processes): busy/idle/kernel/NCCL ns, each device's breakdown " ..
    "(compute, communication, copy, memset, overlap, idle), the iterations' slowest ranks, the stragglers and a " ..
    "verdict (`gpuflame run rank-skew --json`).",
  inputSchema = {
    type = "object",
    properties = {
      inputs = { type = "array", items = common.input_schema, minItems = 1, maxItems = 1024,
        description = "one capture per rank (or one capture with several processes); a directory: its reports" },
      allow_unrelated = { type = "boolean", description = "accept captures that cannot be one job" },
    },
    required = { "inputs" },
    additionalProperties = false,
  },
  outputSchema = {
    type = "object",
    properties = {
      ranks = { type = "array", items = { type = "object" } },
      stragglers = { type = "array" },
      iterations = { type = "array" },
      verdict = { type = "string" },
      threshold = { type = "number" },
      notes = { type = "array" },
    },
    required = { "ranks", "stragglers", "verdict" },
  },
  run = function(args, tk)
    local reals = {}
    for i, p in ipairs(args.inputs) do
      local real, info = tk:input(p, "inputs[" .. (i - 1) .. "]", true)
      if info.type == "directory" then
        for _, f in ipairs(tk:dir_files(real)) do reals[#reals + 1] = f end
      else
        reals[#reals + 1] = real
      end
    end
    tk:progress("importing " .. #reals .. " capture(s)")
    local rs = require("gpuflame.rank_skew").analyze(reals, { allow_unrelated = args.allow_unrelated }, tk:policy())
    return rs.document
  end,
}
