#!/usr/bin/env python3
"""Plants one kernel into an nsys SQLite export (any schema era with StringIds and the kernel table):
a copy of an existing kernel row with a new name, start and duration, and a correlation id no other row
has. Used by the timeline scale test (a 50 ns kernel among a million events).
Usage: plant_kernel.py EXPORT NAME START_NS DUR_NS [--row K]"""
import argparse
import sqlite3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("export")
    ap.add_argument("name")
    ap.add_argument("start", type=int)
    ap.add_argument("dur", type=int)
    ap.add_argument("--row", type=int, default=0, help="the kernel row copied (its device, stream, grid...)")
    a = ap.parse_args()
    db = sqlite3.connect(a.export)
    cols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
    row = list(db.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1 OFFSET ?", (a.row,)).fetchone())
    sid = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM StringIds").fetchone()[0]
    db.execute("INSERT INTO StringIds VALUES (?, ?)", (sid, a.name))
    corr = db.execute("SELECT COALESCE(MAX(correlationId), 0) + 1000000 FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    for c, v in (("start", a.start), ("end", a.start + a.dur), ("correlationId", corr)):
        row[cols.index(c)] = v
    for c in ("shortName", "demangledName", "mangledName"):
        if c in cols:
            row[cols.index(c)] = sid
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%s)" % ",".join("?" * len(cols)), row)
    db.commit()
    print(corr)


if __name__ == "__main__":
    main()
