-- INPUT recognition by content (gpuflame.inputs.detect) over the real fixtures and synthetic files.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local inputs = require("gpuflame.inputs")

local F = t.fixtures()
local function exists(p) local f = io.open(p) if f then f:close() return true end return false end
local cases = {
  { "gprofiler/KERN_CSV.csv", "csv", "cuda_gpu_kern_sum" },
  { "gprofiler/API_CSV.csv", "csv", "cuda_api_sum" },
  { "gprofiler/GPU_TRACE_CSV.csv", "csv", "cuda_gpu_trace" },
  { "gprofiler/API_TRACE_CSV.csv", "csv", "cuda_api_trace" },
  { "real/roboflow-inference/cuda_gpu_kern_sum.csv", "csv", "cuda_gpu_kern_sum" },
  { "real/roboflow-inference/cuda_gpu_trace.csv", "csv", "cuda_gpu_trace" },
  { "real/roboflow-inference/nvtx_pushpop_trace.csv", "csv", "nvtx_pushpop_trace" },
  { "real/roboflow-inference/nvtx_gpu_proj_trace.csv", "csv", "nvtx_gpu_proj_trace" },
  { "real/roboflow-inference/nvtx_gpu_proj_sum.csv", "csv", "nvtx_gpu_proj_sum" },
  { "real/vernier/nsys_stats_cuda_api_sum.out", "csv", "cuda_api_sum", true },
  { "real/test-cuda/report1.sqlite", "sqlite" },
}
for _, c in ipairs(cases) do
  local p = F .. "/" .. c[1]
  if exists(p) then
    local ok, info = pcall(inputs.detect, p)
    t.check(c[1] .. " → " .. c[2] .. (c[3] and (" " .. c[3]) or ""),
      ok and info.type == c[2] and info.report == c[3] and (c[4] == nil or info.preamble == c[4]),
      ok and (info.type .. " " .. tostring(info.report)) or tostring(info.msg))
  else
    t.skip(c[1], "fixtures absent")
  end
end

local tmp = t.tmp()
local function write(name, text)
  local f = assert(io.open(tmp .. "/" .. name, "wb")); f:write(text); f:close()
  return tmp .. "/" .. name
end
t.eq("old 2020 kernel header", "cuda_gpu_kern_sum",
  inputs.detect(write("a.csv", "Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name\n1,2,3,4,5,6,k\n")).report)
t.eq("old 2020 API trace header", "cuda_api_trace", inputs.detect(write("b.csv",
  "Start Time (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n")).report)
t.eq("folded", "folded", inputs.detect(write("c.txt", "a;b;c 10\na;d 3\n")).type)
t.eq("folded with metadata only", "folded", inputs.detect(write("d.txt", "# {\"x\":1}\n")).type)
t.eq(".nsys-rep by name", "nsys-rep", inputs.detect(write("e.nsys-rep", "binary")).type)
local e = t.raises("unknown text is bad input", function() inputs.detect(write("f.txt", "hello world\n")) end,
  "unrecognised input")
t.eq("unknown: exit 6", 6, e and e.code)
t.raises("binary junk is bad input", function() inputs.detect(write("g.bin", "\0\1\2")) end, "binary")
t.eq("empty file: exit 5", 5, select(2, pcall(inputs.detect, write("h.csv", ""))).code)
t.raises("missing file", function() inputs.detect(tmp .. "/nope") end, "no such file")

-- the loader registry: a new kind is one more loader
inputs.register({ kind = "demo", accepts = function(info) return info.type == "folded" end,
  load = function(path) return "loaded " .. path end })
local model, kind = inputs.load_for(tmp .. "/c.txt", { "nothing", "demo" }, nil, { policy = function() return {} end })
t.eq("registered loader used", "loaded " .. tmp .. "/c.txt", model)
t.eq("registered kind returned", "demo", kind)
if exists(F .. "/gprofiler/GPU_TRACE_CSV.csv") then
  t.raises("no loader for the kind", function()
    inputs.load_for(F .. "/gprofiler/GPU_TRACE_CSV.csv", { "demo" }, nil, { policy = function() return {} end })
  end, "a cuda_gpu_trace CSV cannot be used here (needs: demo)")
end
return t.done()
