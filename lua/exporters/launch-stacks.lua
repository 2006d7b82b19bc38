-- Folded launch stacks: the CPU frames of each launch backtrace root first, then the kernel as a leaf
-- marked _[G] (iaprof convention); weight = summed GPU time in ns (the API call's own duration when it
-- launched no GPU work). flamegraph.pl, inferno and speedscope read it. Empty when the capture has no
-- backtraces (capture with --stacks).
return {
  name = "launch-stacks",
  description = "folded launch backtraces weighted by GPU ns (kernel leaf _[G])",
  accepts = { "trace" },
  write = function(tr, out)
    tr:write_launch_folded(out)
  end,
}
