-- NVTX run analysis (docs/spec/NVTX_ANALYSIS.md): preconditions, the `nsys stats` export, and the C analysis
-- that writes <run_dir>/analysis.json. Messages of §12 are reproduced exactly.
local core = require("gpuflame.core")
local discover = require("gpuflame.discover")
local errors = require("gpuflame.errors")
local log = require("gpuflame.log")
local nsys_mod = require("gpuflame.nsys")
local stats = require("gpuflame.stats")
local steps = require("gpuflame.steps")
local trace_mod = require("gpuflame.trace")
local need = require("gpuflame.policy").need

local analyze = {}

analyze.REPORTS = { "nvtx_pushpop_trace", "nvtx_gpu_proj_trace" }
-- schema_version 2 (§15) adds capture-wide CUDA work; their CSVs may be absent (a CPU-only capture).
analyze.CUDA_REPORTS = { "cuda_gpu_kern_sum", "cuda_gpu_trace" }

local function reports_for(schema)
  local r = table.move(analyze.REPORTS, 1, #analyze.REPORTS, 1, {})
  if schema == 2 then table.move(analyze.CUDA_REPORTS, 1, 2, #r + 1, r) end
  return r
end
analyze.NOT_FOUND = "Nsight Systems executable not found: 'nsys'. Install Nsight Systems and ensure `nsys` is on PATH."

-- Path text the way Python's pathlib prints it: no empty or "." components, no trailing slash.
function analyze.normalize(p)
  local abs = p:sub(1, 1) == "/"
  local parts = {}
  for c in p:gmatch("[^/]+") do
    if c ~= "." then parts[#parts + 1] = c end
  end
  local s = table.concat(parts, "/")
  if abs then return "/" .. s end
  return s == "" and "." or s
end

function analyze.join(dir, name)
  if dir == "." then return name end
  if dir:sub(-1) == "/" then return dir .. name end
  return dir .. "/" .. name
end

-- Relative to the run directory when the file (symlinks resolved) lies inside it, else as given.
-- Like Python's Path.resolve() (non-strict): a missing file resolves through its directory.
local function resolve(path)
  local rp = core.fs.realpath(path)
  if rp then return rp end
  local dir, base = path:match("^(.*)/([^/]+)$")
  if not dir then dir, base = ".", path end
  local rd = core.fs.realpath(dir == "" and "/" or dir)
  if not rd then return nil end
  return (rd == "/" and "" or rd) .. "/" .. base
end

function analyze.portable(path, run_dir)
  local rp, rd = resolve(path), core.fs.realpath(run_dir)
  if rp and rd then
    if rd == "/" then return rp:sub(2) end
    if rp:sub(1, #rd + 1) == rd .. "/" then return rp:sub(#rd + 2) end
  end
  return path
end

local function strip(s) return (s or ""):match("^%s*(.-)%s*$") end

-- Finds nsys through the discovery policy and returns path, version string (raw `--version` output,
-- stripped; `unknown` when the probe failed).
function analyze.find_nsys(explicit, policy)
  local r = discover.run({ explicit = explicit }, need(policy, "analyze.find_nsys"))
  if not r.chosen then
    for _, t in ipairs(r.tried) do log.debug("nsys candidate %s rejected: %s", t.path, t.reason or "?") end
    errors.raise(errors.NO_NSYS, "%s", analyze.NOT_FOUND)
  end
  local c = r.chosen
  local version = "unknown"
  if c.version_code == 0 then
    local v = strip(c.version_text)
    if v ~= "" then version = v end
  end
  return c.path, version, c.version
end

-- The report name this nsys knows for each canonical report (nvtxpptrace before 2023.1).
local function names_for(reports, parsed, policy)
  local names = {}
  for _, r in ipairs(reports) do names[r] = nsys_mod.report_name(r, parsed, policy) end
  return names
end

-- opts: schema_version, force_export (required: the policy's analyze.force_export)
function analyze.stats_argv(nsys, run_dir, opts, names)
  local argv = { nsys, "stats" }
  for _, r in ipairs(reports_for(opts.schema_version)) do
    argv[#argv + 1] = "--report"
    argv[#argv + 1] = names and names[r] or r
  end
  local format = opts.schema_version == 2 and "csv:mem=B" or "csv"
  for _, a in ipairs({ "--format", format, "--output", analyze.join(run_dir, "stats/nsys"), "--force-overwrite=true" }) do
    argv[#argv + 1] = a
  end
  local force = opts.force_export
  if type(force) ~= "boolean" then
    errors.raise(errors.ERROR, "analyze.stats_argv: internal error: opts.force_export missing (the policy's " ..
      "analyze.force_export)")
  end
  if force then argv[#argv + 1] = "--force-export=true" end
  argv[#argv + 1] = analyze.join(run_dir, "trace.nsys-rep")
  return argv
end

-- Runs `nsys stats`; raises the §12 messages on failure. Context nsys printed (SKIPPED lines) goes to
-- the log as warnings so the one-line error stays exact.
function analyze.export(nsys, version, run_dir, paths, aopts, names)
  core.fs.mkdirp(analyze.join(run_dir, "stats"))
  -- nsys writes <prefix>_<its report name>.csv; the run dir keeps the spec's names (§4).
  local written = {}
  for r, p in pairs(paths) do
    written[r] = names and names[r] ~= r and analyze.join(run_dir, "stats/nsys_" .. names[r] .. ".csv") or p
  end
  -- A report nsys skips (no data) is not rewritten: remove earlier exports so none is read as current.
  for r, p in pairs(paths) do os.remove(p); os.remove(written[r]) end
  local argv = analyze.stats_argv(nsys, run_dir, aopts, names)
  log.progress("analyze", "running nsys stats (%s)", table.concat(reports_for(aopts.schema_version), ", "))
  local res = core.proc.run({ argv = argv, timeout = aopts.stats_timeout, kill_grace = 5 })
  log.progress_done()
  if res.status == "timeout" then
    errors.raise(errors.ERROR, "`nsys stats` failed with exit code %s using %s: timed out after %g s",
      tostring(res.code), version, aopts.stats_timeout)
  end
  if not res.ok then
    local details = strip(res.stderr)
    if details == "" then details = strip(res.stdout) end
    local newer = res.status == "exited" and nsys_mod.newer_report(argv[#argv], { path = nsys,
      version = aopts.nsys_parsed })
    if newer then details = details .. " (" .. argv[#argv] .. ": " .. newer .. ")" end
    local code = res.code
    if res.status ~= "exited" then code = -(res.signal or 0) end
    errors.raise(errors.ERROR, "`nsys stats` failed with exit code %d using %s: %s", code, version, details)
  end
  -- nsys 2022.4 prints SKIPPED/ERROR on stdout (after "Processing [...]..."), later versions on stderr
  for line in ((res.stderr or "") .. "\n" .. (res.stdout or "")):gmatch("[^\r\n]+") do
    local said = line:match("(SKIPPED.*)$") or line:match("(WARNING.*)$") or line:match("(ERROR.*)$")
    if said then log.warn("nsys: %s", nsys_mod.clean_text(said)) end
  end
  for r, p in pairs(paths) do
    if written[r] ~= p and core.fs.stat(written[r]) then
      local ok, err = os.rename(written[r], p)
      if not ok then errors.raise(errors.ERROR, "cannot rename %s to %s: %s", written[r], p, tostring(err)) end
    end
  end
  local missing = {}
  for _, r in ipairs(analyze.REPORTS) do
    local st = core.fs.stat(paths[r])
    if not st or st.type ~= "file" then missing[#missing + 1] = paths[r] end
  end
  if #missing > 0 then
    errors.raise(errors.NO_DATA, "`nsys stats` did not create expected report files: %s", table.concat(missing, ", "))
  end
  for _, r in ipairs(aopts.schema_version == 2 and analyze.CUDA_REPORTS or {}) do
    if not core.fs.stat(paths[r]) then log.warn("no %s from nsys (no CUDA data captured): its list stays empty", r) end
  end
end

-- analyze.source = "export" (or --from-export): gpuflame writes the same stats/ CSVs itself from the
-- run's SQLite export (docs/REPORTS.md) — trace.sqlite beside trace.nsys-rep, made by one `nsys export`
-- when absent or older than the report, or used as it is when there is no report. Returns the nsys
-- version text to record (the nsys that exported, else the one discovery finds, else "unknown").
-- ensure_export(run_dir, trace, opts, policy) → DIR/trace.sqlite (one `nsys export` of trace.nsys-rep when absent
-- or older), the nsys version
local function ensure_export(run_dir, trace, opts, policy)
  local sqlite = analyze.join(run_dir, "trace.sqlite")
  local tst, sst = core.fs.stat(trace), core.fs.stat(sqlite)
  if (not tst or tst.type ~= "file") and (not sst or sst.type ~= "file") then
    errors.raise(errors.INPUT, "Nsight trace does not exist: %s", trace)
  end
  local version = opts.nsys_version
  local fresh = sst and sst.type == "file" and sst.size > 0 and (not tst or sst.mtime >= tst.mtime)
  if fresh then
    log.debug("analyze: reading the existing export %s", sqlite)
    if not version then
      local ok, _, v = pcall(analyze.find_nsys, opts.nsys, policy)
      version = ok and v or "unknown"
    end
  else
    local nsys, v, parsed = analyze.find_nsys(opts.nsys, policy)
    version = version or v
    log.progress("analyze", "running nsys export --type sqlite")
    stats.export_for(trace, { out = sqlite, force = true, nsys_info = { path = nsys, version = parsed } }, policy)
    log.progress_done()
  end
  return sqlite, version
end

function analyze.export_reports(run_dir, trace, paths, schema, opts, policy)
  local sqlite, version = ensure_export(run_dir, trace, opts, policy)
  core.fs.mkdirp(analyze.join(run_dir, "stats"))
  for _, p in pairs(paths) do os.remove(p) end
  local reports, files = reports_for(schema), {}
  for _, r in ipairs(reports) do files[r] = paths[r] end
  log.progress("analyze", "writing %s from %s", table.concat(reports, ", "), sqlite)
  local res = stats.write(sqlite, reports, { paths = files, format = "csv", mem_bytes = schema == 2 }, policy)
  log.progress_done()
  for _, r in ipairs(res) do
    if r.skipped then log.warn("gpuflame stats: SKIPPED: %s", r.skipped) end
  end
  return version
end

-- A run directory without manifest.yaml analysed from its export: the steps found in the capture (gpuflame.steps,
-- docs/STEPS.md) written as DIR/<outputs.steps> instead of analysis.json → result {path=, warnings=, steps=true}
local function steps_fallback(run_dir, trace, manifest_file, opts, policy)
  local sqlite = ensure_export(run_dir, trace, opts, policy)
  local tr = trace_mod.load({ sqlite }, { max_events = 0, keep_partners = true }, policy)
  tr:source(analyze.portable(trace, run_dir))
  local doc = steps.document(tr, nil, policy)
  local out = analyze.join(run_dir, policy.outputs.steps)
  core.fs.write_atomic(out, core.json.encode(doc) .. "\n")
  return { path = out, steps = true, nsteps = #doc.steps, warnings = { string.format(
    "%s: no manifest: the steps found in the capture (%s) instead of the NVTX run analysis", manifest_file,
    doc.rule_text) } }
end

-- run{run_dir=, no_export=, nsys=, nsys_version=, schema_version=, source=} → result {path=, warnings=, ...}
-- policy: the effective policy (required).
function analyze.run(opts, policy)
  need(policy, "analyze.run")
  local aopts = policy.analyze
  local run_dir = analyze.normalize(opts.run_dir)
  local st = core.fs.stat(run_dir)
  if not st or st.type ~= "directory" then
    errors.raise(errors.INPUT, "Run directory does not exist: %s", run_dir)
  end
  local manifest_file = analyze.join(run_dir, "manifest.yaml")
  local trace = analyze.join(run_dir, "trace.nsys-rep")
  local paths = {}
  local schema = opts.schema_version or 1
  for _, r in ipairs(reports_for(schema)) do paths[r] = analyze.join(run_dir, "stats/nsys_" .. r .. ".csv") end

  local source = opts.source or aopts.source
  if source ~= "stats" and source ~= "export" then
    errors.raise(errors.USAGE, "analyze.source must be \"stats\" or \"export\" (got %q)", tostring(source))
  end
  if source == "export" and not opts.no_export and not core.fs.stat(manifest_file) then
    return steps_fallback(run_dir, trace, manifest_file, opts, policy)
  end
  -- §12 manifest errors, before anything else; the spec's text is kept and the file named when it
  -- does not say which ("Manifest must define a string capture_range.")
  local okm, merr = pcall(core.nvtx.manifest, manifest_file)
  if not okm then
    local e = errors.wrap(merr)
    if not e.msg:find(manifest_file, 1, true) then e.msg = manifest_file .. ": " .. e.msg end
    errors.reraise(e)
  end
  local version = opts.nsys_version or "unknown"
  if opts.no_export then
    log.debug("analyze: --no-export: reading the existing CSVs in %s", analyze.join(run_dir, "stats"))
  elseif source == "export" then
    version = analyze.export_reports(run_dir, trace, paths, schema, opts, policy)
  else
    local tst = core.fs.stat(trace)
    if not tst or tst.type ~= "file" then errors.raise(errors.INPUT, "Nsight trace does not exist: %s", trace) end
    local nsys, parsed
    nsys, version, parsed = analyze.find_nsys(opts.nsys, policy)
    if opts.nsys_version then version = opts.nsys_version end
    local eopts = setmetatable({ schema_version = schema, nsys_parsed = parsed }, { __index = aopts })
    analyze.export(nsys, version, run_dir, paths, eopts, names_for(reports_for(schema), parsed, policy))
  end
  -- Reports of nsys < 2023.1 name default-domain ranges without the ':' prefix (docs/NSYS_VERSIONS.md).
  local parsed_version = nsys_mod.parse_version(version)
  local legacy_names = parsed_version ~= nil and not nsys_mod.uses_new_report_names(parsed_version, policy)
  -- gpuflame's own reports (source "export") always have the current names, whatever nsys exported
  if source == "export" and not opts.no_export then legacy_names = false end

  local out = analyze.join(run_dir, policy.outputs.analysis)
  local res = core.nvtx.analyze({
    manifest_file = manifest_file,
    host_csv = paths.nvtx_pushpop_trace,
    gpu_csv = paths.nvtx_gpu_proj_trace,
    out = out,
    nsys_version = version,
    manifest_path = analyze.portable(manifest_file, run_dir),
    trace_path = analyze.portable(trace, run_dir),
    host_report = analyze.portable(paths.nvtx_pushpop_trace, run_dir),
    gpu_report = analyze.portable(paths.nvtx_gpu_proj_trace, run_dir),
    schema_version = schema,
    validated_version = aopts.validated_version,
    legacy_names = legacy_names,
    kern_csv = paths.cuda_gpu_kern_sum,
    trace_csv = paths.cuda_gpu_trace,
    kern_report = paths.cuda_gpu_kern_sum and analyze.portable(paths.cuda_gpu_kern_sum, run_dir),
    trace_report = paths.cuda_gpu_trace and analyze.portable(paths.cuda_gpu_trace, run_dir),
    source = (source == "export" and not opts.no_export) and "export" or nil,
  })
  res.path = out
  res.nsys_version = version
  res.source = source
  return res
end

return analyze
