/* gpu-starv's gaps (gf_find_gaps) on a thread of their own, computed while the calling thread runs the other
 * findings rules over the same trace (the findings command: lua/gpuflame/findings.lua's prefetch). */
#ifndef GF_TRACE_GAPS_JOB_H
#define GF_TRACE_GAPS_JOB_H

#include "trace_findings_nsys.h"

/* Starts gf_find_gaps(t, w, min_gap_ns, limit) on a second thread, without the scratch gate: the caller
 * knows that no other scratch-heavy pass (the NVTX projection's sweep) runs in the process meanwhile. The
 * caller must not change t (nor free it) until finish or free. Start fails only for want of memory (no
 * thread to be had: the work runs at once, on the calling thread). */
typedef struct gf_gaps_job gf_gaps_job;
gf_gaps_job *gf_gaps_job_start(const gf_trace *t, const gf_fwin *w, int64_t min_gap_ns, int64_t limit,
                               gf_err *err);
/* Joins; *rows (malloc'd, the caller's) and *n as gf_find_gaps gives them, or -1 with err. */
int gf_gaps_job_finish(gf_gaps_job *j, gf_gap_row **rows, size_t *n, gf_err *err);
/* Joins a job not finished, frees any job (NULL too). */
void gf_gaps_job_free(gf_gaps_job *j);

#endif
