/* The workload of bench/bench_live.sh: what NVTX ranges cost a CPU job under `gpuflame launch` (nsys
 * launch), with collection off and during a window, against the same job run plainly. Waits for GO to
 * exist, then times N iterations of a fixed amount of work, first without NVTX and then each iteration
 * inside one push/pop range; prints "ranges=N work_ns=A nvtx_ns=B"; then waits for QUIT to exist (so a
 * window can end while the job still runs) and exits 0.
 * Usage: live_overhead N WORK GO QUIT */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int nvtxRangePushA(const char *message);
int nvtxRangePop(void);

static volatile unsigned long sink;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void work(int n)
{
    for (int k = 0; k < n; k++)
        sink += (unsigned long)k * 2654435761u;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    long n = atol(argv[1]);
    int w = atoi(argv[2]);
    while (access(argv[3], F_OK) != 0)
        usleep(10000);
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        work(w);
    long long t1 = now_ns();
    for (long i = 0; i < n; i++) {
        nvtxRangePushA("step");
        work(w);
        nvtxRangePop();
    }
    long long t2 = now_ns();
    printf("ranges=%ld work_ns=%lld nvtx_ns=%lld\n", n, t1 - t0, t2 - t1);
    fflush(stdout);
    while (access(argv[4], F_OK) != 0)
        usleep(10000);
    return 0;
}
