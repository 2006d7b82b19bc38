-- gpuflame's cuda-graphs rule (docs/RULES.md): CUDA graph launches (cudaGraphLaunch*/cuGraphLaunch*)
-- and the GPU work they ran, per graph. When graphs were traced as whole graphs (nsys
-- --cuda-graph-trace=graph) or their kernels are missing, per-kernel views are collapsed: say so.
local kit = require("gpuflame.rulekit")

return {
  name = "cuda-graphs",
  description = "CUDA graphs: graph launches, the kernels they ran, and whether per-kernel views see them",
  options = { rows = 50, launch_names = { "cudaGraphLaunch%", "cuGraphLaunch%" } },
  run = function(model, opts)
    local win, why = model:window(opts)
    if why then return { skipped = why } end
    local graphs, s = model:graphs(win, { like = opts.launch_names })
    local rows = {}
    for i, g in ipairs(graphs) do
      if opts.rows >= 0 and i > opts.rows then break end
      rows[i] = { g.graph >= 0 and g.graph or false, g.launches, g.kernels, g.kernel_total, g.execs, g.exec_total }
    end
    local verdict, severity
    if s.calls == 0 and s.node_kernels == 0 and s.execs == 0 then
      verdict, severity = "No CUDA graph launches.", "ok"
    elseif s.collapsed then
      verdict = string.format("%s; per-kernel views are collapsed: %s", kit.plural(s.calls, "graph launch call"),
        s.execs > 0 and string.format("graphs were traced as whole graphs (%s, %s on the GPU), so top-kernels, " ..
          "launch-overhead and the kernel flamegraph do not see the kernels inside (capture with " ..
          "--cuda-graph-trace=node)", kit.plural(s.execs, "graph range"), kit.dur(s.exec_total))
        or "no kernel of these launches is in the trace (capture with --cuda-graph-trace=node)")
      severity = "warning"
    else
      verdict = string.format("%s ran %s (%s, %.1f%% of kernel time); per-kernel views include them",
        kit.plural(s.calls, "graph launch call"), kit.plural(math.max(s.node_kernels, s.launched_kernels), "kernel"),
        kit.dur(s.node_kernel_total), kit.pct(s.node_kernel_total, s.kernel_total))
      severity = "info"
    end
    return {
      columns = { "Graph ID", "Launches", "Kernels", "Kernel Time (ns)", "Graph Ranges", "Graph Range Time (ns)" },
      rows = rows,
      total_rows = #graphs,
      verdict = verdict,
      severity = severity,
      summary = s,
    }
  end,
}
