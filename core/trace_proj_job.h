/* The NVTX projection on a thread of its own (core/trace_proj_job.c). */
#ifndef GF_TRACE_PROJ_JOB_H
#define GF_TRACE_PROJ_JOB_H

#include "trace_types.h"

/* The same in two calls, the projection computed on a thread of its own in between (core/trace_proj_job.c):
 * start reads t on that thread and the caller must not change t (nor free it) until finish, which joins the
 * thread and merges the events into t as gf_trace_add_nvtx_proj would (the same events, lanes and string
 * ids). Start fails only for want of memory; the projection's errors come from finish. A job not finished
 * is joined by gf_trace_nvtx_proj_job_free, which frees any job (NULL too); finish does not free it. */
typedef struct gf_nvtx_proj_job gf_nvtx_proj_job;
gf_nvtx_proj_job *gf_trace_nvtx_proj_start(const gf_trace *t, const char *sqlite_path, size_t max, gf_err *err);
int gf_trace_nvtx_proj_finish(gf_trace *t, gf_nvtx_proj_job *job, size_t *added, gf_err *err);
void gf_trace_nvtx_proj_job_free(gf_nvtx_proj_job *job);
/* After finish: the read half's wall time on its thread, and how long finish waited for it (seconds). */
void gf_trace_nvtx_proj_times(const gf_nvtx_proj_job *job, double *read_s, double *wait_s);

#endif
