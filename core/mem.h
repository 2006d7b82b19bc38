/* Arrays that grow, and memory hints for large arrays that are about to be written in full. */
#ifndef GF_MEM_H
#define GF_MEM_H

#include <stddef.h>

/* Maps the whole pages of [p, p + len) in one call (MADV_POPULATE_WRITE; regions of 4 MiB or more are also
 * offered transparent huge pages where gf_mem_use_huge_pages chose them) instead of one page fault per 4 KiB as
 * they are first written: on virtual machines a fault costs microseconds. Only a hint: nothing happens on
 * kernels without it (< 5.14), and errors are ignored. Use it only where every byte is written next, or
 * resident memory grows. */
void gf_mem_prefault(void *p, size_t len);

/* Blocks of this size or more are mappings of their own (main.c's M_MMAP_THRESHOLD), offered transparent huge
 * pages by gf_mem_hint_huge; smaller ones come from glibc's heap, where a freed block is used again without
 * new page faults. A smaller mapped block would get no 2 MiB page, or one, and each of its 4 KiB pages would
 * fault again every time a block of its size was freed and allocated (issue 42). */
#define GF_MEM_MAPPED_MIN ((size_t)4 << 20)
/* The size to ask malloc for instead of bytes (at least bytes): from GF_MEM_MAPPED_MIN up, the largest size
 * whose mapping glibc makes a whole number of 2 MiB pages. The kernel (Linux 6.7 on) places such a mapping on
 * a 2 MiB boundary, so every page of it can be a huge one; a mapping of another length starts anywhere, and
 * its first and last 2 MiB are faulted 4 KiB at a time (~1,000 faults a block, ~15 us each on a VM). */
size_t gf_mem_mapped_bytes(size_t bytes);
/* malloc(bytes) of a block that is never realloc'd and is freed again soon (a pass's scratch), asked at
 * gf_mem_mapped_bytes's size, with the huge page that holds its end left to 4 KiB pages; free() frees it.
 * Not for blocks that grow: the hint on their end splits their mapping, and realloc then copies them. */
void *gf_mem_scratch(size_t bytes);
/* gf_mem_prefault's two halves: the huge-page offer (before the first write: cheap; it covers every page the
 * block touches, so that a large block stays one mapping that realloc can move) and the mapping. The offer is
 * made only after gf_mem_use_huge_pages(1): huge pages are the heap's or nobody's. */
void gf_mem_hint_huge(void *p, size_t len);
/* Whether gf_mem_hint_huge offers huge pages (0 at start): on where the process runs with glibc's huge-page
 * tunable (core/host/hugepages.h), so that policy limits.huge_pages turns both on and off together. */
void gf_mem_use_huge_pages(int on);
void gf_mem_populate(void *p, size_t len);

/* Grows the calling thread's malloc arena to hold `bytes` once, at a thread's start, instead of 4 KiB at a time
 * as it fills (glibc grows a thread's heap with one mprotect per step, and an mprotect waits for the address
 * space's lock while another thread maps pages with gf_mem_populate: the SQLite import's readers waited ~1 ms
 * a step, ~400 steps each, while the calling thread mapped the model's columns). The memory is given back to
 * the arena at once; only its address range stays writable, so later growth within it needs no system call.
 * Keep bytes under GF_MEM_MAPPED_MIN: a larger block would be a mapping of its own. */
void gf_mem_arena_reserve(size_t bytes);

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
/* gf_grow of a typed array: GF_GROW(arr, cap, need, first), cap a size_t lvalue. */
#define GF_GROW(arr, cap, need, first) gf_grow((void **)&(arr), &(cap), (need), sizeof *(arr), (first))
/* gf_grow of n arrays side by side (the columns of one table) to one capacity: *cols[i] holds elem[i]-byte
 * elements. On failure the columns already moved keep their contents (and new size) and *cap is unchanged. */
int gf_grow_cols(void **const cols[], const size_t elem[], size_t n, size_t *cap, size_t need, size_t first);
/* gf_grow's exact sibling: makes *p hold exactly n (> 0) elements of elem bytes, for a size known in advance
 * (a shrink, an append of a few entries). Returns 0, or -1 with *p unchanged. */
int gf_resize(void **p, size_t n, size_t elem);
#define GF_RESIZE(arr, n) gf_resize((void **)&(arr), (n), sizeof *(arr))

/* One scratch-heavy pass at a time in the process: the passes whose scratch is a large share of the trace
 * (the NVTX projection's sweep and start sort on its thread; on the rules' thread launch-overhead's launch
 * index and delays, 4 bytes a launch and 8 a kernel) hold this gate while their scratch lives, so that no two
 * of them add up (issue 42: the timeline's peak RSS on a 5M-event export). A pass never waits for anything
 * else, nor takes the gate again, while it holds it. gpu-starv and gpu-low-util read the GPU operations in
 * place and need no gate (trace_findings_gpuops.h). The findings command, where no projection runs,
 * computes launch-overhead's launches beside the other rules without it (trace_rules_job.h). */
void gf_mem_gate_enter(void);
void gf_mem_gate_leave(void);

/* Gives the pages of freed small blocks back to the system (glibc's malloc_trim; nothing elsewhere): after
 * a burst of small garbage (e.g. a Lua collection) and before a phase that allocates large blocks, which are
 * mapped apart and never reuse the small blocks' pages. */
void gf_mem_release_free(void);

/* From now on, blocks of any size up to 1 GiB come from the heap and what is freed stays there for the next
 * ones, instead of large blocks being mappings of their own that are unmapped when freed (glibc's mmap and trim
 * thresholds). A page the process used before is not zeroed again by the kernel: on a VM a fresh page costs
 * more than the work that fills it (issue 42: the hierarchical flamegraph's stacks after its import). The price
 * is fragmentation: the peak can grow by what freed blocks no later block fits. 1 done, 0 not here (no glibc,
 * or glibc refused). */
int gf_mem_keep_freed(void);

#endif
