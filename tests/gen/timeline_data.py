#!/usr/bin/env python3
"""Test-only generator of timeline page data (docs/TIMELINE_DATA.md) and a test-only template filler.

Until the C renderer (`gpuflame timeline`) covers a case, the browser tests use this script to make
pages: the cases the real binary cannot produce from a real export (hostile names, 0 and 1 events,
a 20,000-event page trimmed from 50,000) are generated here, deterministically (fixed seeds).

Usage:
  timeline_data.py CASE --json OUT.json
  timeline_data.py CASE --html OUT.html [--template templates/timeline.html] [--title TITLE] [--findings F.json]
  timeline_data.py CASE --csv DIR      (all events before trimming, as `nsys stats --format csv`
                                        cuda_api_trace.csv + cuda_gpu_trace.csv, for `gpuflame timeline`)
CASE: small | large | hostile | empty | one | nostacks | reference | manylanes
  (reference: the v3 example of docs/spec/STUDIO.md §6.7 verbatim: lanes as strings, 6-element events,
   no kinds/details/launchFlame: the page must still read it)

The HTML fill does what the C renderer does: `{{title}}` is HTML-escaped text, `{{json:data}}` is
compact JSON with `<`, `>`, `&`, U+2028 and U+2029 escaped so it is inert inside <script>;
`{{json:findings}}` is the findings panel's document from --findings (a JSON file), else null; the
template's include slots are expanded first, as gpuflame does (lua/gpuflame/views/page.lua).
"""
import argparse
import json
import os
import random
import re
import sys

T0 = 1_700_000_000_000  # absolute ns of the first event

KINDS = ["cuda_api", "kernel", "memcpy", "memset", "sync", "nvtx"]
K_API, K_KERNEL, K_MEMCPY, K_MEMSET, K_SYNC, K_NVTX = range(6)

KERNELS = [
    "burn(float *, int, int)",
    "ampere_sgemm_128x64_nn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char *, 3>>(int, T2, T3)",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_relu_128x128_32x3_nn_align4>(T1::Params)",
    "reduce_kernel<512, 1>(float const *, float *, int)",
    "softmax_warp_forward<float, float, float, 10, false>",
]

STACKS = [
    ["cudaLaunchKernel (libcudart.so.12)", "at::native::gemm (libtorch_cuda.so)",
     "torch::autograd::Linear::forward (libtorch_cuda.so)", "train_step (train.py)", "main (python3)"],
    ["cudaLaunchKernel (libcudart.so.12)", "at::native::add_kernel (libtorch_cuda.so)",
     "torch::autograd::Linear::forward (libtorch_cuda.so)", "train_step (train.py)", "main (python3)"],
    ["cudaLaunchKernel (libcudart.so.12)", "launch_burn (cuda_burn)", "0x00007f3a1c2b4e10",
     "main (cuda_burn)"],
    ["cudaMemcpyAsync (libcudart.so.12)", "at::native::copy_ (libtorch_cuda.so)", "train_step (train.py)",
     "main (python3)"],
]


class Builder:
    def __init__(self):
        self.lanes = []
        self.names = []
        self.name_idx = {}
        self.details = []
        self.stacks = []
        self.events = []  # [abs_start, dur, lane, corr, nameIdx, stackIdx, kind, detailIdx]
        self.warnings = []

    def lane(self, label, kind, **kw):
        self.lanes.append(dict(label=label, kind=kind, **kw))
        return len(self.lanes) - 1

    def name(self, s):
        if s not in self.name_idx:
            self.name_idx[s] = len(self.names)
            self.names.append(s)
        return self.name_idx[s]

    def stack(self, frames):
        for i, st in enumerate(self.stacks):
            if st == frames:
                return i
        self.stacks.append(list(frames))
        return len(self.stacks) - 1

    def detail(self, d):
        self.details.append(d)
        return len(self.details) - 1

    def ev(self, start, dur, lane, corr, name, stack, kind, detail=-1):
        self.events.append([start, max(0, dur), lane, corr, self.name(name), stack, kind, detail])

    def data(self, title="nsys CPU/GPU timeline", keep=20000, source="generated.sqlite"):
        evs = self.events
        total = len(evs)
        flame = launch_flame(evs, self.lanes, self.names, self.stacks)
        if total > keep:  # reference trimming: longest kept (stable on ties), then back in start order
            evs = sorted(evs, key=lambda e: -e[1])[:keep]
        evs = sorted(evs, key=lambda e: e[0])
        t0 = min((e[0] for e in evs), default=0)
        span = max(1, max((e[0] + e[1] for e in evs), default=0) - t0)
        out_events = [[e[0] - t0] + e[1:] for e in evs]
        return {
            "title": title, "t0": T0 + t0, "span": span, "total": total, "shown": len(evs),
            "lanes": self.lanes, "cpuLanes": sum(1 for l in self.lanes if l["kind"] == "cpu"),
            "kinds": KINDS, "names": self.names, "events": out_events, "details": self.details,
            "stacks": self.stacks, "launchFlame": flame, "warnings": self.warnings, "source": source,
        }


def launch_flame(evs, lanes, names, stacks):
    """Aggregate launch stacks over all events: GPU duration preferred, API duration otherwise."""
    by_corr = {}
    for e in evs:
        if e[3] >= 0 and e[5] >= 0:
            by_corr.setdefault(e[3], []).append(e)
    frames, fidx, agg = [], {}, {}

    def f(s):
        if s not in fidx:
            fidx[s] = len(frames)
            frames.append(s)
        return fidx[s]

    for corr in sorted(by_corr):
        group = by_corr[corr]
        gpu = [e for e in group if lanes[e[2]]["kind"] == "gpu"]
        for e in (gpu or group):
            path = tuple(f(s) for s in reversed(stacks[e[5]])) + (f(names[e[4]]),)
            agg[path] = agg.get(path, 0) + e[1]
    if not agg:
        return None
    st = [[list(p), w] for p, w in sorted(agg.items())]
    return {"unit": "ns", "frames": frames, "stacks": st, "total": sum(w for _, w in st)}


def simulate(b, rnd, steps, streams, with_stacks=True, kernel_names=KERNELS):
    """A training-loop-like trace: per step an NVTX range, H2D copy, a dozen kernels, memset, sync."""
    cpu = b.lane("CPU pid 4242 tid 4242 python3", "cpu", pid=4242, tid=4242)
    cpu2 = b.lane("CPU pid 4242 tid 4250 pt_autograd_0", "cpu", pid=4242, tid=4250)
    gpus = [b.lane("GPU NVIDIA A10G (0) stream %d" % s, "gpu", device="NVIDIA A10G (0)", stream=s)
            for s in streams]
    nvtx = b.lane("NVTX pid 4242 tid 4242", "nvtx", pid=4242, tid=4242)
    t = 0
    gpu_free = [0] * len(gpus)
    corr = 100
    for step in range(steps):
        step_start = t
        fw_start = t
        thread = cpu if step % 3 else cpu2
        # host-to-device copy
        corr += 1
        d = rnd.randint(6000, 12000)
        st = b.stack(STACKS[3]) if with_stacks else -1
        b.ev(t, d, thread, corr, "cudaMemcpyAsync", st, K_API)
        g = 0
        gs = max(t + 2000, gpu_free[g])
        gd = rnd.randint(150_000, 400_000)
        b.ev(gs, gd, gpus[g], corr, "[CUDA memcpy Host-to-Device]", st, K_MEMCPY,
             b.detail({"bytes": 4 << 20, "copy": "Host-to-Device", "device": "NVIDIA A10G (0)",
                       "stream": streams[g]}))
        gpu_free[g] = gs + gd
        t += d + rnd.randint(500, 3000)
        for k in range(12):
            corr += 1
            name = kernel_names[(k * 7 + step) % len(kernel_names)]
            d = rnd.randint(3000, 9000)
            if with_stacks and k % 4 != 3:  # every 4th launch below the --cudabacktrace threshold
                st = b.stack(STACKS[k % 3])
            else:
                st = -1
            b.ev(t, d, thread, corr, "cudaLaunchKernel", st, K_API)
            g = k % len(gpus)
            gs = max(t + rnd.randint(2000, 8000), gpu_free[g])
            gd = int(rnd.lognormvariate(9.5, 1.3))  # ~13 us median, long tail
            b.ev(gs, gd, gpus[g], corr, name, st, K_KERNEL,
                 b.detail({"grid": [rnd.choice([80, 160, 1024]), 1, 1], "block": [256, 1, 1],
                           "regs": rnd.choice([32, 40, 64, 128]), "device": "NVIDIA A10G (0)",
                           "stream": streams[g]}))
            gpu_free[g] = gs + gd
            t += d + rnd.randint(200, 2000)
        fw_end = t
        corr += 1
        d = rnd.randint(3000, 5000)
        b.ev(t, d, thread, corr, "cudaMemsetAsync", -1, K_API)
        gs = max(t + 1500, gpu_free[0])
        b.ev(gs, 2500, gpus[0], corr, "[CUDA memset]", -1, K_MEMSET,
             b.detail({"bytes": 1 << 20, "device": "NVIDIA A10G (0)", "stream": streams[0]}))
        gpu_free[0] = gs + 2500
        t += d + 1000
        # host waits for the GPU
        wait_end = max(gpu_free) + 3000
        b.ev(t, wait_end - t, thread, -1, "cudaStreamSynchronize", -1, K_SYNC)
        t = wait_end + rnd.randint(20_000, 80_000)
        b.ev(step_start, t - step_start - 10_000, nvtx, -1, "train_step %d" % step, -1, K_NVTX,
             b.detail({"nvtx_level": 0, "domain": "TSL"}))
        b.ev(fw_start, fw_end - fw_start, nvtx, -1, "forward", -1, K_NVTX,
             b.detail({"nvtx_level": 1, "domain": "TSL"}))
    return b


HOSTILE = "</script><img src=x onerror=alert(1)>"


def make(case, builder_only=False):
    rnd = random.Random(42)
    b = Builder()
    if builder_only and case == "large":
        simulate(b, rnd, steps=1700, streams=[7, 13, 14, 15])
        return b
    if builder_only and case == "one":
        g = b.lane("GPU NVIDIA A10G (0) stream 7", "gpu", device="NVIDIA A10G (0)", stream=7)
        b.ev(0, 5000, g, 101, "burn(float *, int, int)", -1, K_KERNEL,
             b.detail({"grid": [160, 1, 1], "block": [256, 1, 1], "regs": 32}))
        return b
    if builder_only:
        raise SystemExit("timeline_data.py: --csv supports the cases large and one")
    if case == "small":
        simulate(b, rnd, steps=6, streams=[7, 13])
        return b.data(source="small.sqlite")
    if case == "manylanes":  # a fleet node: 48 GPU streams, so the page scrolls past the axis
        simulate(b, rnd, steps=4, streams=list(range(7, 55)))
        return b.data(source="manylanes.sqlite")
    if case == "nostacks":
        simulate(b, rnd, steps=3, streams=[7], with_stacks=False)
        b.warnings.append("no launch backtraces in this capture (CUDA_CALLCHAINS absent): "
                          "capture with --stacks to record them")
        return b.data(source="nostacks.sqlite")
    if case == "large":
        # 50,000 events, 20,000 longest kept: like a real trimmed capture
        simulate(b, rnd, steps=1700, streams=[7, 13, 14, 15])
        b.events = b.events[:50000]
        return b.data(source="large.sqlite")
    if case == "hostile":
        names = [HOSTILE, "evil\u2028line\u2029sep & \"quotes\" 'apos' <b>bold</b>",
                 "K" * 10000, "{{title}} {{json:data}} ${x} `tick`"]
        simulate(b, rnd, steps=2, streams=[7], kernel_names=names)
        b.lanes[0]["label"] = "CPU pid 4242 tid 4242 " + HOSTILE
        b.stacks.append([HOSTILE + " (libevil.so)", "\u2028frame (" + "m" * 10000 + ")"])
        hs = len(b.stacks) - 1
        for e in b.events:
            if e[6] == K_KERNEL and b.names[e[4]] == HOSTILE:
                e[5] = hs
        for e in b.events:  # the launch shares its kernel's stack
            if e[6] == K_API and e[3] >= 0:
                for g in b.events:
                    if g[3] == e[3] and g[6] == K_KERNEL and g[5] == hs:
                        e[5] = hs
        b.warnings.append("warning with " + HOSTILE)
        return b.data(title="</title><script>alert(1)</script>", source=HOSTILE)
    if case == "reference":
        return {"lanes": ["CPU pid 4242 tid 4242", "GPU NVIDIA A10G (0) stream 7"], "cpuLanes": 1,
                "names": ["cudaLaunchKernel", "burn(float *, int, int)"],
                "events": [[0, 300, 0, 101, 0, 0], [500, 5000, 1, 101, 1, 0]],
                "stacks": [["cudaLaunchKernel (libcudart.so.12)", "main (cuda_burn)"]],
                "span": 5500, "total": 2, "shown": 2, "title": "nsys CPU/GPU timeline"}
    if case == "empty":
        d = b.data(source="empty.sqlite")
        d["warnings"] = ["no trace events in this capture"]
        return d
    if case == "one":
        g = b.lane("GPU NVIDIA A10G (0) stream 7", "gpu", device="NVIDIA A10G (0)", stream=7)
        b.ev(0, 5000, g, 101, "burn(float *, int, int)", -1, K_KERNEL,
             b.detail({"grid": [160, 1, 1], "block": [256, 1, 1], "regs": 32}))
        return b.data(source="one.sqlite")
    raise SystemExit("timeline_data.py: unknown case %r" % case)


GPU_HEADER = ["Start (ns)", "Duration (ns)", "CorrId", "GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ",
              "Reg/Trd", "StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)", "Throughput (MBps)", "SrcMemKd",
              "DstMemKd", "Device", "Ctx", "Strm", "Name"]
API_HEADER = ["Start (ns)", "Duration (ns)", "Name", "Result", "CorrID", "Pid", "Tid", "T-Pri", "Thread Name"]


def write_csv(b, out_dir):
    """The untrimmed events as the two stats trace reports (CPU lanes -> API, GPU lanes -> GPU; NVTX dropped)."""
    import csv
    os.makedirs(out_dir, exist_ok=True)
    evs = sorted(b.events, key=lambda e: e[0])
    with open(os.path.join(out_dir, "cuda_gpu_trace.csv"), "w", newline="", encoding="utf-8") as gf, \
            open(os.path.join(out_dir, "cuda_api_trace.csv"), "w", newline="", encoding="utf-8") as af:
        g, a = csv.writer(gf), csv.writer(af)
        g.writerow(GPU_HEADER)
        a.writerow(API_HEADER)
        for e in evs:
            lane = b.lanes[e[2]]
            start, dur, corr, name = T0 + e[0], e[1], e[3], b.names[e[4]]
            d = b.details[e[7]] if e[7] >= 0 else {}
            if lane["kind"] == "gpu":
                grid, block = d.get("grid", ["", "", ""]), d.get("block", ["", "", ""])
                mb = "%.3f" % (d["bytes"] / 1e6) if "bytes" in d else ""
                thr = "%.3f" % (d["bytes"] / 1e6 / (dur / 1e9)) if "bytes" in d and dur else ""
                src, dst = {"Host-to-Device": ("Pageable", "Device")}.get(d.get("copy"), ("", ""))
                g.writerow([start, dur, corr if corr >= 0 else ""] + grid + block +
                           [d.get("regs", ""), "0.000" if grid[0] != "" else "", "0.000" if grid[0] != "" else "",
                            mb, thr, src, dst, lane["device"], 1, lane["stream"], name])
            elif lane["kind"] == "cpu":
                a.writerow([start, dur, name, 0, corr if corr >= 0 else "", lane["pid"], lane["tid"], 20,
                            lane["label"].split(" ", 5)[5] if lane["label"].count(" ") >= 5 else ""])


def script_safe_json(obj):
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for a, r in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                 ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        s = s.replace(a, r)
    return s


def html_escape(s):
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def expand(template, tdir, depth=0):
    """Include slots, as lua/gpuflame/views/page.lua expands them: a line that is only {{include:NAME}}
    becomes the file tdir/NAME (the template's directory is templates/)."""
    out = []
    for line in template.split("\n"):
        m = re.fullmatch(r"[ \t]*\{\{include:([\w./-]+)\}\}[ \t]*", line)
        if m and depth < 4:
            with open(os.path.join(tdir, m.group(1)), encoding="utf-8") as f:
                body = expand(f.read(), tdir, depth + 1)
            out.append(body[:-1] if body.endswith("\n") else body)
        else:
            out.append(line)
    return "\n".join(out)


def fill(template, data, title, findings=None):
    # one pass over the slots, so text inserted by one slot is never re-scanned for another
    out, i = [], 0
    while True:
        j = template.find("{{", i)
        if j < 0:
            out.append(template[i:])
            break
        k = template.find("}}", j)
        slot = template[j + 2:k]
        out.append(template[i:j])
        if slot == "title":
            out.append(html_escape(title))
        elif slot == "json:data":
            out.append(script_safe_json(data))
        elif slot == "json:findings":
            out.append(script_safe_json(findings))
        elif slot == "json:gputime":  # the GPU time breakdown's settings: none, so no communication kernels
            out.append("null")
        elif slot == "json:steps":  # the capture's steps on the axis: none
            out.append("null")
        elif slot == "json:critpath":  # timeline --critical-path: no path
            out.append("null")
        else:
            out.append(template[j:k + 2])
        i = k + 2
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--json")
    ap.add_argument("--html")
    ap.add_argument("--title")
    ap.add_argument("--findings", help="the findings panel's document (JSON file)")
    ap.add_argument("--csv", metavar="DIR")
    ap.add_argument("--template", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                       "templates", "timeline.html"))
    a = ap.parse_args()
    if a.csv:
        write_csv(make(a.case, builder_only=True), a.csv)
        return
    data = make(a.case)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            f.write(script_safe_json(data))
    if a.html:
        with open(a.template, encoding="utf-8") as f:
            tpl = expand(f.read(), os.path.dirname(os.path.abspath(a.template)))
        with open(a.html, "w", encoding="utf-8") as f:
            findings = None
            if a.findings:
                with open(a.findings, encoding="utf-8") as ff:
                    findings = json.load(ff)
            f.write(fill(tpl, data, a.title if a.title is not None else data["title"], findings))
    if not a.json and not a.html:
        sys.stdout.write(script_safe_json(data))


if __name__ == "__main__":
    main()
