"""NVTX range parents as NVIDIA's report scripts choose them, computed from an export, for the real-nsys
checkers (stats_equal.py, oracle_check.py): the exact rule gpuflame follows, and nsys 2022.4's, whose
R-tree pre-filter stores timestamps as float32 (docs/REPORTS.md, V4).

The rule (nvtxpptrace.py / nvtxgpuproj.py, `par`): the parent of a range is the enclosing range on the same
globalTid with the least (c.start - p.start) + (p.end - c.end), ties to the lower rowid; roots have none;
identical ranges are each other's parents, so the tree (from the roots down) reaches neither them nor what
hangs below them. nsys 2022.4 first asks its R-tree, whose coordinates SQLite stores as float32 rounded
outward, for p.start <= c.start AND p.end >= c.end: above 2^32 ns that misses parents that start less than
about 1 µs before the child, and the next enclosing range is taken.
"""
import sqlite3
import struct

RNDTOWARDS, RNDAWAY = 1.0 - 1.0 / 8388608.0, 1.0 + 1.0 / 8388608.0


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def rtree_down(d):
    """SQLite rtree.c rtreeValueDown: the float32 stored for a lower bound"""
    f = f32(d)
    if f > d:
        f = f32(d * (RNDAWAY if d < 0 else RNDTOWARDS))
    return f


def rtree_up(d):
    f = f32(d)
    if f < d:
        f = f32(d * (RNDTOWARDS if d < 0 else RNDAWAY))
    return f


def ranges(path, types, own_thread):
    """{rowid: (globalTid, start, end as nsys 2022.4, end as now)} of the NVTX_EVENTS rows of `types`
    ("59, 70": push/pop; "59, 60, 70, 71": the projection's), with own_thread only those with endGlobalTid
    NULL (when the column exists). An unended range ends at max(max(start), max(end)): over every NVTX row
    in 2022.4, over the report's range types now (the latest start when no row has an end)."""
    db = sqlite3.connect("file:%s?immutable=1" % path, uri=True)
    try:
        cols = [r[1] for r in db.execute("PRAGMA table_info(NVTX_EVENTS)")]
        where = "eventType IN (%s)" % types

        def last(w):
            ms, me = db.execute("SELECT max(start), max(end) FROM NVTX_EVENTS " + w).fetchone()
            return ms if me is None else max(ms, me)
        m_old, m_new = last(""), last("WHERE " + where)
        rows = db.execute("SELECT rowid, globalTid, start, end FROM NVTX_EVENTS WHERE %s%s" % (
            where, " AND endGlobalTid IS NULL" if own_thread and "endGlobalTid" in cols else "")).fetchall()
    finally:
        db.close()
    return {r: (t, s, m_old if e is None else e, m_new if e is None else e) for r, t, s, e in rows}


def tree(rs, old):
    """(tree, parent) for ranges() `rs`: tree[rowid] = (Lvl, parent rowid or None, RangeStack ":1:2"), or
    None where the tree does not reach; parent[rowid] = the chosen parent (None for a root). `old`: nsys
    2022.4's ends and float32 filter; else the exact rule with the current ends."""
    ei = 2 if old else 3
    by_tid = {}
    for r, v in rs.items():
        by_tid.setdefault(v[0], []).append((v[1], r))
    parent = {}
    for lst in by_tid.values():
        lst.sort()
        active, i = [], 0
        while i < len(lst):  # one start at a time: ranges that start together may enclose one another
            j = i
            while j < len(lst) and lst[j][0] == lst[i][0]:
                active.append(lst[j][1])
                j += 1
            active = [a for a in active if rs[a][ei] >= lst[i][0]]
            for _, c in lst[i:j]:
                cs, ce = rs[c][1], rs[c][ei]
                best = None
                for a in active:
                    as_, ae = rs[a][1], rs[a][ei]
                    if a == c or as_ > cs or ae < ce:
                        continue
                    if old and not (rtree_down(float(as_)) <= rtree_down(float(cs)) and
                                    rtree_up(float(ae)) >= rtree_up(float(ce))):
                        continue
                    key = ((cs - as_) + (ae - ce), a)
                    if best is None or key < best:
                        best = key
                parent[c] = best[1] if best else None
            i = j
    out = {}
    for r in rs:
        chain, k = [], r
        while k is not None and k not in out and k not in chain:
            chain.append(k)
            k = parent[k]
        if k is not None and (k in chain or out[k] is None):
            for c in chain:  # a cycle of identical ranges, or below one: not reached from a root
                out[c] = None
            continue
        lvl, stack = (out[k][0], out[k][2]) if k is not None else (-1, "")
        for c in reversed(chain):
            lvl, stack = lvl + 1, stack + ":%d" % c
            out[c] = (lvl, parent[c], stack)
    return out, parent
