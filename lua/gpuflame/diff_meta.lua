-- What the captures' metadata says about a diff's fairness (gpuflame.diff, docs/DIFF.md "Capture metadata and fairness"): the
-- metadata as the JSON shows it, and the caveats drawn from it (GPU models, the recording nsys, drivers,
-- capture lengths, one step against a whole capture, command lines, hosts).
local core = require("gpuflame.core")

local M = {}

local NULL = core.json.null
local array = core.json.array

-- view(side) → the side's metadata as `diff --json` shows it
function M.view(side)
  local m = side.meta or {}
  return {
    nsys_version = m.nsys_version or NULL,
    recorded_version = m.recorded_version or NULL,
    schema_version = m.schema_version or NULL,
    gpus = m.gpus and array(m.gpus) or NULL,
    driver = m.driver or NULL,
    cuda_driver = m.cuda_driver or NULL,
    os = m.os or NULL,
    cpu = m.cpu or NULL,
    host_hash = m.host_hash and ("sha256:" .. m.host_hash:sub(1, 16)) or NULL,
    command_hash = m.command_hash and ("sha256:" .. m.command_hash:sub(1, 16)) or NULL,
    duration_ns = m.duration_ns or NULL,
    start_utc = m.start_utc or NULL,
    launch_backtraces = (function() if side.meta then return m.callchains == true end return NULL end)(),
  }
end

-- gpu_models(gpus) → the capture's GPU models (the names without a leading "NVIDIA ": nsys 2021 recorded
-- "A100-SXM4-40GB" where 2022 records "NVIDIA A100-SXM4-40GB"), each once, sorted and joined, and the names as
-- recorded with their counts ("4 × NVIDIA A100-SXM4-40GB"); nil, nil without any
local function gpu_models(gpus)
  if not gpus or #gpus == 0 then return nil, nil end
  local count, order = {}, {}
  for _, g in ipairs(gpus) do
    if not count[g] then order[#order + 1] = g end
    count[g] = (count[g] or 0) + 1
  end
  local models, seen, text = {}, {}, {}
  for _, g in ipairs(order) do
    local m = g:gsub("^[Nn][Vv][Ii][Dd][Ii][Aa]%s+", "")
    if not seen[m] then seen[m] = true; models[#models + 1] = m end
    text[#text + 1] = count[g] > 1 and string.format("%d × %s", count[g], g) or g
  end
  table.sort(models)
  return table.concat(models, "\n"), table.concat(text, ", ")
end

-- caveats(b, a, add, fmt, policy): add(field, before, after, message) for each difference in the two sides'
-- metadata (b.meta and a.meta both present); fmt.ns and fmt.pct format durations and shares
function M.caveats(b, a, add, fmt, policy)
  local mb, ma = b.meta, a.meta
  -- the models, not how many GPUs the hosts had: kernel times compare across a 4-GPU and a 1-GPU node
  local kb, gb = gpu_models(mb.gpus)
  local ka, ga = gpu_models(ma.gpus)
  if kb ~= ka then
    add("gpus", gb, ga, string.format("Different GPUs: BEFORE ran on %s, AFTER on %s. Kernel times are not " ..
      "comparable across GPU models.", gb or "an unrecorded GPU", ga or "an unrecorded GPU"))
  end
  -- the recording nsys (its install path), else the exporting one unless the export was made here from
  -- an .nsys-rep (then it is the local nsys, which says nothing about the capture)
  local function recorder(side, m)
    local v = m.recorded_version or (not side.from_rep and m.nsys_version) or nil
    return v and (v:match("^(%d+%.%d+%.%d+)") or v) or nil
  end
  local vb, va = recorder(b, mb), recorder(a, ma)
  if vb ~= va then
    if vb and va then
      add("nsys_version", vb, va, string.format("Captured with different Nsight Systems versions (%s vs %s): " ..
        "tracing overhead and what is recorded can differ.", vb, va))
    else
      add("nsys_version", vb, va, string.format("The Nsight Systems version that recorded %s is unknown " ..
        "(exported here from a report without its install path): the versions cannot be compared.",
        vb and "AFTER" or "BEFORE"))
    end
  end
  if mb.driver ~= ma.driver or mb.cuda_driver ~= ma.cuda_driver then
    add("driver", (mb.driver or "?") .. " / CUDA " .. (mb.cuda_driver or "?"),
      (ma.driver or "?") .. " / CUDA " .. (ma.cuda_driver or "?"),
      "Different GPU drivers: kernel scheduling and library code paths can differ.")
  end
  local db, da = mb.duration_ns, ma.duration_ns
  local tol = policy.diff.duration_tolerance
  if b.step and a.step then
    db, da = nil, nil -- one step of each: the captures' lengths do not matter
  end
  if db and da and db > 0 and da > 0 and math.abs(da - db) / math.max(da, db) > tol then
    local advice = b.steps_found and a.steps_found and string.format(" Both captures have steps (%d and %d): " ..
      "--step median compares one step of each%s.", b.steps_found, a.steps_found,
      b.loop and a.loop and ", and the loop comparison is per iteration" or "") or ""
    add("duration_ns", db, da, string.format("Different capture lengths (%s vs %s, %s): absolute totals " ..
      "compare different amounts of work; the page's normalised view (share of total GPU time) is fairer.%s",
      fmt.ns(db), fmt.ns(da), fmt.pct((da - db) / db, true), advice))
  elseif (db == nil) ~= (da == nil) then
    add("duration_ns", db, da, "Only one export records its capture length.")
  end
  if (b.step == nil) ~= (a.step == nil) then
    add("step", b.step and b.step.name or NULL, a.step and a.step.name or NULL,
      "One side is one step, the other the whole capture.")
  end
  -- one step of each: what the steps leave out of the loop is not compared (docs/SEMANTICS.md "Steps")
  local bb, ba = b.step and b.step.between, a.step and a.step.between
  local tb, ta = type(bb) == "table" and bb or nil, type(ba) == "table" and ba or nil
  if (tb and tb.mostly_between) or (ta and ta.mostly_between) then
    local function share(x) return x and fmt.pct(x.outside_share) or "?" end
    local function fill(x) return x and x.ranges[1] and x.ranges[1].name or nil end
    local what = fill(tb) or fill(ta)
    add("between_steps", tb and tb.outside_share or NULL, ta and ta.outside_share or NULL, string.format(
      "The steps leave out most of the loop (%s of BEFORE's and %s of AFTER's lie outside the steps and their GPU " ..
      "work%s): one step of each compares none of that time; `gpuflame steps` measures it.", share(tb), share(ta),
      what and (", in the gaps: " .. what) or ""))
  end
  if mb.command_hash ~= ma.command_hash then
    add("command_hash", mb.command_hash and ("sha256:" .. mb.command_hash:sub(1, 16)),
      ma.command_hash and ("sha256:" .. ma.command_hash:sub(1, 16)),
      "The profiled command lines differ (compared by hash; the command lines themselves are not shown): " ..
      "different arguments or inputs can explain the change.")
  end
  if mb.host_hash ~= ma.host_hash then
    add("host_hash", mb.host_hash and ("sha256:" .. mb.host_hash:sub(1, 16)),
      ma.host_hash and ("sha256:" .. ma.host_hash:sub(1, 16)), "The captures come from different hosts.")
  end
end

return M
