/* Growing arrays and memory hints (mem.h). */
#include "mem.h"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PREFAULT_MIN ((size_t)64 << 10)

/* The whole pages of [p, p + len) as [*lo, *hi); 0 when there are none worth a call. */
static int whole_pages(void *p, size_t len, uintptr_t *lo, uintptr_t *hi)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    if (!p || len < PREFAULT_MIN)
        return 0;
    *lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    *hi = ((uintptr_t)p + len) & ~(uintptr_t)(page - 1);
    return *hi > *lo;
}

static int huge_hints;

void gf_mem_use_huge_pages(int on)
{
    huge_hints = on;
}

/* The hint covers the pages the block touches, its first and last included: a hint on part of a mapping splits
 * it in two, and realloc can then no longer move the block by mremap (EFAULT across mappings) but copies it,
 * old and new block resident side by side (the NVTX projection's merge on the 5M-event export). A large
 * block is a mapping of its own (main.c's M_MMAP_THRESHOLD); the neighbours of a small one only get the hint. */
void gf_mem_hint_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
    if (!huge_hints || !p || len < GF_MEM_MAPPED_MIN)
        return;
    uintptr_t lo = (uintptr_t)p & ~(page - 1), hi = ((uintptr_t)p + len + page - 1) & ~(page - 1);
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}

void gf_mem_populate(void *p, size_t len)
{
    uintptr_t lo, hi;
    if (!whole_pages(p, len, &lo, &hi))
        return;
#ifdef MADV_POPULATE_WRITE
    (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#endif
}

void gf_mem_prefault(void *p, size_t len)
{
    gf_mem_hint_huge(p, len);
    gf_mem_populate(p, len);
}

void gf_mem_arena_reserve(size_t bytes)
{
    void *volatile p = malloc(bytes); /* volatile: a compiler may drop an unused malloc and its free */
    free(p);
}

enum { NSLICE = 256 }; /* of 325 MB of columns: ~1.3 MB, a few ms of the kernel zeroing pages */

int gf_mem_populate_some(gf_mem_populator *pp)
{
    if (pp->next >= NSLICE)
        return 0;
    size_t k = (size_t)pp->next++;
    for (int i = 0; i < pp->n; i++) {
        size_t a = pp->len[i] * k / NSLICE, b = pp->len[i] * (k + 1) / NSLICE;
        if (b > a) /* a slice's edges cut pages: whole_pages leaves those to the writer's faults */
            gf_mem_populate((char *)pp->p[i] + a, b - a);
    }
    return pp->next < NSLICE;
}

/* glibc (2.26 on, x86-64 and other 64-bit targets): an mmapped chunk of a request of n bytes is the request
 * plus its 8-byte size field rounded up to 16, plus 8, rounded up to the page. A request of k * 2 MiB - 24
 * bytes is mapped as exactly k * 2 MiB. */
#define HUGE_PAGE ((size_t)2 << 20)
#define CHUNK_OVERHEAD ((size_t)24)

size_t gf_mem_mapped_bytes(size_t bytes)
{
    if (bytes < GF_MEM_MAPPED_MIN || bytes > SIZE_MAX - CHUNK_OVERHEAD - HUGE_PAGE)
        return bytes;
    return (bytes + CHUNK_OVERHEAD + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE - CHUNK_OVERHEAD;
}

void *gf_mem_scratch(size_t bytes)
{
    size_t ask = gf_mem_mapped_bytes(bytes);
    char *p = malloc(ask);
#ifdef MADV_NOHUGEPAGE
    /* The huge page that holds the block's end would be mapped in full once written to: 1 MiB more resident
     * on average, at the timeline's peak (issue 42: the 5M-event page). Its 4 KiB pages are mapped as written
     * instead. The hint splits the mapping in two, which only a realloc would mind: not done to scratch. */
    uintptr_t end = (uintptr_t)p + bytes, last = end & ~(uintptr_t)(HUGE_PAGE - 1);
    if (p && ask != bytes && ((uintptr_t)p & (HUGE_PAGE - 1)) == 16 && last < end)
        (void)madvise((void *)last, HUGE_PAGE, MADV_NOHUGEPAGE);
#endif
    return p;
}

/* The capacity gf_grow moves to: first (or cap) doubled until need fits, elem bytes each; 0 on overflow. */
static size_t next_cap(size_t cap, size_t need, size_t elem, size_t first)
{
    size_t nc = cap ? cap : (first ? first : 1);
    while (nc < need) {
        if (nc > SIZE_MAX / 2)
            return 0;
        nc *= 2;
    }
    if (elem && nc > SIZE_MAX / elem)
        return 0;
    return nc;
}

int gf_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t nc = next_cap(*cap, need, elem, first);
    if (!nc)
        return -1;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

int gf_grow_cols(void **const cols[], const size_t elem[], size_t n, size_t *cap, size_t need, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t maxe = 0;
    for (size_t i = 0; i < n; i++)
        maxe = elem[i] > maxe ? elem[i] : maxe;
    size_t nc = next_cap(*cap, need, maxe, first);
    if (!nc)
        return -1;
    for (size_t i = 0; i < n; i++) {
        void *q = realloc(*cols[i], nc * elem[i]);
        if (!q)
            return -1;
        *cols[i] = q;
    }
    *cap = nc;
    return 0;
}

int gf_resize(void **p, size_t n, size_t elem)
{
    if (!n || (elem && n > SIZE_MAX / elem))
        return -1;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

void gf_mem_gate_enter(void)
{
    pthread_mutex_lock(&gate);
}

void gf_mem_gate_leave(void)
{
    pthread_mutex_unlock(&gate);
}

void gf_mem_release_free(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

int gf_mem_keep_freed(void)
{
#ifdef __GLIBC__
    return mallopt(M_MMAP_THRESHOLD, 1 << 30) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
#else
    return 0;
#endif
}
