/* Several reports, one model (issue 14): merging finished traces with clocks aligned, ranks (a rank is a
 * (report, process) pair; labels come from Lua/policy), per-process listings and per-rank statistics.
 * Lanes of a merged trace carry their rank and are ordered by rank, then kind, device and stream. */
#ifndef GF_TRACE_RANKS_H
#define GF_TRACE_RANKS_H

#include "trace.h"

/* One (source, pid) → rank assignment. pid -1: every event of the source whose pid has no entry. */
typedef struct gf_rank_spec {
    size_t src;
    int64_t pid;
    int32_t rank;
} gf_rank_spec;

/* Builds dst (new, not begun) from the finished traces src[0..nsrc): every event of src[i] is shifted by
 * offset[i] ns and put on a lane of its rank; strings, stacks and details are re-interned; correlation
 * stays within a (report, process); warnings are kept, prefixed with the source's name. max_events /
 * keep_partners trim as for an import. */
int gf_trace_merge(gf_trace *dst, gf_trace *const *src, size_t nsrc, const int64_t *offset,
                   const char *const *rank_labels, size_t nranks, const gf_rank_spec *spec, size_t nspec,
                   size_t max_events, int keep_partners, gf_err *err);

/* The same over digests (trace_digest.h: gf_trace_digest of each source with this max_events and
 * keep_partners; touch[i] and ntouch[i] its lane touches): the merged trace writes the timeline the merge of
 * the whole sources writes, its counts and launch flame being the digests' sums. */
int gf_trace_merge_digests(gf_trace *dst, gf_trace *const *src, size_t nsrc, const int64_t *offset,
                           const char *const *rank_labels, size_t nranks, const gf_rank_spec *spec, size_t nspec,
                           size_t max_events, int keep_partners, const int64_t *const *touch, const size_t *ntouch,
                           gf_err *err);

/* The processes seen in a finished trace: pid, events, GPU-work events, and (for GPU work) the device
 * lanes' device names. The CPU side (OS runtime calls, samples, running) is not counted: a process that
 * only has those (a launcher, a helper) is no rank. What may name its rank (lua/gpuflame/rank_names.lua):
 * the distinct names of its threads (its lanes' ThreadNames, in lane order) and of its NVTX ranges and marks
 * that start with one of prefixes[0..nprefixes) (none when nprefixes is 0), the first GF_PROC_NAMES of each. */
#define GF_PROC_NAMES 8
typedef struct gf_proc_info {
    int64_t pid;
    uint64_t events, gpu_events;
    int32_t devices[8];              /* strtab ids of distinct device names, -1 = unused */
    int32_t threads[GF_PROC_NAMES];  /* strtab ids of distinct thread names with a prefix, -1 = unused */
    int32_t markers[GF_PROC_NAMES];  /* strtab ids of distinct NVTX names with a prefix, -1 = unused */
} gf_proc_info;
int gf_trace_processes(const gf_trace *t, const char *const *prefixes, size_t nprefixes, gf_proc_info **out,
                       size_t *n, gf_err *err);

/* Per-rank statistics over a merged trace (ranks with no events still appear). */
typedef struct gf_rank_iter {
    int32_t name;          /* strtab id of the NVTX range */
    int64_t start, dur;    /* ns */
    int64_t compute_ns;    /* GPU kernel time (not NCCL) of the rank inside the range */
    int64_t nccl_ns;       /* NCCL kernel time inside the range */
} gf_rank_iter;
typedef struct gf_rank_stat {
    int32_t rank;
    int64_t first, last;   /* GPU work span (ns, merged clock; may be negative); -1 when no GPU work */
    int64_t busy_ns;       /* union of GPU work intervals (kernels, memcpy, memset) over the rank's devices */
    int64_t idle_ns;       /* (last - first) - busy */
    int64_t kernel_ns;     /* sum of kernel durations */
    int64_t nccl_ns;       /* sum of durations of kernels whose name starts with an NCCL prefix */
    uint64_t kernels;
    gf_rank_iter *iters;   /* NVTX iteration ranges (outermost among those matching), start order */
    size_t niters;
} gf_rank_stat;
int gf_trace_rank_stats(const gf_trace *t, const char *const *nccl_prefixes, size_t nnccl,
                        const char *const *iter_prefixes, size_t niter, gf_rank_stat **out, gf_err *err);
void gf_rank_stats_free(gf_rank_stat *s, size_t n);

/* Kernel totals per (rank, name) (rank -1 when the trace has no ranks), sorted by rank then total desc. */
typedef struct gf_rank_total {
    int32_t rank, name;
    int64_t total_ns;
    uint64_t count;
} gf_rank_total;
int gf_trace_rank_kernel_totals(const gf_trace *t, int kind, gf_rank_total **out, size_t *n, gf_err *err);

#endif
