/* Each event on its own device: every synchronization row of every (process, context) pair put under the
 * device its context's kernels, copies and memsets ran on, as the SQLite importer reads the rows
 * (core/trace_devctx.c). */
#ifndef GF_TRACE_DEVCTX_H
#define GF_TRACE_DEVCTX_H

#include <stdint.h>

#include "gf_err.h"
#include "hmap.h"
#include "trace.h"

typedef struct gf_devctx {
    gf_hmap map;        /* (globalPid, contextId) → deviceId of its GPU work, or ambiguous */
    int64_t moved;      /* rows put under another device than recorded */
    int64_t mixed;      /* rows whose context ran work on several devices (left as recorded) */
    int64_t ctx, pid, from, to; /* the first moved row's context, process and devices, for the warning */
    int64_t onto[8];    /* the distinct devices rows were moved onto (the first 8), for the warning */
    int nonto;
    int have_last;      /* the last row noted, (globalPid, contextId, deviceId) */
    int64_t last[3];
} gf_devctx;

/* An empty map; gf_devctx_free in every case. */
void gf_devctx_init(gf_devctx *d);
/* One row of CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY or _MEMSET whose contextId and deviceId are not NULL
 * (globalPid NULL reads 0): process gpid's context ctx ran work on device dev. 0, or -1 out of memory. */
int gf_devctx_note(gf_devctx *d, int64_t gpid, int64_t ctx, int64_t dev);
/* The device a synchronization row of process gpid (globalPid) and context ctx (has_ctx 0: NULL) recorded on
 * device recorded belongs on: its context's, when the context ran its work on one device; else recorded. */
int64_t gf_devctx_device(gf_devctx *d, int64_t gpid, int64_t ctx, int has_ctx, int64_t recorded);
/* One warning in t->warnings saying which rows moved (and which stayed for being ambiguous). 0, or -1 (OOM). */
int gf_devctx_warn(gf_devctx *d, gf_trace *t, gf_err *err);
void gf_devctx_free(gf_devctx *d);

#endif
