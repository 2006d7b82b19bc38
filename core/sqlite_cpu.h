/* The CPU side of an nsys SQLite export (issue 25): OS runtime calls (OSRT_API), CPU samples
 * (COMPOSITE_EVENTS with their SAMPLING_CALLCHAINS) and thread scheduling (SCHED_EVENTS) as Trace events on
 * their thread's lanes. Tables and columns are probed; an export without them adds nothing. */
#ifndef GF_SQLITE_CPU_H
#define GF_SQLITE_CPU_H

#include <sqlite3.h>
#include <stdint.h>

#include "gf_err.h"
#include "trace.h"

/* what to import (gf_sqlite_opts.cpu) */
enum { GF_CPU_OSRT = 1u << 0, GF_CPU_SAMPLES = 1u << 1, GF_CPU_RUNNING = 1u << 2 };

/* max_samples > 0: at most that many CPU samples are imported, evenly spread over the table (sample k of N
 * kept when floor((k+1)·max/N) > floor(k·max/N)); the others still count in the trace's totals and a
 * warning says so. A page of millions of samples would otherwise be mostly samples. */
typedef struct gf_cpu_opts {
    unsigned what;       /* GF_CPU_* */
    int64_t max_samples; /* 0: all */
} gf_cpu_opts;

/* Adds, to a trace being built (after the CUDA API calls, before gf_trace_finish):
 * - GF_CPU_OSRT: every OSRT_API row of eventClass 27 (the OS runtime calls nsys's osrt_sum report counts)
 *   as a GF_EV_OSRT event on its thread's calls lane, named by StringIds, with its OSRT_CALLCHAINS stack;
 * - GF_CPU_SAMPLES: every COMPOSITE_EVENTS row as a GF_EV_SAMPLE event (dur 0) on the thread's samples
 *   sub-lane, its SAMPLING_CALLCHAINS stack (innermost first) as its stack, named by its innermost frame;
 * - GF_CPU_RUNNING: for threads that have a lane, each SCHED_EVENTS sched-in → sched-out as a GF_EV_RUNNING
 *   event on the thread's running sub-lane.
 * Returns 0, or -1 with err filled (a damaged table is GF_EXIT_INPUT naming the file and the table). */
int gf_sqlite_import_cpu(sqlite3 *db, const char *path, gf_trace *t, const gf_cpu_opts *o, gf_err *err);

#endif
