/* The export layer: opening an nsys SQLite export read-only, probing its tables and columns (they come
 * and go between schema eras), preparing queries over the columns that exist, and naming errors. The
 * Trace import (trace_sqlite.c) and the report builders (stats*.c, sqlite_*.c, findings) read through it. */
#include "sqlite_export.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gf_sqlite_fail(sqlite3 *db, const char *path, const char *what, gf_err *err)
{
    int rc = sqlite3_errcode(db);
    if (rc == SQLITE_NOTADB)
        return gf_errf(err, GF_EXIT_INPUT, "%s: not an SQLite database (%s)", path, sqlite3_errmsg(db));
    if (rc == SQLITE_CORRUPT)
        return gf_errf(err, GF_EXIT_INPUT, "%s: damaged SQLite file (%s: %s)", path, what, sqlite3_errmsg(db));
    return gf_errf(err, GF_EXIT_INPUT, "%s: %s: %s", path, what, sqlite3_errmsg(db));
}

int gf_sqlite_has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Two b-tree descents, where one SELECT of both would scan the table; the span, when the file can hold it */
int gf_sqlite_rowid_span(sqlite3 *db, const char *table, int64_t *lo, int64_t *hi)
{
    char *sql = sqlite3_mprintf("SELECT (SELECT min(rowid) FROM \"%w\"), (SELECT max(rowid) FROM \"%w\"), "
                                "(SELECT page_count * page_size FROM pragma_page_count, pragma_page_size)",
                                table, table);
    sqlite3_stmt *st;
    int ok = sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK; /* WITHOUT ROWID: no span */
    sqlite3_free(sql);
    if (!ok)
        return 0;
    int got = sqlite3_step(st) == SQLITE_ROW;
    int empty = got && sqlite3_column_type(st, 0) == SQLITE_NULL;
    int64_t a = got ? sqlite3_column_int64(st, 0) : 0, b = got ? sqlite3_column_int64(st, 1) : -1;
    int64_t bytes = got ? sqlite3_column_int64(st, 2) : 0;
    sqlite3_finalize(st);
    if (got && empty) {
        *lo = 1;
        *hi = 0;
        return 1;
    }
    /* b - a + 1 without overflow: rowids may be any int64 */
    if (!got || b < a || (uint64_t)b - (uint64_t)a >= (uint64_t)(bytes / GF_SQLITE_MIN_ROW_BYTES))
        return 0;
    *lo = a;
    *hi = b;
    return 1;
}

int gf_sqlite_ints(sqlite3 *db, const char *sql, int64_t *v, int n)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_count(st) >= n;
    for (int i = 0; ok && i < n; i++) {
        ok = sqlite3_column_type(st, i) == SQLITE_INTEGER;
        v[i] = ok ? sqlite3_column_int64(st, i) : 0;
    }
    sqlite3_finalize(st);
    return ok ? 0 : -1;
}

int gf_sqlite_has_column(sqlite3 *db, const char *table, const char *col)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int gf_sqlite_prepare_cols(sqlite3 *db, const char *path, gf_sqlq *q, const char *table, const char *const *cols,
                           int ncols, int nreq, const char *tail, gf_err *err)
{
    memset(q, 0, sizeof *q);
    q->table = table;
    if (ncols > GF_SQLQ_MAXCOL)
        return gf_errf(err, GF_EXIT_ERROR, "%s: %s: too many columns requested", path, table);
    int ht = gf_sqlite_has_table(db, table);
    if (ht < 0)
        return gf_sqlite_fail(db, path, table, err);
    if (ht == 0)
        return 0;
    char sql[2048];
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s')", table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return gf_sqlite_fail(db, path, table, err);
    int present[GF_SQLQ_MAXCOL] = {0};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        for (int i = 0; i < ncols; i++)
            if (c && strcmp(c, cols[i]) == 0)
                present[i] = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return gf_sqlite_fail(db, path, table, err);
    size_t o = (size_t)snprintf(sql, sizeof sql, "SELECT ");
    int pos = 0;
    for (int i = 0; i < ncols; i++) {
        q->idx[i] = -1;
        if (!present[i]) {
            if (i < nreq)
                return 0;
            continue;
        }
        o += (size_t)snprintf(sql + o, sizeof sql - o, "%s\"%s\"", pos ? "," : "", cols[i]);
        q->idx[i] = pos++;
    }
    if (pos == 0) /* no requested column exists: still one row per table row */
        o += (size_t)snprintf(sql + o, sizeof sql - o, "NULL");
    snprintf(sql + o, sizeof sql - o, " FROM \"%s\" %s", table, tail ? tail : "");
    if (sqlite3_prepare_v2(db, sql, -1, &q->st, NULL) != SQLITE_OK)
        return gf_sqlite_fail(db, path, table, err);
    return 1;
}

/* file:PATH?immutable=1 with the characters URIs reserve escaped */
static char *make_uri(const char *path)
{
    size_t n = strlen(path);
    char *u = malloc(n * 3 + 32);
    if (!u)
        return NULL;
    char *o = u;
    o += sprintf(o, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
            o += sprintf(o, "%%%02X", *p);
        else
            *o++ = (char)*p;
    }
    strcpy(o, "?immutable=1");
    return u;
}

int gf_sqlite_open_export(const char *path, sqlite3 **db, gf_err *err)
{
    *db = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_errf(err, GF_EXIT_INPUT, "%s: cannot open: %s", path, strerror(errno));
    char magic[16] = {0};
    size_t got = fread(magic, 1, 16, f);
    fclose(f);
    if (got < 16 || memcmp(magic, "SQLite format 3", 16) != 0)
        return gf_errf(err, GF_EXIT_INPUT, "%s: not an SQLite database (bad header)", path);
    char *uri = make_uri(path);
    if (!uri)
        return gf_oom(err, NULL);
    int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        gf_errf(err, GF_EXIT_INPUT, "%s: cannot open as SQLite: %s", path, *db ? sqlite3_errmsg(*db) : "?");
        if (*db)
            sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}

int gf_sqlite_open_readable(const char *path, sqlite3 **db, gf_err *err)
{
    if (gf_sqlite_open_export(path, db, err) != 0)
        return -1;
    /* sqlite3_open_v2 is lazy: read the schema now so a corrupt file is bad input, not "no data" */
    char *msg = NULL;
    if (sqlite3_exec(*db, "SELECT count(*) FROM sqlite_master", NULL, NULL, &msg) != SQLITE_OK) {
        gf_errf(err, GF_EXIT_INPUT, "%s: not a readable SQLite database: %s", path, msg ? msg : "?");
        sqlite3_free(msg);
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}
