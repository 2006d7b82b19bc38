#!/usr/bin/env python3
"""An independent critical path of each step of an SQLite export, for tests/cli/test_critical_path.sh: its own
SQL over the export and its own graph code (nothing shared with gpuflame), following docs/SEMANTICS.md
"Critical path" as written. Prints one JSON document: per step its span, the longest path's length, the time per
part and the path's items summed per (kind, name).

usage: critpath_check.py EXPORT.sqlite STEP_REGEX [--what-if-kernel NAME F]
"""
import json
import re
import sqlite3
import sys
from collections import defaultdict

COMM = ["nccl", "nvshmem", "allreduce", "all_reduce", "allgather", "all_gather", "reducescatter", "reduce_scatter",
        "alltoall", "all_to_all"]
BLOCKING = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
            "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
            "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize"}
BLOCKING_PREFIX = ("cuMemcpyDtoH", "cuMemcpyHtoD", "cuMemcpyDtoD")
PARTS = ["host", "launch", "queue", "compute", "copy", "sync", "communication", "idle"]


def blocking(name):
    return name in BLOCKING or name.startswith(BLOCKING_PREFIX)


def load(db):
    q = db.execute
    s = dict(q("SELECT id, value FROM StringIds"))
    ev = []  # dict: kind, start, end, pid, tid, name, corr, lane, order
    for st, en, tid, corr, nid in q("SELECT start, end, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
        ev.append(dict(kind="call", k=0, start=st, end=en, pid=(tid >> 24) & 0xFFFFFF, tid=tid & 0xFFFFFF,
                       name=re.sub(r"_v\d+$", "", s[nid]), corr=corr))
    for st, en, dev, strm, corr, gp, nid in q("SELECT start, end, deviceId, streamId, correlationId, globalPid, "
                                              "demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        ev.append(dict(kind="kernel", k=1, start=st, end=en, pid=(gp >> 24) & 0xFFFFFF, lane=(dev, strm),
                       name=s[nid], corr=corr))
    for tab, kind, k in (("CUPTI_ACTIVITY_KIND_MEMCPY", "copy", 2), ("CUPTI_ACTIVITY_KIND_MEMSET", "memset", 3)):
        try:
            rows = q("SELECT start, end, deviceId, streamId, correlationId, globalPid FROM " + tab).fetchall()
        except sqlite3.OperationalError:
            rows = []
        for st, en, dev, strm, corr, gp in rows:
            ev.append(dict(kind=kind, k=k, start=st, end=en, pid=(gp >> 24) & 0xFFFFFF, lane=(dev, strm), name=kind,
                           corr=corr))
    for st, en, tid, text, tidn in q("SELECT n.start, n.end, n.globalTid, n.text, s.value FROM NVTX_EVENTS n "
                                     "LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType = 59 AND n.end IS NOT NULL"):
        ev.append(dict(kind="nvtx", k=5, start=st, end=en, pid=(tid >> 24) & 0xFFFFFF, tid=tid & 0xFFFFFF,
                       name=text if text is not None else tidn, corr=None))
    ev.sort(key=lambda e: (e["start"], e["k"]))
    for i, e in enumerate(ev):
        e["i"] = i
    calls = {(e["pid"], e["corr"]): e for e in ev if e["kind"] == "call"}
    for e in ev:
        if e["kind"] in ("kernel", "copy", "memset"):
            c = calls.get((e["pid"], e["corr"]))
            e["partner"] = c
            if c is not None:
                c["launched"] = e
    return ev


class Graph:
    def __init__(self):
        self.t, self.edges = [], []  # points' observed times; edges [src, dst, minlag, part, item]
        self.own = set()  # the edges that are an event's own duration

    def point(self, t):
        self.t.append(t)
        return len(self.t) - 1

    def edge(self, a, b, minlag, part, item, own=False):
        if a is None or b is None:
            return
        obs = self.t[b] - self.t[a]
        if obs < 0:
            return
        self.edges.append([a, b, max(0, min(minlag, obs)), part, item])
        if own:
            self.own.add(len(self.edges) - 1)


def build(ev, s, e, pid, tid):
    g = Graph()
    root, sink = g.point(s), g.point(e)
    r, k = g.point(s), g.point(e)
    g.edge(root, r, 0, "idle", None)
    g.edge(k, sink, 0, "idle", None)
    mine = [x for x in ev if x["pid"] == pid and s <= x["start"] < e
            and not (x["kind"] == "nvtx" and x["start"] == s and x["end"] == e and x["tid"] == tid)]
    P = {}
    for x in mine:
        P[x["i"]] = (g.point(x["start"]), g.point(x["end"]))
    sp = lambda x: P[x["i"]][0] if x is not None and x["i"] in P else None
    ep = lambda x: P[x["i"]][1] if x is not None and x["i"] in P else None
    for x in mine:  # durations
        if x["kind"] == "nvtx":
            continue
        if x["kind"] == "call":
            part = "sync" if blocking(x["name"]) else "launch" if "launched" in x else "host"
            g.edge(sp(x), ep(x), 0 if blocking(x["name"]) else x["end"] - x["start"], part, x)
        else:
            comm = x["kind"] == "kernel" and any(c in x["name"].lower() for c in COMM)
            g.edge(sp(x), ep(x), x["end"] - x["start"], "communication" if comm else
                   "compute" if x["kind"] == "kernel" else "copy", x, own=True)
    threads = defaultdict(list)  # host order: calls and range boundaries per thread
    for x in mine:
        if x["kind"] == "call":
            threads[x["tid"]].append((x["start"], 2, 0, x["i"], x, "call"))
        elif x["kind"] == "nvtx":
            threads[x["tid"]].append((x["start"], 1, -x["end"], x["i"], x, "push"))
            if x["end"] <= e:
                threads[x["tid"]].append((x["end"], 0, -x["start"], x["i"], x, "pop"))
    host_into_k = False
    for th in sorted(threads):
        cur = r if th == tid else None
        busy, stack = None, []
        for at, _, _, _, x, what in sorted(threads[th], key=lambda m: m[:4]):
            top = stack[-1] if stack else None
            if busy is not None and at < busy["end"]:
                if what == "call":
                    g.edge(sp(busy), sp(x), at - busy["start"], "launch", busy)
                continue
            d = ep(x) if what == "pop" else sp(x)
            if cur is not None:
                g.edge(cur, d, g.t[d] - g.t[cur], "host", top)
            if what == "call":
                cur, busy = ep(x), x
            elif what == "push":
                stack.append(x)
                cur = sp(x)
            else:
                if x in stack:
                    del stack[stack.index(x):]
                cur = ep(x)
        if th == tid and cur is not None:
            g.edge(cur, k, g.t[k] - g.t[cur], "host", stack[-1] if stack else None)
            host_into_k = True
    if not host_into_k:
        g.edge(r, k, e - s, "host", None)
    gpu = [x for x in mine if x["kind"] in ("kernel", "copy", "memset")]
    last = {}
    for x in gpu:  # launch, stream order
        c = x.get("partner")
        if c is not None:
            g.edge(sp(c), sp(x), c["end"] - c["start"], "launch", c)
        if x["lane"] in last:
            g.edge(ep(last[x["lane"]]), sp(x), 0, "queue", x)
        last[x["lane"]] = x
    byend = sorted(gpu, key=lambda x: (x["end"], x["i"]))
    for c in mine:  # synchronisation
        if c["kind"] != "call" or not blocking(c["name"]):
            continue
        done = [x for x in byend if x["end"] <= c["end"]]
        if done and done[-1]["end"] > c["start"]:
            g.edge(ep(done[-1]), ep(c), 0, "sync", c)
        if c.get("launched") is not None:
            g.edge(ep(c["launched"]), ep(c), 0, "sync", c)
    lastop, captured, pending = {}, {}, {}  # cross-stream events in each thread's order
    for c in mine:
        if c["kind"] != "call":
            continue
        x = c.get("launched")
        if x is not None and x["i"] in P:
            p = pending.get(c["tid"])
            if p is not None and p["lane"] != x["lane"]:
                g.edge(ep(p), sp(x), 0, "queue", x)
                pending[c["tid"]] = None
            lastop[c["tid"]] = x
        elif c["name"].startswith(("cudaEventRecord", "cuEventRecord")):
            captured[c["tid"]] = lastop.get(c["tid"])
        elif c["name"].startswith(("cudaStreamWaitEvent", "cuStreamWaitEvent")):
            pending[c["tid"]] = captured.get(c["tid"])
    has = {b for _, b, _, _, _ in g.edges}
    for p in range(len(g.t)):
        if p not in has and p != root:
            g.edge(r, p, g.t[p] - g.t[r], "idle", None)
    best = {}  # binding in-edges take the observed remainder
    for n, (a, b, m, _, _) in enumerate(g.edges):
        c = best.get(b)
        if c is None or (g.t[a] + m, g.t[a]) > (g.t[g.edges[c][0]] + g.edges[c][2], g.t[g.edges[c][0]]):
            best[b] = n
    lag = [m for _, _, m, _, _ in g.edges]
    for b, n in best.items():
        lag[n] = g.t[b] - g.t[g.edges[n][0]]
    return g, lag, root, sink


def longest(g, lag, root, sink):
    T = [g.t[root]] * len(g.t)
    pred = [None] * len(g.t)
    indeg = defaultdict(int)
    out = defaultdict(list)
    for n, (a, b, _, _, _) in enumerate(g.edges):
        indeg[b] += 1
        out[a].append(n)
    queue = [p for p in range(len(g.t)) if indeg[p] == 0]
    while queue:
        u = queue.pop()
        for n in out[u]:
            b = g.edges[n][1]
            v = T[u] + lag[n]
            c = pred[b]
            if c is None or (v, T[u], -n) > (T[b], T[g.edges[c][0]], -c):
                T[b], pred[b] = v, n
            indeg[b] -= 1
            if indeg[b] == 0:
                queue.append(b)
    path, p = [], sink
    while pred[p] is not None:
        path.append(pred[p])
        p = g.edges[pred[p]][0]
    return T[sink] - g.t[root], path[::-1]


def summary(g, lag, path):
    parts = {p + "_ns": 0 for p in PARTS}
    items = defaultdict(int)
    for n in path:
        _, _, _, part, item = g.edges[n]
        parts[part + "_ns"] += lag[n]
        if lag[n] == 0:
            continue
        if item is None:
            key = ("idle", "idle") if part == "idle" else ("host", "host")
        else:
            key = (item["kind"] if item["kind"] != "memset" else "memset", item["name"])
        items[key] += lag[n]
    return parts, {"%s\t%s" % k: v for k, v in items.items()}


def main():
    path, regex = sys.argv[1], re.compile(sys.argv[2])
    scale = None
    if len(sys.argv) > 3 and sys.argv[3] == "--what-if-kernel":
        scale = (sys.argv[4], float(sys.argv[5]))
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    ev = load(db)
    steps = [x for x in ev if x["kind"] == "nvtx" and regex.fullmatch(x["name"] or "")]
    out = []
    for st in steps:
        g, lag, root, sink = build(ev, st["start"], st["end"], st["pid"], st["tid"])
        length, p = longest(g, lag, root, sink)
        parts, items = summary(g, lag, p)
        o = {"name": st["name"], "span_ns": st["end"] - st["start"], "length_ns": length, "parts": parts,
             "items": items}
        if scale:
            lag2 = [int(lag[n] * scale[1] + 0.5) if n in g.own and ed[4]["kind"] == "kernel" and
                    ed[4]["name"] == scale[0] else lag[n] for n, ed in enumerate(g.edges)]
            o["what_if_length_ns"] = longest(g, lag2, root, sink)[0]
        out.append(o)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


main()
