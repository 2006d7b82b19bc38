#!/usr/bin/env bash
# The flamegraph's own import (issue 42): when the stacks are all that read the trace (`collapse`, a
# flamegraph page without the findings panel) the SQLite import is narrow (core/trace_sqlite.h: no kernel
# launch details, no synchronizations); with the panel the stacks and the findings read one import. The
# counts are checked against sqlite3 over the export, the pages against the full import's. A page without the
# panel reads an import left in arrival order (gf_trace_set_unordered); on an export stored in shuffled order,
# with a launch stored after another of its correlation id but starting first, its stacks are the sorted
# import's, with dense and with sparse correlation ids.
. "$(dirname "$0")/../lib/t.sh"

python3 "$TOP/tests/gen/big_export.py" "$TMP/e.sqlite" --ranges 20000 >/dev/null
q() { sqlite3 "file:$TMP/e.sqlite?immutable=1" "$1"; }
kern=$(q "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
sync=$(q "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
gpu_ns=$(q "SELECT (SELECT total(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL) +
  (SELECT total(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY) +
  0" | sed 's/\.0$//')
check "the generated export has no memset table (the total above counts kernels and copies)" \
  [ -z "$(q "SELECT name FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_MEMSET'")" ]
check "the export has synchronizations to leave out" [ "$sync" -gt 0 ]

cat >"$TMP/counts.lua" <<'LUA'
local path, narrow = ...
local core = require("gpuflame.core")
local tr = core.trace.open_sqlite(path, { max_events = 0, keep_partners = true, narrow = narrow == "1" })
local c = tr:counts()
io.write(c.kernel or 0, " ", c.sync or 0, "\n")
LUA
read -r k1 s1 < <("$GF" -q run "$TMP/counts.lua" "$TMP/e.sqlite" 0)
read -r k2 s2 < <("$GF" -q run "$TMP/counts.lua" "$TMP/e.sqlite" 1)
check_eq "full import: every kernel (sqlite3 count)" "$kern" "$k1"
check_eq "full import: every synchronization (sqlite3 count)" "$sync" "$s1"
check_eq "narrow import: every kernel" "$kern" "$k2"
check_eq "narrow import: no synchronization" 0 "$s2"

# collapse (narrow) against the stacks of the full import (flamegraph.from_trace over trace.load)
cat >"$TMP/full.lua" <<'LUA'
local path, out = ...
local fg = require("gpuflame.flamegraph")
local policy = require("gpuflame.cli").script_context().policy()
local tr = require("gpuflame.trace").load({ path }, { max_events = 0, keep_partners = true }, policy)
fg.from_trace(tr, nil, policy):write_folded(out)
LUA
"$GF" -q collapse "$TMP/e.sqlite" >"$TMP/narrow.folded"
"$GF" -q run "$TMP/full.lua" "$TMP/e.sqlite" "$TMP/full.folded"
check "collapse (narrow import): the full import's stacks, byte for byte" cmp -s "$TMP/full.folded" "$TMP/narrow.folded"
check_eq "collapse: the weights total the GPU operations' time (sqlite3)" "$gpu_ns" \
  "$(awk '{ s += $NF } END { printf "%d", s }' "$TMP/narrow.folded")"

# the page with the findings panel (one import read by the stacks and the rules): every finding of
# `findings -f json` (its own import) is on it, and its stacks are the page's without the panel
"$GF" -q flamegraph "$TMP/e.sqlite" -o "$TMP/with.html"
printf 'return { findings = { pages = false } }\n' >"$TMP/nopanel.lua"
"$GF" -q --policy "$TMP/nopanel.lua" flamegraph "$TMP/e.sqlite" -o "$TMP/without.html"
"$GF" -q findings -f json "$TMP/e.sqlite" >"$TMP/fd.json"
rules=$(python3 -c 'import json,sys; print(" ".join(f.get("verdict", "") for f in json.load(open(sys.argv[1]))["findings"]))' "$TMP/fd.json")
check "findings -f json found something to look for" [ -n "$rules" ]
missing=$(python3 - "$TMP/fd.json" "$TMP/with.html" <<'PY'
import json, sys
fd = [f for f in json.load(open(sys.argv[1]))["findings"] if f.get("verdict")]
page = open(sys.argv[2], encoding="utf-8").read()
print(" ".join(f["rule"] for f in fd if "verdict" in f and json.dumps(f["verdict"], ensure_ascii=False)[1:-1] not in page))
PY
)
check_eq "the page's findings panel: every verdict of findings -f json" "" "$missing"
stacks_of() { python3 -c 'import hashlib,re,sys; t=open(sys.argv[1],encoding="utf-8").read(); m=re.search(r"id=\"fg-data\">(.*?)</script>", t, re.S); print(hashlib.sha256(m.group(1).encode()).hexdigest() if m else "none")' "$1"; }
check_eq "the page's stacks: the page without the panel's" "$(stacks_of "$TMP/without.html")" "$(stacks_of "$TMP/with.html")"
# The page without the panel reads an import left in arrival order (gf_trace_set_unordered: no sort by start);
# the page with it, one sorted by start. On an export whose CUDA calls and NVTX ranges are stored in shuffled
# order, with a second launch of one correlation id stored after the first but starting 1 ns before it (the
# launch a sorted trace finds first), the two pages' stacks are the same, and that kernel is under the second
# launch's name.
python3 - "$TMP/e.sqlite" "$TMP/shuffled.sqlite" <<'PY'
import random, shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
rnd = random.Random(7)
sid = db.execute("SELECT max(id) + 1 FROM StringIds").fetchone()[0]
db.execute("INSERT INTO StringIds VALUES (?, 'cudaLaunchKernel_storedLater')", (sid,))
corr = db.execute("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start LIMIT 1 OFFSET 500").fetchone()[0]
for table in ("CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"):
    sql = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    rows = db.execute(f"SELECT * FROM {table}").fetchall()
    rnd.shuffle(rows)
    if table == "CUPTI_ACTIVITY_KIND_RUNTIME":
        first = [r for r in rows if r[cols.index("correlationId")] == corr][0]
        dup = list(first)
        dup[cols.index("start")] -= 1
        dup[cols.index("nameId")] = sid
        rows.append(tuple(dup))
    db.execute(f"DROP TABLE {table}")
    db.execute(sql)
    db.executemany(f"INSERT INTO {table} VALUES ({','.join('?' * len(cols))})", rows)
db.commit()
PY
unsorted=$(sqlite3 "$TMP/shuffled.sqlite" "SELECT count(*) FROM (SELECT start < lag(start) OVER (ORDER BY rowid) AS d
  FROM CUPTI_ACTIVITY_KIND_RUNTIME) WHERE d")
check "the shuffled export's CUDA calls are out of start order ($unsorted descents)" [ "$unsorted" -gt 100 ]
"$GF" -q flamegraph "$TMP/shuffled.sqlite" -o "$TMP/sh_with.html"
"$GF" -v --policy "$TMP/nopanel.lua" flamegraph "$TMP/shuffled.sqlite" -o "$TMP/sh_without.html" 2>"$TMP/sh.err"
check_contains "without the panel, the import is not sorted by start" "$(cat "$TMP/sh.err")" \
  "read for the page's stacks alone, not sorted by start"
check_eq "shuffled rows: the page's stacks without the panel (arrival order) are those with it (sorted)" \
  "$(stacks_of "$TMP/sh_with.html")" "$(stacks_of "$TMP/sh_without.html")"
check "... and the kernel of the launch stored later, starting first, is under its name" \
  grep -q 'cudaLaunchKernel_storedLater' "$TMP/sh_without.html"
# ... also where the correlation ids are too sparse for the launch table (core/trace.c: a sorted copy of the
# launches instead)
cp "$TMP/shuffled.sqlite" "$TMP/sparse.sqlite"
sqlite3 "$TMP/sparse.sqlite" "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = correlationId * 1000003;
  UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = correlationId * 1000003;
  UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET correlationId = correlationId * 1000003;"
"$GF" -q flamegraph "$TMP/sparse.sqlite" -o "$TMP/sp_with.html"
"$GF" -q --policy "$TMP/nopanel.lua" flamegraph "$TMP/sparse.sqlite" -o "$TMP/sp_without.html"
check_eq "sparse correlation ids: the stacks without the panel are those with it" \
  "$(stacks_of "$TMP/sp_with.html")" "$(stacks_of "$TMP/sp_without.html")"
check_eq "... the shuffled export's stacks" "$(stacks_of "$TMP/sh_with.html")" "$(stacks_of "$TMP/sp_without.html")"
t_done
