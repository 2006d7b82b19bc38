#!/usr/bin/env python3
"""Makes a hostile copy of an nsys SQLite export for the timeline page's escaping tests.

usage: hostile_export.py SRC.sqlite DST.sqlite
SRC should already carry launch backtraces (tests/trace/make_callchains.py writes them to a temporary
copy of a real export). In DST, string table entries used as names are replaced:
  * the first kernel name (by StringIds id)     -> </script><img src=x onerror=alert(1)>
  * the second kernel name                      -> 10,000 characters with U+2028 and U+2029 inside
  * the CUDA_CALLCHAINS symbol of `main`        -> "<b>main</b> & </script>"
Prints the replaced strings as JSON {"kernel": ..., "long": ..., "frame": ...}.
"""
import json
import shutil
import sqlite3
import sys

src, dst = sys.argv[1:3]
shutil.copyfile(src, dst)
db = sqlite3.connect(dst)
HOSTILE = "</script><img src=x onerror=alert(1)>"
LONG = "L" * 4000 + "\u2028" + "M" * 2000 + "\u2029" + "N" * 3998
FRAME = "<b>main</b> & </script>"
ids = [r[0] for r in db.execute(
    "SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY demangledName LIMIT 2")]
if len(ids) < 2:
    sys.exit("hostile_export.py: %s: needs two distinct kernel names" % src)
db.execute("UPDATE StringIds SET value = ? WHERE id = ?", (HOSTILE, ids[0]))
db.execute("UPDATE StringIds SET value = ? WHERE id = ?", (LONG, ids[1]))
db.execute("UPDATE StringIds SET value = ? WHERE value = 'main' AND id IN (SELECT symbol FROM CUDA_CALLCHAINS)",
           (FRAME,))
db.commit()
print(json.dumps({"kernel": HOSTILE, "long": LONG, "frame": FRAME}))
