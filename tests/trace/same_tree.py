"""Compares the call trees of two flamegraph pages (templates/flamegraph.html): every node's depth, frame name
and value in the page's order, and the fold sentence of the subtitle; with --all also the instance counts and
frame kinds. A page whose names list a frame no node uses fails too. Prints one ok / not ok line and exits 1 when they differ.
usage: same_tree.py [--all] NAME PAGE_A PAGE_B"""
import html
import json
import re
import sys


def tree(path, full):
    text = open(path, encoding="utf-8").read()
    data = json.loads(html.unescape(re.search(r'<script type="application/json" id="fg-data">(.*?)</script>', text,
                                              re.S).group(1)))
    conf = json.loads(html.unescape(re.search(r'<script type="application/json" id="fg-config">(.*?)</script>',
                                              text, re.S).group(1)))
    names, nodes = data["names"], data["nodes"]
    counts, kinds = data.get("counts"), data.get("kinds")
    rows = []
    for k in range(0, len(nodes), 3):
        row = (nodes[k + 2], names[nodes[k]], nodes[k + 1])
        if full:
            row += (counts[k // 3] if counts else None, kinds[nodes[k]] if kinds else None)
        rows.append(row)
    fold = re.search(r"\d+ frames under .*", conf.get("subtitle", ""))
    unused = len(names) - len(set(nodes[0::3]))
    return data["total"], rows, fold and fold.group(0), unused


args = sys.argv[1:]
full = args[0] == "--all"
name, a, b = args[1:] if full else args
ta, tb = tree(a, full), tree(b, full)
why = ""
if ta[3] or tb[3]:
    why = "names no node uses: %d and %d" % (ta[3], tb[3])
elif ta[0] != tb[0]:
    why = "totals %s and %s" % (ta[0], tb[0])
elif ta[2] != tb[2]:
    why = "fold sentences %r and %r" % (ta[2], tb[2])
elif ta[1] != tb[1]:
    first = next((i for i, (x, y) in enumerate(zip(ta[1], tb[1])) if x != y), min(len(ta[1]), len(tb[1])))
    why = "%d and %d nodes, first difference at node %d: %s / %s" % (
        len(ta[1]), len(tb[1]), first, ta[1][first] if first < len(ta[1]) else "-",
        tb[1][first] if first < len(tb[1]) else "-")
print(("ok - %s (%d nodes)" % (name, len(ta[1]))) if not why else "not ok - %s: %s" % (name, why))
sys.exit(1 if why else 0)
