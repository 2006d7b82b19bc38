/* The NVTX projection of core/trace_proj.c in its two halves, for core/trace_proj_job.c (which runs the first
 * on a thread of its own while the rules run): gf_proj_read only reads the trace (the projection, its own
 * memory); gf_proj_merge changes it (names interned in its table, lanes and events merged into its columns).
 * gf_trace_add_nvtx_proj is the two in a row. */
#ifndef GF_TRACE_PROJ_H
#define GF_TRACE_PROJ_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "trace_types.h"

/* The NVTX ranges of the SQLite export at sqlite_path projected onto the GPU (nsys's nvtx_gpu_proj_trace,
 * core/stats_nvtx_proj.c) added to a finished trace as NVTX events on lanes of their own (proj set), one
 * per (device, launching thread), each placed after its device's streams: a range spans its first to last
 * GPU op; its device is that of its first op; seq holds its RangeId. max > 0 keeps the max longest.
 * Nothing is added to merged traces (ranks) or when the export has no NVTX or CUDA data. The CUDA calls,
 * their GPU work and the ranges are taken from t itself when it holds the export's rows exactly
 * (calls_exact, nvtx_rowid; nothing trimmed), else read from the export. *added: the count. 0, or -1 with
 * err. */
int gf_trace_add_nvtx_proj(gf_trace *t, const char *sqlite_path, size_t max, size_t *added, gf_err *err);
typedef struct gf_proj_part gf_proj_part;

/* 1 when t takes a projection: finished, not merged from ranks, none added yet. */
int gf_proj_wanted(const gf_trace *t);
/* The projected ranges of the export at sqlite_path (the max longest when max > 0) for t, which it reads and
 * never writes; *out NULL when t takes none. Safe on any thread while nothing writes t. */
int gf_proj_read(const gf_trace *t, const char *sqlite_path, size_t max, gf_proj_part **out, gf_err *err);
/* Merges p (from gf_proj_read on this t, unchanged since) into t and frees it; p may be NULL. threads >= 2:
 * the columns are filled on two threads (gf_proj_merge_events). */
int gf_proj_merge(gf_trace *t, gf_proj_part *p, int threads, size_t *added, gf_err *err);
void gf_proj_free(gf_proj_part *p);

#endif
