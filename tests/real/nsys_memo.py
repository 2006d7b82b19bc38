#!/usr/bin/env python3
"""The real-nsys tier's memo of nsys's own answers: `nsys stats`, `analyze` and `export` are pure
functions of the nsys build and the input files, so an answer the suite has already had is replayed.

CI runs the real tier twice, plainly and under ASan/UBSan (SAN=1). The second pass checks gpuflame's C
again, not nsys: nsys gives the same answer to the same question, and it costs about half of the tier's
time. So the first pass records each successful call here and the second replays it; gpuflame itself
runs every time. A changed nsys (path, size, mtime, `--version`) or a changed input byte is a new key.

Usage: nsys_memo.py MEMO_DIR NSYS ARG...   (stdout, stderr and exit status are nsys's; the caller bounds
the time, as `timeout` does in tests/real/lib.sh, which ends this process group, nsys included)

What a call wrote is recorded too: files that appeared or changed in the directories of its input files
and of its `-o`/`--output` path (nsys writes `<stem>.sqlite` beside a report, `PREFIX_<report>.csv`
beside the prefix). Paths in its output are stored relative to those directories and put back under
the new ones. Only exit status 0 is kept: a failed or timed-out call runs again next time.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

MEMO_COMMANDS = ("stats", "analyze", "export")


def file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def snapshot(dirs):
    seen = {}
    for d in dirs:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            p = os.path.join(d, n)
            try:
                st = os.stat(p)
            except OSError:
                continue
            if os.path.isfile(p):
                seen[p] = (st.st_size, st.st_mtime_ns)
    return seen


def plan(nsys, args):
    """The call's key, its directories (placeholder -> path), or None when it is not memoised."""
    if not args or args[0] not in MEMO_COMMANDS:
        return None
    st = os.stat(nsys)
    version = subprocess.run([nsys, "--version"], capture_output=True, text=True, timeout=60).stdout
    parts = [os.path.realpath(nsys), str(st.st_size), str(st.st_mtime_ns), version.strip()]
    dirs = {}
    out_next = False
    for a in args:
        if out_next:
            out_next = False
            dirs["@OUT@"] = os.path.dirname(os.path.abspath(a)) or "/"
            parts.append("out:" + os.path.basename(a))
            continue
        if a in ("-o", "--output"):
            out_next = True
            parts.append(a)
        elif (a.startswith("-o") and len(a) > 2) or a.startswith("--output="):
            return None  # a glued output path: not worth a rule of its own
        elif not a.startswith("-") and os.path.isfile(a):
            tag = "@IN%d@" % len(dirs)
            dirs[tag] = os.path.dirname(os.path.abspath(a)) or "/"
            parts.append("in:%s:%s" % (os.path.basename(a), file_digest(a)))
        else:
            parts.append("arg:" + a)
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()
    return key, dirs


def to_placeholders(data, dirs):
    for tag, d in sorted(dirs.items(), key=lambda kv: -len(kv[1])):
        data = data.replace(os.fsencode(d), tag.encode())
    return data


def from_placeholders(data, dirs):
    for tag, d in dirs.items():
        data = data.replace(tag.encode(), os.fsencode(d))
    return data


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def replay(entry, dirs):
    with open(os.path.join(entry, "answer.json")) as f:
        answer = json.load(f)
    for i, out in enumerate(answer["files"]):
        dst = os.path.join(dirs[out["dir"]], out["name"])
        shutil.copyfile(os.path.join(entry, "f%d" % i), dst)
    sys.stdout.buffer.write(from_placeholders(read_bytes(os.path.join(entry, "stdout")), dirs))
    sys.stderr.buffer.write(from_placeholders(read_bytes(os.path.join(entry, "stderr")), dirs))
    return answer["rc"]


def record(memo, key, dirs, before, after, proc):
    files = []
    for path, sig in sorted(after.items()):
        if before.get(path) == sig:
            continue
        d = os.path.dirname(path)
        tag = next((t for t, v in dirs.items() if v == d), None)
        if tag is not None:
            files.append((tag, os.path.basename(path), path))
    os.makedirs(memo, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=memo, prefix=".new-")
    for i, (_, _, path) in enumerate(files):
        shutil.copyfile(path, os.path.join(tmp, "f%d" % i))
    write_bytes(os.path.join(tmp, "stdout"), to_placeholders(proc.stdout, dirs))
    write_bytes(os.path.join(tmp, "stderr"), to_placeholders(proc.stderr, dirs))
    answer = {"rc": proc.returncode, "files": [{"dir": t, "name": n} for t, n, _ in files]}
    with open(os.path.join(tmp, "answer.json"), "w") as f:
        json.dump(answer, f)
    try:
        os.rename(tmp, os.path.join(memo, key))
    except OSError:  # another test file recorded the same call first
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    memo, nsys, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    p = plan(nsys, args) if memo else None
    if p:
        key, dirs = p
        entry = os.path.join(memo, key)
        if os.path.isfile(os.path.join(entry, "answer.json")):
            return replay(entry, dirs)
        before = snapshot(set(dirs.values()))
    proc = subprocess.run([nsys] + args, capture_output=True, stdin=subprocess.DEVNULL)
    sys.stdout.buffer.write(proc.stdout)
    sys.stderr.buffer.write(proc.stderr)
    if p and proc.returncode == 0:
        record(memo, key, dirs, before, snapshot(set(dirs.values())), proc)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
