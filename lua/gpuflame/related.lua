-- Inputs that belong together (issue 24, item 4). Several reports given to one command are taken as one
-- job's captures, one per rank. This module decides, from each export's own metadata (never its file name):
--   * one capture given twice (a report and the export beside it, the same file twice, a copy) is counted
--     once, with a note. Identity: the session start (UTC ns, TARGET_INFO_SESSION_START_TIME) and the host
--     (TARGET_INFO_SYSTEM_ENV Hostname), which an export keeps whichever nsys wrote it; an export without a
--     session start is only the same capture as the same file (real path);
--   * captures that cannot be one job are refused (exit 6, naming both files and why) unless the command
--     got --allow-unrelated: policy ranks.max_start_gap_s (session starts further apart) and
--     ranks.single_node (different hosts);
--   * the sentence every merged output states about how the clocks were aligned.
-- docs/TIMELINE_DATA.md "Inputs that belong together".
local core = require("gpuflame.core")
local errors = require("gpuflame.errors")
local need = require("gpuflame.policy").need

local M = {}

local function basename(p) return (p:match("([^/]+)/*$")) or p end
-- the capture's file name: a model file names the report it was imported from (gpuflame.ranks: file)
local function name_of(it) return it.file or basename(it.path) end

-- "2026-01-25T02:26:42.162486533Z" for epoch ns
function M.utc(ns)
  return os.date("!%Y-%m-%dT%H:%M:%S", ns // 1000000000) .. string.format(".%09dZ", ns % 1000000000)
end

local function duration_text(ns)
  local s = ns / 1e9
  if s >= 86400 then return string.format("%.1f days", s / 86400) end
  if s >= 3600 then return string.format("%.1f hours", s / 3600) end
  if s >= 60 then return string.format("%.1f minutes", s / 60) end
  return string.format("%.3f s", s)
end

local function capture_key(it)
  local m = it.meta
  if m.session_start then return string.format("start %d host %s", m.session_start, m.host or "?") end
  local ok, real = pcall(core.fs.realpath, it.path)
  return "file " .. ((ok and real) or it.path)
end

local function same_capture_note(first, it)
  local m = it.meta
  if m.session_start then
    return string.format("%s and %s are one capture (session start %s, host %s): counted once, as %s",
      first.path, it.path, M.utc(m.session_start), m.host or "?", first.path)
  end
  return string.format("%s and %s are the same file: counted once", first.path, it.path)
end

-- check(items, opts, policy) → kept, notes
--   items: { {path = the input as the user named it, meta = core.trace.sqlite_meta of its export}, ... } in
--   input order; policy: the effective policy (its ranks table); opts.allow_unrelated: merge anyway.
--   kept: the items that are distinct captures (the first of each), in input order; notes: one sentence per
--   input left out. Raises INPUT (exit 6) naming two inputs that cannot be one job.
function M.check(items, opts, policy)
  local s = need(policy, "related.check").ranks
  local kept, notes, first = {}, {}, {}
  for _, it in ipairs(items) do
    local key = capture_key(it)
    if first[key] then
      notes[#notes + 1] = same_capture_note(first[key], it)
    else
      first[key] = it
      kept[#kept + 1] = it
    end
  end
  if #kept < 2 or (opts and opts.allow_unrelated) then return kept, notes end
  local lo, hi
  for _, it in ipairs(kept) do
    local t = it.meta.session_start
    if t then
      if not lo or t < lo.meta.session_start then lo = it end
      if not hi or t > hi.meta.session_start then hi = it end
    end
  end
  if lo and hi.meta.session_start - lo.meta.session_start > s.max_start_gap_s * 1e9 then
    errors.raise(errors.INPUT, "%s and %s cannot be one job: their captures started %s apart (%s and %s; policy " ..
      "ranks.max_start_gap_s = %g s); give --allow-unrelated to merge them anyway", lo.path, hi.path,
      duration_text(hi.meta.session_start - lo.meta.session_start), M.utc(lo.meta.session_start),
      M.utc(hi.meta.session_start), s.max_start_gap_s)
  end
  if s.single_node then
    local ref
    for _, it in ipairs(kept) do
      if it.meta.host then
        if ref and it.meta.host ~= ref.meta.host then
          errors.raise(errors.INPUT, "%s and %s cannot be one single-node job: captured on different hosts (%s and " ..
            "%s; policy ranks.single_node); give --allow-unrelated to merge them anyway", ref.path, it.path,
            ref.meta.host, it.meta.host)
        end
        ref = ref or it
      end
    end
  end
  return kept, notes
end

-- alignment(items, allowed) → the sentence a merged output states: on what each capture's clock was
-- aligned, t = 0, and the captures that could not be aligned. items as kept by check; allowed: the merge of
-- unrelated captures was asked for (--allow-unrelated).
function M.alignment(items, allowed)
  if #items == 1 then
    return string.format("one capture (%s): its own clock, time from its session start%s", name_of(items[1]),
      items[1].meta.session_start and (" " .. M.utc(items[1].meta.session_start)) or "")
  end
  local t0, first, fields, missing = nil, nil, {}, {}
  for _, it in ipairs(items) do
    local m = it.meta
    if m.session_start then
      if not t0 or m.session_start < t0 then t0, first = m.session_start, it end
      if m.session_field and not fields[m.session_field] then
        fields[m.session_field] = true
        fields[#fields + 1] = m.session_field
      end
    else
      missing[#missing + 1] = name_of(it)
    end
  end
  local out
  if t0 then
    out = string.format("clocks aligned on each capture's session start (%s): t = 0 is %s, the start of %s",
      #fields > 0 and table.concat(fields, ", ") or "UTC", M.utc(t0), name_of(first))
  else
    out = "clocks not aligned: no capture records its session start"
  end
  if t0 and #missing > 0 then
    out = out .. "; not aligned (no session start): " .. table.concat(missing, ", ")
  end
  if allowed then out = out .. "; unrelated captures merged (--allow-unrelated)" end
  return out
end

return M
