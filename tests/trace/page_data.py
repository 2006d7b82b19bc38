"""Reads the timeline JSON out of a page written with tests/trace/templates/timeline.html."""
import json
import re


def load(path):
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<script id="timeline-data" type="application/json">(.*?)</script>', html, re.S)
    if not m:
        raise SystemExit("no timeline data in " + path)
    return json.loads(m.group(1))
