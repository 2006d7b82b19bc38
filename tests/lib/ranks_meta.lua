-- helper of tests/cli/test_ranks.sh (not a test itself): prints a report's session start (UTC epoch ns)
local m = require("gpuflame.core").trace.sqlite_meta((...), { "RANK" })
io.stdout:write(tostring(m.session_start or "none"))
return 0
