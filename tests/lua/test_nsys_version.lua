-- nsys --version parsing over every format in docs/spec/NSYS.md §2.1, and report names by version.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local nsys = require("gpuflame.nsys")
local D = require("gpuflame.policy").defaults()

local cases = {
  { "NVIDIA Nsight Systems version 2020.5.1.85-5ee086b", "2020.5.1.85", "2020.5" },
  { "NVIDIA Nsight Systems version 2025.1.3", "2025.1.3.0", "2025.1" },
  { "NVIDIA Nsight Systems version 2025.6.3.541-256337736014v0", "2025.6.3.541", "2025.6" },
  { "NVIDIA Nsight Systems version 2026.1.3.425-261338342291v0", "2026.1.3.425", "2026.1" },
  { "NVIDIA Nsight Systems version 2026.3.1.157-263138048394v0\n", "2026.3.1.157", "2026.3" },
  { "NVIDIA Nsight Systems version 2025.1.1.0", "2025.1.1.0", "2025.1" },
  { "Some banner\r\nNVIDIA Nsight Systems version 2022.4.2.50\r\n", "2022.4.2.50", "2022.4" },
  { "NVIDIA Nsight Systems version 2025.10", "2025.10.0.0", "2025.10" },
}
for _, c in ipairs(cases) do
  local v = nsys.parse_version(c[1])
  t.eq("parse " .. c[2], c[2], v and v.string)
  t.eq("family " .. c[3], c[3], v and v.family)
end
t.eq("raw line kept without newline", "NVIDIA Nsight Systems version 2026.3.1.157-263138048394v0",
  nsys.parse_version(cases[5][1]).raw)
t.eq("garbage does not parse", nil, nsys.parse_version("hello world"))
t.eq("a year without the word version does not parse", nil, nsys.parse_version("build 2025.1.3"))
t.eq("empty does not parse", nil, nsys.parse_version(""))

local v2022 = nsys.parse_version("NVIDIA Nsight Systems version 2022.1.3.3")
local v2023 = nsys.parse_version("NVIDIA Nsight Systems version 2023.1.1.127")
t.eq("old report name before 2023.1", "gpukernsum", nsys.report_name("cuda_gpu_kern_sum", v2022, D))
t.eq("new report name from 2023.1", "cuda_gpu_kern_sum", nsys.report_name("cuda_gpu_kern_sum", v2023, D))
t.eq("unknown version uses new names", "cuda_api_sum", nsys.report_name("cuda_api_sum", nil, D))
t.eq("canonical of an old name", "cuda_gpu_trace", nsys.canonical_report("gputrace", D))
t.eq("version compare by number", 1, nsys.compare(nsys.parse_version("version 2025.10.1"), nsys.parse_version("version 2025.6.9")))
return t.done()
