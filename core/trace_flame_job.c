/* The flamegraph's stacks (and the page's fold of them) on a second thread while the findings panel's
 * rules run on the calling one (trace_flame_job.h). The thread reads the trace (columns, lanes, details,
 * string table) and writes only its own memory and the two stacks tables, which the caller does not touch
 * until the join; the rules reach the trace read-only, and the bindings refuse the methods that change a
 * trace while a job holds it (core/bind/l_trace.c gf_lua_trace_hold), as for the timeline's NVTX
 * projection (core/trace_proj_job.c). */
#include "trace_flame_job.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "threads.h"
#include "trace_nvtx_group.h"

struct gf_flame_job {
    const gf_trace *t;
    gf_gpu_flame_opts o;
    int levels[GF_FL_NLEVELS];
    char *nolaunch, *fold_name;
    gf_stacks *s, *folded;
    double share;
    int64_t fold_min;
    gf_flame_raw raw;
    gf_fold_stats st;
    int threads;               /* policy limits.threads (gf_threads_resolve's want) */
    atomic_int caller_waiting; /* finish has begun: the caller's core is free for the fold's sort */
    /* wait_groups: the thread indexes the launches, then waits until the caller has set the trace's
     * NVTX groups (gf_trace_flame_job_set_groups), or finish or free let it go on without */
    int wait_groups, groups_done, cancel;
    int deferred; /* wait_groups and no thread: the work runs in finish */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    int running; /* started and not yet joined */
    int rc;      /* the work's, with err */
    gf_err err;
    double run_s, wait_s; /* the thread's wall time; finish's wait for it (gf_trace_flame_job_times) */
    double run_cpu, caller_cpu; /* the thread's CPU time; the caller's between start and finish */
};

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_s(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* The launch index reads the trace's kinds, correlation ids and processes, which the NVTX grouping does not
 * write (gf_trace_set_nvtx_group: the string table and the groups' map); what reads names comes after. */
static int launches_then_groups(gf_flame_job *j)
{
    if (!(j->o.launches = malloc(sizeof *j->o.launches))) {
        j->rc = gf_oom(&j->err, "flamegraph job");
        return -1;
    }
    if ((j->rc = gf_launch_index_build(j->t, j->o.launches, &j->err)) != 0) {
        free(j->o.launches);
        j->o.launches = NULL;
        return -1;
    }
    pthread_mutex_lock(&j->mu);
    while (!j->groups_done)
        pthread_cond_wait(&j->cv, &j->mu);
    int cancel = j->cancel;
    pthread_mutex_unlock(&j->mu);
    if (cancel) {
        gf_launch_index_free(j->o.launches);
        free(j->o.launches);
        j->o.launches = NULL;
        j->rc = gf_errf(&j->err, GF_EXIT_ERROR, "flamegraph job: closed before its NVTX groups were set");
        return -1;
    }
    return 0;
}

static void work(gf_flame_job *j)
{
    if (j->wait_groups && launches_then_groups(j) != 0)
        return;
    /* a page's small NVTX frames folded as the stacks are made (core/flame_fold.c); the rest below */
    j->o.fold_name = j->fold_name;
    j->o.fold_share = j->share;
    j->o.fold_min_stacks = j->fold_min;
    j->rc = gf_trace_gpu_stacks(j->t, &j->o, j->s, NULL, &j->err);
    const gf_stacks_prefold *pre = gf_stacks_get_prefold(j->s);
    if (j->rc != 0 || j->share <= 0 || (pre ? pre->raw : gf_stacks_count(j->s)) <= (size_t)j->fold_min)
        return;
    int64_t total = gf_stacks_total(j->s);
    if (total <= 0)
        return;
    /* fg.fold's math.ceil(stacks:total() * share): the same double product, rounded up */
    int64_t min_value = (int64_t)ceil((double)total * j->share);
    /* a third thread only where the policy gives a third CPU, or where the caller only waits for this one */
    int sort_threads = gf_threads_resolve(j->threads, 3) >= 3 || atomic_load(&j->caller_waiting) ? j->threads : 1;
    j->rc = gf_stacks_fold(j->s, min_value, j->fold_name, sort_threads, j->folded, &j->st, &j->err);
}

static void *run(void *arg)
{
    gf_flame_job *j = arg;
    double t0 = now_s(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    work(j);
    j->run_s = now_s() - t0;
    j->run_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    return NULL;
}

gf_flame_job *gf_trace_flame_job_start(const gf_trace *t, const gf_gpu_flame_opts *o, gf_stacks *s,
                                       gf_stacks *folded, double fold_share, int64_t fold_min,
                                       const char *fold_name, int threads, int wait_groups, gf_err *err)
{
    if (o->step || o->nproc || o->nlevels > GF_FL_NLEVELS) {
        gf_errf(err, GF_EXIT_ERROR, "flamegraph job: no step, no named processes, at most %d levels",
                GF_FL_NLEVELS);
        return NULL;
    }
    gf_flame_job *j = calloc(1, sizeof *j);
    if (!j || !(j->nolaunch = strdup(o->nolaunch)) || !(j->fold_name = strdup(fold_name ? fold_name : ""))) {
        if (j)
            free(j->nolaunch);
        free(j);
        gf_oom(err, "flamegraph job");
        return NULL;
    }
    j->t = t;
    j->o = *o;
    memcpy(j->levels, o->levels, o->nlevels * sizeof *j->levels);
    j->o.levels = j->levels;
    j->o.nolaunch = j->nolaunch;
    j->o.raw = &j->raw;
    j->s = s;
    j->folded = folded;
    j->share = fold_share;
    j->fold_min = fold_min < 0 ? 0 : fold_min;
    j->threads = threads;
    j->o.launches = NULL;
    j->wait_groups = wait_groups;
    j->groups_done = !wait_groups;
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    atomic_init(&j->caller_waiting, 0);
    gf_err_clear(&j->err);
    j->caller_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (pthread_create(&j->th, NULL, run, j) == 0)
        j->running = 1;
    else if (wait_groups)
        j->deferred = 1; /* no thread to be had: the stacks in finish, after the groups */
    else
        run(j); /* no thread to be had: the stacks now, on the calling thread */
    return j;
}

/* The thread let go on past its wait for the groups (cancel: to end there) */
static void groups_done(gf_flame_job *j, int cancel)
{
    pthread_mutex_lock(&j->mu);
    if (!j->groups_done) {
        j->groups_done = 1;
        j->cancel = cancel;
        pthread_cond_signal(&j->cv);
    }
    pthread_mutex_unlock(&j->mu);
}

int gf_trace_flame_job_set_groups(gf_flame_job *j, gf_trace *t, const int32_t *raw, const char *const *text,
                                  const size_t *len, size_t n, gf_err *err)
{
    if (t != j->t || !j->wait_groups || j->groups_done) {
        groups_done(j, 0);
        return gf_errf(err, GF_EXIT_ERROR, "flamegraph job: its trace's NVTX groups are set once, at its start");
    }
    int rc = gf_trace_set_nvtx_group(t, raw, text, len, n, err);
    groups_done(j, rc != 0);
    return rc;
}

static void join(gf_flame_job *j)
{
    groups_done(j, 0); /* not set: the stacks of the trace's names as they are (free: the job ends anyway) */
    if (j->running) {
        pthread_join(j->th, NULL);
        j->running = 0;
    }
}

int gf_trace_flame_job_finish(gf_flame_job *j, gf_flame_raw *raw, gf_fold_stats *folded_st, gf_err *err)
{
    j->caller_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - j->caller_cpu;
    atomic_store(&j->caller_waiting, 1);
    double t0 = now_s();
    int ran = j->running;
    join(j);
    if (j->deferred) {
        j->deferred = 0;
        run(j);
    }
    j->wait_s += now_s() - t0;
    if (!ran)
        j->caller_cpu = 0; /* ran on the calling thread: nothing beside it */
    *raw = j->raw;
    memset(&j->raw, 0, sizeof j->raw);
    *folded_st = j->st;
    if (j->rc != 0) {
        *err = j->err;
        return -1;
    }
    return 0;
}

void gf_trace_flame_job_times(const gf_flame_job *j, double *run_s, double *wait_s, double *run_cpu,
                              double *caller_cpu)
{
    *run_s = j->run_s;
    *wait_s = j->wait_s;
    *run_cpu = j->run_cpu;
    *caller_cpu = j->caller_cpu;
}

void gf_trace_flame_job_free(gf_flame_job *j)
{
    if (!j)
        return;
    if (j->running)
        groups_done(j, 1);
    join(j);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j->raw.frame);
    free(j->raw.name);
    free(j->nolaunch);
    free(j->fold_name);
    free(j);
}
