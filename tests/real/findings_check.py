#!/usr/bin/env python3
"""Compares `nsys analyze -f csv` (stdout) with `gpuflame findings -f csv` (stdout), rule by rule.

usage: findings_check.py LABEL NSYS_STDOUT GPUFLAME_STDOUT [RULE...]

nsys prints, per rule, `Processing [DB] with [.../rules/RULE.py](ARGS)... ` and then either nothing
(no rows), `SKIPPED: MESSAGE`, or the CSV (header + rows), then a blank line. gpuflame prints
`# RULE: VERDICT` (or `# RULE: SKIPPED: MESSAGE`), the CSV when there are rows, a blank line. One
TAP-style line per rule: `ok - LABEL RULE: N rows` or `not ok - LABEL RULE: <the first difference>`.
Rules nsys ran that gpuflame does not have (dx12-mem-op) are ignored; RULE... limits the comparison."""
import re
import sys


def nsys_blocks(text):
    blocks, cur = [], None
    for line in text.split("\n"):
        m = re.match(r"^Processing \[.*?\] with \[(?:.*/)?([^/\]]+?)(?:\.py)?\](?:\((.*)\))?\.\.\. ?$", line)
        if m:
            cur = {"rule": m.group(1), "args": m.group(2) or "", "lines": []}
            blocks.append(cur)
            continue
        if cur is not None:
            cur["lines"].append(line)
    for b in blocks:
        while b["lines"] and b["lines"][-1] == "":
            b["lines"].pop()
    return blocks


def gf_blocks(text):
    blocks, cur = [], None
    for line in text.split("\n"):
        m = re.match(r"^# ([\w\-]+): (.*)$", line)
        if m:
            cur = {"rule": m.group(1), "status": m.group(2), "lines": []}
            blocks.append(cur)
            continue
        if cur is not None:
            cur["lines"].append(line)
    for b in blocks:
        while b["lines"] and b["lines"][-1] == "":
            b["lines"].pop()
        if b["status"].startswith("SKIPPED: "):
            b["lines"] = ["SKIPPED: " + b["status"][len("SKIPPED: "):]]
        elif b["status"].startswith("ERROR: "):
            b["lines"] = ["ERROR: " + b["status"][len("ERROR: "):]]
    return blocks


def main():
    label, nsys_out, gf_out = sys.argv[1:4]
    only = set(sys.argv[4:])
    ns = nsys_blocks(open(nsys_out, encoding="utf-8", errors="replace").read())
    gf = gf_blocks(open(gf_out, encoding="utf-8", errors="replace").read())
    byrule = {}
    for g in gf:
        byrule.setdefault(g["rule"], []).append(g)
    failed = 0
    for b in ns:
        if only and b["rule"] not in only:
            continue
        if b["rule"] in ("dx12-mem-op",):
            continue
        # the gpuflame block of the same rule (a rule given twice: in order)
        name = "%s %s%s" % (label, b["rule"], (":" + b["args"]) if b["args"] else "")
        if not byrule.get(b["rule"]):
            print("not ok - %s: gpuflame printed no block for it" % name)
            failed += 1
            continue
        g = byrule[b["rule"]].pop(0)
        want, got = b["lines"], g["lines"]
        if want == got:
            if want and want[0].startswith("SKIPPED: "):
                print("ok - %s: skipped alike (%s)" % (name, want[0][9:80]))
            else:
                print("ok - %s: %d rows" % (name, max(0, len(want) - 1)))
            continue
        failed += 1
        for i in range(max(len(want), len(got))):
            w = want[i] if i < len(want) else "<none>"
            h = got[i] if i < len(got) else "<none>"
            if w != h:
                print("not ok - %s: line %d: nsys [%s] gpuflame [%s] (nsys %d lines, gpuflame %d)"
                      % (name, i + 1, w[:200], h[:200], len(want), len(got)))
                break
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
