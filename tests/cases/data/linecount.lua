-- Counts the lines of any input file: a minimal exporter a fleet could drop in.
local core = require("gpuflame.core")
return {
  name = "linecount",
  description = "number of lines in the input",
  accepts = { "path" },
  write = function(path, out)
    local n = 0
    for _ in core.fs.read(path):gmatch("[^\n]*\n") do n = n + 1 end
    core.fs.write_atomic(out, string.format('{"lines": %d}\n', n))
  end,
}
