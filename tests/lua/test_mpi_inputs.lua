-- gpuflame.mpi without MPI (the default build): --local PATTERN substitution (%q{VAR}, %%, errors naming
-- the variable), the input list and owners (all rank 0 here), and the exact Lua values ranks exchange.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local mpi = require("gpuflame.mpi")
local errors = require("gpuflame.errors")

local env = { SLURM_PROCID = "17", HOST = "n%1" }
local function getenv(k) return env[k] end
t.eq("%q{VAR} replaced", "/scratch/17/report.nsys-rep", mpi.substitute("/scratch/%q{SLURM_PROCID}/report.nsys-rep", getenv))
t.eq("%% is a %, and a value's % stays", "/d/50%/n%1/17", mpi.substitute("/d/50%%/%q{HOST}/%q{SLURM_PROCID}", getenv))
local ok, e = pcall(mpi.substitute, "/x/%q{NOT_SET}", getenv)
t.check("an unset variable is an error", not ok)
t.eq("…a usage error naming it", errors.USAGE, errors.wrap(e).code)
t.check("…naming it", errors.wrap(e).msg:find("NOT_SET is not set", 1, true) ~= nil)
ok, e = pcall(mpi.substitute, "/x/%d", getenv)
t.eq("another % is a usage error", errors.USAGE, not ok and errors.wrap(e).code)

t.eq("outside MPI: one rank", 0, mpi.world().rank)
t.eq("outside MPI: size 1", 1, mpi.world().size)
t.check("outside MPI: not active", not mpi.active())
local paths, owner = mpi.inputs(function(l) return l end, { "a.sqlite", "b.sqlite" })
t.eq("inputs: the positional ones", "a.sqlite b.sqlite", table.concat(paths, " "))
t.eq("inputs: all owned by rank 0", "0 0", owner[1] .. " " .. owner[2])

local v = mpi.unpack(mpi.pack({ big = 1769308002162486533, f = 0.1, s = "a\0b\n\"", list = { 1, 2, 3 },
  nested = { [7] = true, x = false }, min = math.mininteger, inf = math.huge }))
t.eq("64-bit integers exactly", 1769308002162486533, v.big)
t.eq("…as integers", "integer", math.type(v.big))
t.eq("floats exactly", 0.1, v.f)
t.eq("strings with NUL and quotes", "a\0b\n\"", v.s)
t.eq("lists", "1,2,3", table.concat(v.list, ","))
t.eq("nested tables, booleans", "true false", tostring(v.nested[7]) .. " " .. tostring(v.nested.x))
t.eq("mininteger", math.mininteger, v.min)
t.eq("inf", math.huge, v.inf)
return t.done()
