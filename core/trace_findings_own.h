/* gpuflame's own findings primitives (core/trace_findings_own.c; the shared filter and patterns:
 * trace_findings.h). */
#ifndef GF_FINDINGS_OWN_H
#define GF_FINDINGS_OWN_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "trace_findings.h"
#include "trace_types.h"

typedef struct gf_launch_row {
    int32_t name;                   /* kernel name */
    uint64_t kernels, launched;     /* kernels; those whose launch call is in the trace */
    int64_t kernel_total, kernel_max;
    int64_t api_total, api_max;     /* launch call durations */
    int64_t delay_total, delay_min, delay_max; /* queue delay: kernel start - launch call end */
    uint64_t tiny;                  /* kernels shorter than their launch call */
    int storm;                      /* kernels >= min_kernels and launch time > kernel time */
} gf_launch_row;

typedef struct gf_launch_sum {
    uint64_t kernels, launched, tiny, names, storms;
    int64_t kernel_total, api_total, delay_total;
    int64_t delay_median;      /* median queue delay of the launched kernels (lower median) */
    /* the stream's side (docs/SEMANTICS.md): a launched kernel whose stream went idle (its previous op
     * ended) before its launch call returned waited on the launch; wait_total sums those idle gaps */
    uint64_t waits;
    int64_t wait_total;
    int64_t gap_total;         /* every idle gap before a kernel on its stream (previous op end → start) */
} gf_launch_sum;

/* Per kernel name, sorted by launch-call time (descending), then name; sum: over every name. */
int gf_find_launches(const gf_trace *t, const gf_fwin *w, uint64_t min_kernels, gf_launch_row **rows, size_t *n,
                     gf_launch_sum *sum, gf_err *err);
/* The same without the scratch gate (mem.h gf_mem_gate): trace_rules_job.h. */
int gf_find_launches_ungated(const gf_trace *t, const gf_fwin *w, uint64_t min_kernels, gf_launch_row **rows,
                             size_t *n, gf_launch_sum *sum, gf_err *err);

typedef struct gf_graph_row {
    int64_t graph;              /* graphId, -1 unknown */
    uint64_t launches;          /* distinct launches (correlation ids) seen on the GPU */
    uint64_t kernels, execs;    /* kernels from graph nodes; whole-graph ranges (graph-level trace) */
    int64_t kernel_total, exec_total;
} gf_graph_row;

typedef struct gf_graph_sum {
    uint64_t calls;             /* cudaGraphLaunch* / cuGraphLaunch* calls */
    int64_t call_total;
    uint64_t kernels, node_kernels, execs, launched_kernels; /* all kernels; with a graph node; graph ranges; kernels of graph-launch calls */
    int64_t kernel_total, node_kernel_total, exec_total;
    int collapsed;              /* graphs ran but their kernels are not in the trace one by one */
} gf_graph_sum;

int gf_find_graphs(const gf_trace *t, const gf_fwin *w, const gf_like_set *launch_names, gf_graph_row **rows,
                   size_t *n, gf_graph_sum *sum, gf_err *err);

/* The time breakdown of a device (docs/SEMANTICS.md): each part is the length of the union of that kind's
 * intervals on the device, in ns. Kernels are communication when their name matches the policy's
 * patterns, compute otherwise; copies by copyKind: H2D (host to device or array, unified HtoD), D2H,
 * D2D (device/array to device/array, unified DtoD), P2P (peer to peer); other copies (host to host,
 * unknown) count in copy only. */
typedef struct gf_busy_row {
    int64_t device;
    int32_t devname;            /* strtab id or -1 */
    int32_t rank;               /* with by_rank: the lanes' rank (gf_trace.rank_label), else -1 */
    uint64_t ops;
    int64_t first, last;        /* first start, last end (clipped to the filter) */
    int64_t busy;               /* union of every op (never more than last - first) */
    int64_t kernel_busy;        /* union of the kernels alone (compute and communication) */
    int64_t compute, comm, copy, h2d, d2h, d2d, p2p, memset;
    int64_t overlap;            /* compute ∩ (copy ∪ communication) */
} gf_busy_row;

/* Per device (all processes; with by_rank, per (rank, device)), in that order; comm: the kernel names that
 * are communication (NULL: none). span_first, span_last: the trace's whole span (every event, clipped to
 * the filter) for a capture-wide denominator. */
int gf_find_busy(const gf_trace *t, const gf_fwin *w, const gf_like_set *comm, int by_rank, gf_busy_row **rows,
                 size_t *n, int64_t *span_first, int64_t *span_last, gf_err *err);

/* The same per (group, device) over the GPU work of the events whose group[i] >= 0 (one entry per event; the
 * others left out), without a time window: a row's rank field holds its group. The steps of issue 40
 * (core/trace_steps.c) are the groups. */
int gf_find_busy_groups(const gf_trace *t, const gf_like_set *comm, const int32_t *group, gf_busy_row **rows,
                        size_t *n, gf_err *err);

typedef struct gf_match_row {
    int32_t pid;
    int64_t device;
    uint64_t kernels;
    int64_t total, max, busy;   /* sum of durations, longest, union of the matching kernels */
    int64_t device_busy;        /* union of all GPU work of this process on this device */
    int64_t first, last;        /* span of this process's GPU work on this device */
} gf_match_row;

/* Kernels whose name matches, per (process, device), in that order. */
int gf_find_kernel_match(const gf_trace *t, const gf_fwin *w, const gf_like_set *names, gf_match_row **rows,
                         size_t *n, gf_err *err);

#endif
