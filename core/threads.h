/* How many threads a primitive may use (policy limits.threads, passed in by the caller). The primitives
 * that use a second thread (the SQLite import's row reader, the timeline's column compression, the NVTX
 * projection beside the rules, the flamegraph's stacks beside its panel's rules) give the same output at any count; 1 keeps all work on the calling thread. */
#ifndef GF_THREADS_H
#define GF_THREADS_H

/* want (0 = one per online CPU) as a count >= 1, at most `most` (the work's own parallelism, >= 1). */
int gf_threads_resolve(int want, int most);

#endif
