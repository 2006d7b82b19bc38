/* The work a capture did, for comparing two captures (gpuflame diff, docs/DIFF.md "Comparable or not"):
 * per kernel name its instances, GPU time, blocks (gridX*gridY*gridZ summed) and threads per block
 * (blockX*blockY*blockZ summed); per copy direction its copies, bytes and GPU time; memsets likewise; per
 * NVTX range name its ranges (push/pop ranges nested at most nvtx_depth deep; start/end ranges always). */
#ifndef GF_TRACE_WORK_H
#define GF_TRACE_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "trace.h"
#include "trace_steps.h"

enum { GF_WORK_KERNEL = 0, GF_WORK_COPY, GF_WORK_MEMSET, GF_WORK_NVTX };

typedef struct gf_work_row {
    int kind;        /* GF_WORK_* */
    int32_t name;    /* strtab id: kernel name, copy direction ("Host-to-Device", ...), NVTX name; -1: none */
    int64_t count;   /* instances, copies, memsets, ranges */
    int64_t total_ns; /* GPU time (0 for NVTX) */
    int64_t bytes;   /* copies and memsets */
    int64_t blocks;  /* kernels: sum over instances of the grid's blocks */
    int64_t threads; /* kernels: sum over instances of the threads per block */
} gf_work_row;

/* Fills *out (malloc'd; first-seen order) with one row per (kind, name). */
int gf_trace_work(const gf_trace *t, int nvtx_depth, gf_work_row **out, size_t *n, gf_err *err);
/* The same over one step (trace_steps.h): the GPU work launched inside it, the NVTX ranges of its process inside
 * its window (`diff --step`). */
int gf_trace_work_step(const gf_trace *t, int nvtx_depth, const gf_step_win *step, gf_work_row **out, size_t *n,
                       gf_err *err);

#endif
