/* The NVTX projection of core/trace_proj.c in its two halves, for core/trace_proj_job.c (which runs the first
 * on a thread of its own while the rules run): gf_proj_read only reads the trace (the projection, its own
 * memory); gf_proj_merge changes it (names interned in its table, lanes and events merged into its columns).
 * gf_trace_add_nvtx_proj (trace.h) is the two in a row. */
#ifndef GF_TRACE_PROJ_H
#define GF_TRACE_PROJ_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "trace.h"

typedef struct gf_proj_part gf_proj_part;

/* 1 when t takes a projection: finished, not merged from ranks, none added yet. */
int gf_proj_wanted(const gf_trace *t);
/* The projected ranges of the export at sqlite_path (the max longest when max > 0) for t, which it reads and
 * never writes; *out NULL when t takes none. Safe on any thread while nothing writes t. */
int gf_proj_read(const gf_trace *t, const char *sqlite_path, size_t max, gf_proj_part **out, gf_err *err);
/* Merges p (from gf_proj_read on this t, unchanged since) into t and frees it; p may be NULL. threads >= 2:
 * the columns are filled on two threads (gf_proj_merge_events). */
int gf_proj_merge(gf_trace *t, gf_proj_part *p, int threads, size_t *added, gf_err *err);
void gf_proj_free(gf_proj_part *p);

/* The projected events' own columns, in start order (the records they come from are freed before the
 * trace's columns grow). */
typedef struct gf_proj_newev {
    int64_t *start, *dur;
    int32_t *lane, *name, *pid;
    uint32_t *seq; /* RangeId */
} gf_proj_newev;
void gf_proj_newev_free(gf_proj_newev *ne);
/* ne's np events merged into t's columns in start order, an old event first when both start together
 * (core/trace_proj_merge.c); threads >= 2 fills them on two threads. */
int gf_proj_merge_events(gf_trace *t, const gf_proj_newev *ne, size_t np, int threads, gf_err *err);

#endif
