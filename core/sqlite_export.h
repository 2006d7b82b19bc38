/* The export layer (sqlite_export.c): an nsys SQLite export opened read-only, its tables and columns
 * probed, queries over the columns that exist, errors that name the file. */
#ifndef GF_SQLITE_EXPORT_H
#define GF_SQLITE_EXPORT_H

#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#include "gf_err.h"

/* Every table is looked up in sqlite_master and every column through PRAGMA table_info before a query
 * (tables are created lazily, columns come and go between schema eras 2.9 and 3.25, docs/spec/NSYS.md §7). */

#define GF_SQLQ_MAXCOL 24

/* One buffered value of a prefetched row (sqlite_prefetch.c): its type, its int64 reading, and for the
 * columns read as text the offset in the chunk's text arena of a uint32 length and the bytes (UINT32_MAX:
 * none). A text value of a column read as text has no int64 reading (0): such a column is read with
 * gf_sqlq_text. */
typedef struct gf_sqlq_val {
    int64_t i;
    uint32_t off;
    int32_t type;
} gf_sqlq_val;

struct gf_sqlq_pf;

typedef struct gf_sqlq {
    struct sqlite3_stmt *st;
    int idx[GF_SQLQ_MAXCOL]; /* per requested column: result position, or -1 when the column is absent */
    const char *table;
    const gf_sqlq_val *row;  /* prefetching: the current row's values (NULL: read the statement) */
    const char *text;        /* prefetching: the current row's text arena */
    struct gf_sqlq_pf *pf;   /* the row reader (NULL: gf_sqlq_step is sqlite3_step) */
} gf_sqlq;

/* Opens path read-only and immutable (nothing is ever written to the user's file, no lock, no journal);
 * a file that is not an SQLite database fails with GF_EXIT_INPUT naming it. */
int gf_sqlite_open_export(const char *path, struct sqlite3 **db, gf_err *err);
/* gf_sqlite_open_export, and the schema read at once: a damaged file is bad input (exit 6) here, not
 * an empty result later. */
int gf_sqlite_open_readable(const char *path, struct sqlite3 **db, gf_err *err);
/* 1 when a table or view of that name exists, 0 when not, -1 on a database error. */
int gf_sqlite_has_table(struct sqlite3 *db, const char *name);
/* At least this many bytes of the file per row of an activity or NVTX table: a leaf cell is its sizes, its
 * rowid, a record header and at least two 8-byte timestamps. */
#define GF_SQLITE_MIN_ROW_BYTES 16
/* The rowids of table span [*lo, *hi] (hi = lo - 1: empty): 1. nsys numbers a table's rows densely from 1
 * (every fixture export, 2021.4 to 2026.1: the span is the count), so the span sizes and splits a scan
 * where `SELECT count(*)` would read every leaf page. 0 when there is no such span to trust: no rowid
 * (WITHOUT ROWID, a view), a failed query, or more rowids than the file holds rows at GF_SQLITE_MIN_ROW_BYTES
 * each (sparse rowids: a hand-made or future export). */
int gf_sqlite_rowid_span(struct sqlite3 *db, const char *table, int64_t *lo, int64_t *hi);
/* The first row of sql on db as n integers: 0, or -1 (no row, an error, or a value not an integer). */
int gf_sqlite_ints(struct sqlite3 *db, const char *sql, int64_t *v, int n);
/* 1 when the table has that column, 0 when not (or no such table), -1 on a database error. */
int gf_sqlite_has_column(struct sqlite3 *db, const char *table, const char *col);
/* Prepares SELECT <those of cols that exist> FROM table <tail>. Returns 1 prepared, 0 when the table is
 * absent or one of the first nreq columns is missing, -1 on error (err names path and table). */
int gf_sqlite_prepare_cols(struct sqlite3 *db, const char *path, gf_sqlq *q, const char *table,
                           const char *const *cols, int ncols, int nreq, const char *tail, gf_err *err);
/* The error of the last call on db as "<path>: <what>: <sqlite message>" (GF_EXIT_INPUT; a file that is
 * not a database or is damaged says so). Returns -1. */
int gf_sqlite_fail(struct sqlite3 *db, const char *path, const char *what, gf_err *err);

/* Row prefetching (sqlite_prefetch.c): with threads >= 2 (policy limits.threads, resolved), a reader thread
 * steps the statement and copies each row's values into chunks of rows handed over through a small bounded
 * queue, while the caller turns the rows before them into events. textcols: a bit per requested column
 * (1 << i) that is read with gf_sqlq_text. Call after the last other use of the connection before the loop;
 * from the first gf_sqlq_step until gf_sqlq_finalize (or the step that returns the end), the reader owns
 * the statement and the connection: nothing else may use that connection meanwhile. threads < 2, or a
 * reader that cannot start: the calling thread steps the statement itself, as without this call.
 * split_path (the file of q's connection, or NULL): a plain scan of a big table (`SELECT ... FROM "T"`) is
 * read by two readers over rowid blocks, the second on its own connection to that file; the rows come in the
 * same order (sqlite_prefetch.c). */
void gf_sqlq_prefetch(gf_sqlq *q, int threads, uint64_t textcols, const char *split_path);
/* The readers of q's rows: 0 (the calling thread steps), 1, or 2 (a split). */
int gf_sqlq_readers(const gf_sqlq *q);
/* Whether the readers of the queries prefetched from now on may decode a plain scan's rows from the file's
 * pages (sqlite_btree.h; on unless GPUFLAME_SQLITE_DIRECT=0, main.c). Set before any thread reads. */
void gf_sqlq_direct(int on);
/* The rows of q that the readers decoded from the file's pages, once q's last row has been stepped. */
size_t gf_sqlq_direct_rows(const gf_sqlq *q);
/* Work for the calling thread while it would wait for the reader: idle(arg) is called (one small piece of
 * work each, without the connection) until it returns 0 or rows are there. Only with a reader. */
void gf_sqlq_idle(gf_sqlq *q, int (*idle)(void *), void *arg);
/* sqlite3_step for a query that may prefetch: SQLITE_ROW with the next row current, then the statement's
 * own last result (SQLITE_DONE, or the error after the rows before it, with the connection's error state
 * as the failed step left it: the reader has been joined). */
int gf_sqlq_step(gf_sqlq *q);
/* Stops and joins the reader (if any) and finalizes the statement; q->st is NULL after. */
void gf_sqlq_finalize(gf_sqlq *q);

/* Column i of the current row (i as requested from gf_sqlite_prepare_cols): def when the column is
 * absent from the table or NULL in this row. */
static inline int64_t gf_sqlq_i64(const gf_sqlq *q, int i, int64_t def)
{
    int c = q->idx[i];
    if (c < 0)
        return def;
    if (q->row)
        return q->row[c].type == SQLITE_NULL ? def : q->row[c].i;
    int64_t v = sqlite3_column_int64(q->st, c); /* NULL reads as 0: only then is the type asked */
    return v == 0 && sqlite3_column_type(q->st, c) == SQLITE_NULL ? def : v;
}

/* The SQLite type of column i in the current row (SQLITE_NULL when the column is absent). */
static inline int gf_sqlq_type(const gf_sqlq *q, int i)
{
    int c = q->idx[i];
    if (c < 0)
        return SQLITE_NULL;
    return q->row ? q->row[c].type : sqlite3_column_type(q->st, c);
}

static inline int gf_sqlq_null(const gf_sqlq *q, int i)
{
    return gf_sqlq_type(q, i) == SQLITE_NULL;
}

/* Column i as text (sqlite3_column_text and _bytes): NULL when absent or NULL (or, prefetching, not one
 * of the textcols). */
static inline const char *gf_sqlq_text(const gf_sqlq *q, int i, size_t *len)
{
    int c = q->idx[i];
    *len = 0;
    if (c < 0)
        return NULL;
    if (q->row) {
        if (q->row[c].off == UINT32_MAX)
            return NULL;
        const char *p = q->text + q->row[c].off;
        uint32_t n;
        memcpy(&n, p, sizeof n);
        *len = n;
        return p + sizeof n;
    }
    const char *p = (const char *)sqlite3_column_text(q->st, c);
    *len = (size_t)sqlite3_column_bytes(q->st, c);
    return p;
}

#endif
