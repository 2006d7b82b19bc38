/* Import of an nsys SQLite export into the Trace model (read-only, tables and columns probed). */
#ifndef GF_TRACE_SQLITE_H
#define GF_TRACE_SQLITE_H

#include "trace.h"
#include "sqlite_export.h"

typedef struct gf_sqlite_opts {
    int stacks; /* 1: launch backtraces were requested, so their absence is a warning */
} gf_sqlite_opts;

/* Imports into t, which must be begun (gf_trace_begin) and is finished on success. A file that is not
 * an SQLite database, or a damaged one, fails with GF_EXIT_INPUT and a message naming it. */
int gf_trace_import_sqlite(gf_trace *t, const char *path, const gf_sqlite_opts *o, gf_err *err);

/* Report metadata for merging several reports (issue 14, docs/TIMELINE_DATA.md "Several reports").
 * session_start: UTC epoch ns of the capture start, -1 when the export has none; session_field names
 * where it came from. kv: selected name/value pairs:
 *   "PROCESS_<n>:PID"           META_DATA_CAPTURE: the pid of the launched process n
 *   "PROCESS_<n>:ENV:<NAME>"    META_DATA_CAPTURE: its environment variable NAME, only for NAMEs in env_names
 *                               (nothing else of the captured environment is read)
 *   "PROCESSES:<pid>"           PROCESSES: process name
 * host: TARGET_INFO_SYSTEM_ENV Hostname (or NULL). */
typedef struct gf_sqlite_kv {
    char *key, *value;
} gf_sqlite_kv;
typedef struct gf_sqlite_meta {
    int64_t session_start;
    char session_field[96];
    char *host;
    gf_sqlite_kv *kv;
    size_t nkv;
} gf_sqlite_meta;
int gf_sqlite_read_meta(const char *path, const char *const *env_names, size_t nenv, gf_sqlite_meta *m, gf_err *err);
void gf_sqlite_meta_free(gf_sqlite_meta *m);

#endif
