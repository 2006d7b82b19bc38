/* The export layer (sqlite_export.c): an nsys SQLite export opened read-only, its tables and columns
 * probed, queries over the columns that exist, errors that name the file. */
#ifndef GF_SQLITE_EXPORT_H
#define GF_SQLITE_EXPORT_H

#include <sqlite3.h>
#include <stdint.h>

#include "gf_err.h"

/* Every table is looked up in sqlite_master and every column through PRAGMA table_info before a query
 * (tables are created lazily, columns come and go between schema eras 2.9 and 3.25, docs/spec/NSYS.md §7). */

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

/* Column i of the current row (i as requested from gf_sqlite_prepare_cols): def when the column is
 * absent from the table or NULL in this row. */
static inline int64_t gf_sqlq_i64(const gf_sqlq *q, int i, int64_t def)
{
    int c = q->idx[i];
    if (c < 0)
        return def;
    int64_t v = sqlite3_column_int64(q->st, c); /* NULL reads as 0: only then is the type asked */
    return v == 0 && sqlite3_column_type(q->st, c) == SQLITE_NULL ? def : v;
}

static inline int gf_sqlq_null(const gf_sqlq *q, int i)
{
    return q->idx[i] < 0 || sqlite3_column_type(q->st, q->idx[i]) == SQLITE_NULL;
}

#endif
