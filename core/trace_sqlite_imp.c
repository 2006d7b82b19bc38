/* The SQLite import's shared steps (trace_sqlite_imp.h): queries and their errors, the lanes of threads, and
 * the prefetching of the big tables. */
#include "trace_sqlite_imp.h"

#include <sqlite3.h>

#include "log.h"
#include "trace_build.h"

int gf_tsq_db_fail(imp *m, const char *what)
{
    return gf_sqlite_fail(m->db, m->path, what, m->err);
}

int gf_tsq_prepare(imp *m, gf_sqlq *q, const char *table, const char *const *cols, int ncols, int nreq,
                   const char *tail)
{
    return gf_sqlite_prepare_cols(m->db, m->path, q, table, cols, ncols, nreq, tail, m->err);
}

int gf_tsq_step_fail(imp *m, gf_sqlq *q, int rc)
{
    if (gf_sqlq_readers(q))
        gf_log(GF_LOG_DEBUG, "%s: %zu rows read from the file's pages", q->table, gf_sqlq_direct_rows(q));
    gf_sqlq_finalize(q);
    return rc == SQLITE_DONE ? 0 : gf_tsq_db_fail(m, q->table);
}

int32_t gf_tsq_cpu_lane(imp *m, int nvtx, int64_t gtid)
{
    uint64_t key = ((uint64_t)gtid << 1) | (uint64_t)nvtx;
    int64_t *v = gf_hmap_get(&m->cpulane, key);
    if (v)
        return (int32_t)*v;
    int64_t pid = (gtid >> 24) & 0xFFFFFF, tid = gtid & 0xFFFFFF;
    int32_t l = gf_trace_lane(m->t, nvtx ? GF_LANE_NVTX : GF_LANE_CPU, 0, pid, tid, -1, -1, -1, m->err);
    if (l < 0)
        return -1;
    int64_t *tn = gf_hmap_get(&m->tname, (uint64_t)gtid);
    if (tn)
        gf_trace_lane_set_thread_name(m->t, l, (int32_t)*tn);
    if (!gf_hmap_put(&m->cpulane, key, l, NULL))
        return gf_oom(m->err, m->path), -1;
    return l;
}

static int populate_some(void *arg)
{
    return gf_mem_populate_some(&((imp *)arg)->pop);
}

void gf_tsq_prefetch(imp *m, gf_sqlq *q, uint64_t textcols, int split)
{
    gf_sqlq_prefetch(q, m->threads, textcols, split && !m->narrow && gf_trace_keeps_all(m->t) ? m->path : NULL);
    if (m->pop.n)
        gf_sqlq_idle(q, populate_some, m);
}
