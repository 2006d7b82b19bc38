/* Arrays that grow, and memory hints for large arrays that are about to be written in full. */
#ifndef GF_MEM_H
#define GF_MEM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* Maps the whole pages of [p, p + len) in one call (MADV_POPULATE_WRITE; regions of 4 MiB or more are also
 * offered transparent huge pages) instead of one page fault per 4 KiB as they are first written: on
 * virtual machines a fault costs microseconds. Only a hint: nothing happens on kernels without it (< 5.14),
 * and errors are ignored. Use it only where every byte is written next, or resident memory grows. */
void gf_mem_prefault(void *p, size_t len);
/* gf_mem_prefault's two halves: the huge-page offer (before the first write: cheap) and the mapping. */
void gf_mem_hint_huge(void *p, size_t len);
void gf_mem_populate(void *p, size_t len);

/* gf_mem_populate of up to GF_MEM_NSPAN spans on a thread of its own, slice by slice across all the spans
 * (writers that fill several arrays side by side find the front of each mapped): it reads and writes no
 * memory (a system call maps the pages, which keep their contents), so its caller may write the spans
 * meanwhile, and may even free them (the call then fails, ignored). Start returns 0, or -1 (no thread:
 * nothing was done). Join stops it where it is and waits for it. */
#define GF_MEM_NSPAN 12
typedef struct gf_mem_populator {
    void *p[GF_MEM_NSPAN];
    size_t len[GF_MEM_NSPAN];
    int n;
    int started;
    atomic_int stop;
    pthread_t th;
} gf_mem_populator;
int gf_mem_populate_start(gf_mem_populator *pp);
void gf_mem_populate_join(gf_mem_populator *pp);

/* The one growth rule of core's arrays: makes *p hold at least need elements of elem bytes, doubling from
 * first (or the current *cap). Returns 0, or -1 (out of memory or a size that overflows) with *p and *cap
 * unchanged. */
int gf_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first);

#endif
