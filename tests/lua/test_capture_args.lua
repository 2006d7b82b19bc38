-- nsys_args.profile / launch / start / workload_env: the reference command shapes (docs/spec/STUDIO.md §6.2-6.3)
-- and the policy hooks.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local nsys_args = require("gpuflame.nsys_args")
local policy = require("gpuflame.policy")

local P = policy.effective({})
local function argv(o) return table.concat(nsys_args.profile(o, P), " ") end

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
  "--cuda-graph-trace=node w N", table.concat(nsys_args.profile({ nsys = "nsys", prefix = "p", workload = { "w" } }, P2), " "))

-- workload environment (§6.2)
local env = nsys_args.workload_env({
  LD_LIBRARY_PATH = "/tmp/_MEIabc123:/usr/lib/x86_64-linux-gnu",
  LD_PRELOAD = "/tmp/_MEIabc123/libx.so", LD_PRELOAD_ORIG = "",
  HOME = "/root",
}, P)
t.eq("_MEI elements dropped", "/usr/lib/x86_64-linux-gnu", env.LD_LIBRARY_PATH)
t.eq("empty _ORIG unsets the variable", nil, env.LD_PRELOAD)
t.eq("_ORIG removed", nil, env.LD_PRELOAD_ORIG)
t.eq("other variables kept", "/root", env.HOME)
env = nsys_args.workload_env({ LD_LIBRARY_PATH = "/tmp/_MEIx", LD_LIBRARY_PATH_ORIG = "/opt/cuda/lib64" }, P)
t.eq("non-empty _ORIG restored", "/opt/cuda/lib64", env.LD_LIBRARY_PATH)
env = nsys_args.workload_env({ LD_LIBRARY_PATH = "/tmp/_MEIx" }, P)
t.eq("nothing left → unset", nil, env.LD_LIBRARY_PATH)
local P3 = policy.merge(P, { capture = { env = { set = { CUDA_VISIBLE_DEVICES = "0" }, unset = { "SECRET" } },
  workload_env = function(e) e.HOOK = "1"; return e end } })
env = nsys_args.workload_env({ SECRET = "x" }, P3)
t.check("policy set/unset and the workload_env hook", env.CUDA_VISIBLE_DEVICES == "0" and env.SECRET == nil and env.HOOK == "1")

-- live sessions (docs/LIVE.md): launch traces, start samples; neither gets profile's output flags
t.eq("launch: the trace flags, collection off, the workload last",
  "nsys launch --session-new=s1 -t cuda,nvtx ./job --epochs 3",
  table.concat(nsys_args.launch({ nsys = "nsys", session = "s1", workload = { "./job", "--epochs", "3" } }, P), " "))
t.eq("launch with stacks: the CUDA backtraces are a launch flag",
  "nsys launch --session-new=s1 -t cuda,nvtx --cudabacktrace=kernel ./job",
  table.concat(nsys_args.launch({ nsys = "nsys", session = "s1", workload = { "./job" }, stacks = true }, P), " "))
t.eq("start: the window's report and the sampling flags",
  "nsys start --session=s1 -o /w/capture --force-overwrite=true -s none",
  table.concat(nsys_args.start({ nsys = "nsys", session = "s1", prefix = "/w/capture" }, P), " "))
local P4 = policy.merge(P, { capture = { cpuctxsw = "none" }, live = { start_args = { "--gpuctxsw=true" },
  launch_args = { "--wait=primary" } } })
t.eq("start: cpuctxsw and live.start_args", "nsys start --session=s1 -o p --force-overwrite=true -s none " ..
  "--cpuctxsw=none --gpuctxsw=true", table.concat(nsys_args.start({ nsys = "nsys", session = "s1", prefix = "p" }, P4), " "))
t.eq("launch: live.launch_args before the workload", "nsys launch --session-new=s1 -t cuda,nvtx --wait=primary w",
  table.concat(nsys_args.launch({ nsys = "nsys", session = "s1", workload = { "w" } }, P4), " "))
return t.done()
