-- gpuflame's launch-overhead rule (docs/RULES.md): per kernel name, the launch call's time and the
-- queue delay (kernel start - launch call end); a "storm" is a name with at least min_kernels kernels
-- whose launch calls take longer in all than the kernels themselves: the GPU waits on the CPU.
local kit = require("gpuflame.rulekit")

return {
  name = "launch-overhead",
  description = "Launch overhead per kernel name: launch call time, queue delay, storms of tiny kernels",
  options = { rows = 20, min_kernels = 100 },
  run = function(model, opts)
    local skip = kit.need(model, { "kernel" })
    if skip then return { skipped = skip } end
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local names, sum = model:launches(win, opts.min_kernels, opts.rows)
    local rows = {}
    for i, r in ipairs(names) do
      rows[i] = { r.kernels, r.launched, r.api_total, r.launched > 0 and r.api_total // r.launched or false,
        r.kernel_total, r.kernel_total // r.kernels, r.launched > 0 and r.delay_total // r.launched or false,
        r.launched > 0 and r.delay_max or false, r.tiny, r.storm and "storm" or "", r.name }
    end
    local verdict, severity
    if sum.kernels == 0 then
      verdict, severity = "No kernels.", "ok"
    elseif sum.launched == 0 then
      verdict, severity = string.format("%s, none with its launch call in the trace (no CUDA API trace?)",
        kit.plural(sum.kernels, "kernel")), "info"
    elseif sum.storms > 0 then
      local first = sum.storm_names[1]
      local r1
      for _, r in ipairs(names) do if r.name == first then r1 = r end end
      verdict = string.format("%s of tiny kernels: launch calls take longer than the kernels%s; %s",
        kit.plural(sum.storms, "launch storm"),
        r1 and string.format(" (%s: %d kernels of %s mean, launched by calls of %s mean)", first:sub(1, 60),
          r1.kernels, kit.dur(r1.kernel_total // r1.kernels), kit.dur(r1.api_total // math.max(1, r1.launched))) or "",
        string.format("all launch calls %s vs kernels %s", kit.dur(sum.api_total), kit.dur(sum.kernel_total)))
      severity = "warning"
    else
      verdict = string.format("No launch storms: %s launched by calls of %s in all (kernels %s, %d shorter than " ..
        "their launch call)", kit.plural(sum.launched, "kernel"), kit.dur(sum.api_total), kit.dur(sum.kernel_total),
        sum.tiny)
      severity = "info"
    end
    return {
      columns = { "Kernels", "Launched", "Launch Total (ns)", "Launch Mean (ns)", "Kernel Total (ns)",
        "Kernel Mean (ns)", "Queue Mean (ns)", "Queue Max (ns)", "Shorter Than Launch", "Storm", "Name" },
      rows = rows,
      total_rows = sum.names,
      verdict = verdict,
      severity = severity,
      advice = "Fuse small kernels, batch work per launch, or capture the sequence in a CUDA graph.",
    }
  end,
}
