/* Per-name totals from an nsys SQLite export (see sqlite_kernels.h). */
#include "sqlite_kernels.h"
#include "mem.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "sqlite_export.h"

int gf_is_sqlite_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char hdr[16];
    size_t n = fread(hdr, 1, sizeof hdr, f);
    fclose(f);
    return n == 16 && memcmp(hdr, "SQLite format 3\0", 16) == 0;
}

void gf_name_totals_free(gf_name_total *t, size_t n)
{
    if (!t)
        return;
    for (size_t i = 0; i < n; i++)
        free(t[i].name);
    free(t);
}

static int has_table(sqlite3 *db, const char *table)
{
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static int has_column(sqlite3 *db, const char *table, const char *col)
{
    char sql[256];
    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (!found && sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *n = sqlite3_column_text(st, 1);
        found = n && strcmp((const char *)n, col) == 0;
    }
    sqlite3_finalize(st);
    return found;
}

/* "cudaLaunchKernel_v7000" → "cudaLaunchKernel" by cuda_api_sum's rule (gf_stats_api_name) */
static void strip_api_suffix(char *s)
{
    size_t n;
    gf_stats_api_name(s, strlen(s), &n);
    s[n] = '\0';
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const gf_name_total *)a)->name, ((const gf_name_total *)b)->name);
}

static int by_total(const void *a, const void *b)
{
    const gf_name_total *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

int gf_sqlite_totals(const char *path, int what, gf_name_total **out, size_t *n, char *why, size_t why_size,
                     gf_err *err)
{
    *out = NULL;
    *n = 0;
    if (why && why_size)
        why[0] = '\0';
    sqlite3 *db = NULL;
    if (gf_sqlite_open_readable(path, &db, err) != 0)
        return -1;
    const char *table = what == GF_SQL_API ? "CUPTI_ACTIVITY_KIND_RUNTIME" : "CUPTI_ACTIVITY_KIND_KERNEL";
    const char *col = NULL;
    if (what == GF_SQL_API) {
        if (has_column(db, table, "nameId"))
            col = "nameId";
    } else {
        static const char *const cands[] = {"demangledName", "shortName", "mangledName"};
        for (size_t i = 0; i < 3 && !col; i++)
            if (has_column(db, table, cands[i]))
                col = cands[i];
    }
    int rc = 0;
    if (!has_table(db, table)) {
        snprintf(why, why_size, "no %s table (nothing of that kind was captured)", table);
        goto done;
    }
    if (!has_table(db, "StringIds")) {
        snprintf(why, why_size, "no StringIds table");
        goto done;
    }
    if (!col || !has_column(db, table, "start") || !has_column(db, table, "end")) {
        snprintf(why, why_size, "%s lacks the start/end/name columns", table);
        goto done;
    }
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT k.\"%s\", s.value, SUM(k.\"end\" - k.\"start\"), COUNT(*) FROM \"%s\" AS k "
             "LEFT JOIN StringIds AS s ON s.id = k.\"%s\" GROUP BY k.\"%s\"",
             col, table, col, col);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        rc = gf_errf(err, GF_EXIT_INPUT, "%s: table %s: %s", path, table, sqlite3_errmsg(db));
        goto done;
    }
    size_t cap = 0;
    gf_name_total *v = NULL;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (GF_GROW(v, cap, *n + 1, 64) != 0) {
            rc = gf_oom(err, path);
            break;
        }
        const unsigned char *name = sqlite3_column_text(st, 1);
        char buf[64];
        if (!name) {
            snprintf(buf, sizeof buf, "[unknown name id %lld]", (long long)sqlite3_column_int64(st, 0));
            name = (const unsigned char *)buf;
        }
        v[*n].name = strdup((const char *)name);
        v[*n].total_ns = sqlite3_column_int64(st, 2);
        v[*n].count = sqlite3_column_int64(st, 3);
        if (!v[*n].name) {
            rc = gf_oom(err, path);
            break;
        }
        if (what == GF_SQL_API)
            strip_api_suffix(v[*n].name);
        (*n)++;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = gf_errf(err, GF_EXIT_INPUT, "%s: table %s: %s", path, table, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc != 0) {
        gf_name_totals_free(v, *n);
        *n = 0;
        goto done;
    }
    /* merge equal names (ids with the same text, or API names equal after the suffix is stripped) */
    if (*n > 1) {
        qsort(v, *n, sizeof *v, by_name);
        size_t w = 0;
        for (size_t i = 0; i < *n; i++) {
            if (w && strcmp(v[w - 1].name, v[i].name) == 0) {
                v[w - 1].total_ns += v[i].total_ns;
                v[w - 1].count += v[i].count;
                free(v[i].name);
            } else {
                v[w++] = v[i];
            }
        }
        *n = w;
        qsort(v, *n, sizeof *v, by_total);
    }
    if (*n == 0)
        snprintf(why, why_size, "%s has no rows", table);
    *out = v;
done:
    sqlite3_close(db);
    return rc;
}
