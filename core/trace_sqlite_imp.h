/* The SQLite import's shared steps (core/trace_sqlite_imp.c), for the importer (trace_sqlite.c) and its NVTX
 * table-order reader (trace_sqlite_nvtx.c). Private to those files. */
#ifndef GF_TRACE_SQLITE_IMP_H
#define GF_TRACE_SQLITE_IMP_H

#include <stdint.h>

#include "sqlite_export.h"
#include "trace_sqlite_int.h"

/* StringIds id → strtab id (-1 none) */
static inline int32_t gf_tsq_str_of(imp *m, int64_t id)
{
    if (id < 0 || id >= m->nsid)
        return -1;
    return m->sid[id];
}

/* trace_types.h calls_exact: a globalTid or globalPid's bits 48 and up (host and VM) are those of the others */
static inline void gf_tsq_exact_hi(imp *m, int64_t gid)
{
    int64_t hi = (int64_t)((uint64_t)gid & ~(uint64_t)0xFFFFFFFFFFFFull);
    if (!m->have_hi) {
        m->have_hi = 1;
        m->gid_hi = hi;
    } else if (hi != m->gid_hi) {
        m->calls_inexact = 1;
    }
}

/* A database error naming the export and `what` (-1). */
int gf_tsq_db_fail(imp *m, const char *what);
/* SELECT <the columns that exist> FROM table <tail>: 1 prepared, 0 table absent or a required column (the
 * first nreq) missing, -1 error. */
int gf_tsq_prepare(imp *m, gf_sqlq *q, const char *table, const char *const *cols, int ncols, int nreq,
                   const char *tail);
/* The statement finished: 0 done, -1 a database error. */
int gf_tsq_step_fail(imp *m, gf_sqlq *q, int rc);
/* The NVTX or CPU lane of a thread (-1: err filled). */
int32_t gf_tsq_cpu_lane(imp *m, int nvtx, int64_t gtid);
/* gf_sqlq_prefetch for the import's big tables, with gf_sqlq_idle mapping the reserved columns' pages. split:
 * two readers (the CUDA calls, the kernels, the NVTX ranges: their reader is the slower side), when every
 * event is kept (a bounded build's memory stays that of one reader) and the import is not the narrow one
 * (the flamegraph's: measured, no faster with two and more CPU) */
void gf_tsq_prefetch(imp *m, gf_sqlq *q, uint64_t textcols, int split);

#endif
