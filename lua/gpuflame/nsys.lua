-- nsys as an external program: version parsing, report names by version, command building helpers.
local nsys = {}

-- parse_version(text) → {year, release, patch, build, family = "YYYY.R", raw = line} or nil.
-- Searches (not anchored) for YYYY.R[.P[.B]] after the word "version" (NSYS_FACTS.md §2.1).
function nsys.parse_version(text)
  if type(text) ~= "string" then return nil end
  for line in text:gmatch("[^\r\n]+") do
    local after = line:match("[Vv]ersion%s*(.*)$")
    if after then
      local y, r, rest = after:match("(%d%d%d%d)%.(%d+)(.*)$")
      if y then
        local p, b = rest:match("^%.(%d+)%.(%d+)")
        if not p then p = rest:match("^%.(%d+)") end
        local v = {
          year = tonumber(y), release = tonumber(r), patch = tonumber(p) or 0, build = tonumber(b) or 0,
          raw = (line:gsub("^%s+", ""):gsub("%s+$", "")),
        }
        v.family = string.format("%d.%d", v.year, v.release)
        v.string = string.format("%d.%d.%d.%d", v.year, v.release, v.patch, v.build)
        return v
      end
    end
  end
  return nil
end

-- compare(a, b) → -1, 0, 1 over (year, release, patch, build)
function nsys.compare(a, b)
  for _, k in ipairs({ "year", "release", "patch", "build" }) do
    local x, y = a[k] or 0, b[k] or 0
    if x ~= y then return x < y and -1 or 1 end
  end
  return 0
end

-- Reports were renamed at 2023.1 (NSYS_FACTS.md §4).
local OLD_NAMES = {
  cuda_gpu_kern_sum = "gpukernsum", cuda_api_sum = "cudaapisum", cuda_gpu_trace = "gputrace",
  cuda_api_trace = "cudaapitrace", nvtx_sum = "nvtxsum", nvtx_pushpop_trace = "nvtxpptrace",
  nvtx_pushpop_sum = "nvtxppsum", osrt_sum = "osrtsum", cuda_gpu_mem_time_sum = "gpumemtimesum",
  cuda_gpu_mem_size_sum = "gpumemsizesum", nvtx_kern_sum = "nvtxkernsum", cuda_kern_exec_sum = "kernexecsum",
  cuda_kern_exec_trace = "kernexectrace",
}
nsys.OLD_REPORT_NAMES = OLD_NAMES

function nsys.uses_new_report_names(version)
  if not version then return true end
  return nsys.compare(version, { year = 2023, release = 1 }) >= 0
end

-- report_name("cuda_gpu_kern_sum", version) → the name this nsys knows.
function nsys.report_name(new_name, version)
  if nsys.uses_new_report_names(version) then return new_name end
  return OLD_NAMES[new_name] or new_name
end

-- Canonical (new) name of a report given either spelling.
function nsys.canonical_report(name)
  for new, old in pairs(OLD_NAMES) do
    if name == old then return new end
  end
  return name
end

return nsys
