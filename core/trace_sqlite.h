/* Import of an nsys SQLite export into the Trace model (read-only, tables and columns probed). */
#ifndef GF_TRACE_SQLITE_H
#define GF_TRACE_SQLITE_H

#include "trace.h"
#include "sqlite_export.h"
#include "sqlite_cpu.h"

typedef struct gf_sqlite_opts {
    int stacks;   /* 1: launch backtraces were requested, so their absence is a warning */
    gf_cpu_opts cpu; /* the CPU side to import (sqlite_cpu.h; what = 0: none) */
    int threads;  /* threads the import may use (threads.h: 0 = one per CPU, 1 = the calling thread only) */
    int narrow;   /* 1: only what the GPU stacks read (trace_flame.h): kernels without their launch details
                   * (grid, block, registers, shared memory, context, graph), no synchronizations (issue 42) */
    int unordered; /* with narrow: the events left in arrival order (gf_trace_set_unordered): a page's stacks alone */
} gf_sqlite_opts;

/* Imports into t, which must be begun (gf_trace_begin) and is finished on success. A file that is not
 * an SQLite database, or a damaged one, fails with GF_EXIT_INPUT and a message naming it. */
int gf_trace_import_sqlite(gf_trace *t, const char *path, const gf_sqlite_opts *o, gf_err *err);

#endif
