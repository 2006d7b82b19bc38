/* The NVTX ranges of the `nsys stats` NVTX reports, shared by core/stats_nvtx.c (loading, the range tree,
 * nvtx_pushpop_trace, nvtx_sum) and core/stats_nvtx_proj.c (the GPU projection: nvtx_gpu_proj_trace,
 * nvtx_gpu_proj_sum). Rules and sources: docs/REPORTS.md. */
#ifndef GF_STATS_NVTX_H
#define GF_STATS_NVTX_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

enum { GF_SNV_PUSHPOP = 0, GF_SNV_STARTEND = 1 }; /* a range's style */

typedef struct gf_snv_range {
    int64_t start, end, gtid, rowid;
    int64_t cdur;       /* sum of the children's durations (pushpop) */
    int64_t pmin, pmax; /* projection: min(op.start), max(op.end) */
    int32_t name;       /* str id */
    int32_t parent;     /* index, -1 = none */
    int32_t level;      /* -1 = not reachable from a root (a cycle of identical ranges, or below one) */
    int32_t nchild;     /* children (pushpop: all; projection: projected ones) */
    int32_t nops;       /* projection: correlation ids of the enclosed CUDA calls with GPU work */
    int32_t pdev;       /* projection: deviceId of the GPU op that starts first (-1: none or NULL) */
    uint8_t style;
} gf_snv_range;

typedef struct gf_snv_set {
    gf_snv_range *r;
    size_t n, cap;
    int32_t *ord; /* indices sorted by (gtid, start, end desc, rowid) (gf_snv_tree) */
} gf_snv_set;

void gf_snv_free(gf_snv_set *s);

/* Which ranges: push/pop (59, 70); the projection's (59, 60, 70, 71 that end on their own thread);
 * nvtx_sum's (59, 60, 70, 71, ended anywhere; unended ones end at the last NVTX timestamp of any kind). */
enum { GF_SNV_SEL_PUSHPOP, GF_SNV_SEL_PROJ, GF_SNV_SEL_SUM };

/* Loads the ranges of `sel` in rowid order, named coalesce(domain, '') || ':' ||
 * coalesce(StringIds[textId], text, ''). 0, or -1 with err. */
int gf_snv_load(gf_stats_db *d, gf_snv_set *s, int sel, gf_err *err);

/* Parents and levels: the tightest enclosing range on the same thread, ties as the script's R-tree meets
 * them (gf_snv_break_ties); identical ranges are each other's parents and, with what hangs below them, get
 * level -1. Fills s->ord. */
int gf_snv_tree(gf_snv_set *s, gf_err *err);
/* After the sweep (core/stats_nvtx_ties.c): the parent of each range with tied[i] set (more than one
 * enclosing range of the least tightness; s->r[i].parent is the lowest rowid of them) becomes the first of
 * them that the script's R-tree query returns. Levels are not touched. 0, or -1 with err. */
int gf_snv_break_ties(gf_snv_set *s, const uint8_t *tied, gf_err *err);

/* A growing text buffer. gf_snv_put: -1 on OOM. */
typedef struct gf_snv_buf {
    char *p;
    size_t len, cap;
} gf_snv_buf;

int gf_snv_put(gf_snv_buf *b, const char *s, size_t n);

/* RangeStack ":1:2:3" of range i (a reachable one: level >= 0) into b; pb is scratch. -1 on OOM. */
typedef struct gf_snv_path {
    int32_t *p;
    size_t cap;
} gf_snv_path;

int gf_snv_range_stack(const gf_snv_set *s, int32_t i, gf_snv_buf *b, gf_snv_path *pb);

/* *present: the export has NVTX_EVENTS (else res says SKIPPED as nsys does). -1 with err on a bad export. */
int gf_snv_present(gf_stats_db *d, gf_stats_res *res, gf_err *err, int *present);

/* The GPU projection (core/stats_nvtx_proj.c): loads the ranges of GF_SNV_SEL_PROJ, trees them and sets
 * pmin, pmax, pdev, nops (0: not projected) and nchild of each. *ok 0 when the export lacks what it needs
 * (res->skipped then says why, as nsys does). 0, or -1 with err. */
int gf_snv_projection(gf_stats_db *d, gf_stats_res *res, gf_snv_set *s, int *ok, gf_err *err);

/* A CUDA call that launched GPU work, with the span of that work: start of its (process, correlation id)
 * group's first-starting op (pmin, its deviceId pdev) to the latest end (pmax); grp numbers the groups
 * 0..ngrp-1. dup and dfirst are the projection's own. */
typedef struct gf_snv_call {
    int64_t gtid, start, end, corr, pmin, pmax;
    int32_t pdev;
    int32_t grp;
    int32_t dup, dfirst;
} gf_snv_call;

/* What gf_snv_projection_given checks in the export before it projects (NVTX data, CUDA calls, a GPU op
 * table): *ok 1 when it would project, else 0 (res says why). 0, or -1 with err. */
int gf_snv_projection_usable(gf_stats_db *d, gf_stats_res *res, int *ok, gf_err *err);
/* The same projection with the calls given instead of read from the export (core/trace_proj.c takes them
 * from an imported trace that holds the export's rows): c[0..n) in RUNTIME row order, or already sorted by
 * (globalTid, start, end) with ties in that order; the array is sorted and marked in place. With
 * ranges_given s holds the ranges too, as gf_snv_load and gf_snv_tree would leave them (ord filled; parent,
 * level and nchild need not be: only the projection's fields are then meaningful); else the export gives
 * them. The export still says (res) what nsys skips. */
int gf_snv_projection_given(gf_stats_db *d, gf_stats_res *res, gf_snv_call *c, size_t n, size_t ngrp, gf_snv_set *s,
                            int ranges_given, int *ok, gf_err *err);

/* "PushPop" / "StartEnd" */
const char *gf_snv_style(int st);

/* The (name, style) groups' output order: ORDER BY total DESC, ties in GROUP BY (name, style) order.
 * NULL on OOM; the caller frees it. */
int32_t *gf_snv_group_order(gf_stats_db *d, gf_sums *s);

#endif
