#!/usr/bin/env bash
# NVTX marks kept and drawn (issue 41 item 7): a real export (cuda-learning: six push/pop ranges) with NVTX
# marks planted into its NVTX_EVENTS (eventType 34, end NULL, as nsys writes them; one named like an
# iteration, "step 9", inside a range). The page and the Chrome trace hold as many NVTX events as the table
# has ranges and marks (sqlite3 counts them), each mark a point in time; nothing that reads ranges changes:
# the findings, rank-skew's iterations and the flamegraph are those of the export without the marks.
. "$(dirname "$0")/../lib/t.sh"
TT=$TOP/tests/trace
SRC=real/cuda-learning/report1.sqlite
if ! have_fixture "$SRC"; then skip "NVTX marks" "$SRC absent"; t_done; fi
cp "$FIX/$SRC" "$TMP/base.sqlite"
cp "$FIX/$SRC" "$TMP/marks.sqlite"
sqlite3 "$TMP/marks.sqlite" "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES
  (91800000, NULL, 34, 'checkpoint A', 281705797662142, 0), (1012000000, NULL, 34, 'step 9', 281705797662142, 0),
  (1027546328, NULL, 34, 'checkpoint B', 281705797662142, 0)"
want=$(sqlite3 "file:$TMP/marks.sqlite?mode=ro" "SELECT count(*), sum(eventType = 34) FROM NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71, 34)")
check_eq "planted: 6 ranges and 3 marks (sqlite3)" "9|3" "$want"
for max in 0 5; do
  opt=(); [ "$max" -gt 0 ] && opt=(--max-events 1000000)
  run_gf -q --lua-path "$TT" timeline "${opt[@]}" "$TMP/marks.sqlite" -o "$TMP/m.html"
  got=$(python3 -c '
import sys; sys.path.insert(0, sys.argv[2]); import page_data
d = page_data.load(sys.argv[1]); k = d["kinds"].index("nvtx")
ev = [e for e in d["events"] if e[6] == k]
names = d["names"]
print("%d|%d %s" % (len(ev), sum(1 for e in ev if e[1] == 0),
      sorted((names[e[4]], d["t0"] + e[0]) for e in ev if e[1] == 0)))' "$TMP/m.html" "$TT")
  check_eq "page${opt[*]:+ (bounded import)}: NVTX events = ranges and marks of NVTX_EVENTS, the marks at their points in time" \
    "$want [('checkpoint A', 91800000), ('checkpoint B', 1027546328), ('step 9', 1012000000)]" "$got"
done
run_gf -q export -f chrome-trace "$TMP/marks.sqlite" -o "$TMP/m.json"
got=$(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
n = [e for e in ev if e.get("cat") == "nvtx" and e.get("ph") == "X"]
print("%d|%d" % (len(n), sum(1 for e in n if e["dur"] == 0)))' "$TMP/m.json")
check_eq "Chrome trace: NVTX events = ranges and marks" "$want" "$got"
# what reads ranges is unchanged by the marks
for cmd in "findings -f json" "flamegraph --format folded --levels nvtx,api,kernel"; do
  run_gf -q $cmd "$TMP/base.sqlite"; a=$out
  run_gf -q $cmd "$TMP/marks.sqlite"; b=$out
  check_eq "$cmd: the same with and without the marks" "${a//base.sqlite/X}" "${b//marks.sqlite/X}"
done
cat >"$TMP/iter.lua" <<'LUA'
local ctx = require("gpuflame.cli").script_context()
local tr = require("gpuflame.trace").load({ ... }, {}, ctx.policy())
local out = {}
for _, r in ipairs(tr:rank_stats({ "nccl" }, { "step", "Memory" })) do
  for _, it in ipairs(r.iterations) do out[#out + 1] = it.name end
end
io.stdout:write(table.concat(out, ","), "\n")
return 0
LUA
run_gf -q run "$TMP/iter.lua" "$TMP/marks.sqlite"
check_eq "rank statistics: a mark named like an iteration ('step 9') is no iteration" \
  "Memory Allocation,Memory Copy H2D,Memory Copy D2H,Memory Deallocation" "$out"
t_done
