/* gpu-starv's gaps on a second thread beside the other rules (trace_gaps_job.h). The thread reads the trace
 * and writes only its own memory; the rules reach the trace read-only, and the binding holds the trace
 * (core/bind/l_trace.h gf_lua_trace_hold) so that the methods that change it refuse until the join. */
#include "trace_gaps_job.h"

#include <pthread.h>
#include <stdlib.h>

struct gf_gaps_job {
    const gf_trace *t;
    gf_fwin w;
    int64_t min_gap, limit;
    gf_gap_row *rows;
    size_t n;
    pthread_t th;
    int running; /* started and not yet joined */
    int rc;      /* the work's, with err */
    gf_err err;
};

static void *run(void *arg)
{
    gf_gaps_job *j = arg;
    j->rc = gf_find_gaps_ungated(j->t, &j->w, j->min_gap, j->limit, &j->rows, &j->n, &j->err);
    return NULL;
}

gf_gaps_job *gf_gaps_job_start(const gf_trace *t, const gf_fwin *w, int64_t min_gap_ns, int64_t limit,
                               gf_err *err)
{
    gf_gaps_job *j = calloc(1, sizeof *j);
    if (!j) {
        gf_oom(err, "gaps job");
        return NULL;
    }
    j->t = t;
    j->w = *w;
    j->min_gap = min_gap_ns;
    j->limit = limit;
    gf_err_clear(&j->err);
    if (pthread_create(&j->th, NULL, run, j) == 0)
        j->running = 1;
    else
        run(j); /* no thread to be had: the gaps now, on the calling thread */
    return j;
}

static void join(gf_gaps_job *j)
{
    if (j->running) {
        pthread_join(j->th, NULL);
        j->running = 0;
    }
}

int gf_gaps_job_finish(gf_gaps_job *j, gf_gap_row **rows, size_t *n, gf_err *err)
{
    join(j);
    if (j->rc != 0) {
        *err = j->err;
        return -1;
    }
    *rows = j->rows;
    *n = j->n;
    j->rows = NULL;
    j->n = 0;
    return 0;
}

void gf_gaps_job_free(gf_gaps_job *j)
{
    if (!j)
        return;
    join(j);
    free(j->rows);
    free(j);
}
