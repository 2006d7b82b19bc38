/* CUDA trace reports: cuda_gpu_trace (kernels, memcpys, memsets by start) and cuda_api_trace (runtime
 * and driver calls by start). Rows stream from SQLite: a table already in start order (the common case)
 * is read in rowid order, another one through ORDER BY start, rowid (SQLite's sorter, which spills to
 * temporary files); the GPU tables are merged in C. Rules and sources: docs/REPORTS.md. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "mem.h"
#include "sqlite_export.h"

static void int_or_null(gf_tab *t, const gf_sqlq *q, int i)
{
    if (gf_sqlq_null(q, i))
        gf_tab_null(t);
    else
        gf_tab_int(t, gf_sqlq_i64(q, i, 0));
}

static void mem_or_null(gf_tab *t, const gf_sqlq *q, int i)
{
    if (gf_sqlq_null(q, i))
        gf_tab_null(t);
    else
        gf_tab_mem_int(t, gf_sqlq_i64(q, i, 0));
}

static void str_cell(gf_tab *t, gf_stats_db *d, int32_t sid)
{
    if (sid < 0) {
        gf_tab_null(t);
        return;
    }
    size_t len;
    const char *s = gf_strtab_get(d->str, sid, &len);
    gf_tab_text(t, s, len);
}

/* 1 when `start` never decreases in rowid order (then ORDER BY start, rowid is the rowid order and needs
 * no sort), 0 when it does, -1 on error. */
static int start_sorted(gf_stats_db *d, const char *table, gf_err *err)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT start FROM \"%s\" ORDER BY rowid", table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
        return gf_sqlite_fail(d->db, d->path, table, err);
    int rc, sorted = 1;
    int64_t prev = INT64_MIN;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
            sorted = 0;
            break;
        }
        int64_t v = sqlite3_column_int64(st, 0);
        if (v < prev) {
            sorted = 0;
            break;
        }
        prev = v;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gf_sqlite_fail(d->db, d->path, table, err);
    return sorted;
}

/* Prepares table's columns in (start, rowid) order. */
static int prepare_by_start(gf_stats_db *d, gf_sqlq *q, const char *table, const char *const *cols, int ncols,
                            int nreq, gf_err *err)
{
    int h = gf_sqlite_has_table(d->db, table);
    if (h < 0)
        return gf_sqlite_fail(d->db, d->path, table, err);
    if (h == 0) {
        memset(q, 0, sizeof *q);
        return 0;
    }
    int s = start_sorted(d, table, err);
    if (s < 0)
        return -1;
    return gf_stats_prepare(d, q, table, cols, ncols, nreq,
                                  s ? "ORDER BY rowid" : "ORDER BY start, rowid", err);
}

/* ---- TARGET_INFO_GPU: id → names (a LEFT JOIN: one output row per matching GPU row) ---- */

typedef struct gpus {
    int64_t *id;
    int32_t *name; /* str id, or -1 for a NULL name */
    size_t n;
} gpus;

static int load_gpus(gf_stats_db *d, gpus *g, gf_err *err)
{
    memset(g, 0, sizeof *g);
    static const char *const cols[] = {"id", "name"};
    gf_sqlq q;
    int r = gf_stats_prepare(d, &q, "TARGET_INFO_GPU", cols, 2, 1, "ORDER BY rowid", err);
    if (r <= 0)
        return r;
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        void **const cols[] = {(void **)&g->id, (void **)&g->name};
        const size_t elem[] = {sizeof *g->id, sizeof *g->name};
        if (gf_grow_cols(cols, elem, 2, &cap, g->n + 1, 8) != 0) {
            sqlite3_finalize(q.st);
            return gf_oom(err, NULL);
        }
        g->id[g->n] = gf_sqlq_i64(&q, 0, INT64_MIN);
        int32_t s = -1;
        if (!gf_sqlq_null(&q, 1)) {
            const char *v = (const char *)sqlite3_column_text(q.st, q.idx[1]);
            s = gf_strtab_intern(d->str, v ? v : "", v ? (size_t)sqlite3_column_bytes(q.st, q.idx[1]) : 0);
            if (s < 0) {
                sqlite3_finalize(q.st);
                return gf_oom(err, NULL);
            }
        }
        g->name[g->n++] = s;
    }
    sqlite3_finalize(q.st);
    return rc == SQLITE_DONE ? 1 : gf_sqlite_fail(d->db, d->path, "TARGET_INFO_GPU", err);
}

static void free_gpus(gpus *g)
{
    free(g->id);
    free(g->name);
}

/* ---- cuda_gpu_trace ---- */

enum { K_START, K_END, K_CORR, K_GX, K_GY, K_GZ, K_BX, K_BY, K_BZ, K_REG, K_SSM, K_DSM, K_DEV, K_CTX, K_GCTX,
       K_STRM, K_DMN, K_ALT, K_N };
enum { M_START, M_END, M_CORR, M_BYTES, M_SRC, M_DST, M_DEV, M_CTX, M_GCTX, M_STRM, M_KIND, M_N };
enum { S_START, S_END, S_CORR, S_BYTES, S_MKIND, S_DEV, S_CTX, S_GCTX, S_STRM, S_N };

static const gf_col gpu_cols[] = {
    {"Start", GF_U_TS},  {"Duration", GF_U_NS}, {"CorrId", GF_U_NONE},    {"GrdX", GF_U_NONE},
    {"GrdY", GF_U_NONE}, {"GrdZ", GF_U_NONE},   {"BlkX", GF_U_NONE},      {"BlkY", GF_U_NONE},
    {"BlkZ", GF_U_NONE}, {"Reg/Trd", GF_U_NONE}, {"StcSMem", GF_U_MEM},   {"DymSMem", GF_U_MEM},
    {"Bytes", GF_U_MEM}, {"Throughput", GF_U_THRU}, {"SrcMemKd", GF_U_NONE}, {"DstMemKd", GF_U_NONE},
    {"Device", GF_U_NONE}, {"Ctx", GF_U_NONE},  {"GreenCtx", GF_U_NONE},  {"Strm", GF_U_NONE},
    {"Name", GF_U_NONE},
};

typedef struct gpustate {
    gf_stats_db *d;
    gf_tab *t;
    gpus g;
    int32_t oper[GF_NCOPYKIND], opname[GF_NCOPYKIND], kind[GF_NCOPYKIND];
    int32_t memset_name;
    gf_err *err;
} gpustate;

static int32_t enum_at(const int32_t *a, const gf_sqlq *q, int i)
{
    if (gf_sqlq_null(q, i))
        return -1;
    int64_t v = gf_sqlq_i64(q, i, -1);
    return v >= 0 && v < GF_NCOPYKIND ? a[v] : -1;
}

/* Device: printf('%s (%d)', gpu.name, deviceId); a NULL name prints as nothing */
static void device_cell(gpustate *s, int32_t name, int64_t dev)
{
    char buf[600];
    const char *nm = name >= 0 ? gf_strtab_get(s->d->str, name, NULL) : "";
    int n = snprintf(buf, sizeof buf, "%s (%lld)", nm, (long long)dev);
    gf_tab_text(s->t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* bytes * (1000000000 / duration) in SQLite's integer arithmetic (a zero duration gives NULL; a product
 * that overflows 64 bits becomes a REAL) */
static void thru_cell(gf_tab *t, int64_t bytes, int64_t dur)
{
    if (dur == 0) {
        gf_tab_null(t);
        return;
    }
    int64_t q = 1000000000 / dur, p;
    if (__builtin_mul_overflow(bytes, q, &p))
        gf_tab_thru(t, (double)bytes * (double)q);
    else
        gf_tab_thru(t, (double)p);
}

/* Writes the current row of table `which` (0 kernel, 1 memcpy, 2 memset) once per matching GPU row. */
static int gpu_row(gpustate *s, int which, gf_sqlq *q)
{
    gf_tab *t = s->t;
    int dev_i = which == 0 ? K_DEV : which == 1 ? M_DEV : S_DEV;
    int64_t dev = gf_sqlq_i64(q, dev_i, 0);
    int32_t kname = -1;
    if (which == 0) {
        int64_t id = gf_sqlq_null(q, K_ALT) ? gf_sqlq_i64(q, K_DMN, -1) : gf_sqlq_i64(q, K_ALT, -1);
        gf_stats_string(s->d, id, &kname, NULL, s->err);
        if (s->err->code)
            return -1;
    }
    int matches = 0;
    for (size_t gi = 0; gi <= s->g.n; gi++) {
        int32_t gname;
        if (gi < s->g.n) {
            if (gf_sqlq_null(q, dev_i) || s->g.id[gi] != dev)
                continue;
            gname = s->g.name[gi];
        } else {
            if (matches)
                break;
            gname = -1; /* no GPU row: the LEFT JOIN's NULL name */
        }
        matches++;
        int64_t start = gf_sqlq_i64(q, 0, 0), end = gf_sqlq_i64(q, 1, 0);
        gf_tab_int(t, start);
        gf_tab_int(t, end - start);
        int_or_null(t, q, 2);
        if (which == 0) {
            for (int i = K_GX; i <= K_REG; i++)
                int_or_null(t, q, i);
            mem_or_null(t, q, K_SSM);
            mem_or_null(t, q, K_DSM);
            gf_tab_null(t); /* Bytes */
            gf_tab_null(t); /* Throughput */
            gf_tab_null(t); /* SrcMemKd */
            gf_tab_null(t); /* DstMemKd */
        } else {
            for (int i = 0; i < 9; i++)
                gf_tab_null(t);
            int bi = which == 1 ? M_BYTES : S_BYTES;
            mem_or_null(t, q, bi);
            if (gf_sqlq_null(q, bi))
                gf_tab_null(t);
            else
                thru_cell(t, gf_sqlq_i64(q, bi, 0), end - start);
            if (which == 1) {
                str_cell(t, s->d, enum_at(s->kind, q, M_SRC));
                str_cell(t, s->d, enum_at(s->kind, q, M_DST));
            } else {
                str_cell(t, s->d, enum_at(s->kind, q, S_MKIND));
                gf_tab_null(t);
            }
        }
        device_cell(s, gname, dev);
        int ctx = which == 0 ? K_CTX : which == 1 ? M_CTX : S_CTX;
        int gctx = which == 0 ? K_GCTX : which == 1 ? M_GCTX : S_GCTX;
        int strm = which == 0 ? K_STRM : which == 1 ? M_STRM : S_STRM;
        int_or_null(t, q, ctx);
        if (gf_sqlq_null(q, gctx) || gf_sqlq_i64(q, gctx, 0) == 0) /* NULLIF(greenContext, 0) */
            gf_tab_null(t);
        else
            gf_tab_int(t, gf_sqlq_i64(q, gctx, 0));
        int_or_null(t, q, strm);
        if (which == 0)
            str_cell(t, s->d, kname);
        else if (which == 1)
            str_cell(t, s->d, enum_at(s->opname, q, M_KIND));
        else
            str_cell(t, s->d, s->memset_name);
        gf_tab_end_row(t);
    }
    return 0;
}

int gf_rep_gpu_trace(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    const char *alt = o->kname == GF_KNAME_BASE ? "shortName" : o->kname == GF_KNAME_MANGLED ? "mangledName" : NULL;
    const char *kcols[K_N] = {"start", "end", "correlationId", "gridX", "gridY", "gridZ", "blockX", "blockY",
                              "blockZ", "registersPerThread", "staticSharedMemory", "dynamicSharedMemory",
                              "deviceId", "contextId", "greenContextId", "streamId", "demangledName",
                              alt ? alt : "demangledName"};
    static const char *const mcols[M_N] = {"start",     "end",      "correlationId", "bytes",
                                           "srcKind",   "dstKind",  "deviceId",      "contextId",
                                           "greenContextId", "streamId", "copyKind"};
    static const char *const scols[S_N] = {"start",    "end",       "correlationId",  "bytes",   "memKind",
                                           "deviceId", "contextId", "greenContextId", "streamId"};
    static const char *const names[3] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET"};
    int present = 0;
    for (int i = 0; i < 3; i++) {
        int h = gf_sqlite_has_table(d->db, names[i]);
        if (h < 0)
            return gf_sqlite_fail(d->db, d->path, names[i], err);
        present += h;
    }
    if (!present)
        return gf_stats_skip(d, res, "does not contain GPU trace data.");
    int hg = gf_sqlite_has_table(d->db, "TARGET_INFO_GPU");
    if (hg < 0)
        return gf_sqlite_fail(d->db, d->path, "TARGET_INFO_GPU", err);
    if (!hg)
        return gf_stats_skip(d, res, "file does not contain TARGET_INFO_GPU table.");

    gf_tab t;
    gf_tab_begin(&t, out, o, gpu_cols, 21);
    gpustate s;
    memset(&s, 0, sizeof s);
    s.d = d;
    s.t = &t;
    s.err = err;
    gf_sqlq q[3];
    memset(q, 0, sizeof q);
    int have[3] = {0, 0, 0}, ret = -1;
    if (load_gpus(d, &s.g, err) < 0 || gf_stats_enum(d, "ENUM_CUDA_MEMCPY_OPER", s.oper, GF_NCOPYKIND, err) != 0 ||
        gf_stats_enum(d, "ENUM_CUDA_MEM_KIND", s.kind, GF_NCOPYKIND, err) != 0)
        goto done;
    if ((s.memset_name = gf_strtab_intern_cstr(d->str, "[CUDA memset]")) < 0) {
        gf_oom(err, NULL);
        goto done;
    }
    for (int i = 0; i < GF_NCOPYKIND; i++) {
        s.opname[i] = -1;
        if (s.oper[i] < 0)
            continue;
        char buf[400];
        int n = snprintf(buf, sizeof buf, "[CUDA memcpy %s]", gf_strtab_get(d->str, s.oper[i], NULL));
        if ((s.opname[i] = gf_strtab_intern(d->str, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1)) < 0) {
            gf_oom(err, NULL);
            goto done;
        }
    }
    const char *const *cols[3] = {kcols, mcols, scols};
    int ncols[3] = {K_N, M_N, S_N};
    int alive[3];
    for (int i = 0; i < 3; i++) {
        int r = prepare_by_start(d, &q[i], names[i], cols[i], ncols[i], 2, err);
        if (r < 0)
            goto done;
        have[i] = r;
        alive[i] = 0;
        if (r) {
            int rc = sqlite3_step(q[i].st);
            if (rc == SQLITE_ROW)
                alive[i] = 1;
            else if (rc != SQLITE_DONE) {
                gf_sqlite_fail(d->db, d->path, names[i], err);
                goto done;
            }
        }
    }
    /* merge by start; equal starts keep the UNION ALL order (kernels, memcpys, memsets) */
    int64_t n = 0;
    gf_err_clear(err);
    for (;;) {
        int best = -1;
        int64_t bs = 0;
        for (int i = 0; i < 3; i++) {
            if (!alive[i])
                continue;
            int64_t st = gf_sqlq_i64(&q[i], 0, INT64_MIN);
            if (best < 0 || st < bs) {
                best = i;
                bs = st;
            }
        }
        if (best < 0)
            break;
        if ((++n & 0xffff) == 0 && gf_stats_interrupted(err))
            goto done;
        if (gpu_row(&s, best, &q[best]) != 0)
            goto done;
        int rc = sqlite3_step(q[best].st);
        if (rc != SQLITE_ROW) {
            alive[best] = 0;
            if (rc != SQLITE_DONE) {
                gf_sqlite_fail(d->db, d->path, names[best], err);
                goto done;
            }
        }
    }
    ret = 0;
done:
    for (int i = 0; i < 3; i++)
        if (have[i])
            sqlite3_finalize(q[i].st);
    free_gpus(&s.g);
    res->rows = t.rows;
    if (gf_tab_finish(&t, ret == 0 ? err : NULL) != 0)
        ret = -1;
    return ret;
}

/* ---- cuda_api_trace ---- */

typedef struct tname {
    int64_t gtid;
    int64_t prio;
    size_t row; /* rowid order: a thread's rows keep it */
    int32_t name;
    int prio_null;
} tname;

static int cmp_tname(const void *x, const void *y)
{
    const tname *a = x, *b = y;
    if (a->gtid != b->gtid)
        return a->gtid < b->gtid ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

static const gf_col api_cols[] = {
    {"Start", GF_U_TS}, {"Duration", GF_U_NS}, {"Name", GF_U_NONE}, {"Result", GF_U_NONE}, {"CorrID", GF_U_NONE},
    {"Pid", GF_U_NONE}, {"Tid", GF_U_NONE},    {"T-Pri", GF_U_NONE}, {"Thread Name", GF_U_NONE},
};

/* ThreadNames: globalTid → (priority, name) rows, in rowid order per thread, sorted by (globalTid, rowid). */
static int load_thread_names(gf_stats_db *d, tname **out, size_t *nout, gf_err *err)
{
    tname *tn = NULL;
    size_t ntn = 0, cap = 0;
    static const char *const tcols[] = {"globalTid", "priority", "nameId"};
    gf_sqlq q;
    int r = gf_stats_prepare(d, &q, "ThreadNames", tcols, 3, 1, "ORDER BY rowid", err);
    if (r < 0)
        return -1;
    int rc = SQLITE_DONE;
    while (r > 0 && (rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        if (gf_sqlq_null(&q, 0))
            continue;
        if (GF_GROW(tn, cap, ntn + 1, 64) != 0) {
            sqlite3_finalize(q.st);
            free(tn);
            return gf_oom(err, NULL);
        }
        tname *x = &tn[ntn];
        x->row = ntn++;
        x->gtid = gf_sqlq_i64(&q, 0, 0);
        x->prio_null = gf_sqlq_null(&q, 1);
        x->prio = gf_sqlq_i64(&q, 1, 0);
        x->name = -1;
        if (!gf_sqlq_null(&q, 2)) {
            gf_err_clear(err);
            gf_stats_string(d, gf_sqlq_i64(&q, 2, 0), &x->name, NULL, err);
            if (err->code) {
                sqlite3_finalize(q.st);
                free(tn);
                return -1;
            }
        }
    }
    if (r > 0) {
        sqlite3_finalize(q.st);
        if (rc != SQLITE_DONE) {
            free(tn);
            return gf_sqlite_fail(d->db, d->path, "ThreadNames", err);
        }
    }
    if (ntn > 1) /* qsort wants a non-NULL base even for 0 elements */
        qsort(tn, ntn, sizeof *tn, cmp_tname);
    *out = tn;
    *nout = ntn;
    return 0;
}

int gf_rep_api_trace(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    int h = gf_sqlite_has_table(d->db, "CUPTI_ACTIVITY_KIND_RUNTIME");
    if (h < 0)
        return gf_sqlite_fail(d->db, d->path, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
    if (!h)
        return gf_stats_skip(d, res, "does not contain CUDA trace data.");
    h = gf_sqlite_has_table(d->db, "ThreadNames");
    if (h < 0)
        return gf_sqlite_fail(d->db, d->path, "ThreadNames", err);
    if (!h)
        return gf_stats_skip(d, res, "file does not contain ThreadNames table.");
    tname *tn = NULL;
    size_t ntn = 0;
    if (load_thread_names(d, &tn, &ntn, err) != 0)
        return -1;
    gf_sqlq q;
    int rc;
    static const char *const cols[] = {"start", "end", "nameId", "returnValue", "correlationId", "globalTid"};
    int r = prepare_by_start(d, &q, "CUPTI_ACTIVITY_KIND_RUNTIME", cols, 6, 2, err);
    if (r <= 0) {
        free(tn);
        return r < 0 ? -1 : gf_stats_skip(d, res, "does not contain CUDA trace data.");
    }
    gf_tab t;
    gf_tab_begin(&t, out, o, api_cols, 9);
    gf_hmap apin; /* nameId → str id of the API name (+1) */
    gf_hmap_init(&apin);
    int ret = 0;
    int64_t n = 0;
    gf_err_clear(err);
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        if ((++n & 0xffff) == 0 && gf_stats_interrupted(err)) {
            ret = -1;
            break;
        }
        int32_t nm = -1;
        if (!gf_sqlq_null(&q, 2)) {
            int64_t id = gf_sqlq_i64(&q, 2, 0);
            int64_t *v = gf_hmap_get(&apin, (uint64_t)id);
            if (v) {
                nm = (int32_t)*v - 1;
            } else {
                size_t len, nl;
                const char *s = gf_stats_string(d, id, NULL, &len, err);
                if (err->code) {
                    ret = -1;
                    break;
                }
                if (s) {
                    gf_stats_api_name(s, len, &nl);
                    if ((nm = gf_strtab_intern(d->str, s, nl)) < 0) {
                        ret = gf_oom(err, NULL);
                        break;
                    }
                }
                if (!gf_hmap_put(&apin, (uint64_t)id, nm + 1, NULL)) {
                    ret = gf_oom(err, NULL);
                    break;
                }
            }
        }
        int64_t gtid = gf_sqlq_i64(&q, 5, 0);
        /* the thread's ThreadNames rows (LEFT JOIN: none → one row with NULLs) */
        size_t lo = 0, hi = ntn;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (tn[mid].gtid < gtid)
                lo = mid + 1;
            else
                hi = mid;
        }
        int gnull = gf_sqlq_null(&q, 5);
        size_t k = lo;
        int first = 1;
        while (first || (!gnull && k < ntn && tn[k].gtid == gtid)) {
            const tname *x = (!gnull && k < ntn && tn[k].gtid == gtid) ? &tn[k] : NULL;
            first = 0;
            int64_t start = gf_sqlq_i64(&q, 0, 0);
            gf_tab_int(&t, start);
            gf_tab_int(&t, gf_sqlq_i64(&q, 1, 0) - start);
            str_cell(&t, d, nm);
            int_or_null(&t, &q, 3);
            int_or_null(&t, &q, 4);
            if (gnull) {
                gf_tab_null(&t);
                gf_tab_null(&t);
            } else {
                gf_tab_int(&t, (gtid >> 24) & 0xFFFFFF);
                gf_tab_int(&t, gtid & 0xFFFFFF);
            }
            if (x && !x->prio_null)
                gf_tab_int(&t, x->prio);
            else
                gf_tab_null(&t);
            str_cell(&t, d, x ? x->name : -1);
            gf_tab_end_row(&t);
            if (!x)
                break;
            k++;
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = gf_sqlite_fail(d->db, d->path, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
    sqlite3_finalize(q.st);
    gf_hmap_free(&apin);
    free(tn);
    res->rows = t.rows;
    if (gf_tab_finish(&t, ret == 0 ? err : NULL) != 0)
        ret = -1;
    return ret;
}
