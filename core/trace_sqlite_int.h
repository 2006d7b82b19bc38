/* The types the SQLite importer's files share (trace_sqlite.c, trace_sqlite_imp.c, trace_sqlite_nvtx.c): the
 * import's state and the nesting of push/pop ranges. Private to those files; their functions are declared in
 * trace_sqlite_imp.h and trace_sqlite_nvtx.h. */
#ifndef GF_TRACE_SQLITE_INT_H
#define GF_TRACE_SQLITE_INT_H

#include <stdint.h>

#include "gf_err.h"
#include "hmap.h"
#include "mem.h"
#include "sqlite_export.h"
#include "trace_devctx.h"
#include "trace_types.h"

typedef struct imp {
    sqlite3 *db;
    const char *path;
    gf_trace *t;
    gf_err *err;
    int32_t *sid;   /* StringIds id → strtab id (-1 = no such string) */
    int64_t nsid;
    int32_t *apiname; /* StringIds id → strtab id of the name without its _vNNNN suffix (-2 = not yet) */
    gf_hmap tname;    /* globalTid → thread name strtab id */
    gf_hmap cpulane;  /* globalTid → lane */
    gf_hmap gpulane;  /* (sync, deviceId, streamId) → lane */
    gf_hmap devname;  /* deviceId → strtab id of "NAME (id)" */
    gf_hmap cudadev;  /* CUDA device id → TARGET_INFO_GPU id */
    gf_hmap gpuname;  /* TARGET_INFO_GPU id → StringIds-free strtab id of the name */
    int32_t *cc;      /* callchain id → stack id (-1 = none); ids are small dense integers */
    size_t ncc;
    int ccshift;      /* added to RUNTIME.callchainId (sqlite_callchain.h) */
    int32_t *fc_mod, *fc_frame; /* symbol StringIds id → (module, frame) of its last use */
    int calls_inexact; /* a row the NVTX projection would read otherwise than its event (trace_types.h calls_exact) */
    int nvtx_inexact;  /* the same for NVTX_EVENTS (trace_types.h nvtx_rowid) */
    int have_hi;
    int64_t gid_hi;
    int narrow;        /* gf_sqlite_opts.narrow: the GPU stacks' columns only */
    int threads;       /* 2: the big tables' rows are stepped on a reader thread (gf_sqlq_prefetch); 1: not */
    gf_mem_populator pop; /* threads 2, keep-all builds: the reserved columns, mapped while rows are awaited */
    gf_devctx dc;      /* the device of each (process, context), noted from the kernels, copies and memsets */
    int note_dc;       /* a synchronization table will ask dc */
} imp;

/* The nesting level of push/pop ranges, met in (thread, start, end desc) order: the enclosing ranges are those
 * that contain this one (start <= its start, by that order, and end >= its end), as nvtxpptrace.py finds
 * parents: a zero-length range at its parent's end is still its child, a range starting where its sibling
 * ended is not. */
typedef struct gf_tsq_nest {
    int64_t tid;
    int64_t end[256];
    int depth;
} gf_tsq_nest;

static inline int gf_tsq_nest_level(gf_tsq_nest *n, int64_t gtid, int64_t end)
{
    if (gtid != n->tid) {
        n->tid = gtid;
        n->depth = 0;
    }
    while (n->depth > 0 && n->end[n->depth - 1] < end)
        n->depth--;
    int level = n->depth;
    if (n->depth < 256)
        n->end[n->depth++] = end;
    return level;
}

#endif
