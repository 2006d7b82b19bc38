/* The Trace builder's private state (core/trace_build.c), and the launch records a merge of digests builds
 * as the builder does (trace_digest.c). Types only: the builder's API is trace_build.h. */
#ifndef GF_TRACE_BUILD_INT_H
#define GF_TRACE_BUILD_INT_H

#include <stdint.h>
#include <stdlib.h>

#include "hmap.h"
#include "mem.h"
#include "trace_types.h"

typedef struct api_rec {
    int64_t dur;
    int32_t stack, name;
    int partnered;
} api_rec;

/* rows: the key of the event in a slot of ev/det/seq, for settle's selection */
typedef struct heap_key {
    int64_t dur;
    uint64_t seq;
    size_t slot;
} heap_key;

typedef struct gf_trace_build {
    size_t max;          /* 0 = keep all */
    int rows;            /* max > 0 and more than max arrived: events moved from the columns to the heap */
    int keep_partners;
    gf_event *ev;        /* rows: the events that may be kept, in slots (cap of them; settle keeps max) */
    gf_detail *det;      /* rows: parallel to ev */
    uint64_t *seq;       /* rows: parallel to ev, arrival order, breaks ties */
    heap_key *heap;      /* rows: settle's keys (cap) */
    int64_t thr;         /* rows: the duration of the shortest kept event at the last settle */
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
    uint64_t *want_bits; /* a bit per hash of each wanted corr: most API events are not wanted */
    uint64_t want_mask;
    int64_t *want_memo;  /* gf_trace_needs_name's look-up, for the gf_trace_add_partner of the same event */
    int64_t memo_pid, memo_corr;
    int memo_ok;
    int collect;         /* gf_trace_collect_partners was called */
    int given;           /* gf_trace_set_given: counts, launches and flame come from the caller, not the events */
    int finish_threads;  /* gf_trace_set_finish_threads: threads the finish may use (0: 1) */
    int unordered;       /* gf_trace_set_unordered: a keep-all finish leaves arrival order */
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

#endif
