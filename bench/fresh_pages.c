/* What this machine charges for memory a process touches for the first time (docs/PERFORMANCE.md, issue 42):
 * 512 MiB mapped, then its pages mapped in one MADV_POPULATE_WRITE call and written once with memset, three
 * rounds with 4 KiB pages, then three with transparent huge pages, each round's memory unmapped before the next.
 * On a VM whose host takes freed guest memory back, a process's first round pays for every page and its later
 * rounds reuse what it freed. Run it twice in a row to see whether one process's freed memory is warm for the next.
 * usage: cc -O2 -o fresh_pages bench/fresh_pages.c && ./fresh_pages */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
    size_t n = (size_t)512 << 20;
    for (int huge = 0; huge < 2; huge++)
        for (int round = 0; round < 3; round++) {
            char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) {
                perror("mmap");
                return 1;
            }
            madvise(p, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
            double t0 = now();
            int rc = madvise(p, n, MADV_POPULATE_WRITE);
            double t1 = now();
            memset(p, 1, n);
            double t2 = now();
            printf("%s pages, round %d: populate %.3f s (%.2f GB/s)%s, memset after it %.3f s\n",
                   huge ? "huge" : "4 KiB", round + 1, t1 - t0, (double)n / 1e9 / (t1 - t0),
                   rc ? " (not supported: kernel < 5.14)" : "", t2 - t1);
            munmap(p, n);
        }
    return 0;
}
