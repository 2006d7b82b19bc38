-- Folded stacks (flamegraph.pl / inferno / speedscope): "frame;frame;leaf COUNT" per line.
return {
  name = "folded",
  description = "folded stacks (flamegraph.pl, inferno, speedscope)",
  accepts = { "stacks" },
  write = function(stacks, out, opts)
    stacks:write_folded(out, { meta = opts.policy.flamegraph.folded_metadata })
  end,
}
