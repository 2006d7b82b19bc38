-- Folded stacks (flamegraph.pl / inferno / speedscope): "frame;frame;leaf COUNT" per line.
return {
  name = "folded",
  description = "folded stacks (flamegraph.pl, inferno, speedscope)",
  accepts = { "stacks" },
  write = function(stacks, out, _, ctx)
    stacks:write_folded(out, { meta = ctx.policy().flamegraph.folded_metadata })
  end,
}
