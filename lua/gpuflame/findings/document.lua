-- The findings document, written and read in one place: `findings -f json` and capture's findings.json
-- (to_table, format_json, read_document), and the document the pages embed in their findings panel
-- (page_data, page, page_slot).
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local gpu_time = require("gpuflame.gpu_time")
local col_name = require("gpuflame.findings.format").col_name

local M = {}

local function json_value(c, v)
  if v == nil or v == false or v == core.json.null then return core.json.null end
  if type(v) == "number" and type(c) == "table" and c.format and c.json ~= "number" then
    return tonumber(string.format(c.format, v))
  end
  return v
end

function M.to_table(r)
  local o = { rule = r.name, description = r.description, spec = r.spec }
  if r.error then o.error = r.error
  elseif r.skipped then o.skipped = r.skipped
  else
    o.verdict = r.verdict
    o.severity = r.severity
    o.advice = r.advice
    o.diagnosis = r.diagnosis -- launch-overhead: "launch-bound" | "queue-bound" | "none" (docs/SEMANTICS.md)
    o.decided_by = r.decided_by
    o.breakdown = r.breakdown -- rules that speak of busy/idle: the devices' time by its parts (gpuflame.gpu_time)
    o.steps = r.steps -- the steps the rows fall in (gpuflame.findings.in_steps), when the capture has steps
    local cols = {}
    for i, c in ipairs(r.columns) do cols[i] = col_name(c) end
    o.columns = core.json.array(cols)
    local rows = {}
    for i, row in ipairs(r.rows) do
      local obj = {}
      for j, c in ipairs(r.columns) do obj[col_name(c)] = json_value(c, row[j]) end
      rows[i] = obj
    end
    o.rows = core.json.array(rows)
    o.total_rows = r.total_rows
  end
  local opts = {}
  for k, v in pairs(r.options or {}) do opts[k] = v end
  o.options = opts
  return o
end

function M.format_json(results, input)
  local list = {}
  for i, r in ipairs(results) do list[i] = M.to_table(r) end
  return core.json.encode({ input = input, findings = core.json.array(list) }) .. "\n"
end

-- ---- reading a findings document --------------------------------------------------------------------

-- read_document(path) → doc: a `findings -f json` document (capture's findings.json), checked so that a
-- reader can rely on its shape: {input?, findings = [{rule, description?, verdict + severity | skipped |
-- error, advice?, diagnosis? (launch-overhead), columns? = [names], rows? = [{column = value}],
-- total_rows?, breakdown? = {definitions, communication, devices = [{device, <part>_ns, <part>_share...}]}]}.
-- A file that is missing,
-- not JSON or not such a document is an INPUT error (exit 6) that names it and what is wrong.
function M.read_document(path)
  local st = core.fs.stat(path)
  if not st then errors.raise(errors.INPUT, "%s: no such findings file", path) end
  if st.type ~= "file" then errors.raise(errors.INPUT, "%s: not a findings file (a %s)", path, st.type) end
  local doc = core.json.decode(core.fs.read(path), path)
  local function bad(fmt, ...)
    errors.raise(errors.INPUT, "%s: not a findings document (`gpuflame findings -f json`, capture's " ..
      "findings.json): " .. fmt, path, ...)
  end
  local function is_list(v)
    if type(v) ~= "table" then return false end
    local n = 0
    for _ in pairs(v) do n = n + 1 end
    return n == #v
  end
  if type(doc) ~= "table" or is_list(doc) and next(doc) ~= nil then bad("the top level must be an object") end
  if not is_list(doc.findings) then bad("no \"findings\" list") end
  if doc.input ~= nil and doc.input ~= core.json.null and type(doc.input) ~= "string" then bad("\"input\" must be a string") end
  for i, f in ipairs(doc.findings) do
    local at = "findings[" .. i .. "]"
    if type(f) ~= "table" or is_list(f) and next(f) ~= nil then bad("%s must be an object", at) end
    if type(f.rule) ~= "string" or f.rule == "" then bad("%s.rule must be a rule name", at) end
    for _, k in ipairs({ "description", "verdict", "severity", "skipped", "error", "advice", "spec", "diagnosis" }) do
      if f[k] ~= nil and f[k] ~= core.json.null and type(f[k]) ~= "string" then bad("%s.%s must be a string", at, k) end
    end
    if type(f.error) ~= "string" and type(f.skipped) ~= "string" and
      (type(f.verdict) ~= "string" or type(f.severity) ~= "string") then
      bad("%s (%s) has neither a verdict and severity, nor skipped, nor error", at, f.rule)
    end
    if f.columns ~= nil then
      if not is_list(f.columns) then bad("%s.columns must be a list", at) end
      for j, c in ipairs(f.columns) do
        if type(c) ~= "string" then bad("%s.columns[%d] must be a string", at, j) end
      end
    end
    if f.rows ~= nil then
      if not is_list(f.rows) then bad("%s.rows must be a list", at) end
      for j, row in ipairs(f.rows) do
        if type(row) ~= "table" or is_list(row) and next(row) ~= nil then bad("%s.rows[%d] must be an object", at, j) end
        for k, v in pairs(row) do
          if type(v) == "table" then bad("%s.rows[%d].%s must be a number, string or null", at, j, tostring(k)) end
        end
      end
    end
    if f.total_rows ~= nil and math.type(f.total_rows) ~= "integer" then bad("%s.total_rows must be an integer", at) end
    if f.breakdown ~= nil then
      local b = f.breakdown
      if type(b) ~= "table" or is_list(b) and next(b) ~= nil or not is_list(b.devices) then
        bad("%s.breakdown must be an object with a \"devices\" list", at)
      end
      local need = { "device", "span_ns", "busy_ns" }
      for _, p in ipairs(gpu_time.PARTS) do need[#need + 1] = p.field end
      for j, d in ipairs(b.devices) do
        if type(d) ~= "table" then bad("%s.breakdown.devices[%d] must be an object", at, j) end
        for _, k in ipairs(need) do
          if math.type(d[k]) ~= "integer" then bad("%s.breakdown.devices[%d].%s must be an integer", at, j, k) end
        end
      end
    end
  end
  return doc
end

-- ---- pages -----------------------------------------------------------------------------------------
-- The timeline and flamegraph pages embed the findings (policy findings.pages) in a {{json:findings}}
-- slot: { input, findings = [ {rule, spec, description, severity, text, advice, rows, total_rows,
-- targets = [...], kernels = [...]} ] } (docs/RULES.md, "On the pages"). severity is the rule's, or
-- "skipped"/"error"; text is the verdict, or why it was skipped or failed. A target is what a click on
-- the finding shows, read from the row's columns by name, so rules on the search path that use the same
-- column names get it too: a time window (Start (ns) + Duration (ns), in the trace's ns as the rows
-- print them), PID, TID, Device ID, Stream ID, and a name (API Name, or a kernel's Name). kernels lists
-- the distinct kernel names the rows name (the flamegraph highlights them). breakdown: a rule that speaks
-- of busy, idle or utilization gives each device's time by its parts (gpuflame.gpu_time); the panel names
-- them under the verdict and links to the definitions, which the document carries as `definitions`
-- ({doc, terms = [[term, text]...]}, docs/SEMANTICS.md).

-- column name → target field; "kernel" columns name kernels
M.TARGET_COLUMNS = { ["Start (ns)"] = "start", ["Duration (ns)"] = "dur", PID = "pid", TID = "tid",
  ["Device ID"] = "device", ["Stream ID"] = "stream", ["API Name"] = "name", Name = "kernel",
  ["Kernel Name"] = "kernel" }

local function page_value(v)
  if v == nil or v == false or v == core.json.null then return nil end
  return v
end

local function targets_of(r)
  local field = {}
  for i, c in ipairs(r.columns) do field[i] = M.TARGET_COLUMNS[col_name(c)] end
  local targets, kernels, seen = {}, {}, {}
  for k, row in ipairs(r.rows) do
    local t = {}
    for i = 1, #r.columns do
      local f = field[i]
      if f then
        local v = page_value(row[i])
        if f == "kernel" then
          if type(v) == "string" then
            t.name = t.name or v
            t.kernel = true
            if not seen[v] then
              seen[v] = true
              kernels[#kernels + 1] = v
            end
          end
        elseif f == "name" then
          if type(v) == "string" then t.name = v end
        elseif math.type(v) == "integer" or (type(v) == "number" and v == math.floor(v)) then
          t[f] = math.tointeger(v)
        end
      end
    end
    if t.start and t.dur then
      t["end"] = t.start + math.max(0, t.dur)
    else
      t.start = nil
    end
    t.dur = nil
    if t.start or t.kernel then
      t.row = k
      targets[#targets + 1] = t
    end
  end
  return targets, kernels
end

-- busy_lines(f) → the "GPU 0 busy …% (compute …%, …), idle …% of … ms" line of each device of a finding's
-- breakdown (a result, or a finding read back), or nil when it has none
function M.busy_lines(f)
  return gpu_time.lines(f.breakdown)
end

-- with_parts(f, text) → text, then the devices' time by its parts when the finding has a breakdown (the
-- report's verdict cells)
function M.with_parts(f, text)
  local lines = M.busy_lines(f)
  if not lines then return text end
  return text .. " — " .. table.concat(lines, "; ") .. " (" .. gpu_time.DEFINITIONS_DOC .. ")"
end

-- page_data(results, input) → the document the pages embed (encode with core.json.encode)
function M.page_data(results, input)
  local list = {}
  for i, r in ipairs(results) do
    local o = { rule = r.name, spec = r.spec or r.name, description = r.description or "" }
    if r.error then
      o.severity, o.text = "error", (tostring(r.error):gsub("%c", " "))
    elseif r.skipped then
      o.severity, o.text = "skipped", (r.skipped:gsub("%c", " "))
    else
      o.severity, o.text, o.advice, o.diagnosis = r.severity, r.verdict, r.advice, r.diagnosis
      o.breakdown = r.breakdown
      o.steps = r.steps and core.json.array(r.steps) or nil
      local lines = M.busy_lines(r)
      if lines then o.busy = core.json.array(lines) end -- the panel's lines, formatted once (gpuflame.gpu_time)
      o.rows = #r.rows
      o.total_rows = r.total_rows or #r.rows
      local targets, kernels = targets_of(r)
      o.targets = core.json.array(targets)
      o.kernels = core.json.array(kernels)
    end
    list[i] = o
  end
  local terms = {}
  for i, t in ipairs(gpu_time.DEFINITIONS) do terms[i] = core.json.array({ t[1], t[2] }) end
  return { input = input, findings = core.json.array(list),
    definitions = { doc = gpu_time.DEFINITIONS_DOC, terms = core.json.array(terms) } }
end

-- the {{json:findings}} slot of a page: the document, or null (no findings panel)
function M.page_slot(doc)
  return { json = doc and core.json.encode(doc) or "null" }
end

return M
