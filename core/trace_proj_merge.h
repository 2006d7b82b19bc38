/* The projected NVTX ranges merged into a trace's columns (core/trace_proj_merge.c). */
#ifndef GF_TRACE_PROJ_MERGE_H
#define GF_TRACE_PROJ_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "trace_types.h"

/* The projected events' own columns, in start order (the records they come from are freed before the
 * trace's columns grow). */
typedef struct gf_proj_newev {
    int64_t *start, *dur;
    int32_t *lane, *name, *pid;
    uint32_t *seq; /* RangeId */
} gf_proj_newev;
void gf_proj_newev_free(gf_proj_newev *ne);
/* ne's np events merged into t's columns in start order, an old event first when both start together
 * (core/trace_proj_merge.c); threads >= 2 fills them on two threads. Each of ne's columns is freed (and set
 * NULL) once merged; on failure ne is as it was. */
int gf_proj_merge_events(gf_trace *t, gf_proj_newev *ne, size_t np, int threads, gf_err *err);

#endif
