-- gpuflame analyze: the NVTX run analysis of a run directory into its analysis.json (docs/spec/NVTX_ANALYSIS.md);
-- the usage is in the spec below.
local analyze = require("gpuflame.analyze")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")

local cmd = {}

cmd.spec = {
  usage = "analyze --run-dir DIR [--no-export | --from-export] [--nsys PATH] [--nsys-version TEXT] " ..
    "[--schema-version 1|2]",
  summary = "NVTX timing analysis of a profiling run directory → DIR/analysis.json",
  description = "DIR holds manifest.yaml and trace.nsys-rep (from the NVTX capture harness). nsys stats exports\n" ..
    "the nvtx_pushpop_trace and nvtx_gpu_proj_trace reports into DIR/stats/, and analysis.json gets\n" ..
    "per-iteration host-inclusive and GPU-projected times and per-range summaries (schema_version 1).\n" ..
    "--no-export reads existing DIR/stats/*.csv and needs no nsys (the version is then `unknown`).\n" ..
    "--from-export (policy analyze.source = \"export\"): gpuflame writes those CSVs itself from DIR/trace.sqlite\n" ..
    "(one `nsys export` of trace.nsys-rep when absent or older; docs/REPORTS.md), much faster than nsys stats\n" ..
    "on large runs; analysis.json's provenance then says \"source\": \"export\". Without manifest.yaml,\n" ..
    "--from-export falls back to the steps found in the capture (`gpuflame steps`): DIR/steps.json (policy\n" ..
    "outputs.steps) instead of analysis.json.",
  options = {
    { "run-dir", arg = "DIR", help = "the profiling run directory" },
    { "no-export", help = "analyse the CSVs already in DIR/stats/ without running nsys" },
    { "from-export", help = "write DIR/stats/*.csv with gpuflame from DIR/trace.sqlite instead of nsys stats" },
    { "nsys", arg = "PATH", help = "use this nsys (else the discovery policy decides)" },
    { "nsys-version", arg = "TEXT", help = "record this as the Nsight Systems version (e.g. with --no-export)" },
    { "schema-version", arg = "N", type = "integer", default = 1,
      help = "2 adds capture_gpu_work (kernels, memory transfers; spec §15) from two more nsys reports" },
  },
  examples = {
    "gpuflame analyze --run-dir inference_profiling/snippets/smoke-tensor/runs/20250101T000000Z",
    "gpuflame analyze --run-dir RUN --no-export --nsys-version 'NVIDIA Nsight Systems version 2025.1.3'",
  },
}

function cmd.run(opts, ctx)
  local dir = opts.run_dir or opts.positional[1]
  if not dir then errors.raise(errors.USAGE, "analyze needs --run-dir DIR (see --help)") end
  if opts.schema_version ~= 1 and opts.schema_version ~= 2 then
    errors.raise(errors.USAGE, "--schema-version must be 1 or 2 (got %d)", opts.schema_version)
  end
  if opts.no_export and opts.from_export then
    errors.raise(errors.USAGE, "--no-export and --from-export exclude each other")
  end
  local res = analyze.run({ run_dir = dir, no_export = opts.no_export, nsys = opts.nsys,
    nsys_version = opts.nsys_version, schema_version = opts.schema_version,
    source = opts.from_export and "export" or nil }, ctx.policy())
  for _, w in ipairs(res.warnings) do log.warn("%s", w) end
  io.stdout:write(res.steps and "Wrote steps: " or "Wrote analysis: ", res.path, "\n")
  return 0
end

return cmd
