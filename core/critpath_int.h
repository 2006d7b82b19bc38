/* The critical path's graph builder: state shared by critpath.c and critpath_edges.c. */
#ifndef GF_CRITPATH_INT_H
#define GF_CRITPATH_INT_H

#include "critpath.h"
#include "hmap.h"

/* the build's state */
typedef struct bld {
    const gf_trace *t;
    const int32_t *partner;
    const gf_step_win *w;
    size_t nw;
    const gf_cp_opts *o;
    gf_cp_graph *g;
    gf_hmap base;    /* event → its start point (end = start + 1) */
    gf_hmap winof;   /* event → its window */
    gf_hmap callrange; /* call event → the innermost NVTX range open on its thread when it started */
    int32_t *wroot, *wsink;
    size_t *ev;      /* selected events, in start order */
    size_t nev, evcap;
} bld;

/* the marks of one thread's host order */
typedef struct mark {
    int64_t thread; /* index of its thread among the window's */
    int64_t t, tie;
    int type;       /* 0 range end, 1 range start, 2 call */
    size_t ev;
} mark;

int gf_cp_oom(gf_err *err);
int32_t gf_cp_spoint(const bld *b, size_t i);
int gf_cp_is_range(const gf_trace *t, size_t i);
int gf_cp_is_blocking(const bld *b, size_t i);
int gf_cp_is_comm(const bld *b, size_t i);
int gf_cp_like(const gf_like_set *s, const gf_trace *t, size_t i);
int gf_cp_edge(gf_cp_graph *g, int32_t s, int32_t d, int64_t minlag, int cls, int32_t item, int32_t range, int isdur);
int gf_cp_host_order(bld *b, mark *m, size_t nm, gf_err *err);
int gf_cp_gpu_edges(bld *b, gf_err *err);

#endif
