#!/usr/bin/env python3
"""Reference implementation of docs/spec/NVTX_ANALYSIS.md (schema_version 1) in plain Python (stdlib only),
used by bench/bench_nvtx.sh to time gpuflame against it and to check that both write the same bytes.
The manifest must be JSON (flow-style YAML); the stdlib has no YAML parser.

usage: nvtx_reference.py RUN_DIR NSYS_VERSION OUT.json
"""
import csv
import json
import math
import os
import re
import sys

HOST_COLS = ("Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)", "Name", "PID", "TID",
             "Lvl", "NumChild", "RangeId", "ParentId")
GPU_COLS = ("Name", "Projected Start (ns)", "Projected Duration (ns)", "Orig Start (ns)", "Orig Duration (ns)",
            "Style", "PID", "TID", "NumGPUOps", "Lvl", "NumChild", "RangeId", "ParentId")
ITER = re.compile(r"iteration (\d+)")
VERSION = re.compile(r"\b(\d{4})\.(\d+)\b")


class AnalysisError(Exception):
    pass


def read(path, cols, gpu):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                if gpu:
                    return []
                raise AnalysisError("Nsight report contains no rows: %s" % path)
            missing = [c for c in cols if c not in header]
            if missing:
                raise AnalysisError("Nsight report %s is missing required columns: %s" % (path, ", ".join(missing)))
            idx = [header.index(c) for c in cols]
            rows = []
            for raw in reader:
                if not raw:
                    continue
                r = [raw[i] if i < len(raw) else "" for i in idx]
                if gpu and (r[0] == "" or r[11] == ""):
                    continue
                out = []
                for c, v in zip(cols, r):
                    if c in ("Name", "Style"):
                        out.append(v[1:] if c == "Name" and v.startswith(":") else v)
                    elif c == "ParentId" and v == "":
                        out.append(None)
                    else:
                        try:
                            out.append(int(v))
                        except ValueError:
                            raise AnalysisError("Invalid integer in %s column %r: %r" % (path, c, v))
                rows.append(tuple(out))
    except OSError as e:
        raise AnalysisError("Could not read Nsight report %s: %s" % (path, e))
    if not rows and not gpu:
        raise AnalysisError("Nsight report contains no rows: %s" % path)
    return rows


def summary(values):
    if not values:
        return None
    n = len(values)
    s = sorted(values)
    sx = sum(s)
    out = {"total_ns": sx, "mean_ns": sx / n, "minimum_ns": s[0], "maximum_ns": s[-1]}
    out["median_ns"] = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    if n < 2:
        out["stddev_ns"] = 0.0
    else:
        sxx = sum(v * v for v in s)
        out["stddev_ns"] = math.sqrt((n * sxx - sx * sx) / (n * (n - 1)))
    return out


def analyze(run_dir, version):
    manifest = json.load(open(os.path.join(run_dir, "manifest.yaml")))
    cap_name = manifest.get("capture_range")
    if not isinstance(cap_name, str):
        raise AnalysisError("Manifest must define a string capture_range.")
    hp = os.path.join(run_dir, "stats", "nsys_nvtx_pushpop_trace.csv")
    gp = os.path.join(run_dir, "stats", "nsys_nvtx_gpu_proj_trace.csv")
    # host: start end dur dchild dnonchild name pid tid lvl nchild rid parent
    H = read(hp, HOST_COLS, False)
    G = read(gp, GPU_COLS, True)
    caps = [r for r in H if r[5] == cap_name and r[11] is None]
    if len(caps) != 1:
        raise AnalysisError("Expected exactly one top-level host capture range named %r, but found %d."
                            % (cap_name, len(caps)))
    cap = caps[0]
    host_it = {}
    iter_rows = set()
    for i, r in enumerate(H):
        m = ITER.fullmatch(r[5])
        if m and r[6] == cap[6] and r[7] == cap[7] and r[11] == cap[10]:
            k = int(m.group(1))
            if k in host_it:
                raise AnalysisError("Duplicate host range for iteration %d." % k)
            host_it[k] = r
            iter_rows.add(i)
    iter_keys = {(r[6], r[7], r[10]): k for k, r in host_it.items()}
    harness = set(iter_keys) | {(cap[6], cap[7], cap[10])}
    gpu_it = {}
    gpu_iter_rows = set()
    for i, r in enumerate(G):
        k = iter_keys.get((r[6], r[7], r[11]))
        if k is not None:
            if k in gpu_it:
                raise AnalysisError("Duplicate GPU projection for iteration %d." % k)
            gpu_it[k] = r
            gpu_iter_rows.add(i)

    def walker(rows, ki, pi, ni):
        by_key = {(r[6], r[7], r[ki]): r for r in rows}
        memo = {}

        def path(r):
            key = (r[6], r[7], r[ki])
            if key in memo:
                return memo[key]
            names, seen, cur = [], set(), r
            while True:
                ck = (cur[6], cur[7], cur[ki])
                if ck in seen:
                    raise AnalysisError("Cycle in NVTX range hierarchy at (%d, %d, %d)." % ck)
                seen.add(ck)
                if ck in harness:
                    break
                names.append(cur[ni])
                if cur[pi] is None:
                    break
                nxt = by_key.get((cur[6], cur[7], cur[pi]))
                if nxt is None:
                    break
                cur = nxt
            names.reverse()
            p = tuple(names) if names else (r[ni],)
            memo[key] = p
            return p
        return path, by_key

    hpath, hkeys = walker(H, 10, 11, 5)
    gpath_walk, _ = walker(G, 11, 12, 0)
    groups = {}
    for i, r in enumerate(H):
        if i in iter_rows:
            continue
        groups.setdefault(hpath(r), []).append(r)
    host_ranges = []
    for p in sorted(groups):
        rs = groups[p]
        host_ranges.append({"name": ".".join(p), "instances": len(rs), "inclusive": summary([r[2] for r in rs]),
                            "exclusive": summary([r[4] for r in rs]), "child_total_ns": sum(r[3] for r in rs)})
    ggroups = {}
    for i, r in enumerate(G):
        if i in gpu_iter_rows:
            continue
        hr = hkeys.get((r[6], r[7], r[11]))
        p = hpath(hr) if hr is not None else gpath_walk(r)
        ggroups.setdefault((p, r[5]), []).append(r)
    gpu_ranges = []
    for p, style in sorted(ggroups):
        rs = ggroups[(p, style)]
        gpu_ranges.append({"name": ".".join(p), "style": style, "instances": len(rs),
                           "projected": summary([r[2] for r in rs]), "host_total_ns": sum(r[4] for r in rs),
                           "gpu_operation_count": sum(r[8] for r in rs)})
    iterations = []
    for k in sorted(set(host_it) | set(gpu_it)):
        h, g = host_it.get(k), gpu_it.get(k)
        iterations.append({"index": k,
                           "host": None if h is None else {"inclusive_ns": h[2], "exclusive_ns": h[4],
                                                            "child_total_ns": h[3]},
                           "gpu_projection": None if g is None else {"projected_ns": g[2], "host_range_total_ns": g[4],
                                                                      "gpu_operation_count": g[8]}})
    hi = [i["host"] for i in iterations if i["host"] is not None]
    gi = [i["gpu_projection"] for i in iterations if i["gpu_projection"] is not None]
    warnings = []
    m = VERSION.search(version)
    if m is None:
        warnings.append("Could not determine the Nsight Systems version; report parsing is validated against "
                        "Nsight Systems 2025.1.")
    elif not (int(m.group(1)) == 2025 and int(m.group(2)) == 1):
        warnings.append("%s has not been validated; report parsing is validated against Nsight Systems 2025.1."
                        % version)
    workload = manifest.get("workload")
    workload = workload if isinstance(workload, dict) else {}
    cuda = manifest.get("cuda")
    cuda = cuda if isinstance(cuda, dict) else {}
    n = workload.get("iterations")
    if isinstance(n, int) and not isinstance(n, bool):
        seen = {i["index"] for i in iterations}
        missing = sorted(set(range(n)) - seen)
        unexpected = sorted(seen - set(range(n)))
        if missing:
            warnings.append("Missing expected iteration indexes: %s." % missing)
        if unexpected:
            warnings.append("Unexpected iteration indexes: %s." % unexpected)
    mh = [i["index"] for i in iterations if i["host"] is None]
    if mh:
        warnings.append("Missing host ranges for iterations: %s." % mh)
    mg = [i["index"] for i in iterations if i["gpu_projection"] is None]
    if mg:
        warnings.append("Missing GPU projections for iterations: %s." % mg)
    if cap_name not in {r["name"] for r in host_ranges}:
        warnings.append("Host report does not contain capture range %r." % cap_name)
    if cap_name not in {r["name"] for r in gpu_ranges}:
        warnings.append("GPU projection report does not contain capture range %r." % cap_name)
    return {
        "schema_version": 1,
        "run": {"profile_name": manifest.get("profile_name"), "run_id": manifest.get("run_id"),
                "device": manifest.get("device"), "capture_range": cap_name, "git_commit": manifest.get("git_commit"),
                "record_count": len(manifest.get("record_ids") or []), "workload": workload, "cuda": cuda},
        "provenance": {"nsys_version": version, "manifest_path": "manifest.yaml", "trace_path": "trace.nsys-rep",
                       "reports": {"nvtx_pushpop_trace": "stats/nsys_nvtx_pushpop_trace.csv",
                                   "nvtx_gpu_proj_trace": "stats/nsys_nvtx_gpu_proj_trace.csv"}},
        "host_ranges": host_ranges,
        "gpu_projected_ranges": gpu_ranges,
        "iterations": iterations,
        "iteration_summary": {"iterations": len(iterations), "host_iterations": len(hi),
                              "gpu_projected_iterations": len(gi),
                              "host_inclusive": summary([h["inclusive_ns"] for h in hi]),
                              "host_exclusive": summary([h["exclusive_ns"] for h in hi]),
                              "gpu_projected": summary([g["projected_ns"] for g in gi])},
        "warnings": warnings,
    }


def main():
    run_dir, version, out = sys.argv[1], sys.argv[2], sys.argv[3]
    try:
        doc = analyze(run_dir, version)
    except AnalysisError as e:
        sys.stderr.write("%s\n" % e)
        return 1
    with open(out, "w") as f:
        f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
