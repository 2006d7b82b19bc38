"""The folded flamegraph page (policy flamegraph.fold_share, issue 42) against SQL over the export: an export of
tests/gen/big_export.py (push/pop `step K` ranges holding `layer L` ranges, on the launching thread) drawn with
the levels process,nvtx,api,kernel and every stack folded at SHARE of the total. Independently of gpuflame:
per step, per layer of a step and per launch call outside the layers, the GPU time (kernels, copies, memsets)
launched inside it, by SQL (a launch is inside a range on its thread that contains the whole call); then the
nodes the fold must merge: the steps under the threshold (ceil(total * SHARE)) and, under a kept step, its
layers and launch calls under it. Prints ok / not ok lines.
usage: check_fold.py PAGE.html EXPORT.sqlite SHARE"""
import html
import json
import math
import re
import sqlite3
import sys

page, export, share = sys.argv[1], sys.argv[2], float(sys.argv[3])
failed = 0


def check(name, cond, why=""):
    global failed
    print(("ok - %s" % name) if cond else ("not ok - %s: %s" % (name, why)))
    failed += 0 if cond else 1


text = open(page, encoding="utf-8").read()
data = json.loads(html.unescape(re.search(r'<script type="application/json" id="fg-data">(.*?)</script>', text, re.S)
                                .group(1)))
conf = json.loads(html.unescape(re.search(r'<script type="application/json" id="fg-config">(.*?)</script>', text,
                                          re.S).group(1)))

db = sqlite3.connect("file:%s?mode=ro" % export, uri=True)
have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
ops = " UNION ALL ".join("SELECT correlationId AS c, [end] - start AS d FROM %s" % t for t in (
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET") if t in have)
db.execute("CREATE TEMP TABLE ops AS " + ops)
db.execute("""CREATE TEMP TABLE calls AS SELECT r.rowid AS id, r.start, r.[end], r.globalTid AS tid, r.nameId, sum(o.d) AS d
              FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN ops o ON o.c = r.correlationId GROUP BY r.rowid""")
total = db.execute("SELECT sum(d) FROM ops").fetchone()[0]
thr = math.ceil(total * share)
inside = "c.tid = n.globalTid AND c.start >= n.start AND c.[end] <= n.[end] AND n.eventType = 59"
steps = dict(db.execute("SELECT n.text, sum(c.d) FROM NVTX_EVENTS n JOIN calls c ON %s WHERE n.text LIKE 'step %%' "
                        "GROUP BY n.rowid" % inside).fetchall())
outside = total - sum(steps.values())
small = {s: v for s, v in steps.items() if v < thr}
kept = {s: v for s, v in steps.items() if v >= thr}
check("the planted case: steps on both sides of the threshold, nothing outside them", small and kept and outside == 0,
      "small %d kept %d outside %d" % (len(small), len(kept), outside))

# under a kept step: its layers and the launch calls outside its layers (by name), each with its GPU time
children = {}
for s in kept:
    layers = db.execute("""SELECT l.text, sum(c.d) FROM NVTX_EVENTS s JOIN NVTX_EVENTS l ON l.globalTid = s.globalTid
        AND l.start >= s.start AND l.[end] <= s.[end] AND l.eventType = 59 AND l.text LIKE 'layer %%'
        JOIN calls c ON c.tid = l.globalTid AND c.start >= l.start AND c.[end] <= l.[end]
        WHERE s.text = ? GROUP BY l.rowid""", (s,)).fetchall()
    apis = db.execute("""SELECT c.nameId, sum(c.d) FROM NVTX_EVENTS n JOIN calls c ON %s WHERE n.text = ?
        AND NOT EXISTS (SELECT 1 FROM NVTX_EVENTS l WHERE l.text LIKE 'layer %%' AND l.eventType = 59
          AND l.globalTid = c.tid AND c.start >= l.start AND c.[end] <= l.[end]) GROUP BY c.nameId""" % inside,
                      (s,)).fetchall()
    children[s] = layers + apis
check("the planted case: every child of a kept step is under the threshold",
      all(v < thr for ch in children.values() for _, v in ch), "a child at or over %d" % thr)

names, nodes = data["names"], data["nodes"]
tree = [(names[nodes[i]], nodes[i + 1], nodes[i + 2]) for i in range(0, len(nodes), 3)]
fold = [n for n in names if n.startswith("[folded: ")]
check("one fold frame", len(fold) == 1, repr(fold))
top = [(n, v) for n, v, d in tree if d == 1]
want_top = sorted([(s, v) for s, v in kept.items()] + [(fold[0] if fold else "?", sum(small.values()))])
check("under the process: the kept steps with their SQL totals and one fold frame of the small steps' sum",
      sorted(top) == want_top, "got %s, want %s" % (sorted(top)[:5], want_top[:5]))
under = {}
cur = None
for n, v, d in tree:
    if d == 1:
        cur = n
    elif d == 2 and cur in kept:
        under.setdefault(cur, []).append((n, v))
bad = [s for s in kept if under.get(s) != [(fold[0] if fold else "?", kept[s])]]
check("under each kept step: one fold frame of its children's whole time", not bad, "steps %s" % bad[:3])
nodes_folded = len(small) + sum(len(ch) for ch in children.values())
weight = sum(small.values()) + sum(v for ch in children.values() for _, v in ch)
pct = "%.4g %%" % (weight / total * 100)
sub = conf.get("subtitle", "")
check("the subtitle says the nodes folded and their share of the total (SQL: %d nodes, %s)" % (nodes_folded, pct),
      ("%d frames under " % nodes_folded) in sub and ("(%s of it)" % pct) in sub, sub)
check("the page's total is the SQL total", data["total"] == total, "%s vs %s" % (data["total"], total))
sys.exit(1 if failed else 0)
