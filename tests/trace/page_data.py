"""Reads the timeline JSON out of a page (templates/timeline.html or the stand-in tests/trace/templates/
timeline.html). Packed events (docs/TIMELINE_DATA.md "Packed events") are decoded back into the row form
[start, dur, lane, corr, name, stack, kind, detail] under "events", so tests assert on plain rows; the
packed object stays under "packed"."""
import base64
import json
import re
import zlib

COLUMNS = ("start", "dur", "lane", "corr", "name", "stack", "kind", "detail")


def varints(text, deflated=False):
    if deflated:  # "varint-deflate-chunks-base64": a list of chunks, each raw DEFLATE (no zlib header)
        data = b"".join(zlib.decompress(base64.b64decode(chunk), -15) for chunk in text)
    else:
        data = base64.b64decode(text)
    out, v, shift = [], 0, 0
    for b in data:
        v |= (b & 0x7F) << shift
        if b & 0x80:
            shift += 7
        else:
            out.append(v)
            v, shift = 0, 0
    if shift:
        raise ValueError("truncated varint")
    return out


def unzig(v):
    return (v >> 1) ^ -(v & 1)


def unpack(ev):
    n = ev["n"]
    if ev.get("encoding", "varint-base64") not in ("varint-base64", "varint-deflate-chunks-base64"):
        raise ValueError("unknown event encoding %r" % ev.get("encoding"))
    deflated = ev.get("encoding") == "varint-deflate-chunks-base64"
    cols = {c: varints(ev[c], deflated) for c in COLUMNS}
    for c in COLUMNS:
        if len(cols[c]) != n:
            raise ValueError("column %s has %d values, n = %d" % (c, len(cols[c]), n))
    rows, start, last = [], 0, 0
    for i in range(n):
        start += unzig(cols["start"][i])
        c = cols["corr"][i]
        if c:
            last += unzig(c - 1)
        rows.append([start, cols["dur"][i], cols["lane"][i], last if c else -1, cols["name"][i], cols["stack"][i] - 1,
                     cols["kind"][i], cols["detail"][i] - 1])
    return rows


def decode(d):
    if isinstance(d.get("events"), dict):
        d["packed"] = d["events"]
        d["events"] = unpack(d["events"])
    return d


def load(path):
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<script id="(?:timeline-data|gf-data)" type="application/json">(.*?)</script>', html, re.S)
    if not m:
        raise SystemExit("no timeline data in " + path)
    return decode(json.loads(m.group(1)))
