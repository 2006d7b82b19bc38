/* The findings rules' heaviest primitives (gpu-starv's gaps, launch-overhead's launches) on a thread of their
 * own, computed while the calling thread runs the other rules over the same trace (the findings command:
 * lua/gpuflame/findings.lua's prefetch). */
#ifndef GF_TRACE_RULES_JOB_H
#define GF_TRACE_RULES_JOB_H

#include "trace_findings_nsys.h"
#include "trace_findings_own.h"

typedef struct gf_rules_job gf_rules_job;

/* A job over t with no work yet; NULL for want of memory. */
gf_rules_job *gf_rules_job_new(const gf_trace *t);
/* Adds gf_find_gaps(t, w, min_gap_ns, limit) / gf_find_launches(t, w, min_kernels) to the work, before start
 * (w NULL: every row). Returns the work's index for take, or -1 for want of memory. */
int gf_rules_job_add_gaps(gf_rules_job *j, const gf_fwin *w, int64_t min_gap_ns, int64_t limit);
int gf_rules_job_add_launches(gf_rules_job *j, const gf_fwin *w, uint64_t min_kernels);
/* Runs the work, in the order added, on a second thread, without the scratch gate (mem.h gf_mem_gate): the
 * caller knows that no other scratch-heavy pass (the NVTX projection's sweep) runs in the process meanwhile.
 * The caller must not change t (nor free it) until the job is joined. No thread to be had: the work runs at
 * once, on the calling thread. */
void gf_rules_job_start(gf_rules_job *j);
/* Join the job, then hand over the result of work idx (of that kind): *rows (malloc'd, the caller's), *n, and
 * for launches *sum, as gf_find_gaps / gf_find_launches give them, or -1 with err (the work's, or a bad index
 * or a result taken already). */
int gf_rules_job_take_gaps(gf_rules_job *j, int idx, gf_gap_row **rows, size_t *n, gf_err *err);
int gf_rules_job_take_launches(gf_rules_job *j, int idx, gf_launch_row **rows, size_t *n, gf_launch_sum *sum,
                               gf_err *err);
/* Joins a job not joined, frees any job (NULL too) and the results not taken. */
void gf_rules_job_free(gf_rules_job *j);

#endif
