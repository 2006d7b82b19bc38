-- Shell-like word splitting without a shell, compatible with Python's shlex.split(s) (POSIX mode,
-- no comments): whitespace separates words; '...' is literal; "..." keeps everything literal except
-- \" and \\ (and \$ \` \newline are kept with their backslash, as Python does); outside quotes a
-- backslash escapes the next character; adjacent parts join into one word ("a"'b'c → abc).
-- The reference agent splits nsys_workload this way (docs/spec/STUDIO.md §5.2, §6.2).
local shlex = {}

local WS = { [" "] = true, ["\t"] = true, ["\n"] = true, ["\r"] = true, ["\f"] = true, ["\v"] = true }

-- split(s) → list of words, or nil and an error message ("No closing quotation", "No escaped character").
function shlex.split(s)
  if type(s) ~= "string" then return nil, "workload must be a string" end
  local words, cur, have = {}, {}, false
  local i, n = 1, #s
  local state = "ws" -- ws | word | single | double
  while i <= n do
    local c = s:sub(i, i)
    if state == "single" then
      if c == "'" then state = "word" else cur[#cur + 1] = c end
    elseif state == "double" then
      if c == '"' then
        state = "word"
      elseif c == "\\" then
        if i == n then return nil, "No escaped character" end
        local d = s:sub(i + 1, i + 1)
        if d == '"' or d == "\\" then cur[#cur + 1] = d else cur[#cur + 1] = "\\" .. d end
        i = i + 1
      else
        cur[#cur + 1] = c
      end
    else
      if WS[c] then
        if have then
          words[#words + 1] = table.concat(cur)
          cur, have = {}, false
        end
        state = "ws"
      elseif c == "'" then
        state, have = "single", true
      elseif c == '"' then
        state, have = "double", true
      elseif c == "\\" then
        if i == n then return nil, "No escaped character" end
        cur[#cur + 1] = s:sub(i + 1, i + 1)
        have = true
        i = i + 1
      else
        cur[#cur + 1] = c
        have = true
        state = "word"
      end
    end
    i = i + 1
  end
  if state == "single" or state == "double" then return nil, "No closing quotation" end
  if have then words[#words + 1] = table.concat(cur) end
  return words
end

-- quote(word) → a string that split() turns back into the same word (like shlex.quote).
function shlex.quote(w)
  if w == "" then return "''" end
  if not w:find("[^%w@%%+=:,./%-_]") then return w end
  return "'" .. w:gsub("'", "'\"'\"'") .. "'"
end

function shlex.join(words)
  local out = {}
  for i, w in ipairs(words) do out[i] = shlex.quote(w) end
  return table.concat(out, " ")
end

return shlex
