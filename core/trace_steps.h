/* Steps (issue 40, docs/SEMANTICS.md "Steps"): the iterations of a training or benchmark loop as NVTX ranges
 * of one thread, and the GPU work each one launched.
 *
 * A step is a window [start, end) of CPU time on one process (and rank, in merged traces). Its GPU work is
 * every kernel, memcpy and memset whose launch call (the CUDA runtime call with the same process and
 * correlation id, gf_trace_partners) starts inside the window on that process. Work whose launch is not in
 * the trace belongs to no step. Where windows of one process overlap, an operation belongs to the step that
 * started last among those holding its launch.
 *
 * Lua decides which ranges are steps (policy steps.markers, lua/gpuflame/steps.lua); this file only reads
 * the NVTX ranges and sums per step. */
#ifndef GF_TRACE_STEPS_H
#define GF_TRACE_STEPS_H

#include <stdint.h>

#include "gf_err.h"
#include "trace_types.h"

typedef struct gf_step_win {
    int64_t start, end; /* the marker range's own start and end (ns, the export's clock) */
    int64_t pid;        /* the marker event's process as correlation uses it (gf_trace.pid: in merged traces the
                         * rank's index, else the process id) */
    int64_t tid;        /* the marker's thread (its lane's) */
    int32_t rank;       /* the marker lane's rank (merged traces), -1 = none */
    int32_t level;      /* the marker's push/pop nesting level (-1: a start/end range) */
    int32_t outer;      /* 1: not a step but the gap after one (gf_steps_nvtx takes its outermost ranges) */
} gf_step_win;

/* Per event: the step (index into w) of GPU work whose launch call starts inside a window on its process and
 * rank, else -1 (every event that is not GPU work too). *ev_step: malloc'd, t->n entries. */
int gf_steps_assign(const gf_trace *t, const gf_step_win *w, size_t nw, int32_t **ev_step, gf_err *err);

typedef struct gf_step_count {
    int64_t kernels, copies, memsets; /* GPU operations of the step */
    int64_t launches;                 /* distinct launch calls of those operations */
    int64_t kernel_ns;                /* sum of the kernels' durations */
} gf_step_count;

/* Counts per step (out: nw entries, zeroed here). */
int gf_steps_count(const gf_trace *t, const int32_t *ev_step, size_t nw, gf_step_count *out, gf_err *err);

typedef struct gf_step_name {
    int32_t step;  /* index of the step */
    int32_t name;  /* strtab id */
    int64_t count, total; /* operations or ranges, sum of durations in ns */
} gf_step_name;

/* Kernels per (step, name) of the steps' GPU work, in no particular order. */
int gf_steps_kernels(const gf_trace *t, const int32_t *ev_step, gf_step_name **rows, size_t *n, gf_err *err);

/* NVTX ranges one level below each step's marker on the marker's thread (push/pop ranges nested in it), or
 * (a start/end marker) the outermost ranges of its thread inside it, per (step, name as policy nvtx.group
 * groups it: gf_trace_nvtx_group). A window with outer set (a gap between steps): the ranges of its thread
 * that lie inside it and inside no other range that lies inside it (of ranges with the same start and end, the
 * first in the trace's order). */
int gf_steps_nvtx(const gf_trace *t, const gf_step_win *w, size_t nw, gf_step_name **rows, size_t *n, gf_err *err);

typedef struct gf_nvtx_name {
    int32_t name, rank;  /* strtab id; rank index or -1 */
    int32_t domain;      /* strtab id of the range's named domain, -1 for the default domain */
    int64_t pid, tid;
    int32_t level;       /* push/pop nesting level, -1 for start/end ranges */
    int64_t count, total; /* ranges, sum of their durations */
} gf_nvtx_name;

/* A 64-bit key of the trace's NVTX ranges (what gf_steps_nvtx_names and gf_steps_nvtx_ranges read): equal
 * while those ranges are the same, whatever else the trace gains (the NVTX projection's events) or however
 * its events are ordered; a trim that drops a range changes it. threads: policy limits.threads (the same key at any
 * count). */
uint64_t gf_steps_ranges_key(const gf_trace *t, int threads);

/* The NVTX ranges summed per (rank, process, thread, level, domain, name), in order of first appearance. */
int gf_steps_nvtx_names(const gf_trace *t, gf_nvtx_name **rows, size_t *n, gf_err *err);

typedef struct gf_nvtx_range {
    int64_t start, end, pid, tid; /* pid, tid: the lane's (the process and thread ids the export names) */
    int64_t proc;                 /* the event's gf_trace.pid, for gf_step_win.pid */
    int32_t name, rank, level;
} gf_nvtx_range;

/* The NVTX ranges whose name is one of names (strtab ids), in start order. */
int gf_steps_nvtx_ranges(const gf_trace *t, const int32_t *names, size_t nnames, gf_nvtx_range **rows, size_t *n,
                         gf_err *err);

#endif
