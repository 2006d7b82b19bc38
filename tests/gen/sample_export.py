#!/usr/bin/env python3
"""Writes a SAMPLE nsys SQLite export (not a real capture): the real nsys 2025.x schema for the tables
gpuflame reads (StringIds, CUPTI_ACTIVITY_KIND_KERNEL/RUNTIME/MEMCPY/SYNCHRONIZATION, CUDA_CALLCHAINS,
NVTX_EVENTS, ThreadNames, PROCESSES, TARGET_INFO_GPU, ENUM_CUDA_MEMCPY_OPER, META_DATA_EXPORT) filled with
a deterministic (seeded) training-step-like workload: cuBLAS/CUTLASS GEMMs, PyTorch elementwise and
reduction kernels, NCCL all-reduce, H2D/D2H copies, launch backtraces. META_DATA_EXPORT says it is a
sample (EXPORT_PRODUCT_NAME = "gpuflame sample export (synthetic)").

usage: sample_export.py OUT.sqlite [--seed N] [--steps N]
"""
import argparse
import os
import random
import sqlite3

SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT,
  ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, constantMemory INTEGER, maxIPC INTEGER,
  maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER,
  maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER,
  maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, maxBlockDimY INTEGER,
  maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER, computeMajor INTEGER,
  computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER,
  dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
  unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
"""

KERNELS = [
    # (demangled, short, mean ns, grid, block, stream)
    ("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
     "cutlass::Kernel2", 412000, (128, 4, 1), (128, 1, 1), 7),
    ("ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn", 268000, (64, 8, 1), (128, 1, 1), 7),
    ("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_relu_64x64_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_relu_64x64_16x4_nn_align4::Params)",
     "cutlass::Kernel2", 151000, (64, 16, 1), (64, 1, 1), 7),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
     "vectorized_elementwise_kernel", 38000, (1024, 1, 1), (128, 1, 1), 7),
    ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::AddFunctor<float> >(at::TensorIteratorBase&, at::native::AddFunctor<float> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::AddFunctor<float> >(at::TensorIteratorBase&, at::native::AddFunctor<float> const&)::{lambda(int)#1})",
     "elementwise_kernel", 21000, (2048, 1, 1), (128, 1, 1), 7),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)",
     "reduce_kernel", 47000, (256, 1, 1), (512, 1, 1), 7),
    ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*, int, int, int, bool const*, int, bool)",
     "softmax_warp_forward", 33000, (512, 1, 1), (128, 1, 1), 7),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
     "vectorized_layer_norm_kernel", 29000, (512, 1, 1), (256, 1, 1), 7),
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
     "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 690000, (2, 1, 1), (640, 1, 1), 13),
    ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, at::native::ADAM_MODE::ADAMW, false>, float*, float, float, float, float, float, float, bool const*, float const*>(...)",
     "multi_tensor_apply_kernel", 118000, (320, 1, 1), (512, 1, 1), 7),
]
# per step: (kernel index, times)
STEP = [(0, 12), (1, 8), (2, 12), (3, 12), (4, 24), (5, 6), (6, 12), (7, 25), (8, 2), (9, 1)]
FRAMES = [
    ("cudaLaunchKernel", "libcudart.so.12"),
    ("at::native::gpu_kernel_impl", "libtorch_cuda.so"),
    ("at::native::add_kernel", "libtorch_cuda.so"),
    ("torch::autograd::generated::AddBackward0::apply", "libtorch_cpu.so"),
    ("torch::autograd::Engine::evaluate_function", "libtorch_cpu.so"),
    ("THPFunction_apply", "libtorch_python.so"),
    ("_PyEval_EvalFrameDefault", "libpython3.11.so.1.0"),
    ("main", "python3.11"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=20240501)
    ap.add_argument("--steps", type=int, default=20)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    tmp = a.out + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    db = sqlite3.connect(tmp)
    db.executescript(SCHEMA)
    strings = {}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[s], s))
        return strings[s]

    meta = [("EXPORT_PRODUCT_NAME", "gpuflame sample export (synthetic, not a real capture)"),
            ("EXPORT_PRODUCT_VERSION", "2025.1.3.140"), ("EXPORT_SCHEMA_VERSION", "3.17.2"),
            ("EXPORT_SCHEMA_VERSION_MAJOR", "3"), ("EXPORT_SCHEMA_VERSION_MINOR", "17"),
            ("EXPORT_SCHEMA_VERSION_MICRO", "2"), ("EXPORT_PLATFORM", "linux-desktop"), ("EXPORT_ARCH", "x64"),
            ("GPUFLAME_SAMPLE", "generated by tests/gen/sample_export.py seed=%d steps=%d" % (a.seed, a.steps))]
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", meta)
    for i, (n, l) in enumerate([("CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"), ("CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"),
                                ("CUDA_MEMCPY_KIND_DTOH", "Device-to-Host")]):
        db.execute("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", (i, n, l))
    gpu_cols = 41
    row = [None] * gpu_cols
    row[0:4] = [0, 0, "NVIDIA A100-SXM4-80GB", "0000:07:00.0"]
    row[9] = 108
    row[38:41] = [8, 8, 0]
    db.execute("INSERT INTO TARGET_INFO_GPU VALUES (%s)" % ",".join("?" * gpu_cols), row)
    pid, tid = 4242, 4242
    gpid = pid << 24
    gtid = gpid | tid
    db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", (gpid, pid, "python3"))
    db.execute("INSERT INTO ThreadNames VALUES (?, ?, ?)", (sid("python3"), 0, gtid))
    # one launch callchain, innermost first (stackDepth 0 = innermost)
    for depth, (sym, mod) in enumerate(FRAMES):
        db.execute("INSERT INTO CUDA_CALLCHAINS VALUES (1, ?, ?, 0, ?, ?)", (sid(sym), sid(mod), 0x400000 + depth, depth))
    launch = sid("cudaLaunchKernel_v7000")
    memcpy_api = sid("cudaMemcpyAsync_v3020")
    sync_api = sid("cudaStreamSynchronize_v3020")
    t, corr, grid_id = 1_000_000, 100, 1
    gpu_free = {7: t, 13: t}
    for step in range(a.steps):
        db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, text, globalTid, domainId) "
                   "VALUES (?, NULL, 59, ?, ?, ?, 0)", (t, step + 1, "step %d" % step, gtid))
        step_start = t
        # H2D batch
        corr += 1
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                   (t, t + 9000, gtid, corr, memcpy_api))
        s = max(t + 4000, gpu_free[7])
        d = 180000 + rnd.randint(0, 20000)
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, NULL, 7, ?, ?, ?, 1, NULL, 2, 0, 0, 1, 0, 1, NULL, NULL, NULL)",
                   (s, s + d, corr, gpid, 4 * 1024 * 1024))
        gpu_free[7] = s + d
        t += 12000
        for k, times in STEP:
            demangled, short, mean, grid, block, stream = KERNELS[k]
            for _ in range(times):
                corr += 1
                api_d = 3500 + rnd.randint(0, 3000)
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, ?)",
                           (t, t + api_d, gtid, corr, launch, 1 if rnd.random() < 0.3 else None))
                s = max(t + 2500, gpu_free[stream])
                d = max(1000, int(rnd.gauss(mean, mean * 0.08)))
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, NULL, ?, ?, ?, ?, ?, NULL, 1, 0, 64, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, ?, 0, NULL, 1)",
                           (s, s + d, stream, corr, gpid, sid(demangled), sid(short), grid[0], grid[1], grid[2],
                            block[0], block[1], block[2], grid_id))
                grid_id += 1
                gpu_free[stream] = s + d
                t += api_d + 800
        # D2H + sync
        corr += 1
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                   (t, t + 7000, gtid, corr, memcpy_api))
        s = max(t + 3000, gpu_free[7])
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, NULL, 7, ?, ?, ?, 2, NULL, 0, 2, 0, 1, 0, 1, NULL, NULL, NULL)",
                   (s, s + 9000, corr, gpid, 4096))
        gpu_free[7] = s + 9000
        corr += 1
        end_sync = max(gpu_free.values()) + 2000
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                   (t + 8000, end_sync, gtid, corr, sync_api))
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?, ?, 0, 1, NULL, 7, ?, ?, 3, 0)",
                   (t + 8000, end_sync, corr, gpid))
        t = end_sync + 50000
        db.execute("UPDATE NVTX_EVENTS SET end = ? WHERE rangeId = ? AND start = ?", (t - 20000, step + 1, step_start))
    db.commit()
    db.close()
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
