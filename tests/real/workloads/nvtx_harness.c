/* A CPU-only workload shaped like the NVTX capture harness (docs/spec/NVTX_ANALYSIS.md §3): one top-level
 * push/pop range `profile-target`, its children `iteration <i>`, nested ranges below them, and worker
 * threads with ranges of their own. Built by the real-nsys tier against Debian's libnvToolsExt.so.1.
 * Usage: nvtx_harness [ITERATIONS] [THREADS] [SLEEP_SECONDS_AT_END] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int nvtxRangePushA(const char *message);
int nvtxRangePop(void);

static void busy_ms(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void *worker(void *arg)
{
    char name[64];
    snprintf(name, sizeof name, "worker %ld", (long)arg);
    nvtxRangePushA(name);
    nvtxRangePushA("worker step");
    busy_ms(3);
    nvtxRangePop();
    nvtxRangePop();
    return NULL;
}

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? atoi(argv[1]) : 3;
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    int linger = argc > 3 ? atoi(argv[3]) : 0;
    pthread_t tids[16];
    if (threads > 16)
        threads = 16;
    busy_ms(2); /* warm-up outside the capture range */
    nvtxRangePushA("profile-target");
    for (int i = 0; i < iterations; i++) {
        char name[32];
        snprintf(name, sizeof name, "iteration %d", i);
        nvtxRangePushA(name);
        nvtxRangePushA("smoke multiply");
        busy_ms(2 + i);
        nvtxRangePop();
        nvtxRangePushA("smoke reduction");
        busy_ms(1);
        nvtxRangePop();
        nvtxRangePop();
    }
    for (long t = 0; t < threads; t++)
        pthread_create(&tids[t], NULL, worker, (void *)t);
    for (int t = 0; t < threads; t++)
        pthread_join(tids[t], NULL);
    nvtxRangePop();
    if (linger > 0)
        sleep((unsigned)linger);
    puts("nvtx_harness done");
    return 0;
}
