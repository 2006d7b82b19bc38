-- Helpers for Lua tests run by `gpuflame run tests/lua/test_x.lua`.
local t = { failed = 0 }

function t.ok(name) print("ok - " .. name) end
function t.fail(name, why) print("not ok - " .. name .. ": " .. tostring(why)); t.failed = t.failed + 1 end
function t.skip(name, why) print("skip - " .. name .. ": " .. why) end

function t.check(name, cond, why) if cond then t.ok(name) else t.fail(name, why or "condition false") end end

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

function t.eq(name, expected, actual)
  if expected == actual then t.ok(name) else t.fail(name, "expected " .. show(expected) .. ", got " .. show(actual)) end
end

-- Runs fn; a raised error fails the case with its message.
function t.case(name, fn)
  local ok, err = pcall(fn)
  if ok then t.ok(name) else t.fail(name, type(err) == "table" and (err.msg or tostring(err)) or tostring(err)) end
end

-- Expects fn to raise; returns the structured error (or fails).
function t.raises(name, fn, pattern)
  local ok, err = pcall(fn)
  if ok then t.fail(name, "no error raised"); return nil end
  local msg = type(err) == "table" and err.msg or tostring(err)
  if pattern and not msg:find(pattern, 1, true) then
    t.fail(name, "error " .. show(msg) .. " does not contain " .. show(pattern)); return err
  end
  t.ok(name)
  return err
end

function t.fixtures()
  local f = os.getenv("GPUFLAME_FIXTURES")
  if f and f ~= "" then return f end
  return (os.getenv("GF_TOP") or ".") .. "/../shared/fixtures"
end

function t.tmp() return os.getenv("GF_TMP") or "/tmp" end

function t.done() return t.failed == 0 and 0 or 1 end

return t
