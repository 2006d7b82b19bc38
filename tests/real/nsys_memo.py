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

An `export` is keyed without the name of its output: `nsys export -o DIR/x.sqlite REPORT` and gpuflame's own
export of the same report into its cache (`--output .../export.sqlite`) are one answer, the file written under
the new name (what nsys writes is its SQLite of the report, whatever it is called).
"""
import hashlib
import json
import os
import shutil
import sys

# subprocess and tempfile are imported where a call is recorded or run, not on a replay: the suite replays
# hundreds of answers a run, and each replay is a Python start

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


def nsys_version(memo, nsys, st):
    """`nsys --version`, asked once per nsys build (path, size, mtime) and kept in the memo directory."""
    ident = "\0".join([os.path.realpath(nsys), str(st.st_size), str(st.st_mtime_ns)])
    path = os.path.join(memo, ".version-" + hashlib.sha256(ident.encode()).hexdigest()[:32])
    try:
        return read_bytes(path).decode()
    except OSError:
        pass
    import subprocess
    import tempfile
    version = subprocess.run([nsys, "--version"], capture_output=True, text=True, timeout=60).stdout
    if version.strip():
        os.makedirs(memo, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=memo, prefix=".new-")
        with os.fdopen(fd, "w") as f:
            f.write(version)
        os.replace(tmp, path)
    return version


def plan(memo, nsys, args):
    """The call's key, its directories (placeholder -> path) and the output's name when the key leaves it
    out (an export), or None when it is not memoised."""
    if not args or args[0] not in MEMO_COMMANDS:
        return None
    st = os.stat(nsys)
    version = nsys_version(memo, nsys, st)
    parts = [os.path.realpath(nsys), str(st.st_size), str(st.st_mtime_ns), version.strip()]
    dirs = {}
    out_name = None
    out_next = False
    # one spelling of the same question: --force-overwrite=true is --force-overwrite true, -o is --output
    norm = []
    for a in args:
        norm += ["--force-overwrite", a.split("=", 1)[1]] if a.startswith("--force-overwrite=") else [a]
    for a in norm:
        if out_next:
            out_next = False
            dirs["@OUT@"] = os.path.dirname(os.path.abspath(a)) or "/"
            out_name = os.path.basename(a)
            # an export: the output's extension only (nsys adds .sqlite to a name without it)
            parts.append("out:*" + os.path.splitext(out_name)[1] if args[0] == "export" else "out:" + out_name)
            continue
        if a in ("-o", "--output"):
            out_next = True
            parts.append("--output")
        elif (a.startswith("-o") and len(a) > 2) or a.startswith("--output="):
            return None  # a glued output path: not worth a rule of its own
        elif not a.startswith("-") and os.path.isfile(a):
            tag = "@IN%d@" % len(dirs)
            dirs[tag] = os.path.dirname(os.path.abspath(a)) or "/"
            parts.append("in:%s:%s" % (os.path.basename(a), file_digest(a)))
        else:
            parts.append("arg:" + a)
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()
    return key, dirs, (out_name if args[0] == "export" else None)


def to_placeholders(data, dirs, out_name=None):
    for tag, d in sorted(dirs.items(), key=lambda kv: (-len(kv[1]), kv[0] != "@OUT@")):
        data = data.replace(os.fsencode(d), tag.encode())
    if out_name:
        data = data.replace(b"@OUT@/" + os.fsencode(out_name), b"@OUT@/@OUTNAME@")
    return data


def from_placeholders(data, dirs, out_name=None):
    if out_name:
        data = data.replace(b"@OUT@/@OUTNAME@", b"@OUT@/" + os.fsencode(out_name))
    for tag, d in dirs.items():
        data = data.replace(tag.encode(), os.fsencode(d))
    return data


def stored_name(name, out_name):
    """A file's name as kept: an export's output (or a file named after it) under @OUTNAME@."""
    if out_name and name.startswith(out_name):
        return "@OUTNAME@" + name[len(out_name):]
    return name


def replayed_name(name, out_name):
    if out_name and name.startswith("@OUTNAME@"):
        return out_name + name[len("@OUTNAME@"):]
    return name


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def replay(entry, dirs, out_name):
    with open(os.path.join(entry, "answer.json")) as f:
        answer = json.load(f)
    for i, out in enumerate(answer["files"]):
        dst = os.path.join(dirs[out["dir"]], replayed_name(out["name"], out_name))
        shutil.copyfile(os.path.join(entry, "f%d" % i), dst)
    sys.stdout.buffer.write(from_placeholders(read_bytes(os.path.join(entry, "stdout")), dirs, out_name))
    sys.stderr.buffer.write(from_placeholders(read_bytes(os.path.join(entry, "stderr")), dirs, out_name))
    return answer["rc"]


def record(memo, key, dirs, out_name, before, after, proc):
    import tempfile
    files = []
    for path, sig in sorted(after.items()):
        if before.get(path) == sig:
            continue
        d, name = os.path.split(path)
        tag = next((t for t, v in dirs.items() if v == d), None)
        # an export's output is kept by the output's place and name, wherever its input is
        if out_name and name.startswith(out_name) and dirs.get("@OUT@") == d:
            tag = "@OUT@"
        if tag is not None:
            files.append((tag, stored_name(name, out_name) if tag == "@OUT@" else name, path))
    os.makedirs(memo, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=memo, prefix=".new-")
    for i, (_, _, path) in enumerate(files):
        shutil.copyfile(path, os.path.join(tmp, "f%d" % i))
    write_bytes(os.path.join(tmp, "stdout"), to_placeholders(proc.stdout, dirs, out_name))
    write_bytes(os.path.join(tmp, "stderr"), to_placeholders(proc.stderr, dirs, out_name))
    answer = {"rc": proc.returncode, "files": [{"dir": t, "name": n} for t, n, _ in files]}
    with open(os.path.join(tmp, "answer.json"), "w") as f:
        json.dump(answer, f)
    try:
        os.rename(tmp, os.path.join(memo, key))
    except OSError:  # another test file recorded the same call first
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    memo, nsys, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    p = plan(memo, nsys, args) if memo else None
    if p:
        key, dirs, out_name = p
        entry = os.path.join(memo, key)
        if os.path.isfile(os.path.join(entry, "answer.json")):
            return replay(entry, dirs, out_name)
        before = snapshot(set(dirs.values()))
    import subprocess
    proc = subprocess.run([nsys] + args, capture_output=True, stdin=subprocess.DEVNULL)
    sys.stdout.buffer.write(proc.stdout)
    sys.stderr.buffer.write(proc.stderr)
    # a directory that went away meanwhile (a test file ended by its time limit, its $GF_TMP removed under
    # a still running nsys) would record an answer without its files: not kept
    if p and proc.returncode == 0 and all(os.path.isdir(d) for d in dirs.values()):
        record(memo, key, dirs, out_name, before, snapshot(set(dirs.values())), proc)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
