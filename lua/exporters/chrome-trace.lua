-- Chrome Trace Event JSON (opens in Perfetto and chrome://tracing): one track per timeline lane, X events
-- in µs (ns kept as fractional µs), launch → GPU work flow events in Kineto's ac2g shape
-- ("ph":"s"/"f", "cat":"ac2g", "id" = correlation id, "bp":"e"), args.correlation on every linked event.
-- From one SQLite export, the NVTX ranges projected onto the GPU (policy timeline.nvtx_projection): one X
-- event per nvtx_gpu_proj_trace row, "cat":"nvtx_gpu_proj", args.range_id its RangeId, under its device.
return {
  name = "chrome-trace",
  description = "Chrome Trace Event JSON for Perfetto / chrome://tracing",
  accepts = { "trace" },
  write = function(tr, out, opts, ctx)
    if ctx and opts and opts.inputs then
      require("gpuflame.trace").add_nvtx_proj(tr, opts.inputs, opts.max_events or 0, ctx.policy())
    end
    tr:write_chrome_trace(out)
  end,
}
