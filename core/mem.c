/* Growing arrays and memory hints (mem.h). */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PREFAULT_MIN ((size_t)64 << 10)
#define HUGE_MIN ((size_t)4 << 20)

void gf_mem_prefault(void *p, size_t len)
{
    static size_t page;
    if (!page) {
        long ps = sysconf(_SC_PAGESIZE);
        page = ps > 0 ? (size_t)ps : 4096;
    }
    if (!p || len < PREFAULT_MIN)
        return;
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)(page - 1);
    if (hi <= lo)
        return;
#ifdef MADV_HUGEPAGE
    if (hi - lo >= HUGE_MIN)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#endif
}

int gf_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : first;
    while (nc < need) {
        if (nc > SIZE_MAX / 2)
            return -1;
        nc *= 2;
    }
    if (elem && nc > SIZE_MAX / elem)
        return -1;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}
