/* The findings primitives that reproduce NVIDIA's `nsys analyze` rules row for row (core/trace_findings_nsys.c;
 * the shared filter and patterns: trace_findings.h). */
#ifndef GF_FINDINGS_NSYS_H
#define GF_FINDINGS_NSYS_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "trace_findings.h"
#include "trace_types.h"

/* CUDA API calls (runtime) whose name matches, longest first (ties in table order), at most limit
 * (limit < 0: all). idx: event indices. */
int gf_find_api_calls(const gf_trace *t, const gf_fwin *w, const gf_like_set *names, int64_t limit, size_t **idx,
                      size_t *n, gf_err *err);

typedef struct gf_copy_query {
    int kind;                /* GF_EV_MEMCPY or GF_EV_MEMSET */
    gf_like_set api;         /* the runtime call with the same correlation id (any process) */
    int64_t small_h2d_bytes; /* memcpy: drop host-to-device copies of at most this many bytes (< 0: keep) */
    int skip_same_device;    /* memcpy: drop copies whose (non-NULL) source device is the destination */
    int pageable_only;       /* memcpy: keep copies from or to pageable memory only */
    uint32_t mem_kinds;      /* memset: keep these memKind bits (0: all) */
    int64_t limit;
} gf_copy_query;

typedef struct gf_copy_row {
    size_t gpu, api; /* event indices */
} gf_copy_row;

/* Memory operations joined to their runtime call, longest first (ties: table order of the operation,
 * then of the call). */
int gf_find_copies(const gf_trace *t, const gf_fwin *w, const gf_copy_query *q, gf_copy_row **rows, size_t *n,
                   gf_err *err);

typedef struct gf_gap_row {
    int64_t dur, start;
    int32_t pid, context;
    int64_t device;
} gf_gap_row;

/* nsys gpu-starv: gaps longer than min_gap_ns between GPU work per (process, device) (kernels, memcpy,
 * memset and CUDA profiling overhead), longest first (ties: earlier first), at most limit. Memory for its
 * gaps only (trace_findings_gpuops.h): no scratch gate, safe beside any other pass. */
int gf_find_gaps(const gf_trace *t, const gf_fwin *w, int64_t min_gap_ns, int64_t limit, gf_gap_row **rows,
                 size_t *n, gf_err *err);

typedef struct gf_util_row {
    double avg;        /* in-use percent, rounded to 0.1 as SQLite's round(x, 1) */
    char avg_text[32]; /* as nsys prints it */
    double start, dur; /* ns (SQLite computes these in floating point) */
    int32_t pid, context;
    int64_t device;
} gf_util_row;

/* nsys gpu-low-util: per (process, device) the span of its GPU work in `chunks` equal chunks; runs of
 * chunks with in-use percent below threshold, coalesced with the weighted average. */
int gf_find_low_util(const gf_trace *t, const gf_fwin *w, int chunks, double threshold, int64_t limit,
                     gf_util_row **rows, size_t *n, gf_err *err);

#endif
