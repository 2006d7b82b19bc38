-- Lua bindings of the CSV reader (core.csv), the renderer (core.render) and the column alias tables.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local core = require("gpuflame.core")
local columns = require("gpuflame.columns")
local P = require("gpuflame.policy").effective({}) -- the column lookups take the effective policy

local tmp = t.tmp()
local function write(name, text)
  local p = tmp .. "/" .. name
  local f = assert(io.open(p, "wb")); f:write(text); f:close()
  return p
end

-- old (2020.x) kernel summary header: no "(ns)" on Average, Time(%) without a space
local p = write("old.csv", "Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name\n" ..
  "60.0,300,3,100.0,90,110,\"k<float>, x\"\n")
local r = core.csv.open(p)
t.eq("columns", "Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name", table.concat(r:columns(), ","))
local idx = columns.find_all(r, "cuda_gpu_kern_sum", { "name", "total" }, nil, P)
t.eq("name column by alias", 7, idx.name)
t.eq("total column by alias", 2, idx.total)
t.check("next", r:next())
t.eq("field", "k<float>, x", r:field(idx.name))
t.eq("int", 300, r:int(idx.total))
t.eq("num", 60.0, r:num(1))
t.eq("line", 2, r:line())
t.check("eof", not r:next())
r:close()

-- weight fallbacks (§6.5): a header containing total+ns, then one containing time
r = core.csv.open(write("w.csv", "Kernel,Elapsed time,GPU total ns\nk,1,2\n"))
t.eq("total+ns fallback", 3, columns.find(r, "cuda_gpu_kern_sum", "total", nil, P))
t.eq("exact name wins over last", 1, columns.find(r, "cuda_gpu_kern_sum", "name", nil, P))
r:close()
r = core.csv.open(write("w2.csv", "a,Elapsed time,b\nk,1,2\n"))
t.eq("time fallback", 2, columns.find(r, "cuda_gpu_kern_sum", "total", nil, P))
t.eq("name falls back to the last column", 3, columns.find(r, "cuda_gpu_kern_sum", "name", nil, P))
r:close()

r = core.csv.open(write("missing.csv", "Start (ns),Name\n1,a\n"))
t.raises("missing required column names report, file and columns", function()
  columns.find(r, "cuda_gpu_trace", "duration", nil, P)
end, "missing.csv: cuda_gpu_trace report has no duration column (looked for 'Duration (ns)', 'Duration', " ..
  "a name containing 'duration'; the file has: Start (ns), Name)")
t.eq("policy override wins", 2, columns.find(r, "cuda_gpu_trace", "duration", nil,
  { columns = { cuda_gpu_trace = { duration = { exact = { "Name" } } } } }))
t.raises("columns.find without the effective policy is an error", function()
  columns.find(r, "cuda_gpu_trace", "name")
end, "columns.spec: internal error: called without the effective policy")
r:close()

r = core.csv.open(write("bad.csv", "x,y\n1,abc\n"))
r:next()
local e = t.raises("bad integer", function() r:int(2) end, "bad.csv:2:2 (column 'y'): invalid integer 'abc'")
t.eq("bad integer code", 6, e and e.code)
r:close()
r = core.csv.open(write("blank.csv", "x,y\n1, \n"))
r:next()
t.eq("optional blank int is nil", nil, r:int(2, true))
t.raises("required blank int raises", function() r:int(2) end, "blank.csv:2:2 (column 'y'): invalid integer ''")
r:close()

local fx = t.fixtures() .. "/real/vernier/nsys_stats_cuda_api_sum.out"
if io.open(fx) then
  r = core.csv.open(fx, { skip_preamble = true, header_hint = "Name" })
  local n = 0
  while r:next() do n = n + 1 end
  t.eq("preamble skipped in real stdout", 8, n)
  r:close()
else
  t.skip("preamble skipped in real stdout", "fixtures absent")
end

-- renderer
local tmpl = "<title>{{title}}</title><script>const D={{json:data}}, T={{json:title}};</script>"
local s = core.render.render_string(tmpl, { title = "</script>&", data = { json = '{"a":"<b>"}' } }, "x.html")
t.eq("render_string", '<title>&lt;/script&gt;&amp;</title><script>const D={"a":"\\u003cb\\u003e"}, ' ..
  'T="\\u003c/script\\u003e\\u0026";</script>', s)
local out = tmp .. "/r.html"
core.render.render(tmpl, { title = "x", data = { json = "[1]" } }, out, "x.html")
local f = io.open(out); local got = f:read("a"); f:close()
t.eq("render to file", '<title>x</title><script>const D=[1], T="x";</script>', got)
t.raises("missing slot", function() core.render.render(tmpl, { title = "x" }, tmp .. "/m.html", "x.html") end,
  "template x.html:1: slot 'data' was not given")
t.check("missing slot leaves no file", io.open(tmp .. "/m.html") == nil)
t.eq("escape_html", "&lt;a href=&quot;x&quot;&gt;", core.render.escape_html('<a href="x">'))
return t.done()
