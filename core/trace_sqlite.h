/* Import of an nsys SQLite export into the Trace model (read-only, tables and columns probed). */
#ifndef GF_TRACE_SQLITE_H
#define GF_TRACE_SQLITE_H

#include "trace.h"

struct sqlite3;
struct sqlite3_stmt;

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

/* ---- Probing an export, shared with the report builders (core/stats*.c) ----
 * Every table is looked up in sqlite_master and every column through PRAGMA table_info before a query
 * (tables are created lazily, columns come and go between schema eras 2.9 and 3.25, NSYS_FACTS.md §7). */

#define GF_SQLQ_MAXCOL 24

typedef struct gf_sqlq {
    struct sqlite3_stmt *st;
    int idx[GF_SQLQ_MAXCOL]; /* per requested column: result position, or -1 when the column is absent */
    const char *table;
} gf_sqlq;

/* Opens path read-only and immutable (nothing is ever written to the user's file, no lock, no journal);
 * a file that is not an SQLite database fails with GF_EXIT_INPUT naming it. */
int gf_sqlite_open_export(const char *path, struct sqlite3 **db, gf_err *err);
/* gf_sqlite_open_export, and the schema read at once: a damaged file is bad input (exit 6) here, not
 * an empty result later. */
int gf_sqlite_open_readable(const char *path, struct sqlite3 **db, gf_err *err);
/* 1 when a table or view of that name exists, 0 when not, -1 on a database error. */
int gf_sqlite_has_table(struct sqlite3 *db, const char *name);
/* 1 when the table has that column, 0 when not (or no such table), -1 on a database error. */
int gf_sqlite_has_column(struct sqlite3 *db, const char *table, const char *col);
/* Prepares SELECT <those of cols that exist> FROM table <tail>. Returns 1 prepared, 0 when the table is
 * absent or one of the first nreq columns is missing, -1 on error (err names path and table). */
int gf_sqlite_prepare_cols(struct sqlite3 *db, const char *path, gf_sqlq *q, const char *table,
                           const char *const *cols, int ncols, int nreq, const char *tail, gf_err *err);
/* The error of the last call on db as "<path>: <what>: <sqlite message>" (GF_EXIT_INPUT; a file that is
 * not a database or is damaged says so). Returns -1. */
int gf_sqlite_fail(struct sqlite3 *db, const char *path, const char *what, gf_err *err);

#endif
