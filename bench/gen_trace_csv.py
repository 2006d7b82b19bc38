#!/usr/bin/env python3
"""Generates `nsys stats` trace CSVs with the real headers (2025.1 era, docs/spec/NSYS.md §6.2):
ROWS cuda_gpu_trace rows (kernels with templated, comma-bearing names, memcpys, memsets on 4 streams of
2 devices) and ROWS cuda_api_trace rows (the launching calls, same CorrIDs, 4 threads).
usage: gen_trace_csv.py ROWS OUTDIR"""
import os
import random
import sys

rows, out = int(sys.argv[1]), sys.argv[2]
os.makedirs(out, exist_ok=True)
rnd = random.Random(42)
kernels = ["void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctorOnSelf_add<float>, "
           "std::array<char *, (unsigned long)2>>(int, T2, T3)",
           "ampere_sgemm_128x64_tn", "cutlass_80_tensorop_s1688gemm_relu_256x128_32x3_nn_align4",
           "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, (int)512, (bool)1, (int)1>(T2 *, T3 *)",
           "burn(float *, int, int)"] + ["kernel_%d(float *, int)" % i for i in range(45)]
gpu_h = ("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
         "Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n")
api_h = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n"
t = 1000000
with open(os.path.join(out, "cuda_gpu_trace.csv"), "w") as g, open(os.path.join(out, "cuda_api_trace.csv"), "w") as a:
    g.write(gpu_h)
    a.write(api_h)
    gl, al = [], []
    for i in range(rows):
        corr = 100 + i
        t += rnd.randint(500, 5000)
        api_dur = rnd.randint(2000, 9000)
        dev = i & 1
        strm = 7 + (i % 4)
        tid = 4242 + (i % 4)
        r = rnd.random()
        if r < 0.9:
            name = kernels[rnd.randrange(len(kernels))]
            qname = '"%s"' % name if "," in name else name
            dur = int(rnd.expovariate(1 / 20000)) + 1000
            gl.append("%d,%d,%d,%d,1,1,256,1,1,32,0.000,0.004,,,,,NVIDIA A100-SXM4-80GB (%d),1,,%d,%s\n"
                      % (t + api_dur + 3000, dur, corr, rnd.randint(1, 4096), dev, strm, qname))
            al.append("%d,%d,cudaLaunchKernel,0,%d,4242,%d,20,python3\n" % (t, api_dur, corr, tid))
        elif r < 0.97:
            b = rnd.randint(1, 64) * 1048576
            dur = b // 20000 + 500
            gl.append("%d,%d,%d,,,,,,,,,,%.3f,%.3f,Pinned,Device,NVIDIA A100-SXM4-80GB (%d),1,,%d,"
                      "[CUDA memcpy Host-to-Device]\n" % (t + api_dur + 2000, dur, corr, b / 1e6, b * 1e3 / dur, dev, strm))
            al.append("%d,%d,cudaMemcpyAsync,0,%d,4242,%d,20,python3\n" % (t, api_dur, corr, tid))
        else:
            gl.append("%d,%d,%d,,,,,,,,,,%.3f,%.3f,,Device,NVIDIA A100-SXM4-80GB (%d),1,,%d,[CUDA memset]\n"
                      % (t + api_dur + 2000, 3000, corr, 4.194, 1400.0, dev, strm))
            al.append("%d,%d,cudaMemsetAsync,0,%d,4242,%d,20,python3\n" % (t, api_dur, corr, tid))
        if len(gl) >= 10000:
            g.writelines(gl)
            a.writelines(al)
            gl, al = [], []
    g.writelines(gl)
    a.writelines(al)
