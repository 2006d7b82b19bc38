-- Findings: rules over the Trace model (docs/RULES.md). A rule is rules/<name>.lua on the search path
-- (--lua-path, GPUFLAME_PATH, ~/.config/gpuflame, /etc/gpuflame, then the bundle) returning
--   { name = "...", description = "...", options = { <defaults> }, run = function(model, opts) ... end }
-- where run returns { columns = {...}, rows = {...}, verdict = "one line", severity = "ok"|"info"|"warning" }
-- or { skipped = "why this input cannot be analysed" }. The model wraps the C primitives of
-- core.trace_findings (model:gaps(win, ...), model:copies(win, q), ...): rules never loop over events.
-- Which rules run and their thresholds are policy (findings.rules, findings.options).
-- This module is the registry and the run; the output formats are gpuflame.findings.format, the
-- findings document (written, read, and embedded in pages) gpuflame.findings.document.
local core = require("gpuflame.core")
local document = require("gpuflame.findings.document")
local errors = require("gpuflame.errors")
local resource = require("gpuflame.resource")
local in_steps = require("gpuflame.findings.in_steps")
local log = require("gpuflame.log")
local need = require("gpuflame.policy").need

local M = {}


-- Options every rule accepts (nsys's ExpertSystemsReport options): rows, start, end, nvtx.
M.COMMON = { rows = "integer", start = "integer", ["end"] = "integer", nvtx = "string" }
M.COMMON_DEFAULTS = { rows = 50 }

local function rule_names()
  local out = {}
  for _, n in ipairs(resource.list("rules/")) do
    local name = n:match("^rules/([%w%-_]+)%.lua$")
    if name then out[#out + 1] = name end
  end
  table.sort(out)
  return out
end

function M.names() return rule_names() end

local function validate(r, name, origin)
  local function bad(what) errors.raise(errors.ERROR, "rule %s (%s): %s", name, origin, what) end
  if type(r) ~= "table" then bad("must return a table { name, description, options, run }") end
  if type(r.run) ~= "function" then bad("`run` must be a function(model, opts)") end
  if r.name ~= nil and type(r.name) ~= "string" then bad("`name` must be a string") end
  if r.options ~= nil and type(r.options) ~= "table" then bad("`options` must be a table of defaults") end
  if r.option_types ~= nil and type(r.option_types) ~= "table" then bad("`option_types` must be a table") end
  if r.prefetch ~= nil and type(r.prefetch) ~= "function" then bad("`prefetch` must be a function(model, opts)") end
  if r.scratch_gate ~= nil and type(r.scratch_gate) ~= "boolean" then bad("`scratch_gate` must be a boolean") end
  r.name = r.name or name
  r.description = type(r.description) == "string" and r.description or ""
  r.options = r.options or {}
  return r
end

-- load(name) → rule (validated; .origin says where it came from). Raises USAGE when there is no such rule.
function M.load(name)
  if type(name) ~= "string" or not name:match("^[%w%-_]+$") then
    errors.raise(errors.USAGE, "invalid rule name %q", tostring(name))
  end
  local path = "rules/" .. name .. ".lua"
  if not resource.find(path) then
    errors.raise(errors.USAGE, "no rule '%s' (available: %s)", name, table.concat(rule_names(), ", "))
  end
  local fn, origin = resource.load(path)
  local ok, r = errors.try(fn)
  if not ok then errors.raise(errors.ERROR, "rule %s (%s) failed to load: %s", name, origin, r.msg) end
  r = validate(r, name, origin)
  r.origin = origin
  return r
end

-- list() → { {name, description, origin, broken = msg?}, ... } (a broken rule is listed, not fatal)
function M.list()
  local out = {}
  for _, name in ipairs(rule_names()) do
    local ok, r = errors.try(M.load, name)
    if ok then
      out[#out + 1] = { name = name, description = r.description, origin = r.origin }
    else
      out[#out + 1] = { name = name, description = "", broken = r.msg }
    end
  end
  return out
end

-- parse_specs({"gpu-starv:gap=100,cuda-sync-api", ...}) → { {name=, args={k=v}, text=}, ... }
-- (nsys analyze's -r syntax: name[:key=value...][,name[:key=value...]...], -r repeatable)
function M.parse_specs(list)
  local out = {}
  for _, arg in ipairs(list or {}) do
    for item in arg:gmatch("[^,]+") do
      local parts = {}
      for p in (item .. ":"):gmatch("([^:]*):") do parts[#parts + 1] = p end
      local name = parts[1]
      if name == "" then errors.raise(errors.USAGE, "-r %s: empty rule name", arg) end
      local args, order = {}, {}
      for i = 2, #parts do
        local k, v = parts[i]:match("^([%w_]+)=(.*)$")
        if not k then
          errors.raise(errors.USAGE, "-r %s: '%s' is not key=value (rule options: %s:key=value[:key=value...])",
            item, parts[i], name)
        end
        args[k] = v
        order[#order + 1] = k
      end
      out[#out + 1] = { name = name, args = args, order = order, text = item }
    end
  end
  return out
end

local function type_of(rule, key)
  if rule.option_types and rule.option_types[key] then return rule.option_types[key] end
  if M.COMMON[key] then return M.COMMON[key] end
  local d = rule.options[key]
  if d == nil then return nil end
  if math.type(d) == "integer" then return "integer" end
  if type(d) == "number" then return "number" end
  if type(d) == "boolean" then return "boolean" end
  if type(d) == "string" then return "string" end
  if type(d) == "table" then return "list" end
  return nil
end

local function convert(rule, key, v, from)
  local ty = type_of(rule, key)
  if not ty then
    local known = {}
    for k in pairs(M.COMMON) do known[#known + 1] = k end
    for k in pairs(rule.options) do if not M.COMMON[k] then known[#known + 1] = k end end
    table.sort(known)
    errors.raise(errors.USAGE, "rule %s: unknown option '%s' (%s; options: %s)", rule.name, key, from,
      table.concat(known, ", "))
  end
  local function bad(what)
    errors.raise(errors.USAGE, "rule %s: option %s must be %s (got %s, %s)", rule.name, key, what, tostring(v), from)
  end
  if ty == "integer" then
    local n = type(v) == "string" and math.tointeger(tonumber(v)) or math.tointeger(v)
    if not n then bad("an integer") end
    return n
  elseif ty == "number" then
    local n = tonumber(v)
    if not n then bad("a number") end
    return n
  elseif ty == "boolean" then
    if type(v) == "boolean" then return v end
    if v == "true" or v == "1" or v == "yes" then return true end
    if v == "false" or v == "0" or v == "no" then return false end
    bad("true or false")
  elseif ty == "list" then
    if type(v) == "table" then return v end
    local out = {}
    for x in tostring(v):gmatch("[^;]+") do out[#out + 1] = x end
    return out
  end
  if type(v) ~= "string" then bad("a string") end
  return v
end

-- options(rule, args, policy) → the effective options: the rule's defaults, then the policy's
-- findings.options[<rule>], then the command line's -r rule:key=value.
function M.options(rule, args, pol)
  need(pol, "findings.options")
  local o = {}
  for k, v in pairs(M.COMMON_DEFAULTS) do o[k] = v end
  for k, v in pairs(rule.options) do o[k] = v end
  local po = pol.findings.options[rule.name]
  if po then
    for k, v in pairs(po) do
      if type_of(rule, k) then
        o[k] = convert(rule, k, v, "policy findings.options")
      else -- e.g. a rule on the search path that replaces a bundled one and has other options
        log.warn("policy findings.options[%q].%s: rule %s (%s) has no such option; ignored",
          rule.name, k, rule.name, rule.origin or "?")
      end
    end
  end
  for k, v in pairs(args or {}) do o[k] = convert(rule, k, v, "-r " .. rule.name .. ":" .. k .. "=" .. v) end
  return o
end

-- The model a rule receives: model.trace (core.trace), model.source (the file name nsys would name),
-- model.policy (the effective policy: gpu_time.communication for gpuflame.gpu_time),
-- model.tables (which tables the export has), and every core.trace_findings primitive as a method.
-- With beside (nothing else reads the trace beside the rules: the findings command), a rule's prefetch hook
-- asks for work on a second thread: model:prefetch_gaps(win, min_gap_ns, limit) and
-- model:prefetch_launches(win, min_kernels); M.start_prefetch starts it all (core.trace_findings.prefetch),
-- and model:gaps / model:launches with the same arguments take the results. Without beside the asks do nothing.
local function win_key(win)
  if not win then return "all" end
  return string.format("%s/%s/%s/%s", tostring(win.start), tostring(win["end"]), tostring(win.pid), tostring(win.tid))
end

local function ask(model, key, work)
  if not model.beside or model.asked[key] then return end
  model.works[#model.works + 1] = work
  model.asked[key] = #model.works
end

-- the asked work's result, once (a second call with the same arguments computes it here)
local function taken(model, key)
  local i = model.asked[key]
  if not (i and model.job) then return nil end
  model.asked[key] = nil
  return i
end

local model_methods = {
  window = function(model, opts) return M.window(model, opts) end,
  prefetch_gaps = function(model, win, min_gap, limit)
    ask(model, string.format("gaps/%s/%d/%d", win_key(win), min_gap, limit or -1),
      { kind = "gaps", win = win, min_gap = min_gap, limit = limit })
  end,
  prefetch_launches = function(model, win, min_kernels)
    ask(model, string.format("launches/%s/%d", win_key(win), min_kernels or 1),
      { kind = "launches", win = win, min_kernels = min_kernels })
  end,
  gaps = function(model, win, min_gap, limit)
    local i = taken(model, string.format("gaps/%s/%d/%d", win_key(win), min_gap, limit or -1))
    if i then return model.job:gaps(i) end
    return core.trace_findings.gaps(model.trace, win, min_gap, limit)
  end,
  launches = function(model, win, min_kernels, limit)
    local i = taken(model, string.format("launches/%s/%d", win_key(win), min_kernels or 1))
    if i then return model.job:launches(i, limit) end
    return core.trace_findings.launches(model.trace, win, min_kernels, limit)
  end,
}

-- start_prefetch(model): the work the prefetch hooks asked for, on a second thread (policy limits.threads >= 2)
function M.start_prefetch(model)
  if #model.works == 0 then return end
  model.job = core.trace_findings.prefetch(model.trace, model.works, model.policy.limits.threads)
  if model.job then log.debug("%d piece(s) of the rules' work on a second thread beside the other rules", #model.works) end
end

function M.model(tr, source, beside, pol)
  local m = { trace = tr, source = source, policy = need(pol, "findings.model"),
    tables = core.trace_findings.tables(tr), beside = beside or false, works = {}, asked = {} }
  if not m.tables.known then
    -- trace CSVs: no tables to probe; a kind of event counts as its table
    local c = tr:totals()
    m.tables = { known = false, runtime = c.cuda_api > 0, kernel = c.kernel > 0, memcpy = c.memcpy > 0,
      memset = c.memset > 0, nvtx = c.nvtx > 0 }
  end
  return setmetatable(m, { __index = function(_, k)
    if model_methods[k] then return model_methods[k] end
    local f = core.trace_findings[k]
    if type(f) == "function" then return function(self, ...) return f(self.trace, ...) end end
    return nil
  end })
end

-- window(model, opts) → win (nil: no filter) | nil, message. nsys's start=/end=/nvtx= filter
-- (nsysstats.py filter_time_range): the NVTX range gives the times not given explicitly, and limits rows
-- to its thread (push/pop range: pid ~= tid) or its process.
function M.window(model, opts)
  if opts.start == nil and opts["end"] == nil and opts.nvtx == nil then return nil end
  local s, e, pid, tid
  if opts.nvtx ~= nil then
    local ns, ne, p, t = core.trace_findings.nvtx_range(model.trace, opts.nvtx)
    if not ns then return nil, string.format("NVTX range '%s' could not be found.", opts.nvtx) end
    s = opts.start or ns
    e = opts["end"] or ne
    pid = p
    tid = p ~= t and t or -1
  else
    s = opts.start or 0
    e = opts["end"] or math.maxinteger
  end
  if s > e then return nil, "The start time cannot be greater than the end time." end
  return { start = s, ["end"] = e, pid = pid, tid = tid }
end

local function check_result(r)
  if type(r) ~= "table" then return "run must return a table (got " .. type(r) .. ")" end
  if r.skipped ~= nil then
    if type(r.skipped) ~= "string" then return "skipped must be a string" end
    return nil
  end
  if type(r.columns) ~= "table" then return "the result needs columns = {...}" end
  if type(r.rows) ~= "table" then return "the result needs rows = {...}" end
  for i, c in ipairs(r.columns) do
    if type(c) ~= "string" and not (type(c) == "table" and type(c.name) == "string") then
      return "columns[" .. i .. "] must be a name or {name=, format=}"
    end
  end
  for i, row in ipairs(r.rows) do
    if type(row) ~= "table" then return "rows[" .. i .. "] must be a list of values" end
  end
  if r.verdict ~= nil and type(r.verdict) ~= "string" then return "verdict must be a string" end
  if r.stake_ns ~= nil and (math.type(r.stake_ns) ~= "integer" or r.stake_ns < 0) then
    return "stake_ns must be a non-negative integer (ns)"
  end
  return nil
end

-- run_rule(rule, model, opts, budget) → result (budget: seconds, policy findings.rule_budget); never raises
-- (but for an interrupt): a failing rule gives { error = "message" }.
function M.run_rule(rule, model, opts, budget)
  local t0 = os.clock()
  if type(budget) ~= "number" then
    errors.raise(errors.ERROR, "findings.run_rule: internal error: no budget (pass the policy's " ..
      "findings.rule_budget)")
  end
  local res = table.pack(core.host.with_budget(budget, rule.run, model, opts))
  local out
  if not res[1] then
    local e = errors.wrap(res[2])
    if e.code == errors.INTERRUPTED then error(e, 0) end
    out = { error = e.msg }
  else
    local r = res[2]
    local why = check_result(r)
    if why then
      out = { error = why }
    else
      out = r
    end
  end
  out.name = rule.name
  out.description = rule.description
  out.origin = rule.origin
  out.options = opts
  out.seconds = os.clock() - t0
  log.debug("rule %s: %.3f s CPU", rule.name, out.seconds)
  if not out.error and not out.skipped then
    out.verdict = (out.verdict or string.format("%d row(s)", #out.rows)):gsub("%c", " ") -- one line
    out.severity = out.severity or (#out.rows > 0 and "warning" or "ok")
  end
  return out
end

-- The rules to run: the -r specs, else the policy's findings.rules (every rule when that is empty).
function M.select(specs, pol)
  need(pol, "findings.select")
  local sel = {}
  if specs and #specs > 0 then
    for _, s in ipairs(specs) do sel[#sel + 1] = s end
    return sel
  end
  local names = pol.findings.rules
  if not names or #names == 0 then names = rule_names() end
  for _, n in ipairs(names) do sel[#sel + 1] = { name = n, args = {}, order = {}, text = n } end
  return sel
end

-- analyze(tr, source, specs, plan|nil, pol) → results (one per selected rule, in order). Rules and their options
-- are checked before any runs (a usage error names the rule and the option).
-- plan(specs, pol) → { {rule=, opts=, text=} | {name=, error=, text=} }: a rule that does not load
-- (a syntax error, a bad table) is kept as an error result so the others still run; an unknown rule
-- name or option is a usage error (exit 2) before anything runs.
function M.plan(specs, pol)
  local plan = {}
  for _, s in ipairs(M.select(specs, pol)) do
    local ok, rule = errors.try(M.load, s.name)
    if ok then
      plan[#plan + 1] = { rule = rule, opts = M.options(rule, s.args, pol), text = s.text }
    elseif rule.code == errors.USAGE or rule.code == errors.INTERRUPTED then
      error(rule, 0)
    else
      plan[#plan + 1] = { name = s.name, error = rule.msg, text = s.text }
    end
  end
  return plan
end

-- With beside (nothing else reads the trace meanwhile), the rules with a prefetch(model, opts) hook start their
-- work on a second thread first, and run after the others, which run beside that work; results stay in plan
-- order (the rules are independent of each other).
function M.analyze(tr, source, specs, plan, beside, pol)
  need(pol, "findings.analyze")
  plan = plan or M.plan(specs, pol)
  local model = M.model(tr, source, beside, pol)
  local budget = need(pol, "findings.analyze").findings.rule_budget
  local results, later = {}, {}
  local function run(i, p)
    local r
    if p.error then
      r = { name = p.name, description = "", error = p.error, options = {} }
    else
      r = M.run_rule(p.rule, model, p.opts, budget)
    end
    r.spec = p.text
    results[i] = r
  end
  for i, p in ipairs(plan) do
    if beside and not p.error and p.rule.prefetch then
      local ok, err = pcall(p.rule.prefetch, model, p.opts)
      if ok then
        later[#later + 1] = i
      else -- the rule still runs, in order, and meets the problem itself
        if errors.wrap(err).code == errors.INTERRUPTED then error(err, 0) end
        log.debug("rule %s: prefetch: %s", p.rule.name, errors.wrap(err).msg)
      end
    end
  end
  M.start_prefetch(model)
  local ok, err = pcall(function()
    local deferred = {}
    for _, i in ipairs(later) do deferred[i] = true end
    local gated = {}
    if not beside then
      -- Rules that hold the scratch gate (mem.h) last: on a page the NVTX projection's thread holds it from its
      -- start for its sweep (~0.6 s on the 368 MB export), and the other rules run meanwhile instead of waiting.
      for i, p in ipairs(plan) do
        if not p.error and p.rule.scratch_gate then deferred[i] = true; gated[#gated + 1] = i end
      end
    end
    for i, p in ipairs(plan) do
      if not deferred[i] then run(i, p) end
    end
    for _, i in ipairs(gated) do run(i, plan[i]) end
    for _, i in ipairs(later) do run(i, plan[i]) end
  end)
  if model.job then -- joined (and what no rule took freed) before the trace moves on
    model.job:close()
    model.job = nil
  end
  if not ok then error(err, 0) end
  in_steps.annotate(tr, results, pol) -- the steps the rows fall in
  return results
end

-- ---- capture ---------------------------------------------------------------------------------------

local SEVERITY_RANK = { warning = 1, info = 2, ok = 3 }

-- top(results, n) → the n findings worth printing: warnings first, then infos; within each the most time at
-- stake first (a result's stake_ns, docs/RULES.md: 21 tiny pageable copies of 54.5 µs came before a launch-bound
-- GPU idle 96.8 % of 9.4 s, in rule order), then rule order
function M.top(results, n)
  local list = {}
  for i, r in ipairs(results) do
    if not r.error and not r.skipped and r.severity ~= "ok" then list[#list + 1] = { i = i, r = r } end
  end
  table.sort(list, function(a, b)
    local x, y = SEVERITY_RANK[a.r.severity] or 2, SEVERITY_RANK[b.r.severity] or 2
    if x ~= y then return x < y end
    local sa, sb = a.r.stake_ns or -1, b.r.stake_ns or -1
    if sa ~= sb then return sa > sb end
    return a.i < b.i
  end)
  local out = {}
  for k = 1, math.min(n, #list) do out[k] = list[k].r end
  return out
end

-- the export's file name as nsys names it in its messages (an .nsys-rep's export is <base>.sqlite)
function M.source_name(input)
  local base = input:match("([^/]+)$") or input
  if base:match("%.sqlite$") then return base end
  local stem = base:match("^(.*)%.[^.]+$")
  return (stem or base) .. ".sqlite"
end

-- page(tr, input, pol) → results, document: the policy's rules (findings.rules, findings.options, as
-- `gpuflame findings` runs them without -r) over a whole trace, for a page. Never raises but for an
-- interrupt: a rule that fails is one "error" entry (and a warning), a policy that names no such rule
-- gives a document with a note and no findings.
function M.page(tr, input, pol)
  need(pol, "findings.page")
  local ok, results = errors.try(M.analyze, tr, input, nil, nil, false, pol)
  if not ok then
    if results.code == errors.INTERRUPTED then error(results, 0) end
    log.warn("findings for the page: %s", results.msg)
    return nil, { input = input, findings = core.json.array({}), note = "findings could not run: " .. results.msg }
  end
  for _, r in ipairs(results) do
    if r.error then log.warn("findings for the page: rule %s failed: %s", r.name, r.error) end
  end
  return results, document.page_data(results, input)
end

return M
