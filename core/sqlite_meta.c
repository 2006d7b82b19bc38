/* Capture metadata from an nsys SQLite export (see sqlite_meta.h). */
#include "sqlite_meta.h"

#include <ctype.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "sqlite_kernels.h"
#include "sqlite_export.h"

static int has_table(sqlite3 *db, const char *table)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static void copy(char *dst, size_t size, const unsigned char *src)
{
    snprintf(dst, size, "%s", src ? (const char *)src : "");
}

/* First column of the first row of sql (one text parameter, may be NULL) into buf; 0 when found. */
static int one_text(sqlite3 *db, const char *sql, const char *param, char *buf, size_t size)
{
    sqlite3_stmt *st;
    int rc = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (param)
        sqlite3_bind_text(st, 1, param, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        copy(buf, size, sqlite3_column_text(st, 0));
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

static int64_t one_int(sqlite3 *db, const char *sql, int64_t def)
{
    sqlite3_stmt *st;
    int64_t v = def;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return def;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void sys_env(sqlite3 *db, const char *name, char *buf, size_t size)
{
    one_text(db, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = ? AND value <> '' LIMIT 1", name, buf, size);
}

static void hash_hex(const char *s, char out[65])
{
    gf_sha256_hex(s, strlen(s), out);
}

/* The last "20YY.N[.N...]" (not inside a longer number) in s, into out. */
static void version_in_path(const char *s, char *out, size_t size)
{
    out[0] = '\0';
    for (const char *p = s; *p; p++) {
        if (p[0] != '2' || p[1] != '0' || !isdigit((unsigned char)p[2]) || !isdigit((unsigned char)p[3]) || p[4] != '.' ||
            !isdigit((unsigned char)p[5]) || (p > s && (isdigit((unsigned char)p[-1]) || p[-1] == '.')))
            continue;
        const char *e = p + 5;
        while (isdigit((unsigned char)*e) || (*e == '.' && isdigit((unsigned char)e[1])))
            e++;
        if (isdigit((unsigned char)*e))
            continue;
        snprintf(out, size, "%.*s", (int)(e - p), p);
    }
}

void gf_capture_meta_free(gf_capture_meta *m)
{
    if (m) {
        free(m->gpus);
        m->gpus = NULL;
    }
}

int gf_sqlite_capture_meta(const char *path, gf_capture_meta *m, gf_err *err)
{
    memset(m, 0, sizeof *m);
    m->duration_ns = -1;
    sqlite3 *db = NULL;
    if (gf_sqlite_open_readable(path, &db, err) != 0)
        return -1;
    const char *exp = has_table(db, "META_DATA_EXPORT") ? "META_DATA_EXPORT"
                      : has_table(db, "EXPORT_META_DATA") ? "EXPORT_META_DATA"
                                                          : NULL;
    char host[256] = "";
    if (exp) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT value FROM %s WHERE name = ? LIMIT 1", exp);
        one_text(db, sql, "EXPORT_PRODUCT_VERSION", m->nsys_version, sizeof m->nsys_version);
        one_text(db, sql, "EXPORT_SCHEMA_VERSION", m->schema_version, sizeof m->schema_version);
        one_text(db, sql, "EXPORT_HOST", host, sizeof host);
    }
    if (has_table(db, "TARGET_INFO_SYSTEM_ENV")) {
        sys_env(db, "NvDriverVersion", m->driver, sizeof m->driver);
        sys_env(db, "CudaDriverVersion", m->cuda_driver, sizeof m->cuda_driver);
        sys_env(db, "OsDescription", m->os, sizeof m->os);
        sys_env(db, "CpuDescription", m->cpu, sizeof m->cpu);
        sys_env(db, "Hostname", host, sizeof host);
        char dir[1024] = "";
        sys_env(db, "TargetInstallDir", dir, sizeof dir);
        version_in_path(dir, m->recorded_version, sizeof m->recorded_version);
    }
    if (host[0])
        hash_hex(host, m->host_hash);
    if (has_table(db, "TARGET_INFO_GPU")) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, "SELECT name FROM TARGET_INFO_GPU ORDER BY id", -1, &st, NULL) == SQLITE_OK) {
            size_t len = 0;
            while (sqlite3_step(st) == SQLITE_ROW) {
                const unsigned char *n = sqlite3_column_text(st, 0);
                const char *s = n ? (const char *)n : "";
                size_t l = strlen(s);
                char *g = realloc(m->gpus, len + l + 2);
                if (!g)
                    break;
                m->gpus = g;
                if (len)
                    g[len++] = '\n';
                memcpy(g + len, s, l);
                len += l;
                g[len] = '\0';
                m->ngpus++;
            }
            sqlite3_finalize(st);
        }
    }
    if (has_table(db, "META_DATA_CAPTURE")) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db,
                               "SELECT value FROM META_DATA_CAPTURE WHERE name GLOB 'PROCESS_[0-9]*:COMMAND' OR "
                               "name GLOB 'PROCESS_[0-9]*:ARGUMENT_[0-9]*' ORDER BY rowid",
                               -1, &st, NULL) == SQLITE_OK) {
            gf_sha256 c;
            gf_sha256_init(&c);
            int any = 0;
            while (sqlite3_step(st) == SQLITE_ROW) {
                const void *v = sqlite3_column_blob(st, 0);
                int n = sqlite3_column_bytes(st, 0);
                if (v && n > 0)
                    gf_sha256_update(&c, v, (size_t)n);
                gf_sha256_update(&c, "", 1);
                any = 1;
            }
            sqlite3_finalize(st);
            if (any) {
                unsigned char d[32];
                gf_sha256_final(&c, d);
                for (int i = 0; i < 32; i++)
                    snprintf(m->command_hash + 2 * i, 3, "%02x", d[i]);
            }
        }
    }
    if (has_table(db, "ANALYSIS_DETAILS"))
        m->duration_ns = one_int(db, "SELECT MAX(duration) FROM ANALYSIS_DETAILS", -1);
    if (has_table(db, "TARGET_INFO_SESSION_START_TIME"))
        one_text(db, "SELECT utcTime FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", NULL, m->start_utc,
                 sizeof m->start_utc);
    if (has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL"))
        m->kernels = one_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", 0);
    if (has_table(db, "CUDA_CALLCHAINS"))
        m->callchains = one_int(db, "SELECT EXISTS (SELECT 1 FROM CUDA_CALLCHAINS)", 0);
    sqlite3_close(db);
    return 0;
}
