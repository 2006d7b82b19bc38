/* The export's tables that stats reads, copied for a model file (model_tables.h). Two connections: the
 * export read-only (sqlite_export.c), the new database read-write; each table's own CREATE statement, its
 * rows in rowid order with their rowids, then its indexes. */
#include "model_tables.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite_export.h"

const char *const gf_model_tables_list[] = {
    "StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND",
    "TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE", "ThreadNames", "PROCESSES", "META_DATA_EXPORT",
    "TARGET_INFO_SESSION_START_TIME", "TARGET_INFO_SYSTEM_ENV", NULL,
};

static int dst_fail(sqlite3 *dst, const char *dest, const char *what, gf_err *err)
{
    return gf_errf(err, GF_EXIT_ERROR, "%s: %s: %s", dest, what, sqlite3_errmsg(dst));
}

/* "INSERT INTO "table" ("rowid", "c1", ...) VALUES (?, ...)" for the columns of sel (rowid first unless
 * the table has none); NULL when out of memory. */
static char *insert_sql(const char *table, sqlite3_stmt *sel)
{
    int n = sqlite3_column_count(sel);
    size_t cap = strlen(table) + 64;
    for (int i = 0; i < n; i++)
        cap += 2 * strlen(sqlite3_column_name(sel, i)) + 8;
    char *s = malloc(cap), *p = s;
    if (!s)
        return NULL;
    p += sprintf(p, "INSERT INTO \"%s\" (", table);
    for (int i = 0; i < n; i++) {
        const char *c = sqlite3_column_name(sel, i);
        *p++ = i ? ',' : ' ';
        *p++ = '"';
        for (; *c; c++) {
            if (*c == '"')
                *p++ = '"';
            *p++ = *c;
        }
        *p++ = '"';
    }
    p += sprintf(p, ") VALUES (");
    for (int i = 0; i < n; i++)
        p += sprintf(p, i ? ",?" : "?");
    strcpy(p, ")");
    return s;
}

/* The rows of table, src → dst, in rowid order with their rowids (a WITHOUT ROWID table: its rows). */
static int copy_rows(sqlite3 *src, sqlite3 *dst, const char *table, const char *path, const char *dest, gf_err *err)
{
    char sql[256];
    sqlite3_stmt *sel = NULL, *ins = NULL;
    snprintf(sql, sizeof sql, "SELECT rowid AS rowid, * FROM \"%s\" ORDER BY rowid", table);
    if (sqlite3_prepare_v2(src, sql, -1, &sel, NULL) != SQLITE_OK) {
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", table);
        if (sqlite3_prepare_v2(src, sql, -1, &sel, NULL) != SQLITE_OK)
            return gf_sqlite_fail(src, path, table, err);
    }
    char *is = insert_sql(table, sel);
    if (!is || sqlite3_prepare_v2(dst, is, -1, &ins, NULL) != SQLITE_OK) {
        free(is);
        sqlite3_finalize(sel);
        return is ? dst_fail(dst, dest, table, err) : gf_oom(err, NULL);
    }
    free(is);
    int n = sqlite3_column_count(sel), rc;
    while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++)
            sqlite3_bind_value(ins, i + 1, sqlite3_column_value(sel, i));
        if (sqlite3_step(ins) != SQLITE_DONE) {
            dst_fail(dst, dest, table, err);
            break;
        }
        sqlite3_reset(ins);
    }
    int ok = rc == SQLITE_DONE;
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        gf_sqlite_fail(src, path, table, err);
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    return ok ? 0 : -1;
}

/* The CREATE statements of type ('table' or 'index') for table, run on dst. → 1 when there was one */
static int copy_schema(sqlite3 *src, sqlite3 *dst, const char *type, const char *table, const char *path,
                       const char *dest, gf_err *err)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(src, "SELECT sql FROM sqlite_master WHERE type = ?1 AND tbl_name = ?2 AND sql IS NOT NULL "
                           "ORDER BY rowid", -1, &q, NULL) != SQLITE_OK)
        return gf_sqlite_fail(src, path, "sqlite_master", err);
    sqlite3_bind_text(q, 1, type, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, table, -1, SQLITE_STATIC);
    int found = 0, rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (sqlite3_exec(dst, (const char *)sqlite3_column_text(q, 0), NULL, NULL, NULL) != SQLITE_OK) {
            dst_fail(dst, dest, table, err);
            sqlite3_finalize(q);
            return -1;
        }
        found = 1;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return gf_sqlite_fail(src, path, "sqlite_master", err);
    return found;
}

int gf_model_tables_build(const char *export_path, const char *dest, gf_err *err)
{
    sqlite3 *src = NULL, *dst = NULL;
    if (gf_sqlite_open_readable(export_path, &src, err) != 0)
        return -1;
    remove(dest);
    int rc = -1;
    if (sqlite3_open_v2(dest, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
        sqlite3_exec(dst, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        dst ? dst_fail(dst, dest, "create", err) : gf_errf(err, GF_EXIT_ERROR, "%s: cannot create", dest);
        goto done;
    }
    for (const char *const *t = gf_model_tables_list; *t; t++) {
        int has = copy_schema(src, dst, "table", *t, export_path, dest, err);
        if (has < 0 || (has && (copy_rows(src, dst, *t, export_path, dest, err) != 0 ||
                                copy_schema(src, dst, "index", *t, export_path, dest, err) < 0)))
            goto done;
    }
    if (sqlite3_exec(dst, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        dst_fail(dst, dest, "commit", err);
        goto done;
    }
    rc = 0;
done:
    sqlite3_close(src);
    if (dst && sqlite3_close(dst) != SQLITE_OK && rc == 0)
        rc = gf_errf(err, GF_EXIT_ERROR, "%s: cannot close", dest);
    if (rc != 0)
        remove(dest);
    return rc;
}
