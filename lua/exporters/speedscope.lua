-- speedscope's file format (https://www.speedscope.app/file-format-schema.json): one sampled profile
-- whose weights are the folded counts.
return {
  name = "speedscope",
  description = "speedscope JSON (sampled profile, weights = counts)",
  accepts = { "stacks" },
  write = function(stacks, out, opts)
    local fp = opts.policy and opts.policy.flamegraph or {}
    local unit = (fp.unit_ns == 1000 and "microseconds") or (fp.unit_ns == 1 and "nanoseconds")
      or (fp.unit_ns == 1000000 and "milliseconds") or "none"
    local name = opts.title or (opts.input and opts.input:match("[^/]+$")) or "gpuflame"
    stacks:write_speedscope(out, { name = name, unit = opts.kind == "stacks" and unit or "none" })
  end,
}
