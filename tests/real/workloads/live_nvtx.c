/* A long-running CPU job with NVTX ranges for the live-session tests (tests/real/test_real_live.sh): every
 * 20 ms one range named "tick <wall-clock ns at its start>", each also written to LOG, so a window's export
 * can be checked against what ran. Runs until STOPFILE exists or MAX_SECONDS pass; prints one line to
 * stdout and one to stderr and exits with EXIT_CODE.
 * Usage: live_nvtx LOG STOPFILE MAX_SECONDS EXIT_CODE */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int nvtxRangePushA(const char *message);
int nvtxRangePop(void);

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: live_nvtx LOG STOPFILE MAX_SECONDS EXIT_CODE\n");
        return 2;
    }
    FILE *log = fopen(argv[1], "w");
    if (!log)
        return 2;
    double max_s = atof(argv[3]);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long n = 0;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= max_s || access(argv[2], F_OK) == 0)
            break;
        struct timespec w;
        clock_gettime(CLOCK_REALTIME, &w);
        char name[64];
        snprintf(name, sizeof name, "tick %lld", (long long)w.tv_sec * 1000000000LL + w.tv_nsec);
        nvtxRangePushA(name);
        fprintf(log, "%s\n", name);
        fflush(log);
        usleep(20000);
        nvtxRangePop();
        n++;
    }
    fclose(log);
    printf("live_nvtx: %s ticks\n", n > 0 ? "some" : "no");
    fprintf(stderr, "live_nvtx: stderr line\n");
    return atoi(argv[4]);
}
