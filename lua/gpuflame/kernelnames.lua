-- Kernel-name normalisers for `gpuflame diff` (policy diff.normalize_name). gpuflame matches kernels
-- across two captures by their demangled name exactly; a policy that wants looser matching picks any of
-- these (policy files may require gpuflame.* modules):
--
--   local kn = require("gpuflame.kernelnames")
--   return { extends = "default", diff = { normalize_name = kn.standard } }
--
-- Each function takes a name and returns the normalised name (never empty: the input when nothing is left).
local K = {}

local function nonempty(s, orig)
  if s == nil or not s:match("%S") then return orig end
  return s
end

local OPERATORS = { "<=>", "<<=", ">>=", "<<", ">>", "<=", ">=", "->", "<", ">" }

-- Template arguments dropped, brackets kept: "void k<float, 128>(float*)" → "void k<>(float*)".
-- Nested brackets are handled; "operator<", "operator<<", "operator<=", "operator->" are left alone.
function K.strip_template_args(name)
  local out, depth, i, n = {}, 0, 1, #name
  while i <= n do
    local c = name:sub(i, i)
    local word
    if depth == 0 then
      local ws = name:match("^operator%s*", i)
      if ws then
        for _, op in ipairs(OPERATORS) do
          if name:sub(i + #ws, i + #ws + #op - 1) == op then word = ws .. op; break end
        end
      end
    end
    if word then
      out[#out + 1] = word
      i = i + #word
    elseif c == "<" then
      if depth == 0 then out[#out + 1] = "<" end
      depth = depth + 1
      i = i + 1
    elseif c == ">" and depth > 0 then
      depth = depth - 1
      if depth == 0 then out[#out + 1] = ">" end
      i = i + 1
    else
      if depth == 0 then out[#out + 1] = c end
      i = i + 1
    end
  end
  if depth ~= 0 then return name end -- unbalanced: leave it as it was
  return nonempty(table.concat(out), name)
end

-- A trailing "_<N>" on the kernel's own name (generated kernels: "fusion_12", "triton_poi_fused_add_0",
-- "kernel_3(float*)", "fusion_7<>(float*)" after strip_template_args), repeated ("fused_1_2" → "fused").
function K.strip_numeric_suffix(name)
  local base, rest = name:match("^(.-)(%(.*)$")
  if not base then base, rest = name, "" end
  local prev
  repeat
    prev = base
    base = base:gsub("_%d+$", ""):gsub("_%d+(<[^<>]*>)$", "%1")
  until base == prev
  return nonempty(base .. rest, name)
end

-- "(anonymous namespace)::" and "`anonymous namespace'::" removed (they differ per translation unit).
function K.strip_anonymous_namespace(name)
  local s = name:gsub("%(anonymous namespace%)::", ""):gsub("`anonymous namespace'::", "")
  return nonempty(s, name)
end

-- The parameter list dropped: "void k<int>(float*, int)" → "void k<int>".
function K.strip_arguments(name)
  local s = name:match("^(.-)%(") -- up to the first '('
  if s and s:match("%S") and not s:match("operator$") then return s end
  return name
end

-- strip_anonymous_namespace, then strip_template_args, then strip_numeric_suffix.
function K.standard(name)
  return K.strip_numeric_suffix(K.strip_template_args(K.strip_anonymous_namespace(name)))
end

return K
