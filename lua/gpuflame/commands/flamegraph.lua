-- gpuflame flamegraph: the self-contained GPU flamegraph page of an input
local flamegraph = require("gpuflame.flamegraph")
local errors = require("gpuflame.errors")
local inputs = require("gpuflame.inputs")
local log = require("gpuflame.log")

local cmd = {}

cmd.spec = {
  usage = "flamegraph INPUT... [-o FILE] [--levels LIST] [--by-rank] [--title T] [--countname U] [--inverted] " ..
    "[--minwidth PX] [--colors P]",
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
  },
}

function cmd.run(opts, ctx)
  local input = opts.positional[1]
  local from_local = require("gpuflame.mpi").local_pattern() ~= nil
  if not input and not from_local then errors.raise(errors.USAGE, "flamegraph needs an INPUT file (see --help)") end
  local out = opts.out or ctx.policy().outputs.flamegraph
  flamegraph.apply_level_options(ctx, opts)
  local st = input and require("gpuflame.core").fs.stat(input)
  local several = from_local or opts.positional[2] or (st and st.type == "directory") or (not st and input:find("[%*%?%[]"))
  local ok, res = errors.try(function()
    if not (several or opts.by_rank) and st and st.type == "file" then
      local info = inputs.detect(input)
      if info.type == "folded" and info.two_columns then
        -- difffolded.pl's "stack BEFORE AFTER" (gpuflame diff --folded): the differential page
        local D = require("gpuflame.views.diff").flamegraph_from_difffolded(input, out, {
          title = opts.title or ctx.policy().diff.title,
          subtitle = input:match("[^/]+$"), min_fraction = ctx.policy().diff.min_fraction }, ctx)
        local b, a = D:totals()
        log.info("wrote %s (differential: %d stacks, BEFORE %d, AFTER %d)", out, D:count(), b, a)
        return nil
      end
    end
    local stacks, fdoc, clock
    if several or opts.by_rank then
      stacks, clock = flamegraph.from_reports(opts.positional, ctx.policy(), { nsys = opts.nsys,
        allow_unrelated = opts.allow_unrelated })
    else
      -- an .nsys-rep is exported once: the stacks and the findings read the same export
      local info = inputs.resolve(input, ctx, { nsys = opts.nsys })
      stacks = inputs.load_for(info.path, { "stacks" }, ctx, { nsys = opts.nsys })
      if info.type == "sqlite" and ctx.policy().findings.pages then
        -- the findings panel (policy findings.pages): the policy's rules over the export's trace
        local findings = require("gpuflame.findings")
        local name = findings.source_name(input)
        local okt, tr = errors.try(require("gpuflame.trace").load, { info.path }, { max_events = 0, policy = ctx.policy() })
        if okt then
          local _
          _, fdoc = require("gpuflame.findings.document").page(tr, name, ctx.policy())
        elseif tr.code == errors.INTERRUPTED then
          errors.reraise(tr)
        else -- the flamegraph does not need the trace: the page says why it has no findings
          log.warn("findings for the page: %s", tr.msg)
          fdoc = { input = name, findings = require("gpuflame.core").json.array({}),
            note = "findings could not run: " .. tr.msg }
        end
      end
    end
    local o = flamegraph.page_options(ctx.policy(), {
      title = opts.title, countname = opts.countname, inverted = opts.inverted or nil, minwidth = opts.minwidth,
      colors = opts.colors, subtitle = input:match("[^/]+$") .. (clock and (" · " .. clock) or ""), findings = fdoc,
      stacks_countname = flamegraph.countname_of(stacks),
    })
    flamegraph.render(stacks, out, o)
    return stacks
  end)
  inputs.cleanup(ctx)
  if not ok then errors.reraise(res) end
  if res == nil then
    io.stdout:write(out, "\n")
    return 0
  end
  log.info("wrote %s (%d stacks, %d %s)", out, res:count(), res:total(),
    opts.countname or flamegraph.countname_of(res) or ctx.policy().flamegraph.countname)
  io.stdout:write(out, "\n")
  return 0
end

return cmd
