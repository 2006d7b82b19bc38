-- The self-contained flamegraph page (templates/flamegraph.html), as `gpuflame flamegraph` writes it.
local flamegraph = require("gpuflame.flamegraph")

return {
  name = "html-flamegraph",
  description = "self-contained interactive flamegraph page",
  accepts = { "stacks" },
  write = function(stacks, out, opts, ctx)
    local o = flamegraph.page_options({
      title = opts.title, subtitle = opts.input and opts.input:match("[^/]+$"),
      stacks_countname = flamegraph.countname_of(stacks),
    }, ctx.policy())
    flamegraph.render(stacks, out, o)
  end,
}
