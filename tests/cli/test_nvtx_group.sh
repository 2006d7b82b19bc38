#!/usr/bin/env bash
# NVTX names grouped by policy nvtx.group (issue 40 item 1) on planted PyTorch emit_nvtx ranges whose answer is
# known by construction. A copy of the test-cuda export (4 kernels launched from one thread, correlation ids
# 133/137/141/145) gets, on that thread:
#   Batch 0                                                    push/pop around every launch
#   aten::mm, seq = 1, op_id = 10, sizes = [...], input_op_ids = [...]   around launch 133
#   aten::mm, seq = 2, op_id = 11, sizes = [...], input_op_ids = [...]   around launch 137
#   aten::mm, op_id = 12                                       around launch 141
#   aten::add, seq = 3                                         around launch 145
#   aten::mm, seq = 9 in domain 5 ("dom")                       inside aten::add, around launch 145
# With the default policy the three aten::mm ranges are one frame "aten::mm" holding kernels 133+137+141 and
# the domain range is "dom:aten::mm"; the raw names stay in the page's tooltip data, the Chrome trace's args
# and the timeline's panel data; `stats` keeps nsys's bytes. Kernel weights are read back by SQL.
. "$(dirname "$0")/../lib/t.sh"
src=real/test-cuda/report1.sqlite
have_fixture "$src" || { skip "nvtx.group planted" "fixtures absent"; exit 0; }
command -v sqlite3 >/dev/null || { skip "nvtx.group planted" "no sqlite3 CLI"; exit 0; }
db=$TMP/planted.sqlite
cp "$FIX/$src" "$db"; chmod u+w "$db"
T=281761330250412
MM1='aten::mm, seq = 1, op_id = 10, sizes = [[2, 3], [3, 4]], input_op_ids = [(1, 0), (2, 0)]'
MM2='aten::mm, seq = 2, op_id = 11, sizes = [[2, 3], [3, 4]], input_op_ids = [(3, 0)]'
sqlite3 "$db" "
  CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, globalTid INTEGER,
    endGlobalTid INTEGER, text TEXT, textId INTEGER, domainId INTEGER);
  INSERT INTO NVTX_EVENTS VALUES (1000, NULL, 75, $T, NULL, 'dom', NULL, 5);
  INSERT INTO NVTX_EVENTS VALUES (1412367000, 1453800000, 59, $T, NULL, 'Batch 0', NULL, 0);
  INSERT INTO NVTX_EVENTS VALUES (1412367100, 1453600000, 59, $T, NULL, '$MM1', NULL, 0);
  INSERT INTO NVTX_EVENTS VALUES (1453605000, 1453640000, 59, $T, NULL, '$MM2', NULL, 0);
  INSERT INTO NVTX_EVENTS VALUES (1453661000, 1453730000, 59, $T, NULL, 'aten::mm, op_id = 12', NULL, 0);
  INSERT INTO NVTX_EVENTS VALUES (1453755000, 1453780000, 59, $T, NULL, 'aten::add, seq = 3', NULL, 0);
  INSERT INTO NVTX_EVENTS VALUES (1453755500, 1453775000, 59, $T, NULL, 'aten::mm, seq = 9', NULL, 5);"
w() { sqlite3 -readonly "$db" "SELECT sum([end] - start) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId IN ($1)"; }
K='add_parallel(const float *, const float *, float *, int)'
kernels() { grep -v '\[CUDA mem' <<<"$1" | sort; }

run_gf collapse --levels nvtx,kernel "$db"
check_eq "collapse: emit_nvtx's suffixes dropped, the three aten::mm ranges one frame" "$(sort <<X
Batch 0;aten::mm;$K $(w 133,137,141)
Batch 0;aten::add;dom:aten::mm;$K $(w 145)
X
)" "$(kernels "$out")"

run_gf collapse "$db"
check_not_contains "collapse, default levels: no op_id left" "$out" "op_id = "
check_contains "collapse, default levels: process;Batch 0;aten::mm;launch;kernel" "$out" \
  "async.out [17068];Batch 0;aten::mm;cudaLaunchKernel;$K $(w 133,137,141)"

# a fleet's policy file adds a rule set of its own after the default one; another turns the default off
cat >"$TMP/fleet.lua" <<'X'
return { nvtx = { group = { ["50-torch"] = { { "^aten::", "torch." } } } } }
X
run_gf --policy "$TMP/fleet.lua" collapse --levels nvtx,kernel "$db"
check_contains "a fleet's rule set applies after the default ones" "$(kernels "$out")" "Batch 0;torch.mm;$K $(w 133,137,141)"
check_contains "a fleet's rule set: the domain stays outside the grouped name" "$(kernels "$out")" \
  "Batch 0;torch.add;dom:torch.mm;$K $(w 145)"
printf 'return { nvtx = { group = { ["10-pytorch-emit_nvtx"] = {} } } }\n' >"$TMP/off.lua"
run_gf --policy "$TMP/off.lua" collapse --levels nvtx,kernel "$db"
check_contains "an empty set turns the default off: raw names" "$(kernels "$out")" "Batch 0;$MM2;$K $(w 137)"
printf 'return { nvtx = { group = { ["50-bad"] = { { "[a", "" } } } } }\n' >"$TMP/bad.lua"
run_gf --policy "$TMP/bad.lua" collapse "$db"
check_eq "a malformed pattern: exit 1" 1 "$rc"
check_contains "a malformed pattern: the rule is named" "$err" "nvtx.group .50-bad [1] malformed pattern"

# the page: grouped frames, their raw names in the tooltip's data (page config nvtx_raw)
run_gf flamegraph "$db" -o "$TMP/fg.html"
got=$(python3 - "$TMP/fg.html" <<'X'
import json, re, sys
h = open(sys.argv[1]).read()
c = json.loads(re.search(r'<script type="application/json" id="fg-config">(.*?)</script>', h, re.S).group(1))
r = c.get("nvtx_raw") or {}
mm = r.get("aten::mm") or {}
print(mm.get("n"), len(mm.get("raw", [])), sorted(r))
X
)
check_eq "page: aten::mm merges 3 raw names, 3 shown (nvtx.raw_examples), every grouped frame listed" \
  "3 3 ['aten::add', 'aten::mm', 'dom:aten::mm']" "$got"

# exports' stacks
run_gf export --format speedscope "$db" -o "$TMP/s.json"
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] for f in d["shared"]["frames"]]
print(sum("op_id" in n or "seq =" in n for n in names), "aten::mm" in names)' "$TMP/s.json")
check_eq "speedscope: grouped frames, no raw suffix" "0 True" "$got"
run_gf export --format chrome-trace "$db" -o "$TMP/c.json"
got=$(python3 - "$TMP/c.json" "$MM1" <<'X'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
n = [e for e in ev if e.get("cat") == "nvtx"]
print(sorted({e["name"] for e in n}), sum(e.get("args", {}).get("raw name") == sys.argv[2] for e in n))
X
)
check_eq "chrome-trace: NVTX events under grouped names, the raw name in args" \
  "['Batch 0', 'aten::add', 'aten::mm'] 1" "$got"

# the timeline page's data: the raw names, and each grouped one's group
run_gf timeline "$db" -o "$TMP/tl.html"
got=$(python3 - "$TMP/tl.html" "$MM1" <<'X'
import json, re, sys
h = open(sys.argv[1]).read()
m = re.search(r'"names":(\[.*?\]),"nameGroups":(\{.*?\})', h)
names, groups = json.loads(m.group(1)), json.loads(m.group(2))
g = {names[int(k)]: v for k, v in groups.items()}
print(len(g), g.get(sys.argv[2]), g.get("aten::mm, op_id = 12"), g.get("aten::mm, seq = 9"), "Batch 0" in g, "Batch 0" in names)
X
)
check_eq "timeline: nameGroups maps each raw emit_nvtx name on the page to its group, Batch 0 none" \
  "5 aten::mm aten::mm aten::mm False True" "$got"

# diff by NVTX range: the grouped rows
run_gf diff --json --group-by nvtx "$db" "$db"
got=$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(" ".join("%s=%d" % (k["name"], k["before"]["total_ns"]) for k in sorted(d["kernels"], key=lambda k: k["name"])))' "$out")
# the GPU work (kernels, copies) whose launch call lies inside one of the three (disjoint) aten::mm ranges
mm=$(sqlite3 -readonly "$db" "SELECT sum(o.[end] - o.start) FROM (SELECT start, [end], correlationId FROM
  CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT start, [end], correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY) AS o
  JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = o.correlationId JOIN NVTX_EVENTS AS n
  ON n.domainId = 0 AND n.text LIKE 'aten::mm%' AND r.start >= n.start AND r.[end] <= n.[end]")
check_contains "diff --group-by nvtx: one aten::mm row, the GPU work of the three ranges" "$got" "aten::mm=$mm"

# stats keeps nsys's bytes
run_gf stats -r nvtx_sum "$db"
check_contains "stats nvtx_sum: raw names, never grouped" "$out" "$MM2"
t_done
