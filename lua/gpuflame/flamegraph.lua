-- GPU flamegraph: stacks from nsys summaries (stats CSV or SQLite export), and the HTML page.
-- The C collapse table (core.stacks) holds the data; this module only decides (from policy) which
-- columns, prefixes and units to use.
local core = require("gpuflame.core")
local columns = require("gpuflame.columns")
local errors = require("gpuflame.errors")
local page = require("gpuflame.views.page")

local fg = {}

-- flamegraph.pl's palettes plus "gpu" (memcpy/memset, CUDA API, NCCL and kernels told apart): the names in
-- the pages' colour table, templates/palettes.json
fg.PALETTES = page.palettes()

local SQL_REPORT = { kernels = "cuda_gpu_kern_sum", api = "cuda_api_sum" }

local function need(policy, where)
  return require("gpuflame.policy").need(policy, where)
end

function fg.prefix(report, policy)
  local fp = need(policy, "flamegraph.prefix").flamegraph
  local nsys = require("gpuflame.nsys")
  return fp.prefixes[nsys.canonical_report(report, policy)] or fp.prefixes[report] or fp.other_prefix
end

local function set_meta(stacks, meta)
  stacks:set_meta(core.json.encode(meta))
end

-- from_csv(path, report, policy, {skip_preamble=bool}) → stacks, info
-- report: cuda_gpu_kern_sum / cuda_api_sum (either era's name). Rows follow docs/spec/STUDIO.md §6.5.
function fg.from_csv(path, report, policy, opts)
  opts = opts or {}
  local nsys = require("gpuflame.nsys")
  local canon = nsys.canonical_report(report, need(policy, "flamegraph.from_csv"))
  local reader = core.csv.open(path, { skip_preamble = opts.skip_preamble, header_hint = opts.skip_preamble and "Name" or nil })
  local cols = columns.find_all(reader, canon, { "name", "total" }, { policy = policy })
  local unit = policy.flamegraph.unit_ns
  local stacks, st = core.stacks.from_summary_csv(reader, cols.name, cols.total,
    { prefix = fg.prefix(canon, policy), unit_ns = unit, bad_weight = policy.flamegraph.bad_weight })
  reader:close()
  local info = { source = path, report = canon, rows = st.rows, stacks = stacks:count(),
    unparsed_weight = st.unparsed_weight, skipped_empty = st.skipped_empty, unit_ns = unit }
  set_meta(stacks, { generator = "gpuflame", report = canon, unit_ns = unit, countname = policy.flamegraph.countname })
  return stacks, info
end

-- stream_csv(path, report, policy, out, {skip_preamble=, meta=bool}) → stats: the same rows written
-- straight to folded lines (out = path or "-"), without building the table (constant memory).
function fg.stream_csv(path, report, policy, out, opts)
  opts = opts or {}
  local nsys = require("gpuflame.nsys")
  local canon = nsys.canonical_report(report, need(policy, "flamegraph.stream_csv"))
  local reader = core.csv.open(path, { skip_preamble = opts.skip_preamble, header_hint = opts.skip_preamble and "Name" or nil })
  local cols = columns.find_all(reader, canon, { "name", "total" }, { policy = policy })
  local unit = policy.flamegraph.unit_ns
  local meta = opts.meta and core.json.encode({ generator = "gpuflame", report = canon, unit_ns = unit,
    countname = policy.flamegraph.countname }) or nil
  local st = core.stacks.stream_summary_csv(reader, cols.name, cols.total,
    { prefix = fg.prefix(canon, policy), unit_ns = unit, meta = meta, bad_weight = policy.flamegraph.bad_weight }, out)
  reader:close()
  if st.used == 0 then errors.raise(errors.NO_DATA, "%s: %s has no rows", path, canon) end
  return st
end

-- from_sqlite(path, policy) → stacks, info; or raises NO_DATA listing each source tried and why.
function fg.from_sqlite(path, policy)
  local unit = need(policy, "flamegraph.from_sqlite").flamegraph.unit_ns
  local tried = {}
  for _, src in ipairs(policy.flamegraph.sqlite_sources) do
    local totals, why = core.sqlite_kernels.totals(path, src)
    if #totals > 0 then
      local report = SQL_REPORT[src]
      local stacks = core.stacks.new()
      local prefix = fg.prefix(report, policy)
      for _, t in ipairs(totals) do stacks:add_total(prefix, t.name, t.total_ns, unit) end
      set_meta(stacks, { generator = "gpuflame", report = report, source = "sqlite:" .. src, unit_ns = unit,
        countname = policy.flamegraph.countname })
      return stacks, { source = path, report = report, sqlite_source = src, totals = totals, stacks = stacks:count(),
        unit_ns = unit, tried = tried }
    end
    tried[#tried + 1] = src .. ": " .. (why or "no rows")
  end
  errors.raise(errors.NO_DATA, "%s: no GPU data in this export (%s)", path, table.concat(tried, "; "))
end

-- from_reports(paths, policy, {by_rank=bool, nsys=}) → stacks: kernel time of several SQLite exports /
-- reports (one per rank; merged by gpuflame.trace), summed over ranks, or under a "rank N" frame each.
function fg.from_reports(paths, policy, opts)
  opts = opts or {}
  local unit = need(policy, "flamegraph.from_reports").flamegraph.unit_ns
  local tr = require("gpuflame.trace").load(paths, { max_events = 0, ranks = true, policy = policy, nsys = opts.nsys })
  local totals = tr:rank_kernel_totals("kernel")
  if #totals == 0 then
    errors.raise(errors.NO_DATA, "%s: no GPU kernels in these reports", table.concat(paths, ", "))
  end
  local stacks = core.stacks.new()
  local prefix = fg.prefix("cuda_gpu_kern_sum", policy)
  for _, t in ipairs(totals) do
    local p = prefix
    if opts.by_rank and t.rank then p = t.rank:gsub(";", ":") .. ";" .. prefix end
    stacks:add_total(p, t.name, t.total, unit)
  end
  set_meta(stacks, { generator = "gpuflame", report = "cuda_gpu_kern_sum", source = "sqlite:kernels", unit_ns = unit,
    countname = policy.flamegraph.countname, ranks = #tr:ranks(), by_rank = opts.by_rank == true })
  return stacks
end

-- Page options from policy, overridden by the command line (title, countname, inverted, minwidth, colors).
function fg.page_options(policy, over)
  local p = need(policy, "flamegraph.page_options").flamegraph
  over = over or {}
  local function pick(k)
    if over[k] ~= nil then return over[k] end
    return p[k]
  end
  return {
    title = pick("title"),
    countname = pick("countname"),
    inverted = pick("inverted") == true,
    minwidth = pick("minwidth"),
    colors = pick("colors"),
    subtitle = over.subtitle or "",
    findings = over.findings, -- findings.page's document for the findings panel, or nil (no panel)
  }
end

local function page_slots(stacks, o)
  local conf = core.json.encode({
    countname = o.countname, inverted = o.inverted, minwidth = o.minwidth, colors = o.colors,
    title = o.title, subtitle = o.subtitle,
  })
  return { title = o.title, subtitle = o.subtitle, data = { data = stacks }, config = { json = conf },
    findings = require("gpuflame.findings").page_slot(o.findings) }
end

-- render(stacks, out_path, page_options) writes the self-contained page atomically.
function fg.render(stacks, out, o)
  if stacks:count() == 0 then errors.raise(errors.NO_DATA, "no stacks to draw (%s)", out) end
  local tmpl, origin = page.template("templates/flamegraph.html")
  core.render.render(tmpl, page_slots(stacks, o), out, origin)
end

function fg.render_string(stacks, o)
  local tmpl, origin = page.template("templates/flamegraph.html")
  return core.render.render_string(tmpl, page_slots(stacks, o), origin)
end

return fg
