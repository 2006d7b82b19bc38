/* Importing several SQLite exports at once, one worker process per export (issue 14): each child imports
 * its report and saves the model (trace_io.c) into a scratch directory; the parent loads the models as the
 * children finish. A child that fails or dies is reported by the report's name and stops the others. */
#ifndef GF_TRACE_WORKERS_H
#define GF_TRACE_WORKERS_H

#include "gf_err.h"
#include "trace.h"
#include "trace_sqlite.h"

typedef struct gf_import_job {
    const char *const *paths; /* SQLite exports */
    size_t n;
    gf_sqlite_opts sqlite;
    int keep_partners;
    int workers;         /* at most this many children at a time (>= 1) */
    const char *scratch; /* an empty private directory for the saved models; the caller removes it */
    /* called in the parent as each report is loaded (done = how many so far); may be NULL */
    void (*progress)(void *ctx, size_t done, size_t n, const char *path);
    void *ctx;
} gf_import_job;

/* out[0..n) receives finished traces (every event kept: trimming happens after the merge). On error none
 * is returned, every child is stopped and waited for, and err names the report. */
int gf_trace_import_workers(const gf_import_job *job, gf_trace **out, gf_err *err);

#endif
