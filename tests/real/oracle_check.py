#!/usr/bin/env python3
"""NVIDIA's own `nsys stats` report scripts as the oracle for gpuflame (tests/real/test_oracle.sh).

usage: oracle_check.py DIR CASE

DIR holds, for one SQLite export:
  ns_<report>.csv   `nsys stats --format csv:mem=B -o DIR/ns --report <report>` (nsys 2022.4 report names);
                    a 0-byte file is a report nsys SKIPPED (the reason is in stats.log)
  stats.log         nsys's stdout+stderr (the SKIPPED reasons)
  gf/totals.json    gpuflame: core.sqlite_kernels.totals "kernels" / "api" (exact ns and counts)
  gf/timeline.json  gpuflame: the whole Trace model as the timeline page embeds it (docs/TIMELINE_DATA.md)
  gf/pids.json      gpuflame: the process id of each of those events (the page data has none for GPU lanes)
  gf/kernels.ns.folded
                    gpuflame's CLI: `gpuflame collapse --levels kernel INPUT`: the hierarchical GPU stacks
                    reduced to their leaves, each kernel's GPU time in ns; empty when collapse found no GPU
                    operation (exit 5)

Prints one `ok - CASE: <report>` / `not ok - CASE: <report>: <why>` line per report and exits 1 if any
failed. Every normalisation applied below is a documented rule of the 2022.4 report scripts
(/usr/lib/nsight-systems/host-linux-x64/reports/*.py, nsysstats.py); each says which, and each is
checked (a normalisation that could hide a real difference is asserted, not assumed).
"""
import collections
import csv
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "trace"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page_data  # noqa: E402  (packed event columns → rows, docs/TIMELINE_DATA.md "Packed events")
import nvtx_tree  # noqa: E402  (NVTX parents by the scripts' rule, exact and through 2022.4's float32 R-tree)

DIR, CASE = sys.argv[1:3]
NO_PROJ = "--no-proj" in sys.argv[3:]  # test_oracle.sh: nsys was not asked for nvtxgpuproj (lib.sh proj_too_heavy)
failed = 0
REPORTS = ["gpukernsum", "cudaapisum", "gputrace", "cudaapitrace", "nvtxpptrace", "nvtxgpuproj"]


def result(report, problems, note=""):
    global failed
    if problems:
        failed += 1
        print("not ok - %s: %s: %s" % (CASE, report, "; ".join(problems[:6]) +
                                        (" (+%d more)" % (len(problems) - 6) if len(problems) > 6 else "")))
    else:
        print("ok - %s: %s%s" % (CASE, report, (" (" + note + ")") if note else ""))


def load_csv(report):
    """Rows of one report, or None when nsys SKIPPED it (0-byte file), with the SKIPPED reason."""
    path = os.path.join(DIR, "ns_%s.csv" % report)
    if not os.path.exists(path):
        return None, "no output file"
    if os.path.getsize(path) == 0:
        why = ""
        log = open(os.path.join(DIR, "stats.log"), encoding="utf-8", errors="replace").read()
        m = re.search(r"with \[[^\]]*/%s\.py\][^\n]*?SKIPPED: ([^\n]*)" % report, log)
        if m:
            why = m.group(1).replace(DIR + "/", "")
        return None, why or "empty output"
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f)), ""


def num(v):
    """nsys writes SQL NULL as None"""
    return None if v in (None, "", "None") else int(v)


gf_totals = json.load(open(os.path.join(DIR, "gf", "totals.json")))
tl = page_data.decode(json.load(open(os.path.join(DIR, "gf", "timeline.json"))))
pids = json.load(open(os.path.join(DIR, "gf", "pids.json")))
KIND = {k: i for i, k in enumerate(tl["kinds"])}
# The timeline data is rebased: event start = absolute ns - t0 (docs/TIMELINE_DATA.md), t0 = min start.
# nsys stats prints the export's raw timestamps ("Start:ts_ns" is the start column as stored), so
# gpuflame's absolute time is t0 + start.
T0 = tl["t0"]
EVENTS = []
for i, e in enumerate(tl["events"]):
    start, dur, lane, corr, name, _stack, kind, det = e
    EVENTS.append({
        "start": T0 + start, "dur": dur, "lane": tl["lanes"][lane], "corr": corr, "name": tl["names"][name],
        "kind": tl["kinds"][kind], "detail": tl["details"][det] if det >= 0 else {}, "pid": pids[i],
    })


def short(v):
    s = repr(v)
    return s if len(s) <= 90 else s[:60] + "..." + s[-25:]


def folded(src):
    """kernel name → ns from the CLI's `collapse --levels kernel` (one frame per line; the memcpy and
    memset leaves are not kernels); None for the CUDA API, which the GPU stacks do not carry"""
    if src != "kernels":
        return None
    out = {}
    path = os.path.join(DIR, "gf", "kernels.ns.folded")
    if not os.path.exists(path):
        return out
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#") or line.startswith("[CUDA mem"):
            continue
        name, w = line.rsplit(" ", 1)
        out[name] = out.get(name, 0) + int(w)
    return out


def diff_maps(label, want, got, problems):
    for k in sorted(set(want) | set(got)):
        if want.get(k) != got.get(k):
            problems.append("%s %s: nsys %s, gpuflame %s" % (label, short(k), want.get(k), got.get(k)))


# ---------------------------------------------------------------------------------------------------
# gpukernsum / cudaapisum: per-name totals and counts
# ---------------------------------------------------------------------------------------------------
def check_sum(report, src, count_col):
    rows, why = load_csv(report)
    gf = {t["name"]: (t["total_ns"], t["count"]) for t in gf_totals.get(src, [])}
    cli_ns = folded(src)
    if rows is None:
        # nsys SKIPPED: the table is absent. gpuflame must agree there is nothing of that kind.
        problems = []
        if gf or cli_ns:
            problems.append("nsys SKIPPED (%s) but gpuflame found %d names (CLI: %d)" % (why, len(gf), len(cli_ns)))
        result(report, problems, "both empty: nsys " + why)
        return
    # Normalisation 1 (gpukernsum.py: `GROUP BY 1, grid, block` over nameId; cudaapisum.py: `GROUP BY 1`
    # over nameId): nsys splits one name into several rows when it was launched with different grid/block
    # shapes, or when two StringIds hold the same text (or, for cudaapisum, the same text after its
    # `_v`-suffix CASE). gpuflame's per-name totals (sqlite_kernels.c) are by name text, so the nsys
    # rows are summed by Name here; how many rows were merged is reported.
    want = collections.OrderedDict()
    merged = 0
    for r in rows:
        n = r["Name"]
        t, c = int(r["Total Time (ns)"]), int(r[count_col])
        if n in want:
            merged += 1
            want[n] = (want[n][0] + t, want[n][1] + c)
        else:
            want[n] = (t, c)
    problems = []
    diff_maps("(total ns, %s)" % count_col, want, gf, problems)
    # The CLI (`collapse --levels kernel`): each kernel's GPU time in integer ns, exactly.
    if cli_ns is not None:
        diff_maps("folded ns", {n: v[0] for n, v in want.items()}, cli_ns, problems)
    result(report, problems, "%d names%s" % (len(want), ", %d nsys rows merged by name" % merged if merged else ""))


# ---------------------------------------------------------------------------------------------------
# gputrace: kernels, memcpy, memset rows
# ---------------------------------------------------------------------------------------------------
# Normalisation 2 (nsysstats.py MEM_OPER_STRS_CTE, used by gputrace.py query_memcpy): nsys 2022.4 names a
# memcpy row from a fixed table by copyKind ('[CUDA memcpy HtoD]', '[CUDA Unified Memory memcpy HtoD]'),
# while gpuflame names it "[CUDA memcpy <ENUM_CUDA_MEMCPY_OPER label>]" (trace_sqlite.c import_copies:
# the export's own labels, 'Host-to-Device', the spelling nsys 2023+ reports print: see the fixture
# real/nussinov-gpu/gpu_profile.txt, `[CUDA memcpy Device-to-Host]`). Same copyKind id, two spellings:
# the id order of both tables is identical (0..13), so this is a 1:1 rename; a gpuflame memcpy name
# outside the table is a failure, and everything else about the row must still match.
NSYS_MEMCPY = ["[CUDA memcpy Unknown]", "[CUDA memcpy HtoD]", "[CUDA memcpy DtoH]", "[CUDA memcpy HtoA]",
               "[CUDA memcpy AtoH]", "[CUDA memcpy AtoA]", "[CUDA memcpy AtoD]", "[CUDA memcpy DtoA]",
               "[CUDA memcpy DtoD]", "[CUDA memcpy HtoH]", "[CUDA memcpy PtoP]",
               "[CUDA Unified Memory memcpy HtoD]", "[CUDA Unified Memory memcpy DtoH]",
               "[CUDA Unified Memory memcpy DtoD]"]
GF_COPY = ["Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array", "Array-to-Host", "Array-to-Array",
           "Array-to-Device", "Device-to-Array", "Device-to-Device", "Host-to-Host", "Peer-to-Peer",
           "Unified Host-to-Device", "Unified Device-to-Host", "Unified Device-to-Device"]
MEMCPY_2022 = {"[CUDA memcpy %s]" % g: n for g, n in zip(GF_COPY, NSYS_MEMCPY)}


def check_gputrace():
    rows, why = load_csv("gputrace")
    gf = [e for e in EVENTS if e["kind"] in ("kernel", "memcpy", "memset")]
    if rows is None:
        result("gputrace", ["nsys SKIPPED (%s) but gpuflame has %d GPU events" % (why, len(gf))] if gf else [],
               "both empty: nsys " + why)
        return
    problems = []

    def key_ns(r):
        return (num(r["Start (ns)"]), num(r["Duration (ns)"]), num(r["CorrId"]), r["Device"], num(r["Strm"]),
                r["Name"], num(r["Bytes (B)"]),
                (num(r["GrdX"]), num(r["GrdY"]), num(r["GrdZ"])) if num(r["GrdX"]) is not None else None,
                (num(r["BlkX"]), num(r["BlkY"]), num(r["BlkZ"])) if num(r["BlkX"]) is not None else None,
                num(r["Reg/Trd"]))

    renamed = 0

    def key_gf(e):
        nonlocal renamed
        d = e["detail"]
        name = e["name"]
        if e["kind"] == "memcpy":
            if name not in MEMCPY_2022:
                problems.append("memcpy name %r is not one of the export's copy kinds" % name)
            else:
                renamed += 1
                name = MEMCPY_2022[name]
        return (e["start"], e["dur"], e["corr"] if e["corr"] >= 0 else None, e["lane"].get("device"),
                e["lane"]["stream"], name, d.get("bytes") if e["kind"] != "kernel" else None,
                tuple(d["grid"]) if "grid" in d else None, tuple(d["block"]) if "block" in d else None,
                d.get("regs"))

    want = sorted((key_ns(r) for r in rows), key=repr)
    got = sorted((key_gf(e) for e in gf), key=repr)
    compare_rows(want, got, problems,
                 ["Start", "Duration", "CorrId", "Device", "Strm", "Name", "Bytes", "Grid", "Block", "Reg/Trd"])
    # start order: nsys sorts by start (gputrace.py `ORDER BY start`); gpuflame's events are sorted by start
    starts = [num(r["Start (ns)"]) for r in rows]
    if starts != sorted(starts):
        problems.append("nsys rows not in start order")
    result("gputrace", problems, "%d rows, %d memcpy names in the 2022.4 spelling" % (len(want), renamed))


def compare_rows(want, got, problems, cols):
    """want/got: sorted lists of tuples. Reports count differences and the first differing rows."""
    if want == got:
        return
    cw, cg = collections.Counter(want), collections.Counter(got)
    only_n = list((cw - cg).elements())
    only_g = list((cg - cw).elements())
    problems.append("%d rows only in nsys, %d only in gpuflame (of %d / %d)" %
                    (len(only_n), len(only_g), len(want), len(got)))
    # show the closest pairs field by field (matched on start when possible)
    by_start = collections.defaultdict(list)
    for g in only_g:
        by_start[g[0]].append(g)
    shown = 0
    for n in only_n:
        cand = by_start.get(n[0])
        if cand:
            g = cand[0]
            fields = ["%s nsys %s gpuflame %s" % (c, short(a), short(b)) for c, a, b in zip(cols, n, g) if a != b]
            problems.append("row at %s: %s" % (short(n[0]), ", ".join(fields)))
        else:
            problems.append("nsys row %s has no gpuflame row with that %s" % (short(n), cols[0]))
        shown += 1
        if shown >= 3:
            break
    if not only_n:
        for g in only_g[:3]:
            problems.append("gpuflame row %s not in nsys" % short(g))


# ---------------------------------------------------------------------------------------------------
# cudaapitrace: CUDA runtime API rows
# ---------------------------------------------------------------------------------------------------
def check_apitrace():
    rows, why = load_csv("cudaapitrace")
    gf = [e for e in EVENTS if e["kind"] == "cuda_api"]
    if rows is None:
        result("cudaapitrace", ["nsys SKIPPED (%s) but gpuflame has %d API events" % (why, len(gf))] if gf else [],
               "both empty: nsys " + why)
        return
    problems = []
    want = sorted(((num(r["Start (ns)"]), num(r["Duration (ns)"]), r["Name"], num(r["CorrID"]), num(r["Pid"]),
                    num(r["Tid"]), None if r["Thread Name"] == "None" else r["Thread Name"]) for r in rows), key=repr)
    got = sorted(((e["start"], e["dur"], e["name"], e["corr"] if e["corr"] >= 0 else None, e["lane"]["pid"],
                   e["lane"]["tid"], e["lane"].get("thread")) for e in gf), key=repr)
    compare_rows(want, got, problems,
                 ["Start", "Duration", "Name", "CorrID", "Pid", "Tid", "Thread Name"])
    result("cudaapitrace", problems, "%d rows" % len(want))


# ---------------------------------------------------------------------------------------------------
# nvtxpptrace: push/pop ranges
# ---------------------------------------------------------------------------------------------------
def nvtx_fullname(e):
    # Normalisation 3 (nvtxpptrace.py / nvtxgpuproj.py `fullname`): nsys prefixes a range of a named
    # domain with "<domain name>:"; gpuflame keeps the range name and the domain apart (event name +
    # detail "domain", shown separately on the page). Joined here the way the scripts join them.
    d = e["detail"].get("domain")
    return d + ":" + e["name"] if d is not None else e["name"]


def gf_nvtx(pushpop_only):
    out = []
    for e in EVENTS:
        if e["kind"] != "nvtx":
            continue
        # push/pop ranges carry a nesting level (trace_sqlite.c import_nvtx sets nvtx_level only for
        # eventType 59/70); start/end ranges do not
        if pushpop_only and "nvtx_level" not in e["detail"]:
            continue
        out.append(e)
    return out


def check_pptrace():
    rows, why = load_csv("nvtxpptrace")
    gf = gf_nvtx(True)
    if rows is None:
        result("nvtxpptrace", ["nsys SKIPPED (%s) but gpuflame has %d push/pop ranges" % (why, len(gf))] if gf else [],
               "both empty: nsys " + why)
        return
    problems = []
    want = sorted(((num(r["Start (ns)"]), num(r["End (ns)"]), r["Name"], num(r["PID"]), num(r["TID"]), num(r["Lvl"]))
                   for r in rows), key=repr)
    got = sorted(((e["start"], e["start"] + e["dur"], nvtx_fullname(e), e["lane"]["pid"], e["lane"]["tid"],
                   e["detail"]["nvtx_level"]) for e in gf), key=repr)
    v4 = ""
    if want != got:
        exact, why, moved = v4_levels(rows)
        if exact is None:
            problems.append("not V4: " + why)
        elif exact == got:
            want = got
            v4 = ("; V4: %d ranges one or more levels up in nsys 2022.4, whose float32 R-tree misses their "
                  "parent; every level the exact rule's" % moved)
    compare_rows(want, got, problems, ["Start", "End", "Name", "PID", "TID", "Lvl"])
    dom = sum(1 for e in gf if e["detail"].get("domain") is not None)
    result("nvtxpptrace", problems, "%d ranges, deepest level %d%s%s" % (
        len(want), max([w[5] for w in want] or [0]), ", %d with a domain prefix" % dom if dom else "", v4))


def v4_levels(rows):
    """V4 (docs/REPORTS.md): nsys 2022.4 pre-filters parents through a float32 R-tree, gpuflame applies the
    exact rule. Checks that every nsys row's Lvl is what that filter gives (tests/real/nvtx_tree.py, from the
    export) and returns (nsys's rows with the exact rule's levels, "", how many differ), or (None, why, 0)."""
    rs = nvtx_tree.ranges(os.path.join(DIR, "x.sqlite"), "59, 70", False)
    exact, _ = nvtx_tree.tree(rs, False)
    old, _ = nvtx_tree.tree(rs, True)
    out, moved = [], 0
    for r in rows:
        k = num(r["RangeId"])
        if exact.get(k) is None or old.get(k) is None:
            return None, "RangeId %s is no range the tree reaches" % k, 0
        if old[k][0] != num(r["Lvl"]):
            return None, "RangeId %d: nsys Lvl %s, the float32 filter's %d" % (k, r["Lvl"], old[k][0]), 0
        moved += exact[k][0] != old[k][0]
        out.append((num(r["Start (ns)"]), num(r["End (ns)"]), r["Name"], num(r["PID"]), num(r["TID"]), exact[k][0]))
    return sorted(out, key=repr), "", moved


# ---------------------------------------------------------------------------------------------------
# nvtxgpuproj: NVTX ranges projected onto the GPU
# ---------------------------------------------------------------------------------------------------
def check_gpuproj():
    """gpuflame has no projection report of its own (its NVTX analysis reads this very CSV). What it does
    own are the inputs of the projection: NVTX ranges, CUDA API calls with their thread and correlation
    id, GPU work with its process and correlation id. The rule of nvtxgpuproj.py's `projection` CTE is
    applied to gpuflame's Trace model: a GPU op (kernel, memcpy, memset) belongs to a range when the
    CUDA API call with the same correlation id in the same process (`op.globalPid == r.globalTid &
    0xFFFFFFFFFF000000`) ran on the range's thread inside it (`rt.startNS <= r.start AND rt.endNS >=
    r.end`); projected start = min op start, duration = max op end - min op start, NumGPUOps = distinct
    correlation ids; only ranges with at least one op are rows."""
    rows, why = load_csv("nvtxgpuproj")
    ranges = gf_nvtx(False)
    ops = [e for e in EVENTS if e["kind"] in ("kernel", "memcpy", "memset")]
    apis = [e for e in EVENTS if e["kind"] == "cuda_api"]
    launch = {}
    for a in apis:
        if a["corr"] >= 0:
            launch.setdefault((a["pid"], a["corr"]), []).append(a)
    by_thread = collections.defaultdict(list)  # (pid, tid) → [(api, op)]
    for op in ops:
        for a in launch.get((op["pid"], op["corr"]), []):
            by_thread[(a["lane"]["pid"], a["lane"]["tid"])].append((a, op))
    got = []
    for rg in ranges:
        s, e = rg["start"], rg["start"] + rg["dur"]
        inside = [(a, op) for a, op in by_thread.get((rg["lane"]["pid"], rg["lane"]["tid"]), [])
                  if s <= a["start"] and e >= a["start"] + a["dur"]]
        if not inside:
            continue
        ps = min(op["start"] for _, op in inside)
        pe = max(op["start"] + op["dur"] for _, op in inside)
        style = "PushPop" if "nvtx_level" in rg["detail"] else "StartEnd"
        got.append((nvtx_fullname(rg), ps, pe - ps, s, e - s, style, rg["lane"]["pid"], rg["lane"]["tid"],
                    len({a["corr"] for a, _ in inside})))
    if rows is None:
        result("nvtxgpuproj", ["nsys SKIPPED (%s) but gpuflame projects %d ranges" % (why, len(got))] if got else [],
               "both empty: nsys " + why)
        return
    problems = []
    want = sorted(((r["Name"], num(r["Projected Start (ns)"]), num(r["Projected Duration (ns)"]),
                    num(r["Orig Start (ns)"]), num(r["Orig Duration (ns)"]), r["Style"], num(r["PID"]),
                    num(r["TID"]), num(r["NumGPUOps"])) for r in rows), key=repr)
    compare_rows(want, sorted(got, key=repr), problems,
                 ["Name", "Projected Start", "Projected Duration", "Orig Start", "Orig Duration", "Style", "PID",
                  "TID", "NumGPUOps"])
    se = sum(1 for w in want if w[5] == "StartEnd")
    result("nvtxgpuproj", problems, "%d projected ranges%s" % (len(want), ", %d start/end" % se if se else ""))


check_sum("gpukernsum", "kernels", "Instances")
check_sum("cudaapisum", "api", "Num Calls")
check_gputrace()
check_apitrace()
check_pptrace()
if NO_PROJ:
    print("skip - %s: nvtxgpuproj: nsys 2022.4's own projection of this export takes minutes (lib.sh proj_too_heavy)" % CASE)
else:
    check_gpuproj()
# the dump must be the whole model: nothing trimmed
if tl["total"] != tl["shown"]:
    print("not ok - %s: gpuflame dump: trimmed (%d of %d events)" % (CASE, tl["shown"], tl["total"]))
    failed += 1
sys.exit(1 if failed else 0)
