/* The GPU projection of NVTX ranges: nvtx_gpu_proj_trace and nvtx_gpu_proj_sum.
 *
 * The scripts join three ways: GPU op (kernel, memcpy, memset) ⋈ CUDA call on correlation id and process,
 * ⋈ every range of the call's thread that encloses the call; per range min(op.start), max(op.end) and
 * count(DISTINCT r.correlationId). Here: GPU ops are grouped by (process, correlation id) and joined with
 * the calls by sorting; the calls are swept by start against the ranges of their thread (loaded and
 * treed by core/stats_nvtx.c), and calls of one thread that share a correlation id count once per range.
 * Rules and sources: docs/REPORTS.md. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "mem.h"
#include "stats_nvtx.h"
#include "sqlite_export.h"

typedef struct opkey {
    int64_t gpid, corr, start, end;
    int32_t dev; /* deviceId of the op that starts first (-1: NULL) */
} opkey;

typedef gf_snv_call call;

static int cmp_opkey(const void *x, const void *y)
{
    const opkey *a = x, *b = y;
    if (a->gpid != b->gpid)
        return a->gpid < b->gpid ? -1 : 1;
    return a->corr < b->corr ? -1 : a->corr > b->corr;
}

static int cmp_call_time(const void *x, const void *y)
{
    const call *a = x, *b = y;
    if (a->gtid != b->gtid)
        return a->gtid < b->gtid ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->end < b->end ? -1 : a->end > b->end;
}

enum { MAX_RUNS = 16 };

/* Sorts base (n entries of sz bytes) stably by cmp, as glibc's qsort (a merge sort) did here: the tables
 * arrive as a few runs already in order (kernels, memcpys and memsets each by correlation id; the runtime
 * calls by start), which are merged instead (issue 29: the sorts were the top cost of
 * nvtx_gpu_proj_trace). More runs: qsort. -1 on OOM. */
static int sort_runs(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
    char *b = base;
    size_t cut[MAX_RUNS + 1], nr = 0;
    cut[nr++] = 0;
    for (size_t i = 1; i < n; i++)
        if (cmp(b + (i - 1) * sz, b + i * sz) > 0) {
            if (nr == MAX_RUNS) {
                qsort(base, n, sz, cmp);
                return 0;
            }
            cut[nr++] = i;
        }
    if (nr == 1)
        return 0;
    char *tmp = malloc(n * sz);
    if (!tmp)
        return -1;
    cut[nr] = n;
    while (nr > 1) { /* merge runs 2k and 2k+1, ties from the left one (stable) */
        size_t w = 0;
        for (size_t r = 0; r < nr; r += 2) {
            size_t lo = cut[r], mid = cut[r + 1], hi = r + 2 <= nr ? cut[r + 2] : n; /* cut[nr] == n */
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                memcpy(tmp + o++ * sz, cmp(b + j * sz, b + i * sz) < 0 ? b + j++ * sz : b + i++ * sz, sz);
            memcpy(tmp + o * sz, b + i * sz, (mid - i) * sz);
            o += mid - i;
            memcpy(tmp + o * sz, b + j * sz, (hi - j) * sz);
            cut[w++] = lo;
        }
        memcpy(b, tmp, n * sz);
        nr = w;
        cut[nr] = n;
    }
    free(tmp);
    return 0;
}

typedef struct vec {
    void *p;
    size_t n, cap, sz;
} vec;

static void *vec_push(vec *v)
{
    if (gf_grow(&v->p, &v->cap, v->n + 1, v->sz, 1024) != 0)
        return NULL;
    return (char *)v->p + v->sz * v->n++;
}

/* The CUDA calls that launched GPU work, with the span of that work: GPU ops (kernels, memcpys, memsets)
 * grouped by (globalPid, correlationId), joined with CUPTI_ACTIVITY_KIND_RUNTIME on correlationId and
 * op.globalPid == (r.globalTid & 0xFFFFFFFFFF000000). *has_ops: any GPU op table exists. */
static int load_calls(gf_stats_db *d, vec *calls, size_t *ngrp, int *has_ops, gf_err *err)
{
    static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET"};
    static const char *const ocols[] = {"start", "end", "correlationId", "globalPid", "deviceId"};
    vec ops = {NULL, 0, 0, sizeof(opkey)};
    *has_ops = 0;
    *ngrp = 0;
    int ret = 0;
    for (int i = 0; i < 3 && ret == 0; i++) {
        gf_sqlq q;
        int r = gf_stats_prepare(d, &q, tables[i], ocols, 5, 4, NULL, err);
        if (r < 0) {
            ret = -1;
            break;
        }
        if (r == 0) {
            int h = gf_sqlite_has_table(d->db, tables[i]);
            *has_ops |= h > 0;
            continue;
        }
        *has_ops = 1;
        int rc;
        while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
            if (gf_sqlq_null(&q, 0) || gf_sqlq_null(&q, 1) || gf_sqlq_null(&q, 2) || gf_sqlq_null(&q, 3))
                continue;
            opkey *k = vec_push(&ops);
            if (!k) {
                ret = gf_oom(err, NULL);
                break;
            }
            k->start = gf_sqlq_i64(&q, 0, 0);
            k->end = gf_sqlq_i64(&q, 1, 0);
            k->corr = gf_sqlq_i64(&q, 2, 0);
            k->gpid = gf_sqlq_i64(&q, 3, 0);
            k->dev = (int32_t)gf_sqlq_i64(&q, 4, -1);
        }
        if (ret == 0 && rc != SQLITE_DONE)
            ret = gf_sqlite_fail(d->db, d->path, tables[i], err);
        sqlite3_finalize(q.st);
    }
    if (ret != 0 || ops.n == 0) {
        free(ops.p);
        return ret;
    }
    opkey *op = ops.p;
    if (sort_runs(op, ops.n, sizeof *op, cmp_opkey) != 0) {
        free(ops.p);
        return gf_oom(err, NULL);
    }
    /* one entry per (gpid, corr): min(start), max(end) */
    size_t w = 0;
    for (size_t i = 0; i < ops.n; i++) {
        if (w && op[w - 1].gpid == op[i].gpid && op[w - 1].corr == op[i].corr) {
            if (op[i].start < op[w - 1].start) {
                op[w - 1].start = op[i].start;
                op[w - 1].dev = op[i].dev;
            }
            if (op[i].end > op[w - 1].end)
                op[w - 1].end = op[i].end;
        } else {
            op[w++] = op[i];
        }
    }
    ops.n = w;
    *ngrp = w;
    static const char *const rcols[] = {"start", "end", "correlationId", "globalTid"};
    gf_sqlq q;
    int r = gf_stats_prepare(d, &q, "CUPTI_ACTIVITY_KIND_RUNTIME", rcols, 4, 4, NULL, err);
    if (r <= 0) {
        free(ops.p);
        return r;
    }
    int rc;
    int64_t n = 0;
    size_t next = 0;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        if ((++n & 0xffff) == 0 && gf_stats_interrupted(err)) {
            ret = -1;
            break;
        }
        if (gf_sqlq_null(&q, 0) || gf_sqlq_null(&q, 1) || gf_sqlq_null(&q, 2) || gf_sqlq_null(&q, 3))
            continue;
        opkey key = {gf_sqlq_i64(&q, 3, 0) & (int64_t)0xFFFFFFFFFF000000ll, gf_sqlq_i64(&q, 2, 0), 0, 0, -1};
        /* calls come in start order, which is mostly correlation-id order: try the group after the last
         * one found before searching (groups are unique, so either finds the same) */
        opkey *hit = next < ops.n && cmp_opkey(&key, &op[next]) == 0
                         ? &op[next]
                         : bsearch(&key, op, ops.n, sizeof *op, cmp_opkey);
        if (hit)
            next = (size_t)(hit - op) + 1;
        if (!hit)
            continue;
        call *c = vec_push(calls);
        if (!c) {
            ret = gf_oom(err, NULL);
            break;
        }
        c->gtid = gf_sqlq_i64(&q, 3, 0);
        c->start = gf_sqlq_i64(&q, 0, 0);
        c->end = gf_sqlq_i64(&q, 1, 0);
        c->corr = key.corr;
        c->pmin = hit->start;
        c->pmax = hit->end;
        c->pdev = hit->dev;
        c->grp = (int32_t)(hit - op);
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = gf_sqlite_fail(d->db, d->path, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
    sqlite3_finalize(q.st);
    free(ops.p);
    return ret;
}

/* NumGPUOps is count(DISTINCT r.correlationId): calls that share a correlation id in a process (API
 * layers nested in one another, cudaLaunchKernel around cudaLaunchKernel_v7000) count once per range.
 * Marks them (c is in sweep order): *dord lists each such group side by side in sweep order; a call's dup
 * is its place there and dfirst where its group starts (dup -1: the only call of its group). */
static int mark_dups(call *c, size_t n, size_t ngrp, int32_t **dord, gf_err *err)
{
    int32_t *o = malloc((n ? n : 1) * sizeof *o);
    int32_t *end = calloc(ngrp ? ngrp : 1, sizeof *end);
    if (!o || !end) {
        free(o);
        free(end);
        return gf_oom(err, NULL);
    }
    for (size_t i = 0; i < n; i++)
        end[c[i].grp]++;
    int32_t t = 0;
    for (size_t g = 0; g < ngrp; g++)
        end[g] = end[g] > 1 ? (t += end[g]) : -1; /* one past the group's last place, -1: no group */
    for (size_t i = n; i-- > 0;) {                 /* backwards: each group fills its places in order */
        c[i].dup = end[c[i].grp] < 0 ? -1 : --end[c[i].grp];
        if (c[i].dup >= 0)
            o[c[i].dup] = (int32_t)i;
    }
    for (size_t i = 0; i < n; i++)
        c[i].dfirst = c[i].dup < 0 ? -1 : end[c[i].grp]; /* now the group's first place */
    free(end);
    *dord = o;
    return 0;
}

/* Range a encloses call x of a group: did it count the group at an earlier call, one it also encloses?
 * The group runs in sweep order (thread, then start ascending): no earlier call of another thread, or
 * that starts before a, can be inside. */
static int counted_before(const call *c, const int32_t *dord, const call *x, const gf_snv_range *a)
{
    for (int32_t t = x->dup - 1; t >= x->dfirst; t--) {
        const call *m = &c[dord[t]];
        if (m->gtid != x->gtid || m->start < a->start)
            return 0;
        if (m->end <= a->end)
            return 1;
    }
    return 0;
}

/* Projects the calls onto every range of their thread that encloses them (start <= call.start and
 * end >= call.end): sweep by start with the list of ranges that are still open. */
static int project(gf_snv_set *s, call *c, size_t nc, size_t ngrp, gf_err *err)
{
    if (sort_runs(c, nc, sizeof *c, cmp_call_time) != 0)
        return gf_oom(err, NULL);
    int32_t *dord = NULL;
    if (mark_dups(c, nc, ngrp, &dord, err) != 0)
        return -1;
    gf_snv_range *R = s->r;
    int32_t *act = malloc((s->n ? s->n : 1) * sizeof *act);
    if (!act) {
        free(dord);
        return gf_oom(err, NULL);
    }
    for (size_t i = 0; i < s->n; i++) {
        R[i].pmin = INT64_MAX;
        R[i].pmax = INT64_MIN;
        R[i].pdev = -1;
    }
    size_t ri = 0, nact = 0; /* s->ord is by (gtid, start, ...) */
    int64_t cur = INT64_MIN;
    for (size_t k = 0; k < nc; k++) {
        if ((k & 0xffff) == 0xffff && gf_stats_interrupted(err)) {
            free(act);
            free(dord);
            return -1;
        }
        call *x = &c[k];
        if (x->gtid != cur) {
            cur = x->gtid;
            nact = 0;
            while (ri < s->n && R[s->ord[ri]].gtid < cur)
                ri++;
        }
        while (ri < s->n && R[s->ord[ri]].gtid == cur && R[s->ord[ri]].start <= x->start)
            act[nact++] = s->ord[ri++];
        size_t w = 0;
        for (size_t i = 0; i < nact; i++) {
            gf_snv_range *a = &R[act[i]];
            if (a->end < x->start)
                continue;
            act[w++] = act[i];
            if (a->end >= x->end) {
                if (x->pmin < a->pmin) {
                    a->pmin = x->pmin;
                    a->pdev = x->pdev;
                }
                if (x->pmax > a->pmax)
                    a->pmax = x->pmax;
                if (x->dup < 0 || !counted_before(c, dord, x, a))
                    a->nops++;
            }
        }
        nact = w;
    }
    free(act);
    free(dord);
    /* NumChild: projected ranges whose parent (NVTX_PARENT) is this one */
    for (size_t i = 0; i < s->n; i++)
        if (R[i].nops && R[i].parent >= 0)
            R[R[i].parent].nchild++;
    return 0;
}

/* The export's tables a projection needs: NVTX ranges, CUDA calls; *has_ops: any GPU op table. 0 with *ok 0
 * and res saying why when one is missing; -1 with err. */
static int tables_present(gf_stats_db *d, gf_stats_res *res, int check_ops, int *has_ops, int *ok, gf_err *err)
{
    *ok = 0;
    int present = 0;
    if (gf_snv_present(d, res, err, &present) != 0)
        return -1;
    if (!present)
        return 0;
    int h = gf_sqlite_has_table(d->db, "CUPTI_ACTIVITY_KIND_RUNTIME");
    if (h < 0)
        return gf_sqlite_fail(d->db, d->path, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
    if (!h)
        return gf_stats_skip(d, res, "does not contain CUDA API data.");
    static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET"};
    for (int i = 0; check_ops && i < 3; i++) { /* load_calls' test */
        int ht = gf_sqlite_has_table(d->db, tables[i]);
        if (ht < 0)
            return gf_sqlite_fail(d->db, d->path, tables[i], err);
        *has_ops |= ht;
    }
    *ok = 1;
    return 0;
}

int gf_snv_projection_usable(gf_stats_db *d, gf_stats_res *res, int *ok, gf_err *err)
{
    int has_ops = 0;
    if (tables_present(d, res, 1, &has_ops, ok, err) != 0) {
        *ok = 0;
        return -1;
    }
    if (!*ok)
        return 0;
    if (!has_ops) {
        *ok = 0;
        return gf_stats_skip(d, res, "does not contain GPU operation data.");
    }
    return 0;
}

/* gf_snv_projection with the calls read from the export (given NULL) or given */
static int projection(gf_stats_db *d, gf_stats_res *res, vec *given, size_t given_ngrp, gf_snv_set *s,
                      int ranges_given, int *ok, gf_err *err)
{
    int has_ops = 0;
    if (tables_present(d, res, given != NULL, &has_ops, ok, err) != 0)
        return -1;
    if (!*ok)
        return 0;
    *ok = 0;
    vec calls = {NULL, 0, 0, sizeof(call)};
    size_t ngrp = given_ngrp;
    if (!given && load_calls(d, &calls, &ngrp, &has_ops, err) != 0) {
        free(calls.p);
        return -1;
    }
    vec *cv = given ? given : &calls;
    if (!has_ops) {
        free(calls.p);
        return gf_stats_skip(d, res, "does not contain GPU operation data.");
    }
    if ((!ranges_given && (gf_snv_load(d, s, GF_SNV_SEL_PROJ, err) != 0 || gf_snv_tree(s, err) != 0)) ||
        project(s, cv->p, cv->n, ngrp, err) != 0) {
        free(calls.p);
        return -1;
    }
    free(calls.p);
    *ok = 1;
    return 0;
}

int gf_snv_projection(gf_stats_db *d, gf_stats_res *res, gf_snv_set *s, int *ok, gf_err *err)
{
    return projection(d, res, NULL, 0, s, 0, ok, err);
}

int gf_snv_projection_given(gf_stats_db *d, gf_stats_res *res, gf_snv_call *c, size_t n, size_t ngrp, gf_snv_set *s,
                            int ranges_given, int *ok, gf_err *err)
{
    vec v = {c, n, n, sizeof *c};
    return projection(d, res, &v, ngrp, s, ranges_given, ok, err);
}

static const gf_col proj_cols[] = {
    {"Name", GF_U_NONE},       {"Projected Start", GF_U_TS}, {"Projected Duration", GF_U_NS},
    {"Orig Start", GF_U_TS},   {"Orig Duration", GF_U_NS},   {"Style", GF_U_NONE},
    {"PID", GF_U_NONE},        {"TID", GF_U_NONE},           {"NumGPUOps", GF_U_NONE},
    {"Lvl", GF_U_NONE},        {"NumChild", GF_U_NONE},      {"RangeId", GF_U_NONE},
    {"ParentId", GF_U_NONE},   {"RangeStack", GF_U_NONE},
};

int gf_rep_nvtx_gpu_proj_trace(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    gf_snv_set s;
    memset(&s, 0, sizeof s);
    int ok;
    if (gf_snv_projection(d, res, &s, &ok, err) != 0) {
        gf_snv_free(&s);
        return -1;
    }
    if (!ok) {
        gf_snv_free(&s);
        return 0;
    }
    /* rows in RangeId order: the script's ORDER BY "Projected Start", "Projected Duration" DESC names no
     * column (the aliases are "Projected Start:ts_ns", ...), so SQLite sorts by two constant strings and
     * the rows come as the projection's GROUP BY rt.rangeId produced them (nsys 2022.4 does the same) */
    gf_snv_path path = {NULL, 0};
    gf_snv_buf b = {0};
    gf_tab t;
    gf_tab_begin(&t, out, o, proj_cols, 14);
    int ret = 0;
    for (size_t i = 0; ret == 0 && i < s.n; i++) {
        gf_snv_range *x = &s.r[i];
        if (!x->nops)
            continue;
        size_t nl;
        const char *nm = gf_strtab_get(d->str, x->name, &nl);
        gf_tab_text(&t, nm, nl);
        gf_tab_int(&t, x->pmin);
        gf_tab_int(&t, x->pmax - x->pmin);
        gf_tab_int(&t, x->start);
        gf_tab_int(&t, x->end - x->start);
        gf_tab_cstr(&t, gf_snv_style(x->style));
        gf_tab_int(&t, (x->gtid >> 24) & 0xFFFFFF);
        gf_tab_int(&t, x->gtid & 0xFFFFFF);
        gf_tab_int(&t, x->nops);
        if (x->level >= 0)
            gf_tab_int(&t, x->level);
        else
            gf_tab_null(&t);
        gf_tab_int(&t, x->nchild);
        gf_tab_int(&t, x->rowid);
        if (x->level >= 0 && x->parent >= 0)
            gf_tab_int(&t, s.r[x->parent].rowid);
        else
            gf_tab_null(&t);
        if (x->level >= 0) {
            if (gf_snv_range_stack(&s, (int32_t)i, &b, &path) != 0) {
                ret = gf_oom(err, NULL);
                break;
            }
            gf_tab_text(&t, b.p ? b.p : "", b.len);
        } else {
            gf_tab_null(&t);
        }
        gf_tab_end_row(&t);
    }
    free(path.p);
    free(b.p);
    res->rows = t.rows;
    if (gf_tab_finish(&t, ret == 0 ? err : NULL) != 0)
        ret = -1;
    gf_snv_free(&s);
    return ret;
}

/* ---- nvtx_gpu_proj_sum ---- */

static const gf_col pjs_cols[] = {
    {"Range", GF_U_NONE},           {"Style", GF_U_NONE},     {"Total Proj Time", GF_U_NS},
    {"Total Range Time", GF_U_NS},  {"Range Instances", GF_U_NONE}, {"Proj Avg", GF_U_NS},
    {"Proj Med", GF_U_NS},          {"Proj Min", GF_U_NS},    {"Proj Max", GF_U_NS},
    {"Proj StdDev", GF_U_NS},       {"Total GPU Ops", GF_U_NONE}, {"Avg GPU Ops", GF_U_NONE},
    {"Avg Range Lvl", GF_U_NONE},   {"Avg Num Child", GF_U_NONE},
};

typedef struct pjgrp {
    int64_t range_total, ops, lvl_sum, lvl_n, child_sum;
} pjgrp;

int gf_rep_nvtx_gpu_proj_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    gf_snv_set s;
    memset(&s, 0, sizeof s);
    int ok;
    if (gf_snv_projection(d, res, &s, &ok, err) != 0 || !ok) {
        gf_snv_free(&s);
        return ok ? 0 : (res->skipped[0] ? 0 : -1);
    }
    gf_sums g;
    gf_sums_init(&g);
    pjgrp *pg = NULL;
    size_t pcap = 0;
    int ret = 0;
    for (size_t i = 0; i < s.n && ret == 0; i++) {
        gf_snv_range *x = &s.r[i];
        if (!x->nops)
            continue;
        int isnew;
        gf_sumgrp *gr = gf_sums_get(&g, ((uint64_t)(uint32_t)x->name << 1) | x->style, &isnew);
        if (!gr) {
            ret = gf_oom(err, NULL);
            break;
        }
        if (isnew) {
            gr->name = x->name;
            gr->style = x->style;
            if (GF_GROW(pg, pcap, g.n, 64) != 0) {
                ret = gf_oom(err, NULL);
                break;
            }
            memset(&pg[gr - g.g], 0, sizeof *pg);
        }
        pjgrp *p = &pg[gr - g.g];
        if (gf_agg_add(&gr->a, x->pmax - x->pmin) != 0) {
            ret = gf_oom(err, NULL);
            break;
        }
        p->range_total += x->end - x->start;
        p->ops += x->nops;
        if (x->level >= 0) {
            p->lvl_sum += x->level;
            p->lvl_n++;
        }
        p->child_sum += x->nchild;
    }
    int32_t *ord = ret == 0 ? gf_snv_group_order(d, &g) : NULL;
    if (ret == 0 && !ord)
        ret = gf_oom(err, NULL);
    gf_tab t;
    gf_tab_begin(&t, out, o, pjs_cols, 14);
    for (size_t k = 0; ret == 0 && k < g.n; k++) {
        gf_sumgrp *gr = &g.g[ord[k]];
        pjgrp *p = &pg[ord[k]];
        gf_agg *a = &gr->a;
        size_t nl;
        const char *nm = gf_strtab_get(d->str, gr->name, &nl);
        gf_tab_text(&t, nm, nl);
        gf_tab_cstr(&t, gf_snv_style(gr->style));
        gf_tab_int(&t, a->sum);
        gf_tab_int(&t, p->range_total);
        gf_tab_int(&t, a->n);
        gf_tab_float(&t, gf_sqlite_round(gf_agg_avg(a), 1));
        int64_t im;
        double dm;
        gf_agg_median(a, &im, &dm);
        gf_tab_float(&t, gf_sqlite_round(dm, 1));
        gf_tab_int(&t, a->min);
        gf_tab_int(&t, a->max);
        gf_tab_float(&t, gf_sqlite_round(gf_agg_stdev(a), 1));
        gf_tab_int(&t, p->ops);
        gf_tab_float(&t, gf_sqlite_round((double)p->ops / (double)a->n, 1));
        if (p->lvl_n)
            gf_tab_float(&t, gf_sqlite_round((double)p->lvl_sum / (double)p->lvl_n, 1));
        else
            gf_tab_null(&t);
        gf_tab_float(&t, gf_sqlite_round((double)p->child_sum / (double)a->n, 1));
        gf_tab_end_row(&t);
    }
    res->rows = t.rows;
    if (gf_tab_finish(&t, ret == 0 ? err : NULL) != 0)
        ret = -1;
    free(ord);
    free(pg);
    gf_sums_free(&g);
    gf_snv_free(&s);
    return ret;
}
