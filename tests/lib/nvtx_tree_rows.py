"""RangeId → (ParentId, Lvl, NumChild, DurChild) of an nvtx_pushpop_trace CSV as nsys (any era: 2022.4's
'None' for an empty ParentId, 'DurChild (ns)' or 'DurChild') or gpuflame writes it, for the NVTX tie tests.
usage: nvtx_tree_rows.py A.csv B.csv → 'rows=N differ=M' and the first differences."""
import csv
import sys


def rows(path):
    out = {}
    for r in csv.DictReader(open(path)):
        p = r["ParentId"]
        dc = r.get("DurChild (ns)", r.get("DurChild"))
        out[int(r["RangeId"])] = ("" if p in ("", "None") else int(p), int(r["Lvl"]), int(r["NumChild"]),
                                  int(float(dc)))
    return out


if __name__ == "__main__":
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    print("rows=%d/%d differ=%d" % (len(a), len(b), len(diff)))
    for k in diff[:3]:
        print("  RangeId %d: %s vs %s" % (k, a.get(k), b.get(k)))
