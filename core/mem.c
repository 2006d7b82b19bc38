/* Memory hints (mem.h). */
#include "mem.h"

#include <stdint.h>
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
