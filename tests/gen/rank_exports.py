#!/usr/bin/env python3
"""Writes SAMPLE nsys SQLite exports (not real captures) of multi-rank jobs, in the real nsys 2025.x schema
(tests/gen/sample_export.py's tables plus TARGET_INFO_SESSION_START_TIME, TARGET_INFO_SYSTEM_ENV and
META_DATA_CAPTURE with a synthetic environment: only RANK-like variables and PATH, never a real user's).

  rank_exports.py job OUTDIR --ranks N [--slow R --factor F] [--steps S] [--skew-ns NS] [--no-env]
      one export per rank (OUTDIR/rank<k>.sqlite), each its own process and session start (rank k's
      session starts k * NS later; absolute times are shared, so aligned clocks line the steps up).
      Every step: compute kernels (rank R's F times longer), then an NCCL all-reduce that ends for
      everybody when the slowest rank arrives; NVTX ranges "step i" around each step.
      --thread-names: rank k's main thread is named `MPI Rank <(k + SHIFT) % N>` (nsys's MPI tracing; --name-shift
      SHIFT, default 0); --markers: each rank's process has an NVTX range `NCCL rank <(k + SHIFT) % N>` first.
      --noise-ns NS (no steps, --steps 0 implied): each rank runs a 5 us kernel every 12.5 ms, 35 us of compute
      over 75 ms (GPUs 99.95 % idle), rank --slow's first kernel NS longer (2350: the 2.35 us of issue 41).
  rank_exports.py multi OUT.sqlite
      one export, two processes (pids 2001, 2002) on two GPUs (device 0 and 1), no rank variables.
"""
import argparse
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sample_export  # noqa: E402  (the SCHEMA of the tables gpuflame reads)

EXTRA = """
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT, systemClockNs INTEGER);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL, name TEXT NOT NULL,
  nameEnum INTEGER NOT NULL, value TEXT NOT NULL);
CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT);
"""
BASE_EPOCH = 1769308002162486533  # 2026-01-25T02:26:42 UTC
COMPUTE = ["ampere_sgemm_128x64_tn", "void at::native::vectorized_elementwise_kernel<4>(int)",
           "void at::native::reduce_kernel<512, 1>(int)"]
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"


class Export:
    def __init__(self, path, session_start, host, gpus):
        self.tmp = path + ".tmp"
        self.path = path
        if os.path.exists(self.tmp):
            os.remove(self.tmp)
        self.db = sqlite3.connect(self.tmp)
        self.db.executescript(sample_export.SCHEMA + EXTRA)
        self.strings = {}
        self.corr = 100
        self.t0 = session_start
        self.db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", [
            ("EXPORT_PRODUCT_NAME", "gpuflame sample export (synthetic, not a real capture)"),
            ("EXPORT_PRODUCT_VERSION", "2025.1.3.140"), ("EXPORT_SCHEMA_VERSION", "3.17.2")])
        self.db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '2026-01-25T02:26:42', "
                        "'2026-01-25T02:26:42', 0)", (session_start,))
        self.db.execute("INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'default', 'Hostname', 22, ?)", (host,))
        for i, name in enumerate(gpus):
            row = [None] * 41
            row[0:4] = [0, i, name, "0000:%02x:00.0" % (7 + i)]
            self.db.execute("INSERT INTO TARGET_INFO_GPU VALUES (%s)" % ",".join("?" * 41), row)
        self.launch = self.sid("cudaLaunchKernel_v7000")

    def sid(self, s):
        if s not in self.strings:
            self.strings[s] = len(self.strings) + 1
            self.db.execute("INSERT INTO StringIds VALUES (?, ?)", (self.strings[s], s))
        return self.strings[s]

    def process(self, pid, name, env=None, index=None, thread=None):
        gtid = (pid << 24) | pid
        self.db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", (pid << 24, pid, name))
        self.db.execute("INSERT INTO ThreadNames VALUES (?, 0, ?)", (self.sid(thread or name), gtid))
        if index is not None:
            rows = [("PROCESS_%d:PID" % index, str(pid)), ("PROCESS_%d:COMMAND" % index, name),
                    ("PROCESS_%d:ENVIRONMENT_VARIABLE" % index, "PATH=/usr/bin:/bin")]
            for k, v in (env or {}).items():
                rows.append(("PROCESS_%d:ENVIRONMENT_VARIABLE" % index, "%s=%s" % (k, v)))
            self.db.executemany("INSERT INTO META_DATA_CAPTURE VALUES (?, ?)", rows)
        return gtid

    def kernel(self, pid, dev, stream, name, start_abs, dur):
        """A launch on the CPU lane ending 2 us before the kernel, and the kernel; absolute ns."""
        self.corr += 1
        gtid = (pid << 24) | pid
        s = start_abs - self.t0
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                        (s - 5000, s - 2000, gtid, self.corr, self.launch))
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 1, NULL, ?, ?, ?, ?, ?, NULL, 1, 0, "
                        "32, 64, 1, 1, 128, 1, 1, 0, 0, 0, 0, ?, 0, NULL, 1)",
                        (s, s + dur, dev, stream, self.corr, pid << 24, self.sid(name), self.sid(name), self.corr))

    def nvtx(self, pid, text, start_abs, end_abs):
        self.db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) "
                        "VALUES (?, ?, 59, ?, ?, 0)", (start_abs - self.t0, end_abs - self.t0, text, (pid << 24) | pid))

    def close(self):
        self.db.commit()
        self.db.close()
        os.replace(self.tmp, self.path)


def job(a):
    os.makedirs(a.outdir, exist_ok=True)
    n = a.ranks
    exports = []
    for r in range(n):
        e = Export(os.path.join(a.outdir, "rank%d.sqlite" % r), BASE_EPOCH + r * a.skew_ns,
                   "node%d" % (r // 2), ["NVIDIA H100 80GB HBM3"] * 2)
        pid = 3000 + r
        named = (r + a.name_shift) % n
        e.process(pid, "python3", None if a.no_env else {"RANK": r, "LOCAL_RANK": r % 2, "WORLD_SIZE": n}, 0,
                  "MPI Rank %d" % named if a.thread_names else None)
        if a.markers:
            e.nvtx(pid, "NCCL rank %d" % named, BASE_EPOCH + 40_000_000, BASE_EPOCH + 40_001_000)
        exports.append((e, pid, r % 2))
    t = BASE_EPOCH + 50_000_000  # absolute: every rank's step starts together
    if a.noise_ns is not None:
        for r, (e, pid, dev) in enumerate(exports):
            for k in range(7):  # 35 us of compute over 75 ms
                e.kernel(pid, dev, 7, COMPUTE[0], t + k * 12_500_000, 5_000 + (a.noise_ns if r == a.slow and k == 0 else 0))
        a.steps = 0
    for step in range(a.steps):
        ends = []
        for r, (e, pid, dev) in enumerate(exports):
            f = a.factor if r == a.slow else 1.0
            x = t + 10_000
            for k in range(6):
                d = int((200_000 + 20_000 * k + 997 * ((step * 7 + r * 3 + k) % 11)) * f)
                e.kernel(pid, dev, 7, COMPUTE[k % 3], x, d)
                x += d + 3000
            ends.append(x)
        sync_end = max(ends) + 150_000
        for r, (e, pid, dev) in enumerate(exports):
            e.kernel(pid, dev, 13, NCCL, ends[r], sync_end - ends[r])
            e.nvtx(pid, "step %d" % step, t, sync_end + 10_000)
        t = sync_end + 60_000
    for e, _, _ in exports:
        e.close()


def multi(a):
    e = Export(a.out, BASE_EPOCH, "nodeA", ["NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"])
    e.process(1999, "mpirun", {"PATH": "/usr/bin"}, 0)
    for i, pid in enumerate((2001, 2002)):
        e.process(pid, "python3")
        t = BASE_EPOCH + 1_000_000
        for k in range(5):
            e.kernel(pid, i, 7, COMPUTE[k % 3], t, 100_000 * (i + 1))
            t += 200_000 * (i + 1)
    e.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("job")
    j.add_argument("outdir")
    j.add_argument("--ranks", type=int, default=4)
    j.add_argument("--slow", type=int, default=-1)
    j.add_argument("--factor", type=float, default=1.5)
    j.add_argument("--steps", type=int, default=5)
    j.add_argument("--skew-ns", type=int, default=3_000_000)
    j.add_argument("--no-env", action="store_true")
    j.add_argument("--thread-names", action="store_true")
    j.add_argument("--markers", action="store_true")
    j.add_argument("--name-shift", type=int, default=0)
    j.add_argument("--noise-ns", type=int, default=None)
    m = sub.add_parser("multi")
    m.add_argument("out")
    a = ap.parse_args()
    job(a) if a.cmd == "job" else multi(a)


if __name__ == "__main__":
    main()
