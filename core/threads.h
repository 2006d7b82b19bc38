/* How many threads a primitive may use (policy limits.threads, passed in by the caller). The primitives
 * that use a second thread (the SQLite import's row reader, the timeline's column compression, the NVTX
 * projection beside the rules, the flamegraph's stacks beside its panel's rules, the steps' key of the NVTX
 * ranges) give the same output at any count; 1 keeps all work on the calling thread. */
#ifndef GF_THREADS_H
#define GF_THREADS_H

#include <stddef.h>

/* want (0 = one per online CPU) as a count >= 1, at most `most` (the work's own parallelism, >= 1). */
int gf_threads_resolve(int want, int most);

/* fn(arg, 0, mid) on the calling thread and fn(arg, mid, n) on a second one (threads >= 2, n >= split_min, a
 * thread to be had), else fn(arg, 0, n); the two halves must touch disjoint outputs. */
typedef void gf_range_fn(void *arg, size_t lo, size_t hi);
void gf_threads_in_two(int threads, size_t n, size_t mid, size_t split_min, gf_range_fn *fn, void *arg);

#endif
