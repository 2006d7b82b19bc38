-- Fleet building blocks without a network: the shlex splitter against Python's shlex (the
-- reference splits nsys_workload with it), the Studio profile header, tags from policy, backoff
-- bounds, the spool (atomic items, oldest first, cap policies, no token) and the perf folding of a
-- `perf script` text. The allow-lists: test_fleet_allow.lua.
local top = os.getenv("GF_TOP") or "."
local t = dofile(top .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local shlex = require("gpuflame.fleet.shlex")
local studio = require("gpuflame.fleet.studio")
local deliver = require("gpuflame.fleet.deliver")
local spool = require("gpuflame.fleet.spool")
local policy = require("gpuflame.policy")
local tmp = t.tmp()

-- shlex: compare with Python's shlex.split on the same strings (python3 is the reference here)
local cases = {
  "/opt/app/cuda_burn 30", "  a   b ", 'a"b c"d', "x 'y z' \"q\\\"r\" \\ s", '"a\\$b\\\\c\\d"', "''", 'a""b',
  "it's", 'a "b', "trail\\", "python -c 'print(1)' --flag=\"x y\"", "tab\there", "a\\\nb", '"\\"\'"',
  "torchrun --nproc_per_node=8 train.py --cfg 'a b.yaml'", "", "   ", "é 'ü x'", "a\\ b c",
}
core.fs.write_atomic(tmp .. "/shlex_cases.json", core.json.encode(cases))
local py = core.proc.run({ argv = { "python3", "-c", [[
import json, shlex, sys
out = []
for c in json.load(open(sys.argv[1])):
    try: out.append(shlex.split(c))
    except ValueError as e: out.append(str(e))
print(json.dumps(out))]], tmp .. "/shlex_cases.json" } })
if not py.ok then
  t.skip("shlex matches python shlex.split", "python3 not available: " .. py.stderr)
else
  local expected = core.json.decode(py.stdout)
  for i, c in ipairs(cases) do
    local got, err = shlex.split(c)
    local want = expected[i]
    local same
    if type(want) == "string" then
      same = got == nil and err == want
    else
      same = got ~= nil and #got == #want
      for k = 1, #want do same = same and got[k] == want[k] end
    end
    t.check(string.format("shlex.split(%q) matches python", c), same,
      "got " .. (got and core.json.encode(got) or ("error " .. tostring(err))) .. ", python " .. core.json.encode(want))
  end
end
local words = { "a b", "it's", "", "$HOME", "x" }
local back = shlex.split(shlex.join(words))
t.check("shlex.join round-trips", back and #back == 5 and back[1] == "a b" and back[2] == "it's" and back[3] == "" and back[4] == "$HOME")

-- Studio header and profile text (docs/spec/STUDIO.md §2.2)
local html = '<!DOCTYPE html><p>"</script>"</p>'
local up = require("gpuflame.policy").effective({}).upload
local h = studio.header({ hostname = "gpu-1", service = "svc", tags = { "nsys-cuda", "nsys-timeline" }, html = html,
  api_version = up.api_version, perf_mode = up.perf_mode })
local text = studio.profile_text(h, "# old header\na;b 3\n\nc;d 4\n")
local first, rest = text:match("^([^\n]*)\n(.*)$")
t.check("profile line 1 is '# ' + JSON", first:sub(1, 2) == "# ")
local hj = core.json.decode(first:sub(3))
t.eq("perf_events are the tags comma-joined", "nsys-cuda,nsys-timeline", hj.metadata.run_arguments.perf_events)
t.eq("perf_mode is none (not disabled)", "none", hj.metadata.run_arguments.perf_mode)
t.eq("flamegraph_html is the page as a plain string", html, hj.flamegraph_html)
t.eq("service_name in run_arguments", "svc", hj.metadata.run_arguments.service_name)
t.eq("profile_api_version v2", "v2", hj.metadata.run_arguments.profile_api_version)
t.eq("application_metadata is [null]", 1, #hj.application_metadata)
t.eq("stack lines follow; old # header and blanks dropped", "a;b 3\nc;d 4", rest)
local keys = {}
for k in pairs(hj.metadata.run_arguments) do keys[#keys + 1] = k end
table.sort(keys)
t.eq("run_arguments carries only what the server reads (no token)",
  "continuous,perf_events,perf_mode,profile_api_version,service_name", table.concat(keys, ","))
t.check("the header line has no raw newline", not first:find("\n", 1, true))

-- tags from policy (§4.2) and a fleet's tags function
local p = policy.effective({})
local function tags(ctx) return table.concat(deliver.tags(ctx, p), ",") end
t.eq("flamegraph upload: nsys-cuda", "nsys-cuda", tags({ gpu = true }))
t.eq("timeline: nsys-cuda,nsys-timeline", "nsys-cuda,nsys-timeline", tags({ gpu = true, timeline = true }))
t.eq("timeline + stacks", "nsys-cuda,nsys-timeline,nsys-stacks", tags({ gpu = true, timeline = true, stacks = true }))
t.eq("no GPU capture: no nsys tags", "", tags({ gpu = false, perf = true }))
core.fs.write_atomic(tmp .. "/fleet_tags.lua", [[
return { extends = "default", upload = { tag_names = { perf = "perf-cpu" } },
  tags = function(ctx, tags) tags[#tags + 1] = "fleet-a100"; tags[#tags + 1] = "bad,tag"; return tags end }]])
p = policy.effective({ tmp .. "/fleet_tags.lua" })
t.eq("fleet tags function adds tags; commas inside a tag are replaced",
  "nsys-cuda,perf-cpu,fleet-a100,bad_tag", tags({ gpu = true, perf = true }))
core.fs.write_atomic(tmp .. "/fleet_loop.lua", [[
return { extends = "default", limits = { function_budget = 0.5 }, tags = function() while true do end end }]])
p = policy.effective({ tmp .. "/fleet_loop.lua" })
t.raises("a runaway tags function is stopped by the time budget", function() tags({ gpu = true }) end, "time budget")
p = policy.effective({})

-- backoff: min(cap, base*2^(n-1)) minus up to jitter
local r = { count = 4, base = 1, cap = 30, jitter = 0.5 }
local okb = true
for n = 1, 8 do
  local full = math.min(30, 2 ^ (n - 1))
  for _ = 1, 50 do
    local d = deliver.backoff(r, n)
    if d > full + 1e-9 or d < full * 0.5 - 1e-9 then okb = false end
  end
end
t.check("backoff stays within [0.5, 1] × min(cap, base·2^(n-1))", okb)
t.eq("no jitter: exact exponential", 8, deliver.backoff({ base = 1, cap = 30, jitter = 0 }, 4))
t.eq("no jitter: capped", 30, deliver.backoff({ base = 1, cap = 30, jitter = 0 }, 10))
t.check("retryable: 503, 429, 408, transport", deliver.retryable({ ok = false, kind = "http", status = 503 }, p)
  and deliver.retryable({ ok = false, kind = "http", status = 429 }, p)
  and deliver.retryable({ ok = false, kind = "http", status = 408 }, p)
  and deliver.retryable({ ok = false, kind = "connect", status = 0 }, p))
t.check("not retryable: 400, 413, interrupted", not deliver.retryable({ ok = false, kind = "http", status = 400 }, p)
  and not deliver.retryable({ ok = false, kind = "http", status = 413 }, p)
  and not deliver.retryable({ ok = false, kind = "interrupted", status = 0 }, p))

-- spool
local sd = tmp .. "/spool"
local bodies = {}
for i = 1, 5 do
  bodies[i] = core.http.gzip(string.rep("body" .. i, 100 * i))
  spool.put(sd, { sink = "studio", label = "item" .. i, server = "http://x" }, bodies[i])
end
local items = spool.list(sd)
t.eq("five items spooled", 5, #items)
local m1, b1 = spool.read(items[1].path)
t.eq("oldest first", "item1", m1.label)
t.eq("body bytes kept exactly", bodies[1], b1)
t.eq("metadata records the body size", #bodies[1], m1.body_bytes)
local st = core.fs.stat(sd)
t.eq("spool directory is 0700", 448, st.mode)
local tmpfiles = 0
for _, n in ipairs(core.fs.listdir(sd)) do if n:match("^%.") then tmpfiles = tmpfiles + 1 end end
t.eq("no temporary files left behind", 0, tmpfiles)
local dropped = spool.enforce(sd, { max_items = 3, on_full = "drop_oldest" })
t.eq("cap 3, drop_oldest: two dropped", 2, #dropped)
items = spool.list(sd)
t.eq("the newest are kept", "item3", (spool.read(items[1].path)).label)
dropped = spool.enforce(sd, { max_items = 2, on_full = "drop_newest" })
items = spool.list(sd)
t.eq("drop_newest keeps the oldest", "item3", (spool.read(items[1].path)).label)
t.eq("drop_newest dropped one", 1, #dropped)
local total = 0
for _, it in ipairs(spool.list(sd)) do total = total + it.size end
spool.enforce(sd, { max_bytes = total - 1 })
t.eq("byte cap drops until under the cap", 1, #spool.list(sd))
core.fs.write_atomic(sd .. "/000000000000001-000001-1-0001.item", '{"body_bytes": 99}\nshort')
t.raises("a truncated item is detected", function() spool.read(sd .. "/000000000000001-000001-1-0001.item") end, "truncated")

-- perf folding (tests/fake/perf prints a hand-written `perf script` text)
local perf = dofile(top .. "/lua/backends/perf.lua")
local out = core.proc.run({ argv = { top .. "/tests/fake/perf", "script", "-i", "x" } })
core.fs.write_atomic(tmp .. "/perf.script", out.stdout)
local stacks = perf.fold(tmp .. "/perf.script")
local folded, n = stacks:write_folded(nil, { meta = false }), stacks:count()
t.eq("perf script folds into 3 unique stacks", 3, n)
t.eq("perf folded text", table.concat({
  "python3;__libc_start_main;main;launch_burn;cudaLaunchKernel 2",
  "swapper;secondary_startup_64_no_verify_[k];default_idle_[k];native_safe_halt_[k] 1",
  "kworker/0:1;[unknown];worker_thread_[k] 1", "" }, "\n"), folded)
return t.done()
