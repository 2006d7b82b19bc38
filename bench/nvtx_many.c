/* A CPU workload for the end-to-end analyze benchmark (bench/bench_analyze_e2e.sh): the NVTX shape of
 * the capture harness (docs/spec/NVTX_ANALYSIS.md §3: `profile-target`, then `iteration <i>` with two nested
 * ranges) with no sleep or busy wait, so a real nsys records ~3 ranges per iteration as fast as it can.
 * Usage: nvtx_many ITERATIONS */
#include <stdio.h>
#include <stdlib.h>

int nvtxRangePushA(const char *message);
int nvtxRangePop(void);

static volatile unsigned long sink;

static void work(int n)
{
    for (int k = 0; k < n; k++)
        sink += (unsigned long)k * 2654435761u;
}

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? atoi(argv[1]) : 1000;
    char name[32];
    nvtxRangePushA("profile-target");
    for (int i = 0; i < iterations; i++) {
        snprintf(name, sizeof name, "iteration %d", i);
        nvtxRangePushA(name);
        nvtxRangePushA("smoke multiply");
        work(200);
        nvtxRangePop();
        nvtxRangePushA("smoke reduction");
        work(100);
        nvtxRangePop();
        nvtxRangePop();
    }
    nvtxRangePop();
    return 0;
}
