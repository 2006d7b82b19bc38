-- Chrome Trace Event JSON (opens in Perfetto and chrome://tracing): one track per timeline lane, X events
-- in µs (ns kept as fractional µs), launch → GPU work flow events in Kineto's ac2g shape
-- ("ph":"s"/"f", "cat":"ac2g", "id" = correlation id, "bp":"e"), args.correlation on every linked event.
return {
  name = "chrome-trace",
  description = "Chrome Trace Event JSON for Perfetto / chrome://tracing",
  accepts = { "trace" },
  write = function(tr, out)
    tr:write_chrome_trace(out)
  end,
}
