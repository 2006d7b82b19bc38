/* Findings primitives (docs/RULES.md): the computations behind the rules in lua/rules/, over a finished
 * Trace. Six reproduce the rules of NVIDIA's `nsys analyze` row for row (nsys 2022.4's rules/<rule>.py and
 * gpustats.py/nsysstats.py, SQLite semantics included: ties, NULLs, row limits, float rounding); the
 * others are gpuflame's own. A rule (Lua) chooses thresholds and words; C does every loop over events.
 * This header: the time filter, name patterns and NVTX range lookup they share (core/trace_findings.c);
 * the rules' own are trace_findings_nsys.h (nsys's rules) and trace_findings_own.h (gpuflame's).
 *
 * Time filter (gf_fwin) = nsysstats.py filter_time_range: a row is kept when it overlaps [start, end)
 * as (start >= S && start < E) || (end >= S && end < E) || (start < S && end >= E); with an NVTX range
 * the rows are also limited to its process (GPU rows, and CPU rows of a start/end range) or its thread
 * (CPU rows of a push/pop range). */
#ifndef GF_FINDINGS_H
#define GF_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "trace_types.h"

typedef struct gf_fwin {
    int filtered;     /* 0: every row (no start/end/nvtx given) */
    int64_t start, end;
    int32_t pid, tid; /* -1: any */
} gf_fwin;

void gf_fwin_init(gf_fwin *w);
int gf_fwin_cpu(const gf_fwin *w, int64_t start, int64_t end, int32_t pid, int32_t tid);
int gf_fwin_gpu(const gf_fwin *w, int64_t start, int64_t end, int32_t pid);

/* SQLite's LIKE without ESCAPE: % any run, _ one character, ASCII case-insensitive. */
int gf_like(const char *pattern, const char *s);

/* The first NVTX range (by start) whose name, followed by "@domain" when it has a named domain, equals
 * spec. Returns 1 and fills the outputs, or 0. */
int gf_find_nvtx_range(const gf_trace *t, const char *spec, int64_t *start, int64_t *end, int32_t *pid,
                       int32_t *tid);

/* Name patterns: a name matches when it is LIKE one of `like` (or like is empty) and LIKE none of
 * `not_like`. Names are matched as recorded (cudaMemcpy_v3020). */
typedef struct gf_like_set {
    const char *const *like;
    size_t nlike;
    const char *const *not_like;
    size_t nnot_like;
} gf_like_set;

#endif
