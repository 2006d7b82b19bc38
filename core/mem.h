/* Arrays that grow, and memory hints for large arrays that are about to be written in full. */
#ifndef GF_MEM_H
#define GF_MEM_H

#include <stddef.h>

/* Maps the whole pages of [p, p + len) in one call (MADV_POPULATE_WRITE; regions of 4 MiB or more are also
 * offered transparent huge pages) instead of one page fault per 4 KiB as they are first written: on
 * virtual machines a fault costs microseconds. Only a hint: nothing happens on kernels without it (< 5.14),
 * and errors are ignored. Use it only where every byte is written next, or resident memory grows. */
void gf_mem_prefault(void *p, size_t len);
/* gf_mem_prefault's two halves: the huge-page offer (before the first write: cheap) and the mapping. */
void gf_mem_hint_huge(void *p, size_t len);
void gf_mem_populate(void *p, size_t len);

/* gf_mem_populate of up to GF_MEM_NSPAN spans a slice at a time, across all the spans (a writer that fills
 * several arrays side by side finds the front of each mapped), for a thread that has time to spare (the
 * SQLite import's while it waits for rows, sqlite_prefetch.c). The spans may be written meanwhile, or even
 * moved by a realloc: mapping a page keeps its contents, a page already mapped is skipped, and memory no
 * longer mapped makes the call fail (ignored). Returns 1 while slices remain, then 0. Set p, len and n;
 * zero the rest. */
#define GF_MEM_NSPAN 12
typedef struct gf_mem_populator {
    void *p[GF_MEM_NSPAN];
    size_t len[GF_MEM_NSPAN];
    int n;
    int next; /* the next slice */
} gf_mem_populator;
int gf_mem_populate_some(gf_mem_populator *pp);

/* The one growth rule of core's arrays: makes *p hold at least need elements of elem bytes, doubling from
 * first (or the current *cap). Returns 0, or -1 (out of memory or a size that overflows) with *p and *cap
 * unchanged. */
int gf_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first);

#endif
