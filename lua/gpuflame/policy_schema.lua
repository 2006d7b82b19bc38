-- The shape of a policy: every field, its type and constraints, and a one-line doc (docs/POLICY.md
-- documents the same fields with examples). validate(layer, file) checks one layer; a field that is
-- not in the schema is an error (typos must not be silently ignored) — fleets keep their own data
-- under `custom`.
local S = {}

local function describe(v)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "table" then return "a table" end
  return tostring(v)
end

function S.num(c)
  c = c or {}
  return { kind = "number", check = function(v)
    if type(v) ~= "number" then return "must be a number" .. (c.gt and (" > " .. c.gt) or "") end
    if c.gt and v <= c.gt then return "must be a number > " .. c.gt end
    if c.min and v < c.min then return "must be a number >= " .. c.min end
    if c.max and v > c.max then return "must be a number <= " .. c.max end
  end }
end

function S.int(c)
  c = c or {}
  return { kind = "integer", check = function(v)
    if math.type(v) ~= "integer" then return "must be an integer" .. (c.min and (" >= " .. c.min) or "") end
    if c.min and v < c.min then return "must be an integer >= " .. c.min end
    if c.max and v > c.max then return "must be an integer <= " .. c.max end
  end }
end

function S.str(c)
  c = c or {}
  return { kind = "string", check = function(v)
    if type(v) ~= "string" then return "must be a string" end
    if c.oneof then
      for _, o in ipairs(c.oneof) do if o == v then return nil end end
      return "must be one of " .. table.concat(c.oneof, ", ")
    end
  end }
end

-- a plain file name (written inside a directory): not empty, no "/"
function S.filename()
  return { kind = "string", check = function(v)
    if type(v) ~= "string" or v == "" or v:find("/", 1, true) or v == "." or v == ".." then
      return "must be a file name (not empty, no /)"
    end
  end }
end

function S.bool()
  return { kind = "boolean", check = function(v) if type(v) ~= "boolean" then return "must be true or false" end end }
end

function S.fn()
  return { kind = "function", check = function(v) if type(v) ~= "function" then return "must be a function" end end }
end

function S.list(item)
  return { kind = "list", check = function(v, path)
    if type(v) ~= "table" then return "must be a list" end
    for k in pairs(v) do
      if math.type(k) ~= "integer" then return "must be a list (found key " .. describe(k) .. ")" end
    end
    for i, x in ipairs(v) do
      local e = item.check(x, path .. "[" .. i .. "]")
      if e then return "[" .. i .. "] " .. e end
    end
  end }
end

function S.map(item)
  return { kind = "map", check = function(v, path)
    if type(v) ~= "table" then return "must be a table" end
    for k, x in pairs(v) do
      if type(k) ~= "string" then return "keys must be strings" end
      local e = item.check(x, path .. "." .. k)
      if e then return "." .. k .. " " .. e end
    end
  end }
end

function S.any()
  return { kind = "any", check = function() end }
end

function S.either(a, b)
  return { kind = a.kind .. "|" .. b.kind, check = function(v, path)
    local ea = a.check(v, path)
    if not ea then return nil end
    local eb = b.check(v, path)
    if not eb then return nil end
    return "must be a " .. a.kind .. " or a " .. b.kind
  end }
end

-- The schema. Sections are owned by the parts of gpuflame that read them.
S.tree = {
  discover = {
    order = S.list(S.str()),
    prefer = S.str({ oneof = { "order", "newest" } }),
    sources = S.map(S.list(S.str())),
    env_var = S.str(),
    version_timeout = S.num({ gt = 0 }),
    importer_dirs = S.list(S.str()),
    importer_sources = S.list(S.str()),
  },
  mcp = {
    max_request_bytes = S.int({ min = 1024, max = 1073741824 }),
    max_result_bytes = S.int({ min = 1024 }),
    page_size = S.int({ min = 1 }),
    max_page_size = S.int({ min = 1 }),
    export_reports = S.bool(),
    run_programs = S.bool(),
  },
  exports = {
    cache_dir = S.str(),
    cache_max_mb = S.int({ min = 1 }),
    beside = S.bool(),
  },
  nsys = {
    report_eras = S.list({ kind = "era", check = function(v)
      if type(v) ~= "table" or type(v.since) ~= "string" or not v.since:match("^%d+[%.%d]*$") then
        return "must be a table with since = \"YYYY.R\" (a version) and names = {report = name}"
      end
      if type(v.names) ~= "table" then return "names must be a table of report = name" end
      for k, n in pairs(v.names) do
        if type(k) ~= "string" or type(n) ~= "string" then return "names must map report names to names" end
      end
    end }),
  },
  live = {
    registry_dir = S.str(),
    ready_timeout = S.num({ gt = 0 }),
    start_timeout = S.num({ gt = 0 }),
    stop_timeout = S.num({ gt = 0 }),
    stop_timeout_per_s = S.num({ min = 0 }),
    keep_failed_raw = S.bool(),
    control_timeout = S.num({ gt = 0 }),
    signal_grace = S.num({ gt = 0 }),
    max_wait = S.num({ gt = 0 }),
    launch_args = S.list(S.str()),
    start_args = S.list(S.str()),
  },
  capture = {
    views_from = S.str({ oneof = { "stats", "export" } }),
    duration = S.num({ gt = 0 }),
    timeout_extra = S.num({ min = 0 }),
    kill_grace = S.num({ gt = 0 }),
    output_tail = S.int({ min = 1024 }),
    trace = S.str(),
    sample = S.str(),
    cpuctxsw = S.str(),
    qdstrm = S.str({ oneof = { "import", "fail" } }),
    keep_qdstrm = S.bool(),
    import_timeout = S.num({ gt = 0 }),
    decided_grace = S.num({ gt = 0 }),
    decided_markers = S.list(S.str()),
    start_retries = S.int({ min = 0, max = 10 }),
    start_backoff = S.num({ min = 0 }),
    start_failure_markers = S.list(S.str()),
    output_name = S.str(),
    out_dir = S.str(),
    extra_args = S.list(S.str()),
    stacks = {
      sample = S.str(),
      backtrace = S.str(),
      cudabacktrace = S.str(),
    },
    env = {
      restore_orig = S.list(S.str()),
      strip_patterns = S.list(S.str()),
      set = S.map(S.str()),
      unset = S.list(S.str()),
    },
    build_args = S.fn(),
    workload_env = S.fn(),
  },
  analyze = {
    source = S.str({ oneof = { "stats", "export" } }),
    force_export = S.bool(),
    stats_timeout = S.num({ gt = 0 }),
    top_ranges = S.int({ min = 1 }),
    first_iteration_factor = S.num({ gt = 0 }),
    high_variance_cv = S.num({ gt = 0 }),
    validated_version = { kind = "string", check = function(v)
      if type(v) ~= "string" or not v:match("^%d%d%d%d%.%d+$") then return "must be a release \"YYYY.R\"" end
    end },
  },

  -- fleet mode: upload / deliver / agent / backends / tags (owned by lua/gpuflame/fleet/deliver.lua, agent.lua)
  upload = {
    api_version = S.str({ oneof = { "v1", "v2" } }),
    timeout = S.num({ gt = 0 }),
    connect_timeout = S.num({ gt = 0 }),
    max_compressed_bytes = S.int({ min = 1024 }),
    prefer = S.list(S.str({ oneof = { "timeline", "flamegraph" } })),
    oversize = S.list(S.str({ oneof = { "retrim", "flamegraph", "no_html" } })),
    retrim_events = S.list(S.int({ min = 1 })),
    perf_mode = S.str(),
    tag_names = { gpu = S.str(), timeline = S.str(), stacks = S.str(), perf = S.str(), session = S.str(),
      window = S.str() },
    artifacts = {
      timeline_inputs = S.list(S.list(S.str())),
    },
    retrim_timeout = S.num({ gt = 0 }),
    ca_bundle = S.str(), client_cert = S.str(), client_key = S.str(),
  },
  deliver = {
    sinks = S.list({ kind = "sink", check = function(v)
      if type(v) ~= "table" then return "must be a table like { type = \"studio\" }" end
      local t = v.type
      if t ~= "studio" and t ~= "dir" and t ~= "http" then return "type must be studio, dir or http" end
      if t == "dir" and type(v.path) ~= "string" then return "(dir) needs path = \"...\"" end
      if t == "http" and type(v.url) ~= "string" then return "(http) needs url = \"...\"" end
      if v.method ~= nil and v.method ~= "PUT" and v.method ~= "POST" then return "method must be PUT or POST" end
      if v.artifact ~= nil and v.artifact ~= "html" and v.artifact ~= "folded" and v.artifact ~= "all" then
        return "artifact must be html, folded or all"
      end
    end }),
    retry = { count = S.int({ min = 1 }), base = S.num({ min = 0 }), cap = S.num({ min = 0 }),
      jitter = S.num({ min = 0, max = 1 }),
      statuses = S.list({ kind = "status", check = function(v)
        if math.type(v) == "integer" and v >= 100 and v <= 599 then return nil end
        if type(v) == "string" and v:match("^[1-5]xx$") then return nil end
        return "must be an HTTP status (100-599) or a class like \"5xx\""
      end }) },
    http_sink = { method = S.str({ oneof = { "PUT", "POST" } }), artifact = S.str({ oneof = { "html", "folded", "all" } }) },
    spool = { dir = S.str(), max_items = S.int({ min = 1 }), max_bytes = S.int({ min = 1 }),
      on_full = S.str({ oneof = { "drop_oldest", "drop_newest" } }) },
  },
  agent = {
    interval = S.num({ gt = 0 }),
    state_dir = S.str(),
    heartbeat_timeout = S.num({ gt = 0 }),
    health_check = S.str({ oneof = { "warn", "fatal", "off" } }),
    health_check_timeout = S.num({ gt = 0 }),
    history = S.int({ min = 1 }),
    stop_grace = S.num({ gt = 0 }),
    keep_captures = S.int({ min = 0 }),
    default_duration = S.num({ gt = 0 }),
    max_duration = S.num({ gt = 0 }),
    uploader_timeout = S.num({ gt = 0 }),
    backends = S.list(S.str()),
    remote_workloads = { enabled = S.bool(), allow_file = S.str(), allow = S.list(S.str()), decide = S.fn(),
      run_as = S.str(), run_as_group = S.str() },
    remote_sessions = { enabled = S.bool(), allow_names = S.list(S.str()), allow_commands = S.list(S.str()),
      decide = S.fn() },
  },
  backends = {
    nsys = { enabled = S.bool(), timeout_margin = S.num({ min = 0 }) },
    perf = { enabled = S.bool(), frequency = S.int({ min = 1 }), args = S.list(S.str()), timeout_extra = S.num({ min = 0 }),
      path = S.str(), script_timeout = S.num({ gt = 0 }) },
  },
  -- tags(ctx, tags) → tags: a fleet's own capture tags (ctx: gpu, timeline, stacks, perf, hostname,
  -- service, command, html). Runs under limits.function_budget.
  tags = S.fn(),
  flamegraph = {
    reports = S.list(S.str()),
    output_names = S.map(S.str()),
    prefixes = S.map(S.str()),
    other_prefix = S.str(),
    unit_ns = S.int({ min = 1 }),
    bad_weight = S.str({ oneof = { "error", "one" } }),
    countname = S.str(),
    title = S.str(),
    colors = S.str({ oneof = require("gpuflame.views.page").palettes() }), -- templates/palettes.json
    minwidth = S.num({ min = 0 }),
    inverted = S.bool(),
    levels = S.list(S.str({ oneof = { "process", "rank", "device", "stream", "nvtx", "callchain", "api", "kernel" } })),
    nvtx_startend = S.bool(),
    nolaunch_frame = S.str(),
    speedscope_events = S.int({ min = 0 }),
    sqlite_sources = S.list(S.str({ oneof = { "kernels", "api" } })),
    folded_metadata = S.bool(),
    fold_share = S.num({ min = 0, max = 1 }),
    fold_min_stacks = S.int({ min = 0 }),
    stats_timeout = S.num({ gt = 0 }),
    export_timeout = S.num({ gt = 0 }),
  },
  -- column alias overrides for stats CSVs: columns[report][key] = {exact = {...}, contains = {...}}
  -- (lua/gpuflame/columns.lua has the built-in tables)
  columns = S.map(S.map(S.any())),
  timeline = {
    local_max_events = S.int({ min = 1 }),
    initial_view = S.str({ oneof = { "busiest", "nvtx", "full" } }),
    view_events = S.int({ min = 1 }),
    preview_min_events = S.int({ min = 0 }),
    keep_partners = S.bool(),
    cpu = { osrt = S.bool(), samples = S.bool(), running = S.bool(), max_samples = S.int({ min = 0 }) },
    compress = S.bool(),
    source = S.str({ oneof = { "csv", "sqlite" } }),
    reports = S.list(S.str({ oneof = { "cuda_api_trace", "cuda_gpu_trace" } })),
    output_names = S.map(S.str()),
    fallback = S.str({ oneof = { "flamegraph", "none" } }),
    title = S.str(),
    template = S.str(),
    flame_min_fraction = S.num({ min = 0, max = 1 }),
    nvtx_projection = S.bool(),
    late_launch_ns = S.int({ min = 0 }),
    short_gap_ns = S.int({ min = 0 }),
  },
  stacks = {
    missing = S.str({ oneof = { "warn", "error" } }),
  },
  ranks = {
    label_env = S.list(S.str()),
    thread_rank_patterns = S.list(S.str()),
    marker_rank_patterns = S.list(S.str()),
    label_format = S.str(),
    nccl_prefixes = S.list(S.str()),
    iteration_prefixes = S.list(S.str()),
    straggler_threshold = S.num({ min = 0 }),
    noise_floor_ns = S.int({ min = 0 }),
    noise_floor_share = S.num({ min = 0, max = 1 }),
    straggler_mad_k = S.num({ min = 0 }),
    workers = S.int({ min = 0 }),
    max_start_gap_s = S.num({ min = 0 }),
    single_node = S.bool(),
  },
  -- steps (lua/gpuflame/steps.lua, docs/STEPS.md)
  steps = {
    markers = S.list({ kind = "marker", check = function(v)
      if type(v) ~= "table" or type(v.pattern) ~= "string" or type(v.convention) ~= "string" then
        return "must be a table {pattern = \"Lua pattern\", convention = \"what it is\"}"
      end
      if not pcall(string.find, "", v.pattern) then return "pattern is not a valid Lua pattern" end
    end }),
    min_repeats = S.int({ min = 1 }),
    fallback_depth = S.int({ min = 0 }),
    warmup_patterns = S.list(S.str()),
    warmup_steps = S.int({ min = 0 }),
    outlier_mad = S.num({ min = 0 }),
    outlier_min_share = S.num({ min = 0 }),
    drift_min_steps = S.int({ min = 3 }),
    drift_min_share = S.num({ min = 0 }),
    drift_agreement = S.num({ min = 0.5, max = 1 }),
    between_share = S.num({ min = 0, max = 1 }),
    top = S.int({ min = 0 }),
    text_rows = S.int({ min = 1 }),
  },
  -- the critical path of a step (lua/gpuflame/critpath.lua, docs/CRITICAL_PATH.md)
  critical_path = {
    blocking = S.list(S.str()),
    event_record = S.list(S.str()),
    stream_wait = S.list(S.str()),
    top = S.int({ min = 0 }),
  },
  -- the time breakdown of a GPU (docs/SEMANTICS.md)
  gpu_time = {
    communication = S.list(S.str()),
  },
  -- gpuflame diff (lua/gpuflame/diff.lua, docs/DIFF.md)
  diff = {
    threshold = S.num({ min = 0 }),
    kernel_threshold = S.num({ min = 0 }),
    loop_threshold = S.num({ min = 0 }),
    loop_min_iterations = S.int({ min = 1 }),
    notes_when_faster = S.bool(),
    top_kernels = S.int({ min = 0 }),
    -- verdict(d) → true/false or {regression = bool, reasons = {...}} (d: the --json document)
    verdict = S.fn(),
    -- normalize_name(name) → name used to match kernels across the two captures
    normalize_name = S.fn(),
    duration_tolerance = S.num({ min = 0 }),
    min_fraction = S.num({ min = 0, max = 1 }),
    group_by = S.str({ oneof = { "kernel", "nvtx" } }),
    title = S.str(),
    -- process frames by what a process is (lua/gpuflame/process_key.lua), or function(p) → key
    process_key = S.either(S.str({ oneof = { "auto", "executable", "command", "pid" } }), S.fn()),
    -- comparable or not (lua/gpuflame/diff_work.lua)
    work = {
      bytes_tolerance = S.num({ min = 0 }),
      instances_tolerance = S.num({ min = 0 }),
      launch_tolerance = S.num({ min = 0 }),
      nvtx_tolerance = S.num({ min = 0 }),
      min_share = S.num({ min = 0, max = 1 }),
      nvtx_depth = S.int({ min = 0 }),
      nvtx_fold_numbers = S.bool(),
    },
  },
  -- file names gpuflame writes (capture directories; default -o of flamegraph, timeline, report --html)
  outputs = {
    summary = S.filename(), profile_log = S.filename(), sqlite = S.filename(), flamegraph = S.filename(),
    gpu_folded = S.filename(), timeline = S.filename(), launch_folded = S.filename(), cpu_folded = S.filename(),
    nsys_backend_log = S.filename(), perf_backend_log = S.filename(), perf_data = S.filename(),
    perf_script = S.filename(), report = S.filename(), findings = S.filename(), analysis = S.filename(),
    diff = S.filename(),
    steps = S.filename(),
  },
  -- findings rules (lua/gpuflame/findings.lua): options[rule][key] are checked against the rule itself
  findings = {
    rules = S.list(S.str()),
    rule_budget = S.num({ gt = 0 }),
    capture = S.str({ oneof = { "exported", "always", "never" } }),
    capture_top = S.int({ min = 0 }),
    pages = S.bool(),
    options = S.map({ kind = "options", check = function(v)
      if type(v) ~= "table" then return "must be a table of option = value" end
      for k, x in pairs(v) do
        if type(k) ~= "string" then return "option names must be strings" end
        local t = type(x)
        if t ~= "number" and t ~= "string" and t ~= "boolean" and t ~= "table" then
          return "." .. k .. " must be a number, string, boolean or list"
        end
      end
    end }),
  },
  nvtx = {
    group = S.map({ kind = "rules", check = function(v)
      if type(v) ~= "table" then return "must be a list of {pattern, replacement}" end
      for k, r in pairs(v) do
        if math.type(k) ~= "integer" then return "must be a list of {pattern, replacement}" end
        if type(r) ~= "table" or type(r[1]) ~= "string" or type(r[2]) ~= "string" then
          return "[" .. k .. "] must be {pattern, replacement} (two strings: a Lua pattern and its string.gsub replacement)"
        end
        local ok, e = pcall(string.gsub, "", r[1], r[2])
        if not ok then return "[" .. k .. "] " .. tostring(e) end
      end
    end }),
    raw_examples = S.int({ min = 0 }),
  },
  limits = {
    function_budget = S.num({ gt = 0 }),
    threads = S.int({ min = 0, max = 1024 }),
    huge_pages = { commands = S.list(S.str()), min_input_bytes = S.int({ min = 0 }) },
    keep_freed_memory = { commands = S.list(S.str()), min_input_bytes = S.int({ min = 0 }) },
  },
  custom = S.any(),
}

local function walk(layer, node, path, file)
  for k, v in pairs(layer) do
    local p = path == "" and tostring(k) or (path .. "." .. tostring(k))
    local rule = type(node) == "table" and node[k]
    if not rule then
      return string.format("policy %s: unknown field %s (see docs/POLICY.md; put your own data under custom)", file, p)
    end
    if rule.check then
      local e = rule.check(v, p)
      if e then return string.format("policy %s: %s %s (got %s)", file, p, e, describe(v)) end
    elseif type(v) ~= "table" then
      return string.format("policy %s: %s must be a table (got %s)", file, p, describe(v))
    else
      local e = walk(v, rule, p, file)
      if e then return e end
    end
  end
end

-- Marks every list-typed field (per the schema) so JSON shows empty lists as [] rather than {}.
function S.annotate(value, node, mark_array)
  if type(value) ~= "table" then return value end
  local out = {}
  for k, v in pairs(value) do
    local rule = type(node) == "table" and node[k] or nil
    if type(v) == "table" and rule and rule.kind == "list" then
      local copy = {}
      for i, x in ipairs(v) do copy[i] = x end
      out[k] = mark_array(copy)
    elseif type(v) == "table" and rule and not rule.check then
      out[k] = S.annotate(v, rule, mark_array)
    else
      out[k] = v
    end
  end
  return out
end

-- Adds schema entries from other modules: S.extend("timeline", { max_events = S.int({min=1}) }).
function S.extend(section, fields)
  S.tree[section] = S.tree[section] or {}
  for k, v in pairs(fields) do S.tree[section][k] = v end
end

function S.validate(layer, file)
  local e = walk(layer, S.tree, "", file or "?")
  if e then return false, e end
  return true
end

return S
