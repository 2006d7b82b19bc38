#!/usr/bin/env python3
"""Prints the SQLite floor query of bench/bench_import.sh for an nsys export: SQLite itself stepping every
row of the tables gpuflame's import reads and decoding the columns it reads (those that exist in this
file), one aggregate per column so that nothing is sorted, joined or written, plus the string table.
usage: floor_query.py EXPORT.sqlite"""
import sqlite3
import sys

TABLES = {
    "CUPTI_ACTIVITY_KIND_RUNTIME": ["start", "end", "globalTid", "correlationId", "nameId", "callchainId"],
    "CUPTI_ACTIVITY_KIND_KERNEL": ["start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                   "demangledName", "shortName", "gridX", "gridY", "gridZ", "blockX", "blockY",
                                   "blockZ", "registersPerThread", "staticSharedMemory", "dynamicSharedMemory",
                                   "contextId", "graphNodeId", "graphId"],
    "CUPTI_ACTIVITY_KIND_MEMCPY": ["start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes",
                                   "copyKind", "contextId", "srcKind", "dstKind", "srcDeviceId", "dstDeviceId"],
    "CUPTI_ACTIVITY_KIND_MEMSET": ["start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes",
                                   "contextId", "memKind"],
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION": ["start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                            "syncType"],
    "NVTX_EVENTS": ["start", "end", "eventType", "globalTid", "textId", "domainId", "length(text)"],
}
db = sqlite3.connect("file:%s?immutable=1" % sys.argv[1], uri=True)
parts = []
for table, cols in TABLES.items():
    have = {r[1] for r in db.execute("PRAGMA table_info(%s)" % table)}
    use = [c for c in cols if c.split("(")[-1].rstrip(")") in have]
    if use:
        parts.append("SELECT '%s', count(*), %s FROM %s;" % (
            table, ", ".join("total(%s)" % (c if "(" in c else '"%s"' % c) for c in use), table))
parts.append("SELECT 'StringIds', count(*), total(length(value)) FROM StringIds;")
print("\n".join(parts))
