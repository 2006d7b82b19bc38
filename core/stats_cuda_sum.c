/* CUDA summary reports: cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum.
 * One pass over the table in rowid order (the order SQLite feeds a GROUP BY's aggregates), groups in a
 * hash map, then the groups sorted as the script's ORDER BY (stable: ties keep the GROUP BY order).
 * Rules and their sources: docs/REPORTS.md. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "sqlite_export.h"

static int step_done(gf_stats_db *d, gf_sqlq *q, int rc, gf_err *err)
{
    sqlite3_finalize(q->st);
    q->st = NULL;
    return rc == SQLITE_DONE ? 0 : gf_sqlite_fail(d->db, d->path, q->table, err);
}

typedef struct sortctx {
    const gf_strtab *st;
    int by; /* 0: total desc, count asc, name asc (kern sum); 1: total desc, then group order */
} sortctx;

static int cmp_groups(const void *x, const void *y, void *arg)
{
    const gf_sumgrp *a = x, *b = y;
    const sortctx *c = arg;
    if (a->a.sum != b->a.sum)
        return a->a.sum > b->a.sum ? -1 : 1;
    if (c->by == 0) {
        if (a->a.n != b->a.n)
            return a->a.n < b->a.n ? -1 : 1;
        int s = gf_stats_strcmp(c->st, a->name, b->name);
        if (s)
            return s;
    }
    return a->key < b->key ? -1 : a->key > b->key; /* the GROUP BY order (set by the caller) */
}

static int64_t grand_total(const gf_sums *s)
{
    int64_t t = 0;
    for (size_t i = 0; i < s->n; i++)
        t += s->g[i].a.sum;
    return t;
}

static void name_cell(gf_tab *t, gf_stats_db *d, int32_t name)
{
    if (name < 0) {
        gf_tab_null(t);
        return;
    }
    size_t len;
    const char *s = gf_strtab_get(d->str, name, &len);
    gf_tab_text(t, s, len);
}

typedef struct namectx {
    const gf_strtab *st;
    const gf_sumgrp *g;
} namectx;

static int cmp_name_idx(const void *x, const void *y, void *arg)
{
    const namectx *c = arg;
    return gf_stats_strcmp(c->st, c->g[*(const int32_t *)x].name, c->g[*(const int32_t *)y].name);
}

/* GROUP BY name: the groups' order is the names' (NULL first, then SQLite's BINARY collation); it
 * becomes g->key, the tie-break of the ORDER BY. */
static int key_by_name(gf_stats_db *d, gf_sums *s)
{
    int32_t *ord = malloc((s->n ? s->n : 1) * sizeof *ord);
    if (!ord)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        ord[i] = (int32_t)i;
    namectx c = {d->str, s->g};
    if (s->n > 1) /* qsort wants a non-NULL base even for 0 elements */
        qsort_r(ord, s->n, sizeof *ord, cmp_name_idx, &c);
    for (size_t i = 0; i < s->n; i++)
        s->g[ord[i]].key = (int64_t)i;
    free(ord);
    return 0;
}

static const gf_col time_cols[] = {
    {"Time", GF_U_PCT}, {"Total Time", GF_U_NS}, {"Instances", GF_U_NONE}, {"Avg", GF_U_NS}, {"Med", GF_U_NS},
    {"Min", GF_U_NS},   {"Max", GF_U_NS},        {"StdDev", GF_U_NS},      {"Name", GF_U_NONE},
};

static int write_time_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_sums *s,
                          const char *count_label, const char *name_label, int by, gf_err *err)
{
    gf_col cols[9];
    memcpy(cols, time_cols, sizeof cols);
    cols[2].label = count_label;
    cols[8].label = name_label;
    sortctx c = {d->str, by};
    if (s->n > 1) /* qsort wants a non-NULL base even for 0 elements */
        qsort_r(s->g, s->n, sizeof *s->g, cmp_groups, &c);
    int64_t grand = grand_total(s);
    gf_tab t;
    gf_tab_begin(&t, out, o, cols, 9);
    for (size_t i = 0; i < s->n; i++) {
        gf_sums_time_cells(&t, &s->g[i].a, grand);
        name_cell(&t, d, s->g[i].name);
        gf_tab_end_row(&t);
    }
    res->rows = t.rows;
    return gf_tab_finish(&t, err);
}

/* ---- cuda_gpu_kern_sum ---- */

int gf_rep_kern_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    /* kernel_helper's name column: demangledName, shortName (:base) or mangledName (:mangled, when the
     * export has it), falling back to demangledName (gpukernsum.py: coalesce({NAME_COL_NAME}, demangledName)) */
    const char *alt = o->kname == GF_KNAME_BASE ? "shortName" : o->kname == GF_KNAME_MANGLED ? "mangledName" : NULL;
    const char *cols[] = {"start", "end", "demangledName", alt ? alt : "demangledName"};
    gf_sqlq q;
    int r = gf_stats_prepare(d, &q, "CUPTI_ACTIVITY_KIND_KERNEL", cols, 4, 2, NULL, err);
    if (r < 0)
        return -1;
    if (r == 0)
        return gf_stats_skip(d, res, "does not contain CUDA kernel data.");
    gf_sums s;
    gf_sums_init(&s);
    gf_hmap byid; /* name id → group index */
    gf_hmap_init(&byid);
    int rc, ret = 0;
    int64_t n = 0;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        if ((++n & 0xffff) == 0 && gf_stats_interrupted(err)) {
            ret = -1;
            break;
        }
        if (gf_sqlq_null(&q, 0) || gf_sqlq_null(&q, 1))
            continue;
        int64_t id = gf_sqlq_null(&q, 3) ? gf_sqlq_i64(&q, 2, -1) : gf_sqlq_i64(&q, 3, -1);
        int64_t *gi = gf_hmap_get(&byid, (uint64_t)id);
        gf_sumgrp *g;
        if (gi) {
            g = &s.g[*gi];
        } else {
            int32_t sid = -1;
            if (!gf_stats_string(d, id, &sid, NULL, err) && err->code) {
                ret = -1;
                break;
            }
            /* GROUP BY the name text: ids with the same text (or no text) share a group */
            g = gf_sums_get(&s, (uint64_t)(int64_t)sid, NULL);
            if (!g || !gf_hmap_put(&byid, (uint64_t)id, g - s.g, NULL)) {
                ret = gf_oom(err, NULL);
                break;
            }
            g->name = sid;
        }
        if (gf_agg_add(&g->a, gf_sqlq_i64(&q, 1, 0) - gf_sqlq_i64(&q, 0, 0)) != 0) {
            ret = gf_oom(err, NULL);
            break;
        }
    }
    if (ret == 0)
        ret = step_done(d, &q, rc, err);
    else
        sqlite3_finalize(q.st);
    gf_hmap_free(&byid);
    if (ret == 0) {
        if (key_by_name(d, &s) != 0)
            ret = gf_oom(err, NULL);
    }
    if (ret == 0)
        ret = write_time_sum(d, o, out, res, &s, "Instances", "Name", 0, err);
    gf_sums_free(&s);
    return ret;
}

/* ---- cuda_api_sum ---- */

/* The scripts' API name: CASE substr(value, -6, 2) WHEN '_v' THEN substr(value, 1, length(value)-6)
 * ELSE value END. substr/length count characters (UTF-8), and a name shorter than 6 characters never
 * matches (substr(-6) then starts before the string). */
void gf_stats_api_name(const char *v, size_t len, size_t *outlen)
{
    *outlen = len;
    /* find the byte offset of the 6th character from the end */
    size_t chars = 0, pos = len;
    while (pos > 0 && chars < 6) {
        pos--;
        while (pos > 0 && ((unsigned char)v[pos] & 0xC0) == 0x80)
            pos--;
        chars++;
    }
    if (chars < 6)
        return;
    if (len - pos >= 2 && v[pos] == '_' && v[pos + 1] == 'v')
        *outlen = pos;
}

int gf_rep_api_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    static const char *const cols[] = {"start", "end", "nameId"};
    gf_sqlq q;
    int r = gf_stats_prepare(d, &q, "CUPTI_ACTIVITY_KIND_RUNTIME", cols, 3, 2, NULL, err);
    if (r < 0)
        return -1;
    if (r == 0)
        return gf_stats_skip(d, res, "does not contain CUDA trace data.");
    gf_sums s;
    gf_sums_init(&s);
    int rc, ret = 0;
    int64_t n = 0;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        if ((++n & 0xffff) == 0 && gf_stats_interrupted(err)) {
            ret = -1;
            break;
        }
        if (gf_sqlq_null(&q, 0) || gf_sqlq_null(&q, 1))
            continue;
        /* GROUP BY nameId; the key is the GROUP BY order (NULL first) */
        int64_t id = gf_sqlq_null(&q, 2) ? INT64_MIN : gf_sqlq_i64(&q, 2, 0);
        gf_sumgrp *g = gf_sums_get(&s, (uint64_t)id, NULL);
        if (!g || gf_agg_add(&g->a, gf_sqlq_i64(&q, 1, 0) - gf_sqlq_i64(&q, 0, 0)) != 0) {
            ret = gf_oom(err, NULL);
            break;
        }
    }
    if (ret == 0)
        ret = step_done(d, &q, rc, err);
    else
        sqlite3_finalize(q.st);
    for (size_t i = 0; ret == 0 && i < s.n; i++) {
        gf_sumgrp *g = &s.g[i];
        if (g->key == INT64_MIN)
            continue;
        size_t len;
        const char *v = gf_stats_string(d, g->key, NULL, &len, err);
        if (!v) {
            if (err->code)
                ret = -1;
            continue;
        }
        size_t nl;
        gf_stats_api_name(v, len, &nl);
        if ((g->name = gf_strtab_intern(d->str, v, nl)) < 0)
            ret = gf_oom(err, NULL);
    }
    if (ret == 0)
        ret = write_time_sum(d, o, out, res, &s, "Num Calls", "Name", 1, err);
    gf_sums_free(&s);
    return ret;
}

/* ---- cuda_gpu_mem_time_sum / cuda_gpu_mem_size_sum ---- */

/* The memory operations: memcpy rows INNER JOIN ENUM_CUDA_MEMCPY_OPER (a copyKind without a label is
 * left out), named '[CUDA memcpy ' || label || ']'; memset rows named '[CUDA memset]'. Grouped by
 * name; size = true groups bytes, else durations. */
static int memops(gf_stats_db *d, gf_sums *s, int size, int *found, gf_err *err)
{
    *found = 0;
    int32_t labels[GF_NCOPYKIND], names[GF_NCOPYKIND];
    for (int table = 0; table < 2; table++) {
        const char *tname = table ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
        const char *cols[] = {"start", "end", "bytes", "copyKind"};
        gf_sqlq q;
        int r = gf_stats_prepare(d, &q, tname, cols, table ? 3 : 4, 2, NULL, err);
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        *found = 1;
        int32_t msname = gf_strtab_intern_cstr(d->str, "[CUDA memset]");
        if (msname < 0) {
            sqlite3_finalize(q.st);
            return gf_oom(err, NULL);
        }
        if (!table) {
            if (gf_stats_enum(d, "ENUM_CUDA_MEMCPY_OPER", labels, GF_NCOPYKIND, err) != 0) {
                sqlite3_finalize(q.st);
                return -1;
            }
            for (int i = 0; i < GF_NCOPYKIND; i++) {
                names[i] = -1;
                if (labels[i] < 0)
                    continue;
                char buf[400];
                int n = snprintf(buf, sizeof buf, "[CUDA memcpy %s]", gf_strtab_get(d->str, labels[i], NULL));
                if ((names[i] = gf_strtab_intern(d->str, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1)) <
                    0) {
                    sqlite3_finalize(q.st);
                    return gf_oom(err, NULL);
                }
            }
        }
        int rc;
        int64_t n = 0;
        while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
            if ((++n & 0xffff) == 0 && gf_stats_interrupted(err)) {
                sqlite3_finalize(q.st);
                return -1;
            }
            int32_t name = msname;
            if (!table) {
                int64_t k = gf_sqlq_i64(&q, 3, -1);
                if (k < 0 || k >= GF_NCOPYKIND || names[k] < 0)
                    continue;
                name = names[k];
            }
            int64_t v;
            if (size) {
                if (gf_sqlq_null(&q, 2))
                    continue;
                v = gf_sqlq_i64(&q, 2, 0);
            } else {
                if (gf_sqlq_null(&q, 0) || gf_sqlq_null(&q, 1))
                    continue;
                v = gf_sqlq_i64(&q, 1, 0) - gf_sqlq_i64(&q, 0, 0);
            }
            gf_sumgrp *g = gf_sums_get(s, (uint64_t)(int64_t)name, NULL);
            if (!g || gf_agg_add(&g->a, v) != 0) {
                sqlite3_finalize(q.st);
                return gf_oom(err, NULL);
            }
            g->name = name;
        }
        if (step_done(d, &q, rc, err) != 0)
            return -1;
    }
    return key_by_name(d, s) == 0 ? 0 : gf_oom(err, NULL);
}

int gf_rep_mem_time_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    gf_sums s;
    gf_sums_init(&s);
    int found;
    int ret = memops(d, &s, 0, &found, err);
    if (ret == 0 && !found)
        ret = gf_stats_skip(d, res, "does not contain GPU memory data.");
    else if (ret == 0)
        ret = write_time_sum(d, o, out, res, &s, "Count", "Operation", 1, err);
    gf_sums_free(&s);
    return ret;
}

static const gf_col size_cols[] = {
    {"Total", GF_U_MEM}, {"Count", GF_U_NONE}, {"Avg", GF_U_MEM},    {"Med", GF_U_MEM},
    {"Min", GF_U_MEM},   {"Max", GF_U_MEM},    {"StdDev", GF_U_MEM}, {"Operation", GF_U_NONE},
};

int gf_rep_mem_size_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    gf_sums s;
    gf_sums_init(&s);
    int found;
    int ret = memops(d, &s, 1, &found, err);
    if (ret == 0 && !found)
        ret = gf_stats_skip(d, res, "does not contain GPU memory data.");
    if (ret == 0 && found) {
        sortctx c = {d->str, 1};
        if (s.n > 1) /* qsort wants a non-NULL base even for 0 elements */
            qsort_r(s.g, s.n, sizeof *s.g, cmp_groups, &c); /* ORDER BY 1 DESC (total bytes) */
        gf_tab t;
        gf_tab_begin(&t, out, o, size_cols, 8);
        for (size_t i = 0; i < s.n; i++) {
            gf_agg *a = &s.g[i].a;
            /* no rounding here: avg/median/stdev as the aggregates return them */
            gf_tab_mem_int(&t, a->sum);
            gf_tab_int(&t, a->n);
            gf_tab_mem_float(&t, gf_agg_avg(a));
            int64_t im;
            double dm;
            if (gf_agg_median(a, &im, &dm))
                gf_tab_mem_int(&t, im);
            else
                gf_tab_mem_float(&t, dm);
            gf_tab_mem_int(&t, a->min);
            gf_tab_mem_int(&t, a->max);
            gf_tab_mem_float(&t, gf_agg_stdev(a));
            name_cell(&t, d, s.g[i].name);
            gf_tab_end_row(&t);
        }
        res->rows = t.rows;
        ret = gf_tab_finish(&t, err);
    }
    gf_sums_free(&s);
    return ret;
}
