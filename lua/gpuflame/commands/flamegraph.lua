-- gpuflame flamegraph: the self-contained GPU flamegraph page of an input
local flamegraph = require("gpuflame.flamegraph")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local mpi = require("gpuflame.mpi")
local views_flamegraph = require("gpuflame.views.flamegraph")

local cmd = {}

cmd.spec = {
  usage = "flamegraph INPUT... [-o FILE] [--levels LIST] [--by-rank] [--title T] [--countname U] [--inverted] " ..
    "[--minwidth PX] [--colors P] [--step N|median|slowest [--marker PATTERN]]",
  summary = "draw a self-contained GPU flamegraph page from a stats CSV, folded file, SQLite export or .nsys-rep",
  description = "INPUT is recognised by content: an SQLite export or an .nsys-rep (exported through nsys) gives the\n" ..
    "hierarchical GPU flamegraph: one stack per kernel, memcpy and memset, weighted by its GPU time in ns,\n" ..
    "with the frames of --levels (policy flamegraph.levels; default: the process, the NVTX ranges open on\n" ..
    "the launching thread around the launch call as nsys's nvtx_kern_sum attributes them, the launch call,\n" ..
    "the kernel). An nsys stats cuda_gpu_kern_sum / cuda_api_sum CSV (any era, or captured stdout) gives the\n" ..
    "flat form; folded stacks are drawn as they are. Options follow flamegraph.pl. A two-column folded file\n" ..
    "(difffolded.pl's \"stack BEFORE AFTER\", e.g. from `gpuflame diff --folded`) gives the differential page.\n" ..
    "Several SQLite exports / .nsys-rep reports (files, a directory, a glob: one per rank) are merged, or with\n" ..
    "--by-rank put under a rank frame each (the `rank` level).",
  options = {
    { "out", short = "o", arg = "FILE", help = "output page (default: policy outputs.flamegraph)" },
    { "title", arg = "TEXT", help = "page title (policy flamegraph.title)" },
    { "countname", arg = "UNIT", help = "what the counts are (default: ns for exports and reports, else policy " ..
      "flamegraph.countname)" },
    { "inverted", help = "icicle graph: roots at the top" },
    { "minwidth", arg = "PX", type = "number", min = 0, help = "hide frames narrower than PX pixels" },
    { "colors", arg = "PALETTE", choices = flamegraph.PALETTES, help = "palette, as flamegraph.pl --colors" },
    { "levels", arg = "LIST", help = "frames of the GPU stacks, outermost first, of: process, rank, device, " ..
      "stream, nvtx, callchain, api, kernel (policy flamegraph.levels)" },
    { "nsys", arg = "PATH", help = ".nsys-rep inputs: the nsys to export with" },
    { "by-rank", help = "several reports (or processes): a `rank N` frame per rank under the root" },
    { "allow-unrelated", help = "several reports: accept captures that cannot be one job (policy ranks.max_start_gap_s)" },
    { "step", arg = "N", help = "exports and reports: only the GPU work launched inside step N (its index in " ..
      "`gpuflame steps`), or the median or slowest step" },
    { "marker", arg = "PATTERN", help = "with --step: the steps are the NVTX ranges matching this Lua pattern" },
  },
}

function cmd.run(opts, ctx)
  local input = opts.positional[1]
  if not input and mpi.local_pattern() == nil then
    errors.raise(errors.USAGE, "flamegraph needs an INPUT file (see --help)")
  end
  if opts.marker and not opts.step then errors.raise(errors.USAGE, "--marker goes with --step") end
  local out = opts.out or ctx.policy().outputs.flamegraph
  local page = views_flamegraph.build({
    inputs = opts.positional, out = out, nsys = opts.nsys, by_rank = opts.by_rank,
    flame = flamegraph.settings(opts, ctx.policy()), -- --levels, --by-rank
    allow_unrelated = opts.allow_unrelated, step = opts.step, marker = opts.marker, title = opts.title,
    countname = opts.countname,
    inverted = opts.inverted or nil, minwidth = opts.minwidth, colors = opts.colors,
  }, ctx)
  if page.differential then
    log.info("wrote %s (differential: %d stacks, BEFORE %d, AFTER %d)", out, page.stacks, page.before, page.after)
  else
    log.info("wrote %s (%d stacks, %d %s)", out, page.stacks, page.total, page.countname)
  end
  io.stdout:write(out, "\n")
  return 0
end

return cmd
