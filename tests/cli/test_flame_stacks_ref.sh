#!/usr/bin/env bash
# The hierarchical GPU stacks of a generated export where nearly every launch has an NVTX path and a stack of
# its own (a `step N` in every path: tests/gen/big_export.py, 40,000 kernels), against an independent
# computation in Python over the export: each GPU operation's launch by correlation id, the push/pop and
# start/end ranges of the launching thread that enclose the launch (outermost first; "domain:name" in a named
# domain), the API name without its _vNNNN suffix, the kernel's demangled name or the copy's "[CUDA memcpy
# <kind>]", weighted by the operation's duration. At this size the stacks' tables are sized ahead by a
# projection and added in prefetched batches (core/trace_flame.c, issue 42): the stacks must not change.
. "$(dirname "$0")/../lib/t.sh"
command -v sqlite3 >/dev/null || { skip "flamegraph stacks against Python" "no sqlite3 CLI"; exit 0; }

db=$TMP/e.sqlite
python3 "$TOP/tests/gen/big_export.py" "$db" --ranges 40000 >/dev/null
ops=$(sqlite3 "file:$db?immutable=1" "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) +
  (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY)")
check "the export has enough GPU operations for the projection (8 x 4096)" [ "$ops" -ge 32768 ]

python3 - "$db" >"$TMP/ref.folded" <<'PY'
import collections, re, sqlite3, sys
db = sqlite3.connect("file:%s?immutable=1" % sys.argv[1], uri=True)
strings = dict(db.execute("SELECT id, value FROM StringIds"))
procs = {g: "%s [%d]" % (name, pid) for g, pid, name in db.execute("SELECT globalPid, pid, name FROM PROCESSES")}
domains = {d: text for d, text in db.execute("SELECT domainId, text FROM NVTX_EVENTS WHERE eventType = 75")}
ranges = collections.defaultdict(list)
for rowid, start, end, tid, text, text_id, dom in db.execute(
        "SELECT rowid, start, end, globalTid, text, textId, domainId FROM NVTX_EVENTS WHERE eventType IN (59, 60)"):
    name = text if text is not None else strings[text_id]
    ranges[tid].append((start, -end, rowid, (domains[dom] + ":" if dom in domains else "") + name))
for r in ranges.values():
    r.sort()
calls = {}
by_thread = collections.defaultdict(list)
for row in db.execute("SELECT start, end, correlationId, globalTid, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
    by_thread[row[3]].append(row)
for tid, rows in by_thread.items():  # a sweep in start order: the ranges begun by each call, minus those ended
    rs, i, active = ranges[tid], 0, []
    for start, end, corr, _, name_id in sorted(rows):
        while i < len(rs) and rs[i][0] <= start:
            active.append(rs[i])
            i += 1
        active = [r for r in active if -r[1] >= start]
        calls[corr] = [r[3] for r in active if -r[1] >= end] + [re.sub(r"_v\d+$", "", strings[name_id])]
oper = dict(db.execute("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER"))
ops = [(c, g, e - s, strings[d]) for c, g, s, e, d in db.execute(
    "SELECT correlationId, globalPid, start, end, demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL")]
ops += [(c, g, e - s, "[CUDA memcpy %s]" % oper[k]) for c, g, s, e, k in db.execute(
    "SELECT correlationId, globalPid, start, end, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY")]
total = collections.Counter()
for corr, gpid, dur, leaf in ops:
    launch = calls[corr]
    total[";".join([procs[gpid]] + launch + [leaf])] += dur
for stack in sorted(total):
    print(stack, total[stack])
PY
check "the Python reference ran" [ -s "$TMP/ref.folded" ]
"$GF" -q collapse "$db" | LC_ALL=C sort >"$TMP/gf.folded"
LC_ALL=C sort -o "$TMP/ref.folded" "$TMP/ref.folded"
check_eq "as many stacks as the reference ($(wc -l <"$TMP/ref.folded"))" "$(wc -l <"$TMP/ref.folded")" \
  "$(wc -l <"$TMP/gf.folded")"
check "collapse: every stack and weight of the Python reference" cmp -s "$TMP/ref.folded" "$TMP/gf.folded"
diff "$TMP/ref.folded" "$TMP/gf.folded" | head -5 >&2
check "nearly every operation has a stack of its own (the case the projection sizes for)" \
  [ "$(wc -l <"$TMP/gf.folded")" -ge $((ops * 9 / 10)) ]

# the page without the panel (the flamegraph's own import) holds the same total
printf 'return { findings = { pages = false } }\n' >"$TMP/nopanel.lua"
"$GF" -q --policy "$TMP/nopanel.lua" flamegraph "$db" -o "$TMP/page.html" 2>"$TMP/page.err"
check "flamegraph page written" [ -s "$TMP/page.html" ]
page_total=$(python3 - "$TMP/page.html" <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(re.search(r'id="fg-data">(.*?)</script>', page, re.S).group(1))
print(data["values"][0] if "values" in data else data.get("total"))
PY
)
check_eq "the page's total is the reference's" "$(awk '{ s += $NF } END { printf "%d", s }' "$TMP/ref.folded")" \
  "$page_total"
t_done
