-- Stragglers above noise (issue 41; docs/SEMANTICS.md "Stragglers and the noise floor"): a rank lags the
-- others by its value (compute time, over the run or in one iteration) minus the median of the OTHER ranks'.
-- The lag counts only when it is above every part of the noise floor:
--   abs    policy ranks.noise_floor_ns (absolute time)
--   share  ranks.noise_floor_share × the reference (the job's GPU span, or the iteration's median duration)
--   spread ranks.straggler_mad_k × 1.4826 × MAD of the other ranks (their spread explains smaller lags)
--   median ranks.straggler_threshold × the median of the other ranks
local M = {}

function M.median(v)
  local c = {}
  for i, x in ipairs(v) do c[i] = x end
  table.sort(c)
  local n = #c
  if n == 0 then return 0 end
  if n % 2 == 1 then return c[(n + 1) // 2] end
  return (c[n // 2] + c[n // 2 + 1]) / 2
end

-- lag(values, i, ref, s) → {value, median, lag, share, floor, why, above}: rank i against the others.
-- floor: the largest part of the noise floor; why: which one ("abs", "share", "spread", "median");
-- share: lag / median of the others (0 when that median is 0).
function M.lag(values, i, ref, s)
  local others = {}
  for k, v in ipairs(values) do if k ~= i then others[#others + 1] = v end end
  local med = M.median(others)
  local dev = {}
  for k, v in ipairs(others) do dev[k] = math.abs(v - med) end
  local mad = M.median(dev)
  local lag = values[i] - med
  local parts = {
    { "abs", s.noise_floor_ns },
    { "share", s.noise_floor_share * ref },
    { "spread", s.straggler_mad_k * 1.4826 * mad },
    { "median", s.straggler_threshold * med },
  }
  local floor, why = -1, "abs"
  for _, p in ipairs(parts) do
    if p[2] > floor then floor, why = p[2], p[1] end
  end
  return { value = values[i], median = med, mad = mad, lag = lag, share = med > 0 and lag / med or 0,
    floor = floor, why = why, above = #others > 0 and lag > floor }
end

-- The sentence that says why a lag is within noise (or what the floor was), times through ms(ns).
function M.floor_text(x, ref_what, s, ms)
  if x.why == "abs" then
    return string.format("the noise floor of %s (policy ranks.noise_floor_ns)", ms(math.floor(x.floor)))
  elseif x.why == "share" then
    return string.format("the noise floor of %.1f%% of %s, %s (policy ranks.noise_floor_share)",
      100 * s.noise_floor_share, ref_what, ms(math.floor(x.floor)))
  elseif x.why == "spread" then
    return string.format("what the spread of the other ranks explains, %s (%g × 1.4826 × their MAD %s, policy " ..
      "ranks.straggler_mad_k)", ms(math.floor(x.floor)), s.straggler_mad_k, ms(math.floor(x.mad)))
  end
  return string.format("%.0f%% of the median of the other ranks, %s (policy ranks.straggler_threshold)",
    100 * s.straggler_threshold, ms(math.floor(x.floor)))
end

return M
