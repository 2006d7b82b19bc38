/* The hierarchical GPU flamegraph's stacks on a thread of their own (core/trace_flame_job.c), built while
 * the caller runs the findings panel's rules over the same trace. */
#ifndef GF_TRACE_FLAME_JOB_H
#define GF_TRACE_FLAME_JOB_H

#include "trace_flame.h"

/* gf_trace_gpu_stacks(t, o, s) on a second thread, then (fold_share > 0, more than fold_min stacks and a
 * total > 0) gf_stacks_fold(s, ceil(total * fold_share), fold_name, folded) there too: the page's fold
 * (lua/gpuflame/flamegraph.lua fg.fold) done beside the rules; its sort takes a second thread of its own
 * only where threads (policy limits.threads) resolves to 3 or more, or once finish waits. The caller must
 * not change t (nor free it) and must not touch s or folded until finish, which joins the thread. o's step
 * and processes must be NULL/0 (the job copies the levels and the nolaunch name; o->raw is ignored: finish
 * hands the job's raw names over). Start fails only for want of memory (no thread to be had: the work runs
 * at once, on the calling thread). Finish returns the stacks' error, if any; *folded_st.nodes > 0 when it
 * folded (0: the page draws s). A job not finished is joined by gf_trace_flame_job_free, which frees any
 * job (NULL too). */
typedef struct gf_flame_job gf_flame_job;
gf_flame_job *gf_trace_flame_job_start(const gf_trace *t, const gf_gpu_flame_opts *o, gf_stacks *s,
                                       gf_stacks *folded, double fold_share, int64_t fold_min,
                                       const char *fold_name, int threads, int wait_groups, gf_err *err);
/* With wait_groups, the thread first finds the launches' partners, while the caller computes the trace's
 * NVTX groups (lua/gpuflame/nvtx_group.lua), then waits for them: set_groups sets them on t
 * (gf_trace_set_nvtx_group, t being the job's trace) and lets the thread go on to the frames, which read
 * them. Finish before set_groups lets it go on with the names as they are. Set once; an error (out of memory,
 * a name id not of t) ends the job with it too. */
int gf_trace_flame_job_set_groups(gf_flame_job *j, gf_trace *t, const int32_t *raw, const char *const *text,
                                  const size_t *len, size_t n, gf_err *err);
int gf_trace_flame_job_finish(gf_flame_job *j, gf_flame_raw *raw, gf_fold_stats *folded_st, gf_err *err);
void gf_trace_flame_job_free(gf_flame_job *j);
/* After finish: the work's wall time on its thread, how long finish waited for it, the work's CPU time, and
 * the calling thread's CPU time between start and finish (what ran beside it), in seconds. */
void gf_trace_flame_job_times(const gf_flame_job *j, double *run_s, double *wait_s, double *run_cpu,
                              double *caller_cpu);

#endif
