/* Capture metadata from an nsys SQLite export, read once for every use (see sqlite_meta.h). */
#include "sqlite_meta.h"
#include "mem.h"

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
    return gf_sqlite_has_table(db, table) > 0;
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
    if (!m)
        return;
    free(m->gpus);
    m->gpus = NULL;
    for (size_t i = 0; i < m->nkv; i++) {
        free(m->kv[i].key);
        free(m->kv[i].value);
    }
    free(m->kv);
    m->kv = NULL;
    m->nkv = 0;
    free(m->host);
    m->host = NULL;
}

/* ---- for merging several reports (issue 14): session start, processes, selected environment ---- */

static int meta_kv(gf_capture_meta *mt, const char *k, const char *v)
{
    if (GF_RESIZE(mt->kv, mt->nkv + 1) != 0)
        return -1;
    gf_sqlite_kv *q = mt->kv;
    q[mt->nkv].key = strdup(k);
    q[mt->nkv].value = strdup(v ? v : "");
    if (!q[mt->nkv].key || !q[mt->nkv].value) {
        free(q[mt->nkv].key);
        free(q[mt->nkv].value);
        return -1;
    }
    mt->nkv++;
    return 0;
}

/* "PROCESS_<n>:ARGS_HASH" kv entries: per launched process n, the first 16 hex digits of SHA-256 over its
 * META_DATA_CAPTURE COMMAND and ARGUMENT_<k> values (table order, each followed by a NUL byte), so a process
 * is known by its executable and arguments without them leaving this file. */
static int process_args_hashes(sqlite3 *db, gf_capture_meta *mt)
{
    if (!has_table(db, "META_DATA_CAPTURE"))
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT name, value FROM META_DATA_CAPTURE WHERE name GLOB 'PROCESS_[0-9]*:COMMAND' OR "
                           "name GLOB 'PROCESS_[0-9]*:ARGUMENT_[0-9]*' ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    struct acc {
        long n;
        gf_sha256 c;
    } *a = NULL;
    size_t na = 0;
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        long n = k ? strtol(k + 8, NULL, 10) : -1;
        size_t i = 0;
        while (i < na && a[i].n != n)
            i++;
        if (i == na) {
            if (GF_RESIZE(a, na + 1) != 0) {
                rc = -1;
                break;
            }
            a[na].n = n;
            gf_sha256_init(&a[na].c);
            na++;
        }
        const void *v = sqlite3_column_blob(st, 1);
        int len = sqlite3_column_bytes(st, 1);
        if (v && len > 0)
            gf_sha256_update(&a[i].c, v, (size_t)len);
        gf_sha256_update(&a[i].c, "", 1);
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < na && rc == 0; i++) {
        unsigned char d[32];
        char hex[17], key[64];
        gf_sha256_final(&a[i].c, d);
        for (int j = 0; j < 8; j++)
            snprintf(hex + 2 * j, 3, "%02x", d[j]);
        snprintf(key, sizeof key, "PROCESS_%ld:ARGS_HASH", a[i].n);
        rc = meta_kv(mt, key, hex);
    }
    free(a);
    return rc;
}

/* "2026-04-29T20:31:39" (UTC) → epoch ns; -1 when malformed */
static int64_t parse_utc(const char *s)
{
    int y, mo, d, h, mi, se;
    if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &se) != 6 || mo < 1 || mo > 12)
        return -1;
    /* days from civil (Howard Hinnant's algorithm), no timegm/TZ dependence */
    y -= mo <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    return ((days * 24 + h) * 60 + mi) * 60 * 1000000000ll + (int64_t)se * 1000000000ll;
}

/* session_start/session_field, host, kv (sqlite_meta.h) */
static int finish(sqlite3 *db, const char *path, gf_sqlq *q, int rc, gf_err *err)
{
    sqlite3_finalize(q->st);
    q->st = NULL;
    return rc == SQLITE_DONE ? 0 : gf_sqlite_fail(db, path, q->table, err);
}

static int read_rank_meta(sqlite3 *db, const char *path, const char *const *env_names, size_t nenv,
                          gf_capture_meta *mt, gf_err *err)
{
    int ret = -1, rc;
    gf_sqlq q;
    /* session start: TARGET_INFO_SESSION_START_TIME (every schema era seen: 2.9.1 .. 3.24) */
    {
        static const char *const cols[] = {"utcEpochNs", "utcTime"};
        int r = gf_sqlite_prepare_cols(db, path, &q, "TARGET_INFO_SESSION_START_TIME", cols, 2, 0, NULL, err);
        if (r < 0)
            goto done;
        if (r > 0) {
            if (sqlite3_step(q.st) == SQLITE_ROW) {
                if (!gf_sqlq_null(&q, 0)) {
                    mt->session_start = gf_sqlq_i64(&q, 0, -1);
                    snprintf(mt->session_field, sizeof mt->session_field, "TARGET_INFO_SESSION_START_TIME.utcEpochNs");
                } else if (!gf_sqlq_null(&q, 1)) {
                    mt->session_start = parse_utc((const char *)sqlite3_column_text(q.st, q.idx[1]));
                    if (mt->session_start >= 0)
                        snprintf(mt->session_field, sizeof mt->session_field, "TARGET_INFO_SESSION_START_TIME.utcTime");
                }
            }
            sqlite3_finalize(q.st);
        }
    }
    /* name/value metadata tables: a SESSION_START* record (older/other eras), PROCESS_n:PID and the
     * wanted environment variables (META_DATA_CAPTURE only) */
    static const char *const metas[] = {"META_DATA_CAPTURE", "EXPORT_META_DATA", "META_DATA_EXPORT"};
    for (int t = 0; t < 3; t++) {
        static const char *const cols[] = {"name", "value"};
        int r = gf_sqlite_prepare_cols(db, path, &q, metas[t], cols, 2, 2, NULL, err);
        if (r < 0)
            goto done;
        if (r == 0)
            continue;
        while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
            const char *k = (const char *)sqlite3_column_text(q.st, 0);
            const char *v = (const char *)sqlite3_column_text(q.st, 1);
            if (!k || !v)
                continue;
            if (mt->session_start < 0 && strncmp(k, "SESSION_START", 13) == 0) {
                char *e;
                long long ns = strtoll(v, &e, 10);
                int64_t val = (*v && !*e) ? (int64_t)ns : parse_utc(v);
                if (val >= 0) {
                    mt->session_start = val;
                    snprintf(mt->session_field, sizeof mt->session_field, "%s.%s", metas[t], k);
                }
                continue;
            }
            if (t != 0 || strncmp(k, "PROCESS_", 8) != 0)
                continue;
            const char *colon = strchr(k, ':');
            if (!colon)
                continue;
            char key[256];
            if (strcmp(colon + 1, "PID") == 0) {
                snprintf(key, sizeof key, "%.*s:PID", (int)(colon - k), k);
                if (meta_kv(mt, key, v) != 0) {
                    sqlite3_finalize(q.st);
                    goto oom;
                }
            } else if (strcmp(colon + 1, "ENVIRONMENT_VARIABLE") == 0) {
                const char *eq = strchr(v, '=');
                if (!eq)
                    continue;
                for (size_t i = 0; i < nenv; i++) {
                    size_t n = strlen(env_names[i]);
                    if ((size_t)(eq - v) == n && strncmp(v, env_names[i], n) == 0) {
                        snprintf(key, sizeof key, "%.*s:ENV:%s", (int)(colon - k), k, env_names[i]);
                        if (meta_kv(mt, key, eq + 1) != 0) {
                            sqlite3_finalize(q.st);
                            goto oom;
                        }
                    }
                }
            }
        }
        if (finish(db, path, &q, rc, err) != 0)
            goto done;
    }
    {
        static const char *const cols[] = {"pid", "name"};
        int r = gf_sqlite_prepare_cols(db, path, &q, "PROCESSES", cols, 2, 1, NULL, err);
        if (r < 0)
            goto done;
        if (r > 0) {
            while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
                char key[64];
                snprintf(key, sizeof key, "PROCESSES:%lld", (long long)gf_sqlq_i64(&q, 0, -1));
                const char *v = gf_sqlq_null(&q, 1) ? "" : (const char *)sqlite3_column_text(q.st, q.idx[1]);
                if (meta_kv(mt, key, v) != 0) {
                    sqlite3_finalize(q.st);
                    goto oom;
                }
            }
            if (finish(db, path, &q, rc, err) != 0)
                goto done;
        }
    }
    {
        static const char *const cols[] = {"name", "value"};
        int r = gf_sqlite_prepare_cols(db, path, &q, "TARGET_INFO_SYSTEM_ENV", cols, 2, 2, "WHERE name = 'Hostname' LIMIT 1", err);
        if (r < 0)
            goto done;
        if (r > 0) {
            if (sqlite3_step(q.st) == SQLITE_ROW && sqlite3_column_text(q.st, 1) &&
                !(mt->host = strdup((const char *)sqlite3_column_text(q.st, 1)))) {
                sqlite3_finalize(q.st);
                goto oom;
            }
            sqlite3_finalize(q.st);
        }
    }
    if (process_args_hashes(db, mt) != 0)
        goto oom;
    ret = 0;
    goto done;
oom:
    gf_oom(err, path);
done:
    return ret;
}


int gf_sqlite_capture_meta(const char *path, const char *const *env_names, size_t nenv, gf_capture_meta *m,
                           gf_err *err)
{
    memset(m, 0, sizeof *m);
    m->duration_ns = -1;
    m->session_start = -1;
    sqlite3 *db = NULL;
    if (gf_sqlite_open_readable(path, &db, err) != 0)
        return -1;
    if (read_rank_meta(db, path, env_names, nenv, m, err) != 0) {
        sqlite3_close(db);
        return -1;
    }
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
        /* CUDA devices only: on Windows nsys lists every display adapter (an Intel iGPU, "Microsoft Basic Render
         * Driver"), with no multiprocessors; a schema without smCount lists them all */
        if (sqlite3_prepare_v2(db, "SELECT name FROM TARGET_INFO_GPU WHERE smCount > 0 ORDER BY id", -1, &st, NULL) ==
                SQLITE_OK ||
            sqlite3_prepare_v2(db, "SELECT name FROM TARGET_INFO_GPU ORDER BY id", -1, &st, NULL) == SQLITE_OK) {
            size_t len = 0;
            while (sqlite3_step(st) == SQLITE_ROW) {
                const unsigned char *n = sqlite3_column_text(st, 0);
                const char *s = n ? (const char *)n : "";
                size_t l = strlen(s);
                if (GF_RESIZE(m->gpus, len + l + 2) != 0)
                    break;
                char *g = m->gpus;
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
