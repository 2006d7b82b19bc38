/* Thread counts from policy limits.threads, and work split in two halves on two threads (threads.h). */
#include <pthread.h>
#include <unistd.h>

#include "threads.h"

int gf_threads_resolve(int want, int most)
{
    if (want <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        want = n > 0 && n < 1024 ? (int)n : 1;
    }
    if (most < 1)
        most = 1;
    return want < most ? want : most;
}

typedef struct half_job {
    gf_range_fn *fn;
    void *arg;
    size_t lo, hi;
} half_job;

static void *run_half(void *p)
{
    half_job *j = p;
    j->fn(j->arg, j->lo, j->hi);
    return NULL;
}

void gf_threads_in_two(int threads, size_t n, size_t mid, size_t split_min, gf_range_fn *fn, void *arg)
{
    half_job j = {fn, arg, mid, n};
    pthread_t th;
    if (threads < 2 || n < split_min || pthread_create(&th, NULL, run_half, &j) != 0) {
        fn(arg, 0, n);
        return;
    }
    fn(arg, 0, mid);
    pthread_join(th, NULL);
}
