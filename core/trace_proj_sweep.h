/* The NVTX projection's shared parts (core/trace_proj_sweep.c) for core/trace_proj.c: the GPU work groups
 * of the trace's ops by (process, correlation id), and the projection computed from the trace's own columns
 * in compact records (issue 42: the export's 64-byte calls and 88-byte ranges were the timeline's peak). */
#ifndef GF_TRACE_PROJ_SWEEP_H
#define GF_TRACE_PROJ_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "hmap.h"
#include "trace_types.h"

/* (process, correlation id) → the calls' GPU work group: a table over the ids' span when they are dense
 * (CUPTI numbers the calls of a process 1, 2, 3, ...) and the processes few, else a hash map. */
enum { GIDX_PIDS = 16 };
typedef struct gf_gidx {
    int32_t pid[GIDX_PIDS];
    size_t npid, span;
    int64_t cmin;
    int32_t *dense; /* [pid slot * span + corr - cmin] → group or -1; NULL: map */
    gf_hmap map;
} gf_gidx;

/* Sizes g over the trace's GPU ops. 1: an op's id does not fit a key (the caller reads the export); -1 OOM. */
int gf_gidx_init(gf_gidx *g, const gf_trace *t);
void gf_gidx_free(gf_gidx *g);
/* The group of event i's (pid, corr); with add, a new one numbered next when absent (*added set). -1 none,
 * -2 OOM. */
int64_t gf_gidx_find(gf_gidx *g, const gf_trace *t, size_t i, int add, int64_t next, int *added);
/* The groups, met in the trace's order: per group the first op's start (*gmin) and device (*gdev), the last
 * end (*gmax). -1 OOM. */
int gf_proj_op_groups(const gf_trace *t, gf_gidx *gi, int64_t **gmin, int64_t **gmax, int32_t **gdev, size_t *ng);
/* The calls with GPU work (gf_gidx_find) counted per lane into at[nlanes], the lanes ordered by cmp (qsort_r
 * over t->lanes) into lord[nlanes], and at[] turned into each lane's first slot in that order; returns how
 * many calls. The projection's two sweeps fill their call arrays by these slots. */
size_t gf_proj_call_slots(const gf_trace *t, gf_gidx *gi, size_t *at, int32_t *lord,
                          int (*cmp)(const void *, const void *, void *));

/* A range of the trace as the projection leaves it: its event ev, its NVTX_EVENTS row, the span of the GPU
 * work of the calls it encloses (pmin, pmax; pdev the device of the op that starts first) and whether it
 * encloses any (projected 1; 0: the range is not in the report). */
typedef struct gf_proj_hit {
    int64_t pmin, pmax;
    uint32_t ev, rowid;
    int32_t pdev, projected;
} gf_proj_hit;

/* The projection (core/stats_nvtx_proj.c's, the same values) of the ranges of t (t->nvtx_rowid) with the
 * calls and GPU ops of t, when t holds the export's rows exactly (*given 1; else 0 and nothing computed):
 * *out[0..*n) one hit per range, in the order of nvtx_rowid. 0, or -1 with err (OOM, interrupted). */
int gf_proj_sweep(const gf_trace *t, gf_proj_hit **out, size_t *n, int *given, gf_err *err);

#endif
