/* Arrays that grow, and memory hints for large arrays that are about to be written in full. */
#ifndef GF_MEM_H
#define GF_MEM_H

#include <stddef.h>

/* Maps the whole pages of [p, p + len) in one call (MADV_POPULATE_WRITE; regions of 4 MiB or more are also
 * offered transparent huge pages) instead of one page fault per 4 KiB as they are first written: on
 * virtual machines a fault costs microseconds. Only a hint: nothing happens on kernels without it (< 5.14),
 * and errors are ignored. Use it only where every byte is written next, or resident memory grows. */
void gf_mem_prefault(void *p, size_t len);

/* The one growth rule of core's arrays: makes *p hold at least need elements of elem bytes, doubling from
 * first (or the current *cap). Returns 0, or -1 (out of memory or a size that overflows) with *p and *cap
 * unchanged. */
int gf_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first);

#endif
