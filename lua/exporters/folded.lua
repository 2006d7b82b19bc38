-- Folded stacks (flamegraph.pl / inferno / speedscope): "frame;frame;leaf COUNT" per line, nothing else;
-- the metadata (policy flamegraph.folded_metadata) in the sidecar OUT.json (gpuflame.sidecar).
return {
  name = "folded",
  description = "folded stacks (flamegraph.pl, inferno, speedscope)",
  accepts = { "stacks" },
  write = function(stacks, out, _, ctx)
    stacks:write_folded(out, { meta = false })
    require("gpuflame.sidecar").write(out, ctx.policy().flamegraph.folded_metadata and stacks:meta() or nil)
  end,
}
