#!/usr/bin/env python3
"""Normalises `gpuflame diff --json` output for golden comparison: drops the generator (version) and
reduces input paths to their base names (fixtures live in different places on different machines).
usage: diff_json.py FILE  (prints the normalised JSON, sorted keys, indent 2)"""
import json
import os
import sys


def base(v):
    return os.path.basename(v.rstrip("/")) if isinstance(v, str) else v


d = json.load(open(sys.argv[1]))
d.pop("generator", None)
for side in ("before", "after"):
    s = d.get(side) or {}
    for k in ("input", "file", "report"):
        if k in s:
            s[k] = base(s[k])
print(json.dumps(d, sort_keys=True, indent=2, ensure_ascii=False))
