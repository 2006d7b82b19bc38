#!/usr/bin/env python3
"""Deterministic `perf script` text (perf 6.x default output of `perf record -a -g`).
  gen_perf_script.py OUT N     N samples: header line, frames leaf first, blank line

Like a real system-wide capture: ~60 commands (some with spaces), stacks of depth 4..32 drawn from
~20,000 call paths (half the samples on a few hot ones), a varying leaf, kernel frames on top of syscalls, [unknown] frames,
C++ symbols with spaces and parentheses, fresh addresses and offsets in every sample.
"""
import random
import sys


def main(out, n):
    rnd = random.Random(3)
    comms = ["python3", "swapper", "Web Content", "kworker/u8:2-ev", "nccl-proxy", "cuda-EvtHandlr",
             "pt_main_thread", "gpuflame", "Xorg", "systemd-journal"] + ["worker-%d" % i for i in range(50)]
    dsos = ["/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/local/cuda/lib64/libcudart.so.12",
            "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "/opt/conda/lib/libpython3.11.so.1.0",
            "/opt/conda/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so",
            "/opt/conda/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so", "/opt/app/bin/app (deleted)"]
    user = ["_PyEval_EvalFrameDefault", "PyObject_Call", "THPFunction_apply", "cudaLaunchKernel",
            "cuLaunchKernel", "at::native::gemm", "__libc_start_main", "main", "start_thread", "clone3"]
    user += ["at::native::(anonymous namespace)::kernel_%d<float, %d>(at::TensorIterator&, float)" % (i, i % 5)
             for i in range(600)]
    user += ["module_%d::function_%d(int, float*) const" % (i // 30, i) for i in range(1400)]
    kern = ["entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_ioctl", "nvidia_ioctl",
            "native_safe_halt", "default_idle", "do_idle", "cpu_startup_entry", "schedule", "__schedule",
            "futex_wait", "ep_poll", "asm_exc_page_fault", "handle_mm_fault"] + ["kfunc_%d" % i for i in range(200)]
    pids = {c: 1000 + 37 * i for i, c in enumerate(comms)}
    paths = []
    for _ in range(20000):
        depth = rnd.randint(4, 32)
        nk = rnd.choice([0, 0, 0, 2, 4, 6])
        frames = []  # root first
        for d in range(depth - nk):
            if d < 3:
                frames.append((rnd.choice(user[:10]), rnd.choice(dsos)))
            elif rnd.random() < 0.03:
                frames.append(("[unknown]", rnd.choice(dsos + ["[unknown]"])))
            else:
                frames.append((rnd.choice(user), rnd.choice(dsos)))
        for _ in range(nk):
            frames.append((rnd.choice(kern), "[kernel.kallsyms]"))
        paths.append((rnd.choice(comms), frames))
    t = 1000.0
    with open(out, "w") as f:
        w = f.write
        for i in range(n):
            # half the samples on a few hot paths, half spread over all of them; the leaf varies
            k = min(int(rnd.paretovariate(0.6)) - 1, len(paths) - 1) if rnd.random() < 0.5 else rnd.randrange(len(paths))
            comm, frames = paths[k]
            if frames[-1][1] != "[kernel.kallsyms]" and rnd.random() < 0.5:
                frames = frames[:-1] + [(rnd.choice(user), frames[-1][1])]
            pid = pids[comm]
            t += rnd.random() / 1000
            w("%s %d/%d [%03d] %.6f:   10101010 cycles:P: \n" % (comm, pid, pid + rnd.randint(0, 8), rnd.randint(0, 63), t))
            for sym, dso in reversed(frames):
                if dso == "[kernel.kallsyms]":
                    addr = 0xffffffff81000000 + rnd.randint(0, 1 << 24)
                else:
                    addr = 0x7f0000000000 + rnd.randint(0, 1 << 32)
                off = "" if sym == "[unknown]" else "+0x%x" % rnd.randint(1, 4000)
                w("\t%16x %s%s (%s)\n" % (addr, sym, off, dso))
            w("\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
