/* What the SQLite importer's files share (trace_sqlite.c, trace_sqlite_nvtx.c): the import's state and the
 * helpers that NVTX's table-order reader calls. Private to those files. */
#ifndef GF_TRACE_SQLITE_INT_H
#define GF_TRACE_SQLITE_INT_H

#include <stdint.h>

#include "gf_err.h"
#include "hmap.h"
#include "mem.h"
#include "sqlite_export.h"
#include "trace.h"

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
    int calls_inexact; /* a row the NVTX projection would read otherwise than its event (trace.h calls_exact) */
    int nvtx_inexact;  /* the same for NVTX_EVENTS (trace.h nvtx_rowid) */
    int have_hi;
    int64_t gid_hi;
    int threads;       /* 2: the big tables' rows are stepped on a reader thread (gf_sqlq_prefetch); 1: not */
    gf_mem_populator pop; /* threads 2, keep-all builds: the reserved columns, mapped while rows are awaited */
} imp;

/* trace_sqlite.c: StringIds id → strtab id (-1 none); the NVTX or CPU lane of a thread (-1: err filled);
 * SELECT <cols> FROM table <tail> (1 prepared, 0 absent, -1 error); the statement finished (0 done, -1 a
 * database error); an out-of-memory error (-1). */
int32_t gf_tsq_str_of(imp *m, int64_t id);
/* trace.h calls_exact: notes a globalTid's bits 48 and up (they must be the same in every row) */
void gf_tsq_exact_hi(imp *m, int64_t gid);
int32_t gf_tsq_cpu_lane(imp *m, int nvtx, int64_t gtid);
int gf_tsq_prepare(imp *m, gf_sqlq *q, const char *table, const char *const *cols, int ncols, int nreq,
                   const char *tail);
int gf_tsq_step_fail(imp *m, gf_sqlq *q, int rc);
/* gf_sqlq_prefetch for the import's big tables, with gf_sqlq_idle mapping the reserved columns' pages */
void gf_tsq_prefetch(imp *m, gf_sqlq *q, uint64_t textcols);

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

/* trace_sqlite_nvtx.c: NVTX_EVENTS read in table order and put in the order of the ORDER BY it replaces;
 * 1 when the table's shape or the build (bounded) needs that ORDER BY instead (nothing was added). */
int gf_tsq_nvtx_table_order(imp *m);

#endif
