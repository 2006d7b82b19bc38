#!/usr/bin/env python3
"""make san-cover: which test files the sanitizer pass (SAN=1) can leave out without losing C coverage.

The sanitizer pass runs gpuflame's C again under ASan+UBSan; what it can find is in the code it reaches.
A gcov build (make COVERAGE=1) runs the files the sanitizer pass would run, each file's counts in a
directory of its own ($GF_BUILD/gcda/<log name>/, tests/run). This script reads them with gcov, takes
each file's set of reached lines and taken branches of core/ (the program, not the test harnesses), and
keeps, by greedy weighted set cover over the sanitizer pass's CPU time (tests/durations.txt "san:" rows),
a set of files that reaches every line and branch the whole pass reached; then it drops again any kept
file whose lines and branches the other kept files all reach. The rest are written to tests/san_cover.txt,
which tests/run's sanitizer pass leaves out. Every file still runs in the plain pass.

Usage: tests/san_cover.py BUILD_DIR [OUT]   (BUILD_DIR: build-cov; OUT: tests/san_cover.txt)
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def reached(job_dir):
    """The (source, line) and (source, line, branch) keys of core/ that the counts under job_dir reached."""
    gcdas = []
    for root, _, files in os.walk(job_dir):
        gcdas += [os.path.join(root, f) for f in files if f.endswith(".gcda")]
    keys = set()
    if not gcdas:
        return keys
    # gcov finds each .gcno beside its .gcda: link them from the build (the counts moved, not the notes)
    for g in gcdas:
        note = g[:-5] + ".gcno"
        orig = "/" + os.path.relpath(note, job_dir)
        if not os.path.exists(note) and os.path.exists(orig):
            os.symlink(orig, note)
    out = subprocess.run(["gcov", "--json-format", "--stdout", "--branch-probabilities"] + gcdas,
                         cwd=TOP, capture_output=True, text=True, check=False).stdout
    for doc in out.splitlines():
        if not doc.startswith("{"):
            continue
        for f in json.loads(doc).get("files", []):
            src = os.path.normpath(f["file"])
            if src.startswith(TOP + "/"):
                src = src[len(TOP) + 1:]
            if not src.startswith("core/"):
                continue
            for ln in f.get("lines", []):
                if ln["count"] > 0:
                    keys.add((src, ln["line_number"]))
                    for i, b in enumerate(ln.get("branches", [])):
                        if b["count"] > 0:
                            keys.add((src, ln["line_number"], i))
    return keys


def san_costs():
    """CPU seconds of each file in the last committed run's sanitizer pass (name without "san:")."""
    costs = {}
    with open(os.path.join(TOP, "tests/durations.txt")) as f:
        for row in f:
            parts = row.split()
            if len(parts) >= 3 and parts[0].startswith("san:"):
                name = parts[0][4:]
                if name.startswith("build-san/tests/"):
                    name = name[len("build-san/"):]
                costs[name] = max(float(parts[2]), 0.5)
    return costs


def cover(sets, costs):
    """Greedy weighted set cover of the union, then the kept files' redundant ones dropped, dearest first."""
    left = set().union(*sets.values())
    kept = []
    while left:
        best = max(sets, key=lambda n: (len(sets[n] & left) / costs[n], -costs[n], n))
        if not sets[best] & left:
            break
        kept.append(best)
        left -= sets[best]
    for name in sorted(kept, key=lambda n: -costs[n]):
        others = set().union(*(sets[k] for k in kept if k != name))
        if sets[name] <= others:
            kept.remove(name)
    return kept


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    gcda = os.path.join(os.path.abspath(sys.argv[1]), "gcda")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(TOP, "tests/san_cover.txt")
    if not os.path.isdir(gcda):
        sys.exit(f"san_cover: no {gcda}: run make san-cover (tests/run over a COVERAGE=1 build) first")
    jobs = sorted(os.listdir(gcda))
    # the log names of tests/run: "<label>_tests_cli_test_x.sh.log" -> tests/cli/test_x.sh
    names = {}
    for j in jobs:
        rest = j.split("_", 1)[1][:-4]
        if rest.startswith("build-cov_tests_"):  # a unit test binary of the build: tests/test_x, as tests/run reads it
            rest = "tests_" + rest[len("build-cov_tests_"):]
        for prefix in ("tests_cli_", "tests_real_", "tests_lua_", "tests_mcp_", "tests_"):
            if rest.startswith(prefix):
                rest = prefix[:-1].replace("_", "/") + "/" + rest[len(prefix):]
                break
        names[j] = rest
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        got = dict(zip(jobs, pool.map(lambda j: reached(os.path.join(gcda, j)), jobs)))
    sets = {names[j]: got[j] for j in jobs}
    costs = san_costs()
    for n in sets:
        costs.setdefault(n, 60.0)  # a file the last run did not time counts as long, as tests/run does
    kept = cover(sets, costs)
    union = set().union(*sets.values())
    left_out = sorted(n for n in sets if n not in kept)
    lines = sum(1 for k in union if len(k) == 2)
    saved = sum(costs[n] for n in left_out)
    total = sum(costs[n] for n in sets)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write("# Left out of the sanitizer pass (SAN=1; tests/run): every line and branch of core/ that each of these\n"
                "# reaches is reached by the files the pass keeps. Written by make san-cover (tests/san_cover.py)\n"
                f"# from a gcov run of {len(sets)} files: {lines} lines and {len(union) - lines} branches of core/ reached,\n"
                f"# {len(kept)} files keep them all; the files below cost the last sanitizer pass {saved:.0f} of {total:.0f} CPU-s.\n")
        for n in left_out:
            f.write(n + "\n")
    os.replace(tmp, out)
    print(f"san_cover: {len(sets)} files reach {lines} lines and {len(union) - lines} branches of core/; "
          f"{len(kept)} keep them all; {len(left_out)} left out ({saved:.0f} of {total:.0f} CPU-s) -> {out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
