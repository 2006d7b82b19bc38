/* The hierarchical GPU flamegraph over a Trace: one stack per GPU operation (kernel, memcpy, memset),
 * weighted by its GPU time in integer ns, whose frames are the levels the caller lists (policy
 * flamegraph.levels): the process, the rank, the device, the stream, the NVTX range path on the
 * launching thread at launch time, the launch's CPU backtrace, the launch API call, the kernel.
 *
 * NVTX path: the ranges on the launching thread (same process and thread id) that contain the whole
 * launch call (start <= call start, end >= call end), outermost first (start ascending, then end
 * descending): nsys's nvtx_kern_sum attributes a kernel to exactly these ranges (nvtxkernsum.py), so the
 * (range, kernel) sums of the stacks equal its Total Time. Names are `domain:name` as nsys prints them,
 * the name grouped by the trace's map when it has one (gf_trace_nvtx_group: sums then add up per group).
 * GPU work whose launch is not in the capture sits under its process in one named frame; levels that
 * have nothing for an operation (no ranks, no NVTX, no backtrace) add no frame. */
#ifndef GF_TRACE_FLAME_H
#define GF_TRACE_FLAME_H

#include <stdint.h>
#include <stdio.h>

#include "gf_err.h"
#include "stacks.h"
#include "trace.h"
#include "trace_steps.h"

enum { GF_FL_PROCESS = 0, GF_FL_RANK, GF_FL_DEVICE, GF_FL_STREAM, GF_FL_NVTX, GF_FL_CALLCHAIN, GF_FL_API,
       GF_FL_KERNEL, GF_FL_NLEVELS };
extern const char *const gf_flame_level_names[GF_FL_NLEVELS]; /* "process", "rank", ... */

/* The raw NVTX names behind the NVTX frames when the trace's names are grouped (policy nvtx.group,
 * gf_trace_set_nvtx_group): pair k says raw name id name[k] is shown as frame id frame[k] of the stacks.
 * Arrays malloc'd (the caller frees them); one pair per distinct raw name on a launch's path. */
typedef struct gf_flame_raw {
    uint32_t *frame;
    int32_t *name;
    size_t n, cap;
} gf_flame_raw;

typedef struct gf_gpu_flame_opts {
    const int *levels; /* GF_FL_*, outermost first */
    size_t nlevels;
    int startend;         /* start/end ranges make NVTX frames too (push/pop ranges always do) */
    const char *nolaunch; /* the frame of GPU work whose launch call is not in the capture */
    const gf_step_win *step; /* NULL, or only the GPU work launched inside this step (trace_steps.h) */
    /* optional process frames named by the caller (a process known by what it is, not its pid: diff,
     * multi-report views): process i of rank proc_rank[i] (-1: none) and pid proc_pid[i] is proc_name[i];
     * other processes are "<main thread name> [<pid>]", else "pid <pid>" */
    const int64_t *proc_pid;
    const int32_t *proc_rank;
    const char *const *proc_name;
    size_t nproc;
    gf_flame_raw *raw;    /* optional: receives the raw names of grouped NVTX frames (NULL: not kept) */
    gf_launch_index *launches; /* optional: malloc'd and built for t (gf_launch_index_build), taken over (freed)
                                * by the stacks */
    /* optional, for a page (policy flamegraph.fold_share, fold_min_stacks): fold_name set, and the stacks would
     * be more than fold_min_stacks, the NVTX frames under fold_share of the total are folded as the stacks are
     * made (gf_stacks_fold's fold, the table marked gf_stacks_prefold; gf_stacks_fold then does the rest) */
    const char *fold_name;
    double fold_share;
    int64_t fold_min_stacks;
} gf_gpu_flame_opts;

/* Adds one stack per GPU operation of a finished trace to s (weights in ns, instances counted, frame kinds
 * set). ev_stack (optional): receives a malloc'd array, per event the index of its stack in s or -1. */
int gf_trace_gpu_stacks(const gf_trace *t, const gf_gpu_flame_opts *o, gf_stacks *s, int32_t **ev_stack,
                        gf_err *err);
/* The same stacks from a trace nothing reads afterwards: its event columns are freed as the stacks are done with
 * them, so that the stacks' tables reuse their memory, and t has no events after (gf_trace_free_events), whether
 * or not this succeeded; its strings, lanes and launch stacks stay. */
int gf_trace_gpu_stacks_use_up(gf_trace *t, const gf_gpu_flame_opts *o, gf_stacks *s, gf_err *err);

/* speedscope's file: the sampled profile of the stacks above (the same stacks and ns weights as the
 * folded output), then one evented profile per GPU stream in time order (each operation opens its
 * stack's frames at its start and closes them at its end; an operation that starts before the previous
 * one on its stream ended is drawn from that end). max_events > 0: the evented profiles hold at most
 * that many operations in all (the earliest), so a huge capture stays a file speedscope can open. */
int gf_trace_write_gpu_speedscope(const gf_trace *t, const gf_gpu_flame_opts *o, const char *name,
                                  size_t max_events, FILE *out, gf_err *err);

#endif
