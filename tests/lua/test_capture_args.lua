-- capture.build_args / capture.workload_env: the reference command shapes (docs/spec/STUDIO.md §6.2-6.3)
-- and the policy hooks.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local capture = require("gpuflame.capture")
local policy = require("gpuflame.policy")

local P = policy.effective({})
local function argv(o) return table.concat(capture.build_args(P, o), " ") end

t.eq("plain capture", "nsys profile -o /d/capture --force-overwrite=true -t cuda,nvtx -s none python3 train.py",
  argv({ nsys = "nsys", prefix = "/d/capture", workload = { "python3", "train.py" } }))
t.eq("with stacks", "nsys profile -o /d/capture --force-overwrite=true -t cuda,nvtx -s process-tree -b dwarf " ..
  "--cudabacktrace=kernel ./app", argv({ nsys = "nsys", prefix = "/d/capture", workload = { "./app" }, stacks = true }))
t.eq("no workload: duration-bounded sleep, D = max(1, int(duration))",
  "nsys profile -o /d/capture --force-overwrite=true -t cuda,nvtx -s none --duration 7 sleep 7",
  argv({ nsys = "nsys", prefix = "/d/capture", duration = 7.9 }))
t.eq("no workload, tiny duration", "--duration 1 sleep 1",
  argv({ nsys = "nsys", prefix = "/d/c", duration = 0.2 }):match("%-%-duration.*$"))

local P2 = policy.merge(P, { capture = { extra_args = { "--cuda-graph-trace=node" },
  build_args = function(a, info) a[#a + 1] = info.stacks and "S" or "N"; return a end } })
t.eq("extra_args and the build_args hook", "nsys profile -o p --force-overwrite=true -t cuda,nvtx -s none " ..
  "--cuda-graph-trace=node w N", table.concat(capture.build_args(P2, { nsys = "nsys", prefix = "p", workload = { "w" } }), " "))

-- workload environment (§6.2)
local env = capture.workload_env(P, {
  LD_LIBRARY_PATH = "/tmp/_MEIabc123:/usr/lib/x86_64-linux-gnu",
  LD_PRELOAD = "/tmp/_MEIabc123/libx.so", LD_PRELOAD_ORIG = "",
  HOME = "/root",
})
t.eq("_MEI elements dropped", "/usr/lib/x86_64-linux-gnu", env.LD_LIBRARY_PATH)
t.eq("empty _ORIG unsets the variable", nil, env.LD_PRELOAD)
t.eq("_ORIG removed", nil, env.LD_PRELOAD_ORIG)
t.eq("other variables kept", "/root", env.HOME)
env = capture.workload_env(P, { LD_LIBRARY_PATH = "/tmp/_MEIx", LD_LIBRARY_PATH_ORIG = "/opt/cuda/lib64" })
t.eq("non-empty _ORIG restored", "/opt/cuda/lib64", env.LD_LIBRARY_PATH)
env = capture.workload_env(P, { LD_LIBRARY_PATH = "/tmp/_MEIx" })
t.eq("nothing left → unset", nil, env.LD_LIBRARY_PATH)
local P3 = policy.merge(P, { capture = { env = { set = { CUDA_VISIBLE_DEVICES = "0" }, unset = { "SECRET" } },
  workload_env = function(e) e.HOOK = "1"; return e end } })
env = capture.workload_env(P3, { SECRET = "x" })
t.check("policy set/unset and the workload_env hook", env.CUDA_VISIBLE_DEVICES == "0" and env.SECRET == nil and env.HOOK == "1")
return t.done()
