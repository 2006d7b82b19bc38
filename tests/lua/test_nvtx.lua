-- NVTX analysis orchestration in Lua: path handling like pathlib, the nsys stats argv, report wording
-- and findings, compare's context differences.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local analyze = require("gpuflame.analyze")
local R = require("gpuflame.nvtx_report")

t.eq("normalize: trailing slash", "runs/x", analyze.normalize("runs/x/"))
t.eq("normalize: ./ and //", "runs/x", analyze.normalize("./runs//x/."))
t.eq("normalize: absolute", "/tmp/r", analyze.normalize("/tmp//r/"))
t.eq("normalize: empty → .", ".", analyze.normalize("./"))
t.eq("join under .", "manifest.yaml", analyze.join(".", "manifest.yaml"))

local tmp = t.tmp() .. "/lua_nvtx"
core.fs.mkdirp(tmp .. "/stats")
t.eq("portable: file inside the run dir", "stats/x.csv", analyze.portable(tmp .. "/stats/x.csv", tmp))
t.eq("portable: missing file inside resolves through its directory", "trace.nsys-rep",
  analyze.portable(tmp .. "/trace.nsys-rep", tmp))
t.eq("portable: outside stays as given", "/etc/hostname", analyze.portable("/etc/hostname", tmp))

local argv = analyze.stats_argv("/opt/nsys", "runs/x", { force_export = true })
t.eq("stats argv", "/opt/nsys stats --report nvtx_pushpop_trace --report nvtx_gpu_proj_trace --format csv " ..
  "--output runs/x/stats/nsys --force-overwrite=true --force-export=true runs/x/trace.nsys-rep", table.concat(argv, " "))
argv = analyze.stats_argv("nsys", "r", { force_export = false })
t.check("stats argv without --force-export (policy)", not table.concat(argv, " "):find("force%-export"))

t.eq("ns: ns", "950 ns", R.ns(950))
t.eq("ns: µs", "23.5 µs", R.ns(23464.0))
t.eq("ns: ms", "1.235 ms", R.ns(1234567))
t.eq("ns: s", "2.000 s", R.ns(2e9))
t.eq("ns: null", "—", R.ns(core.json.null))

local function summ(vals)
  local s = core.nvtx.summary(vals)
  return s
end
local flat = {
  run = { capture_range = "profile-target", cuda = {}, workload = {} }, warnings = {},
  iterations = { { index = 0, host = { inclusive_ns = 100 }, gpu_projection = { projected_ns = 50 } },
    { index = 1, host = { inclusive_ns = 101 }, gpu_projection = { projected_ns = 50 } },
    { index = 2, host = { inclusive_ns = 99 }, gpu_projection = { projected_ns = 51 } } },
  iteration_summary = { iterations = 3, host_iterations = 3, gpu_projected_iterations = 3,
    host_inclusive = summ({ 100, 101, 99 }), gpu_projected = summ({ 50, 50, 51 }) },
  gpu_projected_ranges = { { name = "x" } }, host_ranges = {},
}
local AOPTS = require("gpuflame.policy").defaults().analyze
t.eq("findings: steady run has none", 0, #R.findings(flat, AOPTS))
flat.iterations[1].host.inclusive_ns = 1000
flat.iteration_summary.host_inclusive = summ({ 1000, 101, 99 })
local f = R.findings(flat, AOPTS)
t.check("findings: first-iteration effect and variance", #f == 2 and f[1].kind == "first_iteration" and
  f[2].kind == "variance", core.json.encode(f))
t.check("summary binding: stddev exact", summ({ 210176, 23985, 22943, 20188 }).stddev_ns == 93915.66159414875)

local a = { run = { device = "cuda:0", cuda = { synchronize_each_iteration = false }, capture_range = "p",
  workload = { iterations = 2 }, record_count = 2 }, provenance = { nsys_version = "v1" } }
local b = { run = { device = "cuda:0", cuda = { synchronize_each_iteration = true }, capture_range = "p",
  workload = { iterations = 2 }, record_count = 2 }, provenance = { nsys_version = "v2" } }
local d = R.context_differences(a, { target = "t" }, b, { target = "t" })
local fields = {}
for _, x in ipairs(d) do fields[#fields + 1] = x.field end
t.eq("compare: only the differing fields", "synchronization policy,Nsight Systems version", table.concat(fields, ","))
return t.done()
