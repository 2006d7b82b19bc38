-- Input loader: "side" (one side of `gpuflame diff`, docs/DIFF.md): a capture directory, an SQLite export,
-- an .nsys-rep, a model file (gpuflame import: as its report), a kernel/API summary CSV or folded stacks,
-- imported once into a collapse table plus what the input says about its capture. SQLite exports, reports
-- and model files give the hierarchical GPU stacks
-- (gpuflame.flamegraph, policy flamegraph.levels) and their leaves (kernels, copies, memsets) with
-- instances; stats CSVs the flat kernel totals. Also: whether a path is an NVTX analysis (analysis.json).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local need = require("gpuflame.policy").need
local columns = require("gpuflame.columns")
local diff_work = require("gpuflame.diff_work")
local fg = require("gpuflame.flamegraph")
local inputs = require("gpuflame.inputs")
local model = require("gpuflame.model")
local nsys = require("gpuflame.nsys")
local process_key = require("gpuflame.process_key")
local sidecar = require("gpuflame.sidecar")
local steps = require("gpuflame.steps")
local diff_loop = require("gpuflame.diff_loop")

local M = { kind = "side" }

M.KERNEL_PREFIX = "gpu;nsys;cuda_kernel"
M.API_PREFIX = "gpu;nsys;cuda_api"

local function join(dir, name) return (dir:sub(-1) == "/" and dir or dir .. "/") .. name end

-- analysis(path, policy) → the analysis.json path when path is an NVTX analysis (the file, or a run
-- directory holding one, named by outputs.analysis), else nil.
function M.analysis(path, policy)
  need(policy, "diff.analysis")
  local st = core.fs.stat(path)
  if not st then return nil end
  local file = path
  if st.type == "directory" then
    file = join(path, policy.outputs.analysis)
    if not core.fs.stat(file) then return nil end
  elseif not path:match("%.json$") then
    return nil
  end
  local ok, text = pcall(core.fs.read, file)
  if not ok then return nil end
  local okj, a = pcall(core.json.decode, text, file)
  if okj and type(a) == "table" and a.schema_version ~= nil and type(a.run) == "table" then return file end
  return nil
end

-- A capture directory → the file to read: the SQLite export, else the report (exported through nsys),
-- else the kernel-summary CSV, else the folded stacks. summary.json's artifacts first, then by name.
local function pick_from_dir(dir)
  local names = core.fs.listdir(dir)
  if not names then errors.raise(errors.INPUT, "%s: cannot list this directory", dir) end
  table.sort(names)
  local arts = {}
  local sp = join(dir, "summary.json")
  if core.fs.stat(sp) then
    local ok, s = pcall(function() return core.json.decode(core.fs.read(sp), sp) end)
    if ok and type(s) == "table" and type(s.artifacts) == "table" then arts = s.artifacts end
  end
  local function exists(p) local st = p and core.fs.stat(p); return st and st.type == "file" and p or nil end
  local function rel(p)
    if type(p) ~= "string" then return nil end
    if p:sub(1, 1) == "/" then return exists(p) end
    return exists(p) or exists(join(dir, p:match("[^/]+$") or p))
  end
  local function by_suffix(...)
    for _, suf in ipairs({ ... }) do
      for _, n in ipairs(names) do
        if n:sub(-#suf) == suf and exists(join(dir, n)) then return join(dir, n) end
      end
    end
  end
  local kern_csv
  for _, c in ipairs(type(arts.stats_csv) == "table" and arts.stats_csv or {}) do
    local p = rel(c)
    if p and (p:match("kern") or p:match("gpukernsum")) then kern_csv = kern_csv or p end
  end
  local cands = {
    rel(arts.sqlite), by_suffix(".sqlite"),
    rel(arts.report), by_suffix(".nsys-rep", ".qdrep"),
    kern_csv, by_suffix("_cuda_gpu_kern_sum.csv", "_gpukernsum.csv"),
    rel(arts.folded), exists(join(dir, "gpu.folded")),
  }
  for i = 1, 10 do
    if cands[i] then return cands[i] end
  end
  errors.raise(errors.NO_DATA, "%s: a directory without a capture gpuflame can read (no .sqlite, .nsys-rep, " ..
    "kernel-summary CSV or gpu.folded)", dir)
end
M.pick_from_dir = pick_from_dir -- the MCP diff tool checks the file a directory leads to against its roots

local function clean_name(s)
  return (s:gsub('^[%s"]+', ""):gsub('[%s"]+$', ""))
end

-- A kern/api summary CSV, read once: names, totals (ns) and instances.
local function read_summary_csv(path, report, info, policy)
  local reader = core.csv.open(path, { skip_preamble = info.preamble, header_hint = info.preamble and "Name" or nil })
  local ok, res = pcall(function()
    local cols = columns.find_all(reader, report, { "name", "total" }, nil, policy)
    local inst = columns.spec(report, "instances", policy)
    local ic = inst and columns.pick(reader, inst) or nil
    local byname, list = {}, {}
    while reader:next() do
      local name = clean_name(reader:field(cols.name) or "")
      if name ~= "" then
        -- numbers as the collapse path reads them (strtod: "1000.0" is fine), then whole ns
        local t = reader:num(cols.total)
        if t ~= t or t < 0 or t >= 2^63 then
          errors.raise(errors.INPUT, "%s:%d: invalid total time %s for %s", path, reader:line(), tostring(t), name)
        end
        local total = math.tointeger(math.floor(t + 0.5))
        local c = ic and reader:num(ic, true) or nil
        local count = c and c == c and c >= 0 and c < 2^63 and math.tointeger(math.floor(c + 0.5)) or nil
        local k = byname[name]
        if not k then
          k = { name = name, total_ns = 0, count = ic and 0 or nil }
          byname[name] = k
          list[#list + 1] = k
        end
        k.total_ns = k.total_ns + total
        if k.count and count then k.count = k.count + count end
      end
    end
    return list
  end)
  reader:close()
  if not ok then error(res, 0) end
  return res
end

local function side_stacks_from_kernels(kernels, prefix)
  local s = core.stacks.new()
  for _, k in ipairs(kernels) do s:add_total(prefix, k.name, k.total_ns, 1) end
  return s
end

-- load_side(path, opts, ctx) → side (path: a file or a capture directory; opts: nsys, flame = the command's
-- stack settings, flamegraph.settings):
--   {input, file, source = "sqlite"|"csv"|"folded", from_rep, kind = "kernels"|"api"|"folded",
--    unit = "ns"|"count", scale, stacks, kernels = {{name, total_ns, count}}|nil, meta = {...}|nil,
--    processes = gpuflame.process_key.list's | nil, work = gpuflame.diff_work.summary's | nil (exports only),
--    step = {index, name, start_ns, end_ns, duration_ns, pick, steps, rule, median_ns}|nil,
--    loop = gpuflame.diff_loop.of's | nil (exports with steps that have a next step)}
--   opts: nsys, step (N|"median"|"slowest": only the GPU work launched inside that step), marker (the steps' pattern)
function M.load_side(path, opts, ctx)
  local st = core.fs.stat(path)
  if not st then errors.raise(errors.INPUT, "%s: no such file or directory", path) end
  local file, via_dir = path, nil
  if st.type == "directory" then
    file = pick_from_dir(path)
    via_dir = path
    log.info("%s: reading %s", path, file:match("[^/]+$"))
  end
  local info = inputs.resolve(file, opts, ctx)
  local policy = ctx.policy()
  local side = { input = path, file = file, dir = via_dir, from_rep = info.from_rep, unit = "ns", scale = 1 }
  if info.type == "sqlite" or info.type == "model" then
    side.source = "sqlite"
    side.kind = "kernels"
    local kv
    if info.type == "model" then -- its provenance holds the export's core.sqlite_meta view (docs/MODEL_FORMAT.md)
      local _, prov = model.open(info.path)
      side.meta = prov.capture
      side.model = info.path
      kv = prov.meta and prov.meta.kv
    else
      side.meta = core.sqlite_meta.read(info.path)
      kv = core.trace.sqlite_meta(info.path, policy.ranks.label_env).kv
    end
    local fs = opts and opts.flame -- the command's stack settings (flamegraph.settings), else the policy's
    local tr = fg.load_trace({ info.path }, { flame = fs }, policy)
    -- processes known by what they are (policy diff.process_key), the work done (diff.work)
    side.processes = process_key.list(tr, kv, nil, policy)
    if opts and opts.step then -- one step's GPU work (gpuflame.steps), and the work of that step alone
      tr:source(path)
      local s, doc, win
      side.stacks, s, doc, win = fg.from_trace_step(tr, opts.step, opts.marker,
        { flame = fs, processes = side.processes }, policy)
      side.step = { index = s.index, name = s.name, start_ns = s.start_ns, end_ns = s.end_ns,
        duration_ns = s.duration_ns, time_ns = s.time_ns, pick = tostring(opts.step), steps = #doc.steps,
        rule = doc.rule_text, median_ns = doc.summary.median_ns, between = doc.summary.between }
      side.work = diff_work.step_summary(tr, win, policy)
      side.loop = diff_loop.of(doc)
    else
      side.work = diff_work.summary(tr, policy)
      side.stacks = fg.from_trace(tr, { flame = fs, processes = side.processes }, policy)
      -- the steps (none: nil): the capture-length caveat's advice (--step median) and the loop (gpuflame.diff_loop)
      local ok, doc = errors.try(steps.loop, tr, opts and opts.marker, policy)
      if not ok and doc.code == errors.INTERRUPTED then error(doc, 0) end
      side.steps_found = ok and doc.summary.steps or nil
      side.loop = ok and diff_loop.of(doc) or nil
      side.loop_error = not ok and doc.msg or nil
    end
    if not side.stacks then
      errors.raise(errors.NO_DATA, "%s: no GPU kernels, copies or memsets in this export", path)
    end
    side.kernels = {} -- the leaves: kernels, copies and memsets, with their instances
    for _, l in ipairs(side.stacks:leaves()) do
      side.kernels[#side.kernels + 1] = { name = l.name, total_ns = l.weight, count = l.count }
    end
    side.sqlite = info.path
  elseif opts and opts.step then
    errors.raise(errors.USAGE, "%s: --step needs an SQLite export, an .nsys-rep, a model file or a capture directory " ..
      "holding one (steps are NVTX ranges of a trace)", path)
  elseif info.type == "csv" then
    local report = nsys.canonical_report(info.report, policy)
    if report ~= "cuda_gpu_kern_sum" and report ~= "cuda_api_sum" then
      errors.raise(errors.INPUT, "%s: a %s CSV cannot be diffed (needs a cuda_gpu_kern_sum CSV, an SQLite export, " ..
        "an .nsys-rep, folded stacks or a capture directory)", path, info.report)
    end
    side.source = "csv"
    side.kind = report == "cuda_gpu_kern_sum" and "kernels" or "api"
    side.kernels = read_summary_csv(info.path, report, info, policy)
    if #side.kernels == 0 then errors.raise(errors.NO_DATA, "%s: %s has no rows", path, report) end
  elseif info.type == "folded" then
    if info.two_columns then
      errors.raise(errors.INPUT, "%s: a differential folded file (stack BEFORE AFTER) is already a diff; draw it with " ..
        "`gpuflame flamegraph %s`", path, path)
    end
    side.source = "folded"
    side.kind = "folded"
    local stacks, fst = core.stacks.read_folded(info.path)
    sidecar.attach(stacks, info.path)
    if fst.bad > 0 then
      log.warn("%s: skipped %d malformed line%s (first: line %d: %s)", path, fst.bad, fst.bad == 1 and "" or "s",
        fst.first_bad, fst.first_bad_why)
    end
    if stacks:count() == 0 then errors.raise(errors.NO_DATA, "%s: no stacks", path) end
    side.stacks = stacks
    local m = stacks:meta()
    local okm, meta = pcall(core.json.decode, m or "null")
    meta = okm and type(meta) == "table" and meta or {}
    if math.type(meta.unit_ns) == "integer" and meta.unit_ns >= 1 then
      side.scale = meta.unit_ns
    else
      side.unit = "count"
    end
    side.folded_meta = meta
  else
    errors.raise(errors.INPUT, "%s: a %s cannot be diffed", path, inputs.describe(info))
  end
  if side.kernels and not side.stacks then
    side.stacks = side_stacks_from_kernels(side.kernels, side.kind == "api" and M.API_PREFIX or M.KERNEL_PREFIX)
  end
  return side
end

-- Launch stacks of a side (SQLite exports with CUDA_CALLCHAINS rows), GPU-work leaves only.
function M.load_launch_stacks(side)
  local tr = side.model and model.open(side.model)
    or core.trace.open_sqlite(side.sqlite, { max_events = 1, keep_partners = false })
  local s = core.stacks.new()
  tr:launch_stacks(s, true)
  return s
end

-- The registry's interface: a side from an input resolve() already recognised.
function M.accepts(info)
  return info.type == "sqlite" or info.type == "model" or info.type == "csv" or info.type == "folded"
end

function M.load(path, _, opts, ctx)
  return M.load_side(path, opts, ctx)
end

return M
