-- Folded stacks (flamegraph.pl / inferno / speedscope): "frame;frame;leaf COUNT" per line.
return {
  name = "folded",
  description = "folded stacks (flamegraph.pl, inferno, speedscope)",
  accepts = { "stacks" },
  write = function(stacks, out, opts)
    local meta = opts.policy and opts.policy.flamegraph and opts.policy.flamegraph.folded_metadata
    stacks:write_folded(out, { meta = meta == true })
  end,
}
