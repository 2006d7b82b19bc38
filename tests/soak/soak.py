#!/usr/bin/env python3
"""Soak test of the fleet agent (`make soak`): loopback only, bounded in time, stops by itself.

The agent runs against the Studio stand-in (tests/studio_server.py) with a short heartbeat interval
while faults are injected — connection refused (the server stopped), 5xx, resets, timeouts, slow
bodies, malformed JSON, server restarts — and capture commands (tests/fake/nsys) are queued, some
cancelled mid-capture, and the agent itself is SIGKILLed mid-upload and restarted a few times.
At the end the server is healthy and the agent must drain everything.

Checks: every command reported (completed/failed as expected), every capture's upload delivered
exactly once, nothing left in the spool, agent RSS and open file descriptors flat, no orphan
processes. Prints a report (Markdown table) and exits non-zero on any failed check.
"""
import argparse
import glob
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
TOKEN = "soak-%d-secret" % os.getpid()


def rss_kib(pid):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1


def nfds(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return -1


def nfds_sampled(pid, n=20, every=0.1):
    out = []
    for _ in range(n):
        out.append(nfds(pid))
        time.sleep(every)
    return out


def processes_with_env(entry):
    found, me = [], os.getpid()
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) != me:
            try:
                if entry.encode() in open("/proc/%s/environ" % p, "rb").read().split(b"\0"):
                    found.append(int(p))
            except OSError:
                pass
    return found


def descendants(pid):
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                st = open("/proc/%s/stat" % p).read()
                ppid = int(st[st.rindex(")") + 2:].split()[1])
                kids.setdefault(ppid, []).append(int(p))
            except (OSError, ValueError):
                pass
    out, stack = [], [pid]
    while stack:
        for c in kids.get(stack.pop(), []):
            out.append(c)
            stack.append(c)
    return out


class Studio:
    def __init__(self, root):
        self.root, self.n, self.port, self.proc = root, 0, 0, None
        self.cache = {}

    def start(self):
        self.n += 1
        d = os.path.join(self.root, "srv%d" % self.n)
        args = [sys.executable, os.path.join(TOP, "tests/studio_server.py"), "--dir", d, "--token", TOKEN,
                "--service", "soak", "--max-seconds", "3600", "--port", str(self.port)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        self.port = int(line.split()[1])

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None

    def ctl(self, path, obj):
        url = "http://127.0.0.1:%d/_control/%s" % (self.port, path)
        urllib.request.urlopen(urllib.request.Request(url, data=json.dumps(obj).encode(), method="POST"),
                               timeout=10).read()

    def records(self):
        recs = []
        for d in sorted(glob.glob(os.path.join(self.root, "srv*", "log"))):
            for f in sorted(glob.glob(os.path.join(d, "*.json"))):
                if f not in self.cache:
                    try:
                        r = json.load(open(f))
                    except (OSError, ValueError):
                        continue  # being written
                    raw = f[:-5] + ".raw"
                    r["_raw"] = open(raw, "rb").read() if os.path.exists(raw) else b""
                    self.cache[f] = r
                recs.append(self.cache[f])
        return recs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(TOP, "bin/gpuflame"))
    ap.add_argument("--heartbeats", type=int, default=1000)
    ap.add_argument("--captures", type=int, default=50)
    ap.add_argument("--max-minutes", type=float, default=15)
    ap.add_argument("--seed", type=int, default=int(os.environ.get("SOAK_SEED", "1")))
    ap.add_argument("--seeds", help="run once per seed: a list and ranges, e.g. 1-10 or 1,4,7 (overrides --seed)")
    ap.add_argument("--kill-rate", type=float, default=0.25, help="share of captures during which the agent is SIGKILLed")
    ap.add_argument("--max-kills", type=int, default=8)
    ap.add_argument("--report", help="also write the Markdown report here")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (agent log, state) after a pass")
    a = ap.parse_args()
    seeds = parse_seeds(a.seeds) if a.seeds else [a.seed]
    results = []
    for seed in seeds:
        rc, summary = soak(a, seed)
        results.append((seed, rc, summary))
    if len(seeds) > 1:
        print("soak: %d of %d seeds passed" % (sum(1 for r in results if r[1] == 0), len(results)))
        for seed, rc, summary in results:
            print("  %s %s" % ("ok    " if rc == 0 else "FAILED", summary))
    return 1 if any(r[1] for r in results) else 0


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        seeds.extend(range(int(lo), int(hi or lo) + 1))
    return seeds


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


# The command's phase at a kill, from the last agent log line that names it since the agent started.
PHASES = [("completed", "reported"), ("failed", "reported"), ("delivered command", "uploaded, not reported"),
          ("adopting", "adopted"), ("nsys backend started", "capturing"), ("running remote workload", "capturing"),
          (": start", "starting")]


def phase_of(name, log_path, mark):
    try:
        with open(log_path, "rb") as f:
            f.seek(mark)
            lines = [ln for ln in f.read().decode("utf-8", "replace").splitlines() if name in ln]
    except OSError:
        return "?"
    if not lines:
        return "not started"
    for key, phase in PHASES:
        if key in lines[-1]:
            return phase
    return "other"


def soak(a, seed):
    rnd = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="gf-soak.")
    deadline = time.time() + a.max_minutes * 60
    studio = Studio(tmp)
    studio.start()
    allowed = os.path.join(tmp, "allowed")
    open(allowed, "w").write("sleep 0.3\nsleep 30\n")
    pol = os.path.join(tmp, "soak.lua")
    open(pol, "w").write(
        'return { extends = "default", agent = { stop_grace = 1, health_check = "warn", '
        'remote_workloads = { allow_file = "%s" } }, upload = { timeout = 3, connect_timeout = 2 }, '
        'deliver = { retry = { count = 3, base = 0.2, cap = 1 } } }\n' % allowed)
    # every process the agent starts inherits SOAK_RUN: orphans are found by it, not by name (other
    # suites on the same machine run the fake nsys too)
    env = dict(os.environ, GPUFLAME_TOKEN=TOKEN, NSYS_PATH=os.path.join(TOP, "tests/fake/nsys"), SOAK_RUN=tmp)
    state = os.path.join(tmp, "state")

    def start_agent():
        return subprocess.Popen([a.bin, "--policy", pol, "agent", "--server", "http://127.0.0.1:%d" % studio.port,
                                 "--service", "soak", "--interval", "0.1", "--state-dir", state,
                                 "--hostname", "soak-host"], env=env, stdout=open(os.path.join(tmp, "agent.log"), "a"),
                                stderr=subprocess.STDOUT)

    log_path = os.path.join(tmp, "agent.log")
    log_mark = 0
    cycles = [3.0]       # seconds from queueing a capture to its completion report, measured as it runs
    kill_points = []     # phase of the command's life at each SIGKILL, from the agent's log
    kill_times = []
    agent = start_agent()
    time.sleep(2)
    rss0, fd0 = rss_kib(agent.pid), nfds(agent.pid)
    fd_list0 = sorted(os.readlink("/proc/%d/fd/%s" % (agent.pid, f)) for f in os.listdir("/proc/%d/fd" % agent.pid))
    expect = {}          # command id → "completed" | "failed" | "either"
    cid = 0
    kills = restarts = cancels = 0
    faults = {}
    t0 = time.time()

    def queue(kind, cfg):
        nonlocal cid
        cid += 1
        name = "k%03d" % cid
        studio.ctl("command", {"command_id": name, "profiling_command": {"command_type": kind, "combined_config": cfg}})
        return name

    def wait_done(name, seconds):
        until = time.time() + seconds
        while time.time() < until:
            if any(r.get("path") == "/api/metrics/command_completion" and (r.get("body") or {}).get("command_id") == name
                   for r in studio.records()[-40:]):
                return True
            time.sleep(0.2)
        return False

    # slow: a slow body answered within the client's timeout (3 s); hang: no answer before the timeout
    fault_modes = ["500", "503", "reset", "close", "badjson", "slow", "hang"]
    captures = 0
    while (captures < a.captures or heartbeats_seen(studio) < a.heartbeats) and time.time() < deadline:
        step = rnd.random()
        if step < 0.55 and captures < a.captures:
            captures += 1
            if rnd.random() < 0.15:
                name = queue("start", {"command_type": "start", "duration": 30, "enable_nsys": True,
                                       "nsys_workload": "sleep 30"})
                time.sleep(1.5)
                queue("stop", {"command_type": "stop"})
                expect[name] = "failed"
                cancels += 1
            else:
                name = queue("start", {"command_type": "start", "duration": 1, "enable_nsys": True,
                                       "nsys_workload": "sleep 0.3"})
                expect[name] = "either"  # a fault may exhaust its upload retries: failed, kept in the spool
            queued_at = time.time()
            if rnd.random() < a.kill_rate and kills < a.max_kills:
                if rnd.random() < 0.25:
                    # SIGKILL the agent while this capture's upload is held by a slow server
                    # (held 2.5 s: within the client's 3 s timeout, so the answer reaches the orphaned uploader)
                    studio.ctl("fail", {"mode": "slow", "delay": 2.5, "count": 1, "path": "/api/v2/profiles"})
                    time.sleep(1.8)
                else:
                    # anywhere in the command's life: from before the agent has read it to after its report
                    time.sleep(rnd.uniform(0, 1.2 * median(cycles)))
                phase = phase_of(name, log_path, log_mark)
                kill_times.append(time.time())
                agent.kill()
                agent.wait()
                kills += 1
                kill_points.append("%s@%.1fs" % (phase, time.time() - queued_at))
                if expect[name] == "failed":
                    expect[name] = "either"  # the stop may have reached the killed agent, not its successor
                log_mark = os.path.getsize(log_path)
                agent = start_agent()
                wait_done(name, 20)
            elif wait_done(name, 20) and name in expect and expect[name] == "either":
                cycles.append(time.time() - queued_at)
        elif step < 0.85:
            mode = rnd.choice(fault_modes)
            path = rnd.choice(["/api/metrics/heartbeat", "/api/v2/profiles", "/api/metrics/command_completion"])
            studio.ctl("fail", {"mode": mode, "count": rnd.randint(1, 4), "path": path,
                                "delay": {"slow": 1.5, "hang": 4}.get(mode, 0)})
            faults[mode] = faults.get(mode, 0) + 1
            time.sleep(rnd.uniform(0.2, 1.0))
        else:
            # the server goes away (connection refused), then comes back on the same port
            studio.stop()
            faults["refused"] = faults.get("refused", 0) + 1
            time.sleep(rnd.uniform(0.5, 2.0))
            studio.start()
            restarts += 1
    # healthy from here: let the agent drain and report everything
    settle = time.time() + 90
    while time.time() < settle:
        recs = studio.records()
        done = {(r.get("body") or {}).get("command_id") for r in recs if r.get("path") == "/api/metrics/command_completion"}
        left = [f for f in os.listdir(os.path.join(state, "spool")) if f.endswith(".item")] if os.path.isdir(
            os.path.join(state, "spool")) else []
        if all(n in done for n in expect) and not left:
            break
        time.sleep(1)
    # measured when the agent is idle (no capture, no uploader: their pipes are not leaks)
    idle_until = time.time() + 30
    while descendants(agent.pid) and time.time() < idle_until:
        time.sleep(0.2)
    time.sleep(1)
    # the fewest open fds over 2 s: a heartbeat in flight holds a socket for a moment, a leak stays
    rss1, fd1 = rss_kib(agent.pid), min(nfds_sampled(agent.pid))
    fd_list = sorted(os.readlink("/proc/%d/fd/%s" % (agent.pid, f)) for f in os.listdir("/proc/%d/fd" % agent.pid))
    kids_before_stop = descendants(agent.pid)
    agent.send_signal(signal.SIGTERM)
    rc = agent.wait(20)
    studio.stop()
    recs = studio.records()
    hb = sum(1 for r in recs if r.get("path") == "/api/metrics/heartbeat")
    comps = {}
    for r in recs:
        if r.get("path") == "/api/metrics/command_completion" and r.get("status") == 200:
            b = r.get("body") or {}
            comps.setdefault(b.get("command_id"), []).append(b.get("status"))
    profiles = [r for r in recs if r.get("path", "").endswith("/profiles") and r.get("status") == 200
                and not (r.get("note") or "").startswith("injected")]  # a badjson answer is not a delivery
    hashes = {}
    for r in profiles:
        h = hashlib.sha256(r["_raw"]).hexdigest()
        hashes[h] = hashes.get(h, 0) + 1
    dups = sum(n - 1 for n in hashes.values() if n > 1)
    spool_dir = os.path.join(state, "spool")
    spool_left = [f for f in os.listdir(spool_dir) if f.endswith(".item")] if os.path.isdir(spool_dir) else []
    rejected = os.listdir(os.path.join(state, "spool", "rejected")) if os.path.isdir(
        os.path.join(state, "spool", "rejected")) else []
    # The protocol's one unclosable window (docs/RELIABILITY.md): the Studio hands a command out once, in a
    # heartbeat answer, with no acknowledgment; an agent SIGKILLed between that answer and its state write
    # never knew the command, so no agent can report it. Such a command is counted apart, and only when the
    # records prove it: handed out, a SIGKILL within 1 s after, and no later heartbeat listing it as received.
    received_later = set()
    for r in recs:
        if r.get("path") == "/api/metrics/heartbeat":
            received_later.update((r.get("body") or {}).get("received_command_ids") or [])
    handed = {r.get("note"): r.get("time", 0) for r in recs if r.get("path") == "/api/metrics/heartbeat" and r.get("note")}
    lost_in_delivery = [n for n in expect if n not in comps and n in handed and n not in received_later
                        and any(0 <= tk - handed[n] <= 1.0 for tk in kill_times)]
    for n in lost_in_delivery:
        expect[n] = "failed"  # no upload can come of it
    unreported = [n for n in expect if n not in comps and n not in lost_in_delivery]
    wrong = [n for n, want in expect.items() if n in comps and want != "either" and want not in comps[n]]
    completed = sum(1 for n in expect if "completed" in comps.get(n, []))
    # every capture that was not cancelled and did not fail before its upload produced one upload, which
    # must have arrived exactly once (an upload that exhausted its retries is reported failed and is
    # still delivered later from the spool)
    fail_msgs = {}
    for r in recs:
        b = r.get("body") or {}
        if r.get("path") == "/api/metrics/command_completion" and b.get("status") == "failed":
            fail_msgs[b.get("command_id")] = b.get("error_message") or ""
    uploads_expected = sum(1 for n, want in expect.items()
                           if want != "failed" and not (n in fail_msgs and "upload" not in fail_msgs[n]))
    orphans = processes_with_env("SOAK_RUN=" + tmp)
    checks = [
        ("heartbeats >= %d" % a.heartbeats, hb >= a.heartbeats, hb),
        ("capture commands >= %d" % a.captures, captures >= a.captures, captures),
        ("every command reported", not unreported, unreported[:5]),
        ("commands handed out to an agent SIGKILLed before it recorded them (the protocol's limit)", True,
         lost_in_delivery[:5]),
        ("cancelled captures reported failed", not wrong, wrong[:5]),
        ("uploads delivered exactly once (duplicates)", dups == 0, dups),
        ("every capture's upload arrived (captures with an upload == distinct uploads)",
         uploads_expected == len(hashes), "%d vs %d (%d reported completed)" % (uploads_expected, len(hashes), completed)),
        ("spool empty at the end", not spool_left, len(spool_left)),
        ("nothing rejected by the server", not rejected, rejected[:3]),
        ("agent RSS flat (end <= start + 8 MiB)", 0 < rss1 <= rss0 + 8192, "%d -> %d KiB" % (rss0, rss1)),
        ("open fds flat (end <= start + 2)", 0 < fd1 <= fd0 + 2, "%d -> %d %s" % (fd0, fd1, fd_list if fd1 > fd0 + 2 else "")),
        ("no child left before the stop", not kids_before_stop, kids_before_stop[:5]),
        ("no orphan process after the stop", not orphans, orphans[:5]),
        ("agent stopped cleanly", rc == 0, rc),
    ]
    lines = ["| check | result | value |", "|---|---|---|"]
    for name, ok, val in checks:
        lines.append("| %s | %s | %s |" % (name, "ok" if ok else "FAILED", val))
    summary = ("soak: seed %d, %.0f s, %d heartbeats, %d capture commands (%d cancelled mid-capture), %d agent "
               "SIGKILLs (%s), %d server restarts, faults %s" %
               (seed, time.time() - t0, hb, captures, cancels, kills, ", ".join(kill_points) or "none", restarts,
                ", ".join("%s x%d" % kv for kv in sorted(faults.items()))))
    report = summary + "\n\n" + "\n".join(lines) + "\n"
    print(report)
    if a.keep:
        print("soak: work directory %s" % tmp)
    if a.report:
        open(a.report, "a").write(report + "\n")
    failed = [c for c in checks if not c[1]]
    if failed:
        print("soak: %d check(s) failed; agent log: %s" % (len(failed), os.path.join(tmp, "agent.log")))
        return 1, summary
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0, summary


def heartbeats_seen(studio):
    return sum(1 for r in studio.records() if r.get("path") == "/api/metrics/heartbeat")


if __name__ == "__main__":
    sys.exit(main())
