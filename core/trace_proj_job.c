/* The timeline's NVTX projection on a second thread while the rules run on the calling one (trace_proj_job.h
 * gf_trace_nvtx_proj_start/finish): the thread runs the projection's read-only half (trace_proj.h
 * gf_proj_read: the calls, GPU work and ranges read from the trace, the export's tables, the sweep and the
 * sort, all in its own memory); finish joins it and merges on the calling thread (gf_proj_merge), so the
 * trace's string table, lanes and columns are only ever written by the caller, after the join.
 *
 * What the thread reads of the trace (its columns, lanes, details and string table) nothing writes while
 * the rules run: the rules reach the trace through core.trace_findings (const gf_trace) and read-only
 * methods; the bindings refuse the methods that change a trace while its job runs (core/bind/l_trace.c). */
#include "trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace_proj.h"
#include "trace_proj_job.h"

struct gf_nvtx_proj_job {
    const gf_trace *t;
    char *path;
    size_t max;
    pthread_t th;
    int running; /* started and not yet joined */
    int done;    /* finished: merged, or its error reported */
    int rc;      /* gf_proj_read's, with err */
    gf_err err;
    gf_proj_part *part;
    double read_s, wait_s; /* the read half's wall time; finish's wait for it (gf_trace_nvtx_proj_times) */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
    gf_nvtx_proj_job *j = arg;
    double t0 = now_s();
    j->rc = gf_proj_read(j->t, j->path, j->max, &j->part, &j->err);
    j->read_s = now_s() - t0;
    return NULL;
}

gf_nvtx_proj_job *gf_trace_nvtx_proj_start(const gf_trace *t, const char *sqlite_path, size_t max, gf_err *err)
{
    gf_nvtx_proj_job *j = calloc(1, sizeof *j);
    if (!j || !(j->path = strdup(sqlite_path))) {
        free(j);
        gf_oom(err, "nvtx projection");
        return NULL;
    }
    j->t = t;
    j->max = max;
    gf_err_clear(&j->err);
    if (!gf_proj_wanted(t))
        return j; /* nothing to project: finish adds none */
    if (pthread_create(&j->th, NULL, run, j) == 0)
        j->running = 1;
    else
        run(j); /* no thread to be had: the projection now, on the calling thread */
    return j;
}

static void join(gf_nvtx_proj_job *j)
{
    if (j->running) {
        pthread_join(j->th, NULL);
        j->running = 0;
    }
}

int gf_trace_nvtx_proj_finish(gf_trace *t, gf_nvtx_proj_job *j, size_t *added, gf_err *err)
{
    *added = 0;
    double t0 = now_s();
    join(j);
    j->wait_s += now_s() - t0;
    if (j->done)
        return 0;
    j->done = 1;
    if (t != j->t)
        return gf_errf(err, GF_EXIT_ERROR, "nvtx projection: finished on another trace than it started on");
    if (j->rc != 0) {
        *err = j->err;
        return -1;
    }
    gf_proj_part *p = j->part;
    j->part = NULL;
    return gf_proj_merge(t, p, 2, added, err);
}

void gf_trace_nvtx_proj_times(const gf_nvtx_proj_job *j, double *read_s, double *wait_s)
{
    *read_s = j->read_s;
    *wait_s = j->wait_s;
}

void gf_trace_nvtx_proj_job_free(gf_nvtx_proj_job *j)
{
    if (!j)
        return;
    join(j);
    gf_proj_free(j->part);
    free(j->path);
    free(j);
}
