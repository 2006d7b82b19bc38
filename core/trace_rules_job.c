/* The findings rules' heaviest primitives on a second thread beside the other rules (trace_rules_job.h). The
 * thread reads the trace and writes only its own memory; the rules reach the trace read-only, and the binding
 * holds the trace (core/bind/l_trace.h gf_lua_trace_hold) so that the methods that change it refuse until
 * the join. */
#include "trace_rules_job.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

enum { WORK_GAPS, WORK_LAUNCHES };

typedef struct work {
    int kind;
    gf_fwin w;
    int64_t min_gap, limit; /* gaps */
    uint64_t min_kernels;   /* launches */
    void *rows;             /* gf_gap_row or gf_launch_row */
    size_t n;
    gf_launch_sum sum;
    int rc, taken;
    gf_err err;
} work;

struct gf_rules_job {
    const gf_trace *t;
    work *v;
    size_t n, cap;
    pthread_t th;
    int running; /* started on the thread and not yet joined */
};

gf_rules_job *gf_rules_job_new(const gf_trace *t)
{
    gf_rules_job *j = calloc(1, sizeof *j);
    if (j)
        j->t = t;
    return j;
}

static work *add(gf_rules_job *j, int kind, const gf_fwin *w)
{
    if (GF_GROW(j->v, j->cap, j->n + 1, 4) != 0)
        return NULL;
    work *x = &j->v[j->n++];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    if (w)
        x->w = *w;
    else
        gf_fwin_init(&x->w); /* every row, as a NULL window to the primitives */
    gf_err_clear(&x->err);
    return x;
}

int gf_rules_job_add_gaps(gf_rules_job *j, const gf_fwin *w, int64_t min_gap_ns, int64_t limit)
{
    work *x = add(j, WORK_GAPS, w);
    if (!x)
        return -1;
    x->min_gap = min_gap_ns;
    x->limit = limit;
    return (int)(j->n - 1);
}

int gf_rules_job_add_launches(gf_rules_job *j, const gf_fwin *w, uint64_t min_kernels)
{
    work *x = add(j, WORK_LAUNCHES, w);
    if (!x)
        return -1;
    x->min_kernels = min_kernels;
    return (int)(j->n - 1);
}

static void *run(void *arg)
{
    gf_rules_job *j = arg;
    for (size_t k = 0; k < j->n; k++) {
        work *x = &j->v[k];
        if (x->kind == WORK_GAPS)
            x->rc = gf_find_gaps(j->t, &x->w, x->min_gap, x->limit, (gf_gap_row **)&x->rows, &x->n, &x->err);
        else
            x->rc = gf_find_launches_ungated(j->t, &x->w, x->min_kernels, (gf_launch_row **)&x->rows, &x->n,
                                             &x->sum, &x->err);
    }
    return NULL;
}

void gf_rules_job_start(gf_rules_job *j)
{
    if (pthread_create(&j->th, NULL, run, j) == 0)
        j->running = 1;
    else
        run(j); /* no thread to be had: the work now, on the calling thread */
}

static void join(gf_rules_job *j)
{
    if (j->running) {
        pthread_join(j->th, NULL);
        j->running = 0;
    }
}

static work *take(gf_rules_job *j, int idx, int kind, gf_err *err)
{
    join(j);
    if (idx < 0 || (size_t)idx >= j->n || j->v[idx].kind != kind || j->v[idx].taken) {
        gf_errf(err, GF_EXIT_ERROR, "rules job: no such result to take (%d)", idx);
        return NULL;
    }
    work *x = &j->v[idx];
    x->taken = 1;
    if (x->rc != 0) {
        *err = x->err;
        return NULL;
    }
    return x;
}

int gf_rules_job_take_gaps(gf_rules_job *j, int idx, gf_gap_row **rows, size_t *n, gf_err *err)
{
    work *x = take(j, idx, WORK_GAPS, err);
    if (!x)
        return -1;
    *rows = x->rows;
    *n = x->n;
    x->rows = NULL;
    return 0;
}

int gf_rules_job_take_launches(gf_rules_job *j, int idx, gf_launch_row **rows, size_t *n, gf_launch_sum *sum,
                               gf_err *err)
{
    work *x = take(j, idx, WORK_LAUNCHES, err);
    if (!x)
        return -1;
    *rows = x->rows;
    *n = x->n;
    *sum = x->sum;
    x->rows = NULL;
    return 0;
}

void gf_rules_job_free(gf_rules_job *j)
{
    if (!j)
        return;
    join(j);
    for (size_t k = 0; k < j->n; k++)
        free(j->v[k].rows);
    free(j->v);
    free(j);
}
