-- gpuflame findings: the findings rules over a capture, as text, CSV, JSON or Markdown, or the list of rules;
-- the usage is in the spec below.
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local findings = require("gpuflame.findings")
local fformat = require("gpuflame.findings.format")
local fdoc = require("gpuflame.findings.document")
local trace = require("gpuflame.trace")

local cmd = {}

cmd.spec = {
  usage = "findings INPUT [-r RULE[:key=value...]]... [-f text|csv|json|md] [-o BASE] | findings --list",
  summary = "expert rules over a capture: NVIDIA's nsys analyze rules and gpuflame's own (docs/RULES.md)",
  description = "INPUT is an nsys SQLite export, an .nsys-rep (exported through nsys) or trace CSVs.\n" ..
    "-r takes nsys analyze's syntax: RULE[:key=value...][,RULE...] (repeatable); without -r the rules of\n" ..
    "the policy's findings.rules run. Every rule takes rows=, start=, end= (ns) and nvtx=RANGE[@DOMAIN];\n" ..
    "`findings --list` shows the rules and their options. A rule is rules/NAME.lua on the search path\n" ..
    "(GPUFLAME_PATH, ~/.config/gpuflame, /etc/gpuflame, then the bundle). With -o BASE each rule's CSV\n" ..
    "goes to BASE_RULE.csv (json: BASE.json, md: BASE.md). -f csv is pure CSV (header + rows): on stdout for\n" ..
    "one rule only (several need -o BASE); each rule's verdict goes to stderr as `gpuflame: [RULE] VERDICT`.\n" ..
    "Exit 1 when a rule failed (the others run).",
  options = {
    { "rule", short = "r", arg = "RULE[:k=v]", multi = true, help = "rule(s) to run, with options" },
    { "format", short = "f", arg = "FORMAT", choices = { "text", "csv", "json", "md" },
      help = "output format (default text)" },
    { "out", short = "o", arg = "BASE", help = "write files instead of stdout" },
    { "list", help = "list the rules found on the search path" },
    { "nsys", arg = "PATH", help = "nsys used to export an .nsys-rep" },
  },
  examples = {
    "gpuflame findings capture/trace.sqlite",
    "gpuflame findings report.nsys-rep -r gpu-starv:gap=100 -r cuda-sync-api:rows=10 -f csv -o out/findings",
    "gpuflame findings trace.sqlite -r gpu-low-util:nvtx=train_step:threshold=30 -f md -o out/findings",
  },
}

local function list_rules()
  for _, r in ipairs(findings.list()) do
    if r.broken then
      io.stdout:write(string.format("  %-20s (broken: %s)\n", r.name, r.broken))
    else
      local rule = findings.load(r.name)
      local opts = {}
      for k, v in pairs(rule.options) do
        opts[#opts + 1] = k .. "=" .. (type(v) == "table" and table.concat(v, ";") or tostring(v))
      end
      table.sort(opts)
      io.stdout:write(string.format("  %-20s %s\n  %-20s options: %s%s\n", r.name, r.description, "",
        table.concat(opts, " "), r.origin:match("^embedded:") and "" or ("  [" .. r.origin .. "]")))
    end
  end
  return 0
end

function cmd.run(opts, ctx)
  if opts.list then return list_rules() end
  local inputs = opts.positional
  if not inputs or #inputs == 0 then errors.raise(errors.USAGE, "findings needs an INPUT (see findings --help)") end
  local pol = ctx.policy()
  local specs = findings.parse_specs(opts.rule)
  -- every rule and option is checked before the input is read
  local plan = findings.plan(specs, pol)
  local tr = trace.load(inputs, { max_events = 0, nsys = opts.nsys }, pol)
  local source = #inputs == 1 and findings.source_name(inputs[1]) or tr:source()
  local results = findings.analyze(tr, source, specs, plan, true, pol) -- nothing else reads tr meanwhile
  local fmt = opts.format or "text"
  if fmt == "csv" and not opts.out and #results > 1 then
    errors.raise(errors.USAGE, "-f csv of %d rules needs -o BASE (one BASE_RULE.csv each): a CSV on stdout is one " ..
      "rule's header and rows (give one -r RULE)", #results)
  end
  local failed = 0
  for _, r in ipairs(results) do
    if r.error then
      failed = failed + 1
      io.stderr:write(string.format("gpuflame: rule %s failed: %s\n", r.name, r.error))
    end
  end
  if fmt == "csv" then -- the verdicts beside the CSV, never in it
    for _, r in ipairs(results) do
      io.stderr:write("gpuflame: [", r.spec, "] ", (fformat.status_line(r):gsub("\n", " ")), "\n")
    end
  end
  if opts.out then
    if fmt == "csv" then
      for _, r in ipairs(results) do
        local path = opts.out .. "_" .. r.spec:gsub("[^%w%-_=.]", "_") .. ".csv"
        core.fs.write_atomic(path, fformat.csv(r))
      end
    else
      local text = fmt == "json" and fdoc.format_json(results, inputs[1]) or fmt == "md" and
        fformat.format_md(results, inputs[1]) or fformat.format_text(results)
      core.fs.write_atomic(opts.out .. "." .. (fmt == "text" and "txt" or fmt), text)
    end
  else
    local text
    if fmt == "csv" then text = fformat.csv(results[1])
    elseif fmt == "json" then text = fdoc.format_json(results, inputs[1])
    elseif fmt == "md" then text = fformat.format_md(results, inputs[1])
    else text = fformat.format_text(results, 20) end
    io.stdout:write(text)
  end
  return failed > 0 and errors.ERROR or 0
end

return cmd
