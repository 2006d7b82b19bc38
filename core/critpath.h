/* The critical path of a step (issue 44, docs/SEMANTICS.md "Critical path").
 *
 * The graph (critpath.c): every event of the window(s) that matters to a step (CUDA calls, kernels, copies,
 * memsets, NVTX ranges of the step's process and rank, starting inside the window) gives two time points, its
 * start and end. Edges carry a lag (ns): a point happens no earlier than max over its in-edges of (source
 * time + lag). Edges: an event's duration; host order on one thread (calls and NVTX range boundaries in time
 * order, the gaps between them host code); launch (call start → its GPU work's start); stream order (GPU work
 * → the next on its stream); synchronisation (the GPU work that ended last before a blocking call returned →
 * the call's end); cross-stream events (the GPU work launched last on a thread before its event record → the
 * first GPU work on another stream that thread launched after a stream wait: the export names neither the
 * event's stream nor the waiting stream, so this is the thread's order); across windows (ranks), the k-th collective kernel of a name on every rank → the end of
 * that instance on every other rank. Each window has a root (its start) and a sink (its end); one root and
 * one sink above them all.
 *
 * Every edge first gets a minimal lag (the event's duration; the host code between two marks; a launch call's
 * duration for its launch edge; 0 for another dependency; never more than observed); then each point's binding in-edge (the latest release, T(src) + minimal lag, ties to the later
 * source, then the lower edge) gets the observed remainder as its lag, so the longest path reproduces the
 * observed times and ends at the step's end: its length is the step's span. A what-if scales lags and runs the
 * longest path again (gf_cp_longest): only edges change, nothing else is guessed. */
#ifndef GF_CRITPATH_H
#define GF_CRITPATH_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "trace.h"
#include "trace_findings.h"
#include "trace_steps.h"

/* what an edge's time is: the parts of docs/SEMANTICS.md "Critical path" */
enum { GF_CP_HOST = 0, GF_CP_LAUNCH, GF_CP_QUEUE, GF_CP_COMPUTE, GF_CP_COPY, GF_CP_SYNC, GF_CP_COMM, GF_CP_IDLE,
       GF_CP_NCLASSES };
extern const char *const gf_cp_class_names[GF_CP_NCLASSES]; /* "host", "launch", ... "idle" */

typedef struct gf_cp_graph {
    size_t np, ne, pcap, ecap;
    int64_t *tobs;  /* per point: its observed time */
    int32_t *pev;   /* per point: its event (-1: a root or sink) */
    int32_t *pwin;  /* per point: its window (-1: the root and sink above them all) */
    int32_t *src, *dst;
    int64_t *lag, *minlag;
    int32_t *item;  /* the event the edge's time belongs to (-1: none) */
    int32_t *range; /* the innermost NVTX range (event) it happened in on its thread (-1: none) */
    uint8_t *cls, *isdur; /* GF_CP_*; 1: an event's own duration or host code (what a what-if by name scales) */
    int32_t root, sink;
    gf_hmap parent; /* NVTX range event → the range it was pushed inside (event) */
    int64_t dropped; /* edges against the clock (the target observed before the source), left out */
} gf_cp_graph;

typedef struct gf_cp_opts {
    const gf_like_set *comm;     /* collective kernels (display names) */
    const gf_like_set *blocking; /* blocking calls (display names) */
    const gf_like_set *record;   /* calls recording a CUDA event (cudaEventRecord) */
    const gf_like_set *wait;     /* calls making a stream wait for an event (cudaStreamWaitEvent) */
} gf_cp_opts;

/* The graph of windows w[0..nw) (one per rank/process; pid < 0: any process of the rank; tid < 0: no marker
 * thread, the sink then waits for every point). partner: gf_trace_partners. */
int gf_cp_build(const gf_trace *t, const int32_t *partner, const gf_step_win *w, size_t nw, const gf_cp_opts *o,
                gf_cp_graph *g, gf_err *err);
void gf_cp_free(gf_cp_graph *g);

/* The longest path over a DAG given as columns: T[p] = max over edges e into p of T[src[e]] + lag[e] (ties: the
 * later T[src], then the lower e), root at root_t; pred[p]: that edge (-1 for points without in-edges, which keep
 * root_t). Error on a cycle. */
int gf_cp_longest(size_t np, size_t ne, const int32_t *src, const int32_t *dst, const int64_t *lag, int64_t root_t,
                  int64_t *T, int32_t *pred, gf_err *err);

/* A what-if rule: edges of a class in cls_mask, and (name >= 0) own durations of events named name, and
 * (nvtx >= 0) own durations and host code inside a range named nvtx (or one nested in it). */
typedef struct gf_cp_rule {
    uint32_t cls_mask;
    int32_t name, nvtx;
    double factor;
} gf_cp_rule;

/* lag_out[e]: g->lag[e] scaled by the product of the factors of the rules it matches. */
void gf_cp_scale(const gf_trace *t, const gf_cp_graph *g, const gf_cp_rule *r, size_t nr, int64_t *lag_out);

/* The path from root to sink under lags lag: its edges in order (malloc'd), count, and its length. */
int gf_cp_path(const gf_cp_graph *g, const int64_t *lag, int32_t **edges, size_t *n, int64_t *length, gf_err *err);

#endif
