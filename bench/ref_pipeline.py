#!/usr/bin/env python3
"""Reference pipeline in Python, as the reference integration does it (docs/spec/STUDIO.md §6.5-6.6):
csv module → collapsed lines → JSON for the flame graph page (burn convert --type=folded style tree).
  ref_pipeline.py csv IN OUT.folded     kern-sum CSV → collapsed text (the §6.5 rules)
  ref_pipeline.py json IN.folded OUT    collapsed text → nested JSON tree {name, value, children}
"""
import csv
import json
import sys


def csv_to_folded(path, out, prefix="gpu;nsys;cuda_kernel"):
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f))
    header = [h.strip().lstrip("\ufeff") for h in rows[0]]
    low = [h.lower() for h in header]
    ni = next((i for i, h in enumerate(low) if h in ("name", "kernel name", "kernel")), len(header) - 1)
    wi = next((i for i, h in enumerate(low) if h in ("total time (ns)", "total time(ns)", "total (ns)", "time (ns)")), None)
    if wi is None:
        wi = next((i for i, h in enumerate(low) if "total" in h and "ns" in h), None)
    if wi is None:
        wi = next((i for i, h in enumerate(low) if "time" in h), None)
    lines = []
    for r in rows[1:]:
        name = r[ni].strip().strip('"') if ni < len(r) else ""
        if not name:
            continue
        try:
            w = max(1, int(float(r[wi])))
        except (ValueError, IndexError, TypeError):
            w = 1
        lines.append("%s;%s %d" % (prefix, name.replace(";", ","), max(1, w // 1000)))
    with open(out, "w") as f:
        f.write("\n".join(lines))


def folded_to_json(path, out):
    root = {"name": "root", "value": 0, "children": {}}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            stack, _, cnt = line.rpartition(" ")
            n = int(cnt)
            root["value"] += n
            node = root
            for fr in stack.split(";"):
                ch = node["children"].get(fr)
                if ch is None:
                    ch = node["children"][fr] = {"name": fr, "value": 0, "children": {}}
                ch["value"] += n
                node = ch

    def conv(nd):
        return {"name": nd["name"], "value": nd["value"],
                "children": [conv(c) for c in sorted(nd["children"].values(), key=lambda c: c["name"])]}
    with open(out, "w") as f:
        json.dump(conv(root), f, separators=(",", ":"))


if __name__ == "__main__":
    mode, a, b = sys.argv[1:4]
    (csv_to_folded if mode == "csv" else folded_to_json)(a, b)
