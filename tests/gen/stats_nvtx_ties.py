#!/usr/bin/env python3
"""Writes an SQLite export (nsys column names) whose NVTX push/pop ranges have parents that are not unique
by time alone (issue 24, item 9): ranges that more than one open range encloses equally tightly, because
start or end times are equal. nvtxpptrace.py keeps the candidate its R-tree query meets first; in an
export of more than one R-tree node that follows the tree's node splits, not the rowid. Timestamps stay
below 2^24 ns, where the R-tree's float32 coordinates are exact (no docs/REPORTS.md V4 effect). Pid 4545.

Thread 1 (the first rows, one R-tree leaf): a parent P; siblings A, B with a zero-length range Z where A
  ends and B starts (equal end with A, equal start with B, as long as each other: a tie); a sibling C that
  starts with its child D (equal start) and E that ends with its child F (equal end); G, H equally long
  around a zero-length K at their seam, where G sits one level deeper (inside G2, which ends with it).
Thread 2 (N blocks, rows shuffled with a fixed seed): per block, Q = [t, t+2L] holding A = [t+L, t+2L]
  (equal end), its sibling B = [t+2L, t+3L], and a zero-length Z at t+2L: A and B tie (levels 2 and 1);
  every third block, B holds C = [t+2L, t+2L+L/2] (equal start), which is then Z's one tightest parent.

usage: stats_nvtx_ties.py OUT.sqlite [--blocks N]
"""
import argparse
import os
import random
import sqlite3

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--blocks", type=int, default=2000)
a = ap.parse_args()
if os.path.exists(a.out):
    os.remove(a.out)
db = sqlite3.connect(a.out)
db.executescript("""
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
""")
db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_NAME', 'gpuflame NVTX parent ties (synthetic)')")
db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.2')")
P = 4545
G = (1 << 48) | (P << 24)
T1, T2 = G | P, G | (P + 1)
one = [(1000, 9000, "P"), (2000, 3000, "A"), (3000, 3000, "Z"), (3000, 4000, "B"), (4000, 5000, "C"),
       (4000, 4400, "D"), (5000, 6000, "E"), (5600, 6000, "F"), (6000, 6500, "G2"), (6100, 6500, "G"),
       (6500, 6500, "K"), (6500, 6900, "H")]
db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (?, ?, 59, ?, %d)" % T1, one)
L, t, two = 100, 20000, [(10000, 20000 + 3 * 100 * a.blocks + 10000, "top")]
for i in range(a.blocks):
    two += [(t, t + 2 * L, "Q"), (t + L, t + 2 * L, "A"), (t + 2 * L, t + 3 * L, "B"), (t + 2 * L, t + 2 * L, "Z")]
    if i % 3 == 0:
        two.append((t + 2 * L, t + 2 * L + L // 2, "C"))
    t += 3 * L
assert t < (1 << 24)
random.Random(24).shuffle(two)
db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (?, ?, 59, ?, %d)" % T2, two)
db.commit()
db.close()
