-- The loops of two runs compared (`gpuflame diff`, docs/DIFF.md "The loop"): where both captures have steps
-- (gpuflame.steps), the mean iteration of each (a step's start to the next step's start) split into the steps
-- with their GPU work (the step's range, and its GPU work running on past it) and the time outside both, with
-- the NVTX ranges that fill the gaps, so a diff says whether a run got faster or slower per iteration and in
-- which part, which the GPU time alone does not say (aiprof's optimisation cut its GPU time by 28% while 94% of
-- its loop is data loading between the steps).
local core = require("gpuflame.core")
local need = require("gpuflame.policy").need
local r6 = require("gpuflame.diff_work").r6

local M = {}
local NULL = core.json.null
local array = core.json.array

local function ns(v) return math.floor(v + 0.5) end

-- of(doc) → one side's loop from its steps document (gpuflame.steps.document, or steps.loop's part of one):
-- means over the counted steps that have a next step (the summary's `between`, docs/SEMANTICS.md "Steps"), or
-- nil when none has one
function M.of(doc)
  local s = doc and doc.summary
  local b = s and s.between
  if not b or b == NULL or b.gaps == 0 then return nil end
  local n = b.gaps
  local ranges = array({})
  for _, r in ipairs(b.ranges) do
    ranges[#ranges + 1] = { name = r.name, count = r.count, per_iteration_ns = ns(r.total_ns / n) }
  end
  return {
    steps = s.steps, counted = s.counted, rule = doc.rule_text, iterations = n, loop_ns = b.loop_ns,
    by_marker = doc.rule.kind == "marker", -- not the fallback's repeating range (docs/STEPS.md)
    iteration_ns = ns(b.loop_ns / n), in_steps_ns = ns((b.loop_ns - b.total_ns + b.tail_ns) / n),
    outside_ns = ns((b.total_ns - b.tail_ns) / n), between_ns = ns(b.total_ns / n),
    step_median_ns = s.median_ns, gap_median_ns = b.median_ns, between_share = r6(b.share),
    outside_share = r6(b.outside_share), ranges = ranges,
  }
end

local function rel(before, after) return before > 0 and r6((after - before) / before) or NULL end

-- the ranges in the gaps named on both sides' top lists, per iteration, the largest change first; a name on
-- one list only is not compared (it may lie just below the other side's top)
local function ranges(lb, la)
  local by = {}
  for _, r in ipairs(la.ranges) do by[r.name] = r end
  local out = {}
  for _, r in ipairs(lb.ranges) do
    local x = by[r.name]
    if x then
      out[#out + 1] = { name = r.name, before_ns = r.per_iteration_ns, after_ns = x.per_iteration_ns,
        delta_ns = x.per_iteration_ns - r.per_iteration_ns }
    end
  end
  table.sort(out, function(x, y)
    if math.abs(x.delta_ns) ~= math.abs(y.delta_ns) then return math.abs(x.delta_ns) > math.abs(y.delta_ns) end
    return x.name < y.name
  end)
  return array(out)
end

-- compare(lb, la, policy) → the document's `loop`: both sides, the change of the mean iteration and of its two
-- parts, where most of it is ("steps", "outside", or "none" within policy diff.loop_threshold), and the ranges
-- in the gaps compared; NULL unless both sides have a loop
function M.compare(lb, la, policy)
  local p = need(policy, "diff_loop.compare").diff
  if not lb or not la then return NULL end
  local d = {
    iteration_ns = la.iteration_ns - lb.iteration_ns, in_steps_ns = la.in_steps_ns - lb.in_steps_ns,
    outside_ns = la.outside_ns - lb.outside_ns,
  }
  local change = rel(lb.iteration_ns, la.iteration_ns)
  local where = "none"
  if change ~= NULL and math.abs(change) > p.loop_threshold then
    where = math.abs(d.outside_ns) > math.abs(d.in_steps_ns) and "outside" or "steps"
  end
  return {
    before = lb, after = la, same_rule = lb.rule == la.rule, delta_ns = d,
    change = { iteration = change, in_steps = rel(lb.in_steps_ns, la.in_steps_ns),
      outside = rel(lb.outside_ns, la.outside_ns) },
    where = where, threshold = p.loop_threshold, min_iterations = p.loop_min_iterations, ranges = ranges(lb, la),
  }
end

-- regression(loop) → the default verdict's reason when the mean iteration grew by more than the threshold
-- (steps found by the same marker on both sides: a fallback's repeating range may be no training loop; and
-- enough iterations on each that one slow one is not the mean), else nil; fmt = {ns, pct}
function M.regression(loop, fmt)
  if loop == NULL or not loop.same_rule or not loop.before.by_marker or loop.change.iteration == NULL or
      loop.change.iteration <= loop.threshold or
      math.min(loop.before.iterations, loop.after.iterations) < loop.min_iterations then
    return nil
  end
  return string.format("the loop's mean iteration grew %s (%s → %s), above the %s loop threshold: %s",
    fmt.pct(loop.change.iteration, true), fmt.ns(loop.before.iteration_ns), fmt.ns(loop.after.iteration_ns),
    fmt.pct(loop.threshold), M.parts(loop, fmt))
end

-- "the steps with their GPU work +25.0 µs, outside them +10.000 ms (Data loading +10.000 ms)": the
-- iteration's change by part
function M.parts(loop, fmt)
  local d = loop.delta_ns
  local function signed(v) return (v >= 0 and "+" or "-") .. fmt.ns(math.abs(v)) end
  local r = loop.ranges[1]
  local top = r and string.format(" (%s %s)", r.name, signed(r.delta_ns)) or ""
  return string.format("the steps with their GPU work %s, outside them %s%s", signed(d.in_steps_ns),
    signed(d.outside_ns), top)
end

-- text(loop, fmt) → the lines `diff` prints on stderr about the loops
function M.text(loop, fmt)
  local b, a = loop.before, loop.after
  local lines = {}
  lines[1] = string.format("loop: mean iteration %s → %s (%s, over %d and %d iterations): %s", fmt.ns(b.iteration_ns),
    fmt.ns(a.iteration_ns), loop.change.iteration ~= NULL and fmt.pct(loop.change.iteration, true) or "—",
    b.iterations, a.iterations, M.parts(loop, fmt))
  lines[2] = string.format("loop: between the steps %s → %s of each iteration; median step %s → %s, median gap %s → %s",
    fmt.pct(b.between_share), fmt.pct(a.between_share), fmt.ns(b.step_median_ns), fmt.ns(a.step_median_ns),
    fmt.ns(b.gap_median_ns), fmt.ns(a.gap_median_ns))
  if loop.where ~= "none" then
    lines[3] = string.format("loop: most of the change per iteration is %s",
      loop.where == "outside" and "outside the steps and their GPU work" or "in the steps and their GPU work")
  end
  if loop.where ~= "none" and math.min(b.iterations, a.iterations) < loop.min_iterations then
    lines[#lines + 1] = string.format("loop: too few iterations for the verdict (%d and %d; policy " ..
      "diff.loop_min_iterations %d)", b.iterations, a.iterations, loop.min_iterations)
  end
  if not loop.same_rule then
    lines[#lines + 1] = string.format("loop: the steps were found by different rules (%s; %s): the iterations may " ..
      "not be the same unit", b.rule, a.rule)
  end
  return lines
end

return M
