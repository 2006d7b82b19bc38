/* The NVTX projection of core/trace_proj.c in its two halves, for core/trace_proj_job.c (which runs the first
 * on a thread of its own while the rules run): gf_proj_read only reads the trace (the projection, its own
 * memory); gf_proj_merge changes it (names interned in its table, lanes and events merged into its columns).
 * gf_trace_add_nvtx_proj (trace.h) is the two in a row. */
#ifndef GF_TRACE_PROJ_H
#define GF_TRACE_PROJ_H

#include <stddef.h>

#include "gf_err.h"
#include "trace.h"

typedef struct gf_proj_part gf_proj_part;

/* 1 when t takes a projection: finished, not merged from ranks, none added yet. */
int gf_proj_wanted(const gf_trace *t);
/* The projected ranges of the export at sqlite_path (the max longest when max > 0) for t, which it reads and
 * never writes; *out NULL when t takes none. Safe on any thread while nothing writes t. */
int gf_proj_read(const gf_trace *t, const char *sqlite_path, size_t max, gf_proj_part **out, gf_err *err);
/* Merges p (from gf_proj_read on this t, unchanged since) into t and frees it; p may be NULL. */
int gf_proj_merge(gf_trace *t, gf_proj_part *p, size_t *added, gf_err *err);
void gf_proj_free(gf_proj_part *p);

#endif
