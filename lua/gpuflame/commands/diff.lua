-- gpuflame diff: two captures compared (differential GPU flamegraph, ranked changes, metadata, verdict).
local core = require("gpuflame.core")
local diff = require("gpuflame.diff")
local errors = require("gpuflame.errors")
local inputs = require("gpuflame.inputs")
local log = require("gpuflame.log")
local diff_loop = require("gpuflame.diff_loop")
local diff_work = require("gpuflame.diff_work")
local flamegraph = require("gpuflame.flamegraph")
local side = require("gpuflame.inputs.side")
local process_key = require("gpuflame.process_key")
local sidecar = require("gpuflame.sidecar")
local views_diff = require("gpuflame.views.diff")

local cmd = {}

cmd.spec = {
  usage = "diff BEFORE AFTER [-o diff.html] [--json] [--folded FILE] [--group-by kernel|nvtx] [--levels LIST] " ..
    "[--title T] [--min-fraction F] [--step median|slowest|N] [--marker PATTERN]",
  summary = "differential GPU flamegraph and regression verdict between two captures",
  description = "BEFORE and AFTER are anything gpuflame reads: capture directories, .nsys-rep/.qdrep reports\n" ..
    "(exported through nsys), SQLite exports, model files (gpuflame import), cuda_gpu_kern_sum CSVs or folded stacks;\n" ..
    "each is imported once.\n" ..
    "Exports and reports are compared as hierarchical GPU stacks (process;NVTX ranges;launch call;kernel, in ns;\n" ..
    "--levels), so the flamegraph shows which range changed; --group-by nvtx ranks NVTX ranges instead of kernels.\n" ..
    "Kernels match by demangled name (policy diff.normalize_name can normalise). The page (-o, default\n" ..
    "diff.html) shows the ranked kernel changes, both captures' metadata with every difference that makes\n" ..
    "the comparison unfair, and the differential flamegraph. --json prints the comparison (docs/DIFF.md) on\n" ..
    "stdout and writes a page only with -o. Processes match by rank or executable, not pid (policy\n" ..
    "diff.process_key). Before the verdict the work of both captures is compared (bytes per copy direction,\n" ..
    "kernel instances and launch sizes, NVTX ranges; policy diff.work). When both captures have steps, their\n" ..
    "loops are compared: the mean iteration, the steps with their GPU work, the time outside them (docs/DIFF.md\n" ..
    "\"The loop\"; --marker names the steps).\n" ..
    "Exit 0: no regression; 10: regression (policy diff.threshold, diff.kernel_threshold, diff.loop_threshold,\n" ..
    "or diff.verdict); 11: not comparable (the work differs).\n" ..
    "NVTX analyses (analysis.json) are compared with `compare`.",
  options = {
    { "out", short = "o", arg = "FILE", help = "the page (default diff.html; with --json only when given)" },
    { "json", help = "print the comparison as JSON on stdout (schema: docs/DIFF.md)" },
    { "folded", arg = "FILE", help = "also write difffolded.pl's two-column folded stacks (stack BEFORE AFTER)" },
    { "title", arg = "TEXT", help = "page title (policy diff.title)" },
    { "min-fraction", arg = "F", type = "number", min = 0, help = "page: leave out flame subtrees below this share " ..
      "of both totals (policy diff.min_fraction; 0 keeps all)" },
    { "group-by", arg = "WHAT", choices = { "kernel", "nvtx" }, help = "the ranked table's rows: kernels, or NVTX " ..
      "ranges (the time of the GPU work launched inside each; policy diff.group_by)" },
    { "levels", arg = "LIST", help = "frames of the GPU stacks (exports, reports), outermost first, of: process, " ..
      "rank, device, stream, nvtx, callchain, api, kernel (policy flamegraph.levels)" },
    { "nsys", arg = "PATH", help = ".nsys-rep inputs: the nsys to export with" },
    { "step", arg = "N", help = "compare one step of each side (exports, reports): median (the step of median " ..
      "length; makes runs of different lengths comparable), slowest, or an index (`gpuflame steps`)" },
    { "marker", arg = "PATTERN", help = "the steps (--step, the loop) are the NVTX ranges matching this Lua pattern" },
  },
}

local function base(p) return (p:gsub("/+$", "")):match("[^/]+$") or p end

-- compare(pb, pa, so, ctx) → D, L, d, b, a: both sides loaded (so: the side options nsys, step, marker, flame;
-- group_by: --group-by, nil for policy diff.group_by),
-- compared, the processes paired, the verdict decided and the work compared: the `--json` document d.
-- The MCP tool diff calls it too, so its document is this command's.
function cmd.compare(pb, pa, so, ctx)
  local policy = ctx.policy()
  local b = side.load_side(pb, so, ctx)
  local a = side.load_side(pa, so, ctx)
  local D, L, d = diff.compare(b, a, { group_by = so.group_by }, policy)
  d.processes = process_key.pairs(b.processes, a.processes)
  d.verdict = diff.verdict(d, policy)
  diff_work.apply(d, b.work, a.work, policy)
  return D, L, d, b, a
end

function cmd.run(opts, ctx)
  local pb, pa = opts.positional[1], opts.positional[2]
  if not pb or not pa or opts.positional[3] then
    errors.raise(errors.USAGE, "diff needs exactly two inputs: BEFORE AFTER (see diff --help)")
  end
  local ab, aa = side.analysis(pb, ctx.policy()), side.analysis(pa, ctx.policy())
  if ab and aa then
    errors.raise(errors.USAGE, "%s and %s are NVTX analyses (analysis.json): compare them with `gpuflame compare %s %s`",
      pb, pa, pb, pa)
  elseif ab or aa then
    errors.raise(errors.USAGE, "%s is an NVTX analysis (analysis.json) and %s is not: diff compares two captures, " ..
      "`gpuflame compare` two analyses", ab and pb or pa, ab and pa or pb)
  end
  local policy = ctx.policy()
  local dp = policy.diff
  local fs = flamegraph.settings(opts, policy) -- --levels
  local out = opts.out or (not opts.json and policy.outputs.diff or nil)
  local ok, res, b, a = errors.try(function()
    local D, L, d, b, a = cmd.compare(pb, pa, { nsys = opts.nsys, step = opts.step, marker = opts.marker,
      flame = fs, group_by = opts.group_by }, ctx)
    if opts.folded then
      D:write_folded(opts.folded)
      sidecar.write(opts.folded, diff.folded_meta(d))
    end
    if out then
      local title = opts.title or dp.title
      local function st(x) return x.step and string.format(" (step %d, %s)", x.step.index, x.step.name) or "" end
      views_diff.render(D, L, d, out, { title = title,
        subtitle = base(pb) .. st(b) .. " → " .. base(pa) .. st(a),
        min_fraction = opts.min_fraction or dp.min_fraction })
    end
    return d, b, a
  end)
  inputs.cleanup(ctx)
  if not ok then errors.reraise(res) end
  local d = res
  if opts.json then
    io.stdout:write(core.json.encode(d, { pretty = true }), "\n")
  else
    if out then io.stdout:write(out, "\n") end
    io.stdout:write(diff.verdict_text(d.verdict), "\n")
  end
  for _, c in ipairs(d.caveats) do log.warn("%s", c.message) end
  log.info("total GPU time %s → %s (%s); %d kernels compared, %d new, %d vanished", diff.ns(d.total.before_ns),
    diff.ns(d.total.after_ns), d.total.change ~= core.json.null and string.format("%+.1f%%", d.total.change * 100) or "—",
    #d.kernels, #d.new, #d.vanished)
  if d.before.step and d.after.step then -- the GPU totals above are those steps'; their times say how long each took
    local function st(x) return string.format("step %d of %d (%s)", x.index, x.steps, diff.ns(x.time_ns)) end
    log.info("%s step: %s → %s", d.before.step.pick, st(d.before.step), st(d.after.step))
  end
  if d.loop ~= core.json.null then
    for _, line in ipairs(diff_loop.text(d.loop, { ns = diff.ns, pct = diff.pct })) do log.info("%s", line) end
  elseif opts.marker then -- asked for steps by name: say why there is no loop to compare
    for _, x in ipairs({ { "BEFORE", b }, { "AFTER", a } }) do
      if not x[2].loop then
        log.warn("--marker %s: no loop in %s (%s)", opts.marker, x[1], x[2].loop_error or "no step has a next one")
      end
    end
  end
  return d.verdict.exit_code
end

return cmd
