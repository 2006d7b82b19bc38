/* The Trace builder's private state, shared by the model (trace.c: freeing a trace mid-build) and the builder
 * (trace_build.c). Not part of the public API: importers use trace.h. */
#ifndef GF_TRACE_BUILD_H
#define GF_TRACE_BUILD_H

#include <stdint.h>
#include <stdlib.h>

#include "mem.h"
#include "trace.h"

/* A launch with a backtrace, for stack inheritance and the flamegraph's API-only weights. */
typedef struct api_rec {
    int64_t dur;
    int32_t stack, name;
    int partnered;
} api_rec;

typedef struct gf_trace_build {
    size_t max;          /* 0 = keep all */
    int rows;            /* max > 0 and more than max arrived: events moved from the columns to the heap */
    int keep_partners;
    gf_event *ev;        /* rows: a min-heap of the max events to keep (worse() at the root) */
    gf_detail *det;      /* rows: parallel to ev, moved with the events */
    uint64_t *seq;       /* rows: parallel to ev, arrival order, breaks ties */
    gf_detail *cdet;     /* columns: the distinct details, in order of first arrival */
    size_t ncdet, cdet_cap;
    int32_t last_cdet;   /* columns: the cdet index the last event with details got */
    gf_hmap cdet_map;    /* columns: detail hash → cdet index (multimap: hashes may collide) */
    size_t n, cap;
    uint64_t nseq;
    gf_event *extra;     /* partners added in the partner pass */
    gf_detail *extra_det;
    size_t nextra, extra_cap;
    gf_hmap wanted;      /* (pid, corr) → 0 wanted, 1 added */
    int collect;         /* gf_trace_collect_partners was called */
    int given;           /* gf_trace_set_given: counts, launches and flame come from the caller, not the events */
    gf_hmap lane_map;    /* lane key hash → lane index */
    gf_hmap stack_map;   /* frame-list hash → stack id */
    gf_hmap api_map;     /* (pid, corr) → api_rec index (launches with a stack) */
    api_rec *apis;
    size_t napis, apis_cap;
    gf_hmap flame_map;   /* (stack, leaf) → weight */
} gf_trace_build;

static inline uint64_t pidcorr_key(int64_t pid, int64_t corr)
{
    return ((uint64_t)(pid + 1) << 40) ^ ((uint64_t)corr & 0xFFFFFFFFFFull);
}

static inline int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return gf_grow(p, cap, need, elem, 64);
}

/* Keep-all builds at finish (trace_order.c). gf_trace_order_kept fills ord[k] with the index of the k-th
 * event in (start, kind, arrival) order; returns 1 when they are in order already (ord the identity), 0
 * otherwise. gf_trace_permute_kept puts the n events' columns in the order ord, seq excepted, one column
 * at a time through one 4-byte spare column (8-byte columns half by half); -1 on OOM. */
int gf_trace_order_kept(const gf_trace *t, size_t n, uint32_t *ord);
int gf_trace_permute_kept(gf_trace *t, const uint32_t *ord, size_t n);

/* The builder's state and the event columns freed (trace.c / trace_build.c). */
void gf_trace_build_free(gf_trace_build *b);
void gf_trace_free_events(gf_trace *t);

#endif
