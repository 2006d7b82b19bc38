#!/usr/bin/env python3
"""Edits a copy of an nsys NVTX CSV report in place for the analyze tests (stdlib only).

  nvtx_edit.py FILE rename RID NAME        set Name of the row with RangeId RID (raw, e.g. ':x')
  nvtx_edit.py FILE set RID COLUMN VALUE   set any column of that row
  nvtx_edit.py FILE drop RID               remove the row
  nvtx_edit.py FILE dup RID [NEW_RID]      append a copy of the row (optionally with a new RangeId)
  nvtx_edit.py FILE dropcol COLUMN...      remove whole columns
  nvtx_edit.py FILE prepend CSVROW         insert a raw CSV line after the header
  nvtx_edit.py FILE crlf                   rewrite with CRLF line ends
  nvtx_edit.py FILE headeronly             keep only the header line
"""
import csv
import io
import sys


def load(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def save(path, header, rows, eol="\n"):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator=eol)
    w.writerow(header)
    w.writerows(rows)
    with open(path, "w", newline="", encoding="utf-8") as f:
        f.write(buf.getvalue())


def main():
    path, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if op == "crlf":
        data = open(path, "rb").read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        open(path, "wb").write(data)
        return
    if op == "headeronly":
        first = open(path, "rb").read().split(b"\n")[0]
        open(path, "wb").write(first + b"\n")
        return
    if op == "prepend":
        lines = open(path, encoding="utf-8", newline="").read().split("\n")
        lines.insert(1, args[0])
        open(path, "w", encoding="utf-8", newline="").write("\n".join(lines))
        return
    header, rows = load(path)
    rid = header.index("RangeId")
    if op == "dropcol":
        keep = [i for i, h in enumerate(header) if h not in args]
        save(path, [header[i] for i in keep], [[r[i] for i in keep] for r in rows])
        return
    if op == "rename":
        col, value = "Name", args[1]
    elif op == "set":
        col, value = args[1], args[2]
    idx = [i for i, r in enumerate(rows) if r[rid] == args[0]]
    if not idx:
        sys.exit("no row with RangeId %s" % args[0])
    i = idx[0]
    if op in ("rename", "set"):
        rows[i][header.index(col)] = value
    elif op == "drop":
        del rows[i]
    elif op == "dup":
        copy = list(rows[i])
        if len(args) > 1:
            copy[rid] = args[1]
        rows.append(copy)
    else:
        sys.exit("unknown op " + op)
    save(path, header, rows)


if __name__ == "__main__":
    main()
