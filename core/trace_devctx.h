/* Each event on its own device: sync lanes moved to the device of their rows' contexts, a step on the
 * Trace model after an SQLite export's rows are loaded (core/trace_devctx.c). */
#ifndef GF_TRACE_DEVCTX_H
#define GF_TRACE_DEVCTX_H

#include "gf_err.h"
#include "trace.h"

struct sqlite3;

/* Before gf_trace_finish of a trace imported from db (path for messages): a GPU sync lane whose rows'
 * contexts (globalPid, contextId) ran their kernels, copies and memsets on another device is moved to that
 * device, with one warning in t->warnings. Returns 0, or -1 with err filled (a database error names path
 * and table). */
int gf_trace_devices_from_contexts(gf_trace *t, struct sqlite3 *db, const char *path, gf_err *err);

#endif
