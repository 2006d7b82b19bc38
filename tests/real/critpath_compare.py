#!/usr/bin/env python3
"""Compares `critical-path --json` (FILE 1) with tests/real/critpath_check.py's document (FILE 2): per step the span,
length, parts and on-path items (copies and memsets by kind, calls without a _vNNNN suffix). Prints
`STEPS REFSTEPS BAD` (BAD: the names of the steps that differ, or -); with --what-if, the what-if lengths too.

usage: critpath_compare.py GF.json REF.json [--what-if]
"""
import json
import re
import sys


def norm(kind, name):
    return (kind, "" if kind in ("copy", "memset", "host", "idle") else re.sub(r"_v\d+$", "", name))


def main():
    d, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
    wi = "--what-if" in sys.argv[3:]
    bad = []
    for s, r in zip(d["steps"], ref):
        mine, theirs = {}, {}
        for i in s["on_path"]:
            mine[norm(i["kind"], i["name"])] = mine.get(norm(i["kind"], i["name"]), 0) + i["ns"]
        for k, v in r["items"].items():
            kind, name = k.split("\t", 1)
            theirs[norm(kind, name)] = theirs.get(norm(kind, name), 0) + v
        same = (s["span_ns"], s["length_ns"], s["parts"]) == (r["span_ns"], r["length_ns"], r["parts"]) and mine == theirs
        if wi and s["what_if"]["length_ns"] != r["what_if_length_ns"]:
            same = False
        if not same:
            bad.append(s["name"])
    print("%d %d %s" % (len(d["steps"]), len(ref), ",".join(bad) or "-"))


main()
