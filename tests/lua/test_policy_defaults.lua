-- The policy is the only source of defaults: every schema field has its default in policies/default.lua
-- (or is a documented optional one) and is documented in docs/POLICY.md; code called without a policy
-- uses the default policy; the C bindings take policy values as required arguments.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local policy = require("gpuflame.policy")
local schema = require("gpuflame.policy_schema")

local top = os.getenv("GF_TOP") or "."
local D = policy.defaults()

-- Fields without a default: functions a fleet may add, TLS files, the perf binary (PATH when unset),
-- column overrides and custom data.
local OPTIONAL = {
  ["capture.build_args"] = true, ["capture.workload_env"] = true,
  ["upload.ca_bundle"] = true, ["upload.client_cert"] = true, ["upload.client_key"] = true,
  ["agent.remote_workloads.decide"] = true, ["agent.remote_sessions.decide"] = true,
  ["backends.perf.path"] = true, tags = true, columns = true, custom = true,
  ["diff.verdict"] = true, ["diff.normalize_name"] = true,
}

local leaves = {}
local function walk(node, path)
  for k, rule in pairs(node) do
    local p = path == "" and k or (path .. "." .. k)
    if type(rule) == "table" and rule.check then leaves[#leaves + 1] = p
    elseif type(rule) == "table" then walk(rule, p) end
  end
end
walk(schema.tree, "")
table.sort(leaves)

local missing, undocumented = {}, {}
local doc = core.fs.read(top .. "/docs/POLICY.md")
for _, p in ipairs(leaves) do
  if not OPTIONAL[p] and policy.get(D, p) == nil then missing[#missing + 1] = p end
  -- documented: some dotted tail of the path appears in backticks (`retry.statuses`, `statuses`, ...)
  local found = false
  local parts = {}
  for part in p:gmatch("[^%.]+") do parts[#parts + 1] = part end
  for i = 1, #parts do
    local tail = table.concat(parts, ".", i)
    local esc = tail:gsub("%p", "%%%0")
    if doc:find("`" .. esc .. "[`%(, ]") or doc:find("[%s`,]" .. esc .. "`") then found = true; break end
  end
  if not found then undocumented[#undocumented + 1] = p end
end
t.check("every schema field (" .. #leaves .. ") has its default in policies/default.lua", #missing == 0,
  "no default: " .. table.concat(missing, ", "))
t.check("every schema field is documented in docs/POLICY.md", #undocumented == 0,
  "undocumented: " .. table.concat(undocumented, ", "))
local okv, verr = schema.validate(D, "default")
t.check("the default policy validates", okv, verr)

-- the knobs that used to be literals in the code
t.eq("outputs.summary", "summary.json", D.outputs.summary)
t.eq("timeline.reports", "cuda_api_trace,cuda_gpu_trace", table.concat(D.timeline.reports, ","))
t.eq("agent.backends", "nsys,perf", table.concat(D.agent.backends, ","))
t.eq("deliver.retry.statuses", "5xx,408,429", table.concat((function()
  local s = {}
  for i, v in ipairs(D.deliver.retry.statuses) do s[i] = tostring(v) end
  return s
end)(), ","))
t.eq("analyze.validated_version", "2025.1", D.analyze.validated_version)

-- no literal fallback beside a policy read: `policy.x or 30` copies default.lua and silently wins when
-- a fleet's policy is malformed; the value comes from the (merged) policy or its defaults()
local LITERAL_FALLBACK = {
  "%f[%w_]policy%.[%w_%.]+%s+or%s+[%d\"'{]", "%f[%w_]pol%.[%w_%.]+%s+or%s+[%d\"'{]",
  "%f[%w_][fd]p%.[%w_%.]+%s+or%s+[%d\"'{]", "pol[%w_]*%b()%.[%w_%.]+%s+or%s+[%d\"'{]",
  "or {}%)%.[%w_]+%s+or%s+[%d\"']",
}
local fallbacks, scanned = {}, 0
local list = io.popen("find '" .. top .. "/lua' -name '*.lua' | sort")
for file in list:lines() do
  scanned = scanned + 1
  local n = 0
  for line in io.lines(file) do
    n = n + 1
    local code = line:gsub("%-%-.*$", "")
    for _, pat in ipairs(LITERAL_FALLBACK) do
      if code:find(pat) then fallbacks[#fallbacks + 1] = file:sub(#top + 2) .. ":" .. n; break end
    end
  end
end
list:close()
t.check("no `policy.x or <literal>` fallbacks in lua/ (" .. scanned .. " files)", scanned > 50 and #fallbacks == 0,
  "fallbacks: " .. table.concat(fallbacks, ", "))

-- library functions take the effective policy: called without one is a programming error, never a
-- silent fall back to the defaults (which would ignore the --policy files)
local fg = require("gpuflame.flamegraph")
t.raises("flamegraph.page_options({}, nil) is an error", function() fg.page_options({}, nil) end,
  "flamegraph.page_options: internal error: called without the effective policy")
t.raises("nsys.canonical_report without a policy is an error", function()
  require("gpuflame.nsys").canonical_report("gputrace")
end, "nsys.canonical_report: internal error")
t.raises("views.timeline.settings(nil, nil) is an error", function() require("gpuflame.views.timeline").settings(nil, nil) end,
  "views.timeline.settings: internal error")
-- the policy is the last parameter (docs/CONVENTIONS.md): left out, with its optional parameters before it
-- given or not, each of these fails naming itself before doing any work
for _, c in ipairs({
  { "flamegraph.load_trace", function() fg.load_trace({ "x.sqlite" }, nil) end },
  { "flamegraph.from_csv", function() fg.from_csv("x.csv", "cuda_gpu_kern_sum", {}) end },
  { "capture.new_state", function() require("gpuflame.capture").new_state(".", { path = "nsys" }) end },
  { "capture.find_nsys", function() require("gpuflame.capture").find_nsys("/no/nsys") end },
  { "stats.write", function() require("gpuflame.stats").write("x.sqlite", { "cuda_gpu_kern_sum" }, {}) end },
  { "exports.get", function() require("gpuflame.exports").get("x.nsys-rep", {}) end },
  { "nsys_args.profile", function() require("gpuflame.nsys_args").profile({ nsys = "nsys", prefix = "p" }) end },
  { "nsys_args.workload_env", function() require("gpuflame.nsys_args").workload_env({}) end },
  { "findings.analyze", function() require("gpuflame.findings").analyze(nil, "x", nil, nil) end },
  { "gpu_time.breakdown", function() require("gpuflame.gpu_time").breakdown(nil, nil, true) end },
  { "columns.spec", function() require("gpuflame.columns").spec("cuda_gpu_kern_sum", "name") end },
  { "sessions.dir", function() require("gpuflame.sessions").get("job-1") end },
  { "trace.load_reports", function() require("gpuflame.trace").load_reports({ "x.sqlite" }, {}, {}, {}, nil) end },
  { "trace.load", function() require("gpuflame.trace").load({ "x.sqlite" }, {}) end },
  { "trace.load", function() require("gpuflame.trace").load({ "x.sqlite" }) end },
  { "trace.rank_stats", function() require("gpuflame.trace").rank_stats({ "x.sqlite" }, { allow_unrelated = true }) end },
  { "trace.rank_stats", function() require("gpuflame.trace").rank_stats({ "x.sqlite" }) end },
  { "trace.export_rep", function() require("gpuflame.trace").export_rep("x.nsys-rep", { nsys = "nsys" }) end },
  { "ranks.load", function() require("gpuflame.ranks").load({ "x.sqlite" }, {}) end },
  { "ranks.rank_stats", function() require("gpuflame.ranks").rank_stats({ "x.sqlite" }, {}) end },
}) do
  t.raises(c[1] .. " without the policy (last) is an error", c[2], c[1] .. ": internal error: called without the " ..
    "effective policy")
end
-- the policy travels as that last parameter only: one in the options table is not read (tests/cli/test_lint.sh
-- keeps `opts.policy` out of lua/)
for _, c in ipairs({
  { "trace.load", function() require("gpuflame.trace").load({ "x.sqlite" }, { policy = D }) end },
  { "trace.rank_stats", function() require("gpuflame.trace").rank_stats({ "x.sqlite" }, { policy = D }) end },
  { "trace.export_rep", function() require("gpuflame.trace").export_rep("x.nsys-rep", { policy = D }) end },
  { "ranks.load", function() require("gpuflame.ranks").load({ "x.sqlite" }, { policy = D }) end },
  { "ranks.rank_stats", function() require("gpuflame.ranks").rank_stats({ "x.sqlite" }, { policy = D }) end },
}) do
  t.raises(c[1] .. " with the policy in its options table (not last) is an error", c[2], c[1] ..
    ": internal error: called without the effective policy")
end
local po = fg.page_options({}, D)
t.check("flamegraph.page_options(defaults): the default policy's page settings", po.title == D.flamegraph.title and
  po.countname == D.flamegraph.countname and po.minwidth == D.flamegraph.minwidth and po.colors == D.flamegraph.colors)
t.eq("flamegraph.prefix of an unlisted report: flamegraph.other_prefix", D.flamegraph.other_prefix,
  fg.prefix("osrt_sum", D))

-- defaults() is a read-only view, at every depth; pairs, ipairs, # and merging still work on it
t.raises("defaults(): a top-level write raises", function() D.custom = 1 end, "read-only")
t.raises("defaults(): a deep write raises", function() D.nsys.report_eras[2].names.x = "y" end, "read-only")
t.raises("defaults(): a list append raises", function() table.insert(D.timeline.reports, "x") end, "read-only")
t.eq("defaults(): # of a list", 2, #D.timeline.reports)
local nkeys = 0
for _, v in pairs(D.outputs) do nkeys = nkeys + (type(v) == "string" and 1 or 0) end
t.check("defaults(): pairs over a section", nkeys >= 10, tostring(nkeys))
local copy = policy.merge(D, {})
copy.outputs.summary = "x.json"
copy.nsys.report_eras[1].names.cuda_gpu_kern_sum = "k"
t.check("defaults(): a merged copy is a plain writable table, the view unchanged",
  D.outputs.summary == "summary.json" and D.nsys.report_eras[1].names.cuda_gpu_kern_sum == nil
  and copy.nsys.report_eras[1].names.cuda_gpu_kern_sum == "k" and getmetatable(copy.outputs) == nil)
t.check("defaults(): a merged copy validates", (schema.validate(policy.merge(D, {}), "copy")))
local s2 = require("gpuflame.views.timeline").settings(nil, policy.merge(D, { timeline = { keep_partners = false } }))
t.eq("timeline.settings: keep_partners = false is kept (not turned into nil)", false, s2.keep_partners)

-- retried statuses come from the policy
local deliver = require("gpuflame.fleet.deliver")
local p503 = policy.merge(D, { deliver = { retry = { statuses = { 503 } } } })
t.check("retry.statuses = {503}: 503 retried, 500 and 429 not",
  deliver.retryable({ ok = false, kind = "http", status = 503 }, p503)
  and not deliver.retryable({ ok = false, kind = "http", status = 500 }, p503)
  and not deliver.retryable({ ok = false, kind = "http", status = 429 }, p503))
t.check("transport failures are retried whatever the statuses",
  deliver.retryable({ ok = false, kind = "connect", status = 0 }, p503))
local bad = policy.merge(D, { deliver = { retry = { statuses = { "5x" } } } })
local okb, berr = schema.validate(bad, "x")
t.check("retry.statuses entries are checked", not okb and berr:find("deliver.retry.statuses", 1, true), berr)

-- C bindings: values that are decisions are required, never defaulted in C
local st = core.stacks.new()
t.raises("stacks:add_total needs unit_ns", function() st:add_total("p", "k", 5000) end, "number expected")
st:add_total("p", "k", 5000, 1000)
t.eq("stacks:add_total with the policy's unit", 5, st:total())
t.raises("nvtx.analyze needs validated_version", function()
  core.nvtx.analyze({ manifest_file = "m", host_csv = "h", gpu_csv = "g", manifest_path = "m", trace_path = "t",
    host_report = "h", gpu_report = "g" })
end, "validated_version")

return t.done()
