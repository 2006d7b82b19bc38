/* The Trace model (core/trace.c): creating and freeing a trace, its warnings and source name, the export's
 * rows that are not timeline events, and queries over a finished trace. The types are trace_types.h.
 *
 * Building: gf_trace_new → gf_trace_begin(max_events, keep_partners) → gf_trace_lane/gf_trace_add for
 * every event (importers: trace_sqlite.c, trace_csv.c) → optional partner pass → gf_trace_finish
 * (trace_build.h). With max_events > 0 the builder keeps only the max_events longest events in a min-heap
 * while streaming (memory bounded by max_events, O(n log N)); finish puts them back in start order.
 * CUDA API events must be added before the GPU work they launched, so GPU events inherit the launch
 * stack (same process, same correlation id) and the launch-stack flamegraph sees every launch. */
#ifndef GF_TRACE_H
#define GF_TRACE_H

#include "hmap.h"
#include "trace_types.h"

extern const char *const gf_ev_kind_names[GF_EV_NKINDS]; /* "cuda_api", "kernel", ..., "osrt", "cpu_sample" */
extern const char *const gf_lane_kind_names[3];          /* "cpu", "gpu", "nvtx" */

void gf_detail_clear(gf_detail *d);
/* 1 when event i is an NVTX mark (trace_types.h GF_NVTX_MARK). */
int gf_ev_is_nvtx_mark(const gf_trace *t, size_t i);
gf_trace *gf_trace_new(void);
void gf_trace_free(gf_trace *t);
int gf_trace_warn(gf_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gf_trace_set_source(gf_trace *t, const char *path);
int gf_trace_add_overhead(gf_trace *t, const gf_overhead *o);
int gf_trace_add_graph_exec(gf_trace *t, const gf_graph_exec *g);

/* The event columns and details freed (n = 0), also by the builder (trace_build.c) as it rebuilds them. */
void gf_trace_free_events(gf_trace *t);

/* Correlation: for each event the index of its partner (launch ↔ GPU work, same process), or -1. 4 bytes an
 * event (a trace of more than INT32_MAX events is refused with an error, not wrapped). */
int gf_trace_partners(const gf_trace *t, int32_t **partner, gf_err *err);

/* The launch of each GPU operation (gf_trace_partners's answer for GPU work) without an array per event: a
 * table over the launches' correlation ids per process (4 bytes an id), or where the ids are too sparse for it
 * or GPU work has no process (CSV input), gf_trace_partners's array. */
typedef struct gf_launch_index {
    gf_hmap slot;     /* pid → its span in sp */
    struct corr_span *sp;
    size_t n, cap;
    int32_t *tab;     /* by span base + id - span lo: the first launch (gf_launch_index_find's), or -1 */
    int32_t *partner; /* the fallback: by event */
    int64_t memo_pid, memo; /* the last pid looked up and its span (-1: none) */
} gf_launch_index;
int gf_launch_index_build(const gf_trace *t, gf_launch_index *x, gf_err *err);
/* The launch of event g (the lowest-index launch with its process and correlation id; in an unordered trace the
 * earliest, then the lowest-index: the one a sorted trace's lowest index is), or -1 when g is not GPU
 * work or has none. Not thread-safe: a lookup keeps the last process's span. */
int64_t gf_launch_index_find(gf_launch_index *x, const gf_trace *t, size_t g);
void gf_launch_index_free(gf_launch_index *x);

#endif
