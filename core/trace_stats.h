/* Summaries over a finished Trace for the bundled scripts (lua/scripts): computed in C so a script never
 * iterates millions of events in Lua. */
#ifndef GF_TRACE_STATS_H
#define GF_TRACE_STATS_H

#include "trace.h"

typedef struct gf_name_stat {
    int32_t name;
    uint64_t count;
    int64_t total, min, max;
} gf_name_stat;

/* Per distinct name of the events of one kind, sorted by total descending (then name). */
int gf_trace_name_stats(const gf_trace *t, int kind, gf_name_stat **out, size_t *n, gf_err *err);

typedef struct gf_launch_stat {
    int32_t name;           /* kernel name */
    uint64_t kernels;       /* kernels of this name */
    uint64_t launched;      /* ... whose launch call is in the trace */
    int64_t api_total, api_max;     /* launch overhead: API duration */
    int64_t delay_total, delay_max; /* launch delay: kernel start - API end */
    int64_t kernel_total;
    uint64_t shorter_than_launch;   /* kernel duration < API duration */
    uint64_t late;                  /* delay > late_ns */
} gf_launch_stat;

int gf_trace_launch_stats(const gf_trace *t, int64_t late_ns, gf_launch_stat **out, size_t *n, gf_err *err);

typedef struct gf_idle_stat {
    int32_t lane;
    uint64_t ops;
    int64_t span, busy, idle;   /* span: first start → last end on the lane */
    int64_t host_wait;          /* gap time before the next op's launch call returned */
    int64_t kernel_wait;        /* gaps shorter than the threshold */
    int64_t other;
    uint64_t gaps;
} gf_idle_stat;

/* Per GPU stream lane (sync lanes excluded), in lane order. */
int gf_trace_gpu_idle(const gf_trace *t, int64_t short_gap_ns, gf_idle_stat **out, size_t *n, gf_err *err);

#endif
