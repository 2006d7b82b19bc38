/* The GPU operation table of nsys's gpustats.py (kernels, memcpys and memsets with start > 0 and in the
 * filter, per (process, device), and the CUDA profiling overhead rows strictly inside a group's range) read
 * from the trace where it lies instead of copied per group (issue 42): one pass finds the groups and their
 * ranges, a second hands every operation to a visitor in start order (the trace's events are in start order;
 * the overhead rows are merged in). gpu-starv's gaps and gpu-low-util's chunks are computed from it with no
 * memory per operation, so neither waits for the scratch gate (mem.h). Private to the findings' C files. */
#ifndef GF_TRACE_FINDINGS_GPUOPS_H
#define GF_TRACE_FINDINGS_GPUOPS_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "hmap.h"
#include "trace.h"
#include "trace_findings.h"

typedef struct gf_gpuop_group {
    int32_t pid;
    int64_t dev;
    int64_t rs, re;  /* the range of its GPU operations (before overhead) */
    uint32_t best;   /* the row SQLite's GROUP BY takes bare columns from: the latest end, then union order */
    uint64_t best_order;
    int32_t ctx;     /* that row's contextId */
} gf_gpuop_group;

typedef struct gf_gpuops {
    gf_gpuop_group *g; /* in the order they are met */
    size_t n, cap;
    size_t *sorted;    /* group indices by (pid, deviceId) */
    size_t *rank;      /* group index → its position in sorted */
    uint32_t *oh;      /* the CUDA profiling overhead rows in the filter, by start */
    size_t noh;
    gf_hmap idx;       /* (pid, deviceId) → group, as the scan made it; the second pass reads it */
} gf_gpuops;

/* The groups of t's GPU operations in w (NULL: all). 0, or -1 with err set (out of memory; more rows than
 * 32-bit row numbers hold; events not in start order, a broken trace). */
int gf_gpuops_scan(const gf_trace *t, const gf_fwin *w, gf_gpuops *G, gf_err *err);

/* Row ref (< t->n: an event; t->n + k: overhead row k) of group g, [s, e): called in start order per group
 * (equal starts in any order). */
typedef void gf_gpuop_fn(void *arg, size_t g, int64_t s, int64_t e, uint32_t ref);

/* fn called for every operation of every group (the same filter w as the scan's) */
void gf_gpuops_each(const gf_trace *t, const gf_fwin *w, const gf_gpuops *G, gf_gpuop_fn *fn, void *arg);

/* gpustats.py's union order of row ref (overhead first, then kernels, memcpys, memsets; table order within) */
uint64_t gf_gpuops_order(const gf_trace *t, uint32_t ref);

void gf_gpuops_free(gf_gpuops *G);

#endif
