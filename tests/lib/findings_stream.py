#!/usr/bin/env python3
"""Rebuilds, for tests that read `gpuflame findings -f csv` rule by rule, one stream out of what it writes
with -o BASE: per rule (in the order of its verdict lines on stderr, `gpuflame: [SPEC] VERDICT`) a
`# RULE: VERDICT` line, the rule's BASE_<SPEC>.csv, a blank line -- the shape of `nsys analyze -f csv`'s
stdout. Usage: findings_stream.py BASE < stderr-text > stream"""
import re
import sys


def main():
    base = sys.argv[1]
    out = []
    for line in sys.stdin.read().splitlines():
        m = re.match(r"^gpuflame: \[([^\]]*)\] (.*)$", line)
        if not m:
            continue
        spec, verdict = m.group(1), m.group(2)
        path = base + "_" + re.sub(r"[^A-Za-z0-9\-_=.]", "_", spec) + ".csv"
        try:
            with open(path, encoding="utf-8") as f:
                body = f.read()
        except OSError:
            body = ""
        out.append("# %s: %s\n%s\n" % (spec.split(":", 1)[0], verdict, body))
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
