/* NVTX reports: nvtx_pushpop_trace, nvtx_gpu_proj_trace, nvtx_sum, nvtx_gpu_proj_sum.
 *
 * The scripts find each range's parent with an R-tree self-join (the tightest enclosing range on the same
 * thread) and the GPU projection with a three-way join (GPU op ⋈ CUDA call on correlation id and process,
 * ⋈ every range that encloses the call). Here: ranges are loaded once into an array, sorted per thread by
 * (start, end desc, rowid) and swept with a list of open ranges (the parent is the shortest open range
 * that encloses; identical ranges are each other's parents, as in the scripts, so they and what hangs
 * below them have no level); GPU ops and CUDA calls are joined by sorting both on (process, correlation
 * id); the calls are swept against the ranges of their thread. Rules and sources: docs/REPORTS.md. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "trace_sqlite.h"

static int oom(gf_err *err)
{
    return gf_errf(err, GF_EXIT_ERROR, "out of memory");
}

static inline int64_t col_i64(const gf_sqlq *q, int i, int64_t def)
{
    int c = q->idx[i];
    if (c < 0 || sqlite3_column_type(q->st, c) == SQLITE_NULL)
        return def;
    return sqlite3_column_int64(q->st, c);
}

static inline int col_null(const gf_sqlq *q, int i)
{
    return q->idx[i] < 0 || sqlite3_column_type(q->st, q->idx[i]) == SQLITE_NULL;
}

enum { ST_PUSHPOP = 0, ST_STARTEND = 1 };

typedef struct nrange {
    int64_t start, end, gtid, rowid;
    int64_t cdur;       /* sum of the children's durations (pushpop) */
    int64_t pmin, pmax; /* projection: min(op.start), max(op.end) */
    int32_t name;       /* str id */
    int32_t parent;     /* index, -1 = none */
    int32_t level;      /* -1 = not reachable from a root (a cycle of identical ranges, or below one) */
    int32_t nchild;     /* children (pushpop: all; projection: projected ones) */
    int32_t nops;       /* projection: enclosed CUDA calls with GPU work */
    uint8_t style;
} nrange;

typedef struct nset {
    nrange *r;
    size_t n, cap;
    int32_t *ord; /* indices sorted by (gtid, start, end desc, rowid) */
} nset;

static void nset_free(nset *s)
{
    free(s->r);
    free(s->ord);
    memset(s, 0, sizeof *s);
}

enum { SEL_PUSHPOP, SEL_PROJ, SEL_SUM };

/* max(max(start), max(end)) over the selected event types: the end of an unended range. SQLite's
 * two-argument max() is NULL when max(end) is (no range has an end): then max(start). */
static int max_ts(gf_stats_db *d, const char *where, int64_t *out, gf_err *err)
{
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT max(start), max(end) FROM NVTX_EVENTS %s", where);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
        return gf_sqlite_fail(d->db, d->path, "NVTX_EVENTS", err);
    int rc = sqlite3_step(st);
    *out = 0;
    if (rc == SQLITE_ROW) {
        int64_t ms = sqlite3_column_int64(st, 0);
        *out = ms;
        if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
            int64_t me = sqlite3_column_int64(st, 1);
            *out = me > ms ? me : ms;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gf_sqlite_fail(d->db, d->path, "NVTX_EVENTS", err);
    return 0;
}

/* Domain names: the eventType 75 rows, coalesce(StringIds[textId], text) of the earliest per (process,
 * domainId); a range joins on its domainId and the process bits of globalTid. */
static uint64_t dom_key(int64_t gtid, int64_t dom)
{
    return ((uint64_t)((gtid >> 24) & 0xFFFFFF) << 40) ^ ((uint64_t)dom & 0xFFFFFFFFFFull);
}

static int load_domains(gf_stats_db *d, gf_hmap *dom, gf_err *err)
{
    static const char *const cols[] = {"globalTid", "domainId", "textId", "text", "start"};
    gf_sqlq q;
    int r = gf_stats_prepare(d, &q, "NVTX_EVENTS", cols, 5, 2,
                                   "WHERE eventType = 75 ORDER BY start, rowid", err);
    if (r <= 0)
        return r;
    int rc;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        uint64_t k = dom_key(col_i64(&q, 0, 0), col_i64(&q, 1, 0));
        if (gf_hmap_get(dom, k))
            continue; /* min(start): the first one wins */
        int32_t s = -1;
        if (!col_null(&q, 2)) {
            gf_stats_string(d, col_i64(&q, 2, 0), &s, NULL, err);
            if (err->code) {
                sqlite3_finalize(q.st);
                return -1;
            }
        }
        if (s < 0 && !col_null(&q, 3)) {
            const char *t = (const char *)sqlite3_column_text(q.st, q.idx[3]);
            s = gf_strtab_intern(d->str, t ? t : "", t ? (size_t)sqlite3_column_bytes(q.st, q.idx[3]) : 0);
            if (s < 0) {
                sqlite3_finalize(q.st);
                return oom(err);
            }
        }
        if (!gf_hmap_put(dom, k, s, NULL)) {
            sqlite3_finalize(q.st);
            return oom(err);
        }
    }
    sqlite3_finalize(q.st);
    return rc == SQLITE_DONE ? 0 : gf_sqlite_fail(d->db, d->path, "NVTX_EVENTS", err);
}

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static int sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (b->len + n + 1 > nc)
            nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np)
            return -1;
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

/* Loads the ranges of `sel` in rowid order; fullname = coalesce(domain, '') || ':' ||
 * coalesce(StringIds[textId], text, ''). With `each`, ranges are handed to it one by one instead of kept
 * (nvtx_sum needs no tree: its memory is its groups). */
typedef int (*range_fn)(void *arg, const nrange *x, gf_err *err);

static int load_ranges_cb(gf_stats_db *d, nset *s, int sel, range_fn each, void *arg, gf_err *err);

static int load_ranges(gf_stats_db *d, nset *s, int sel, gf_err *err)
{
    return load_ranges_cb(d, s, sel, NULL, NULL, err);
}

/* SELECT rowid, start, end, eventType, globalTid, textId, text, domainId FROM NVTX_EVENTS (NULL for the
 * columns an export lacks) of the selected event types, in rowid order. */
static int prepare_ranges(gf_stats_db *d, gf_sqlq *q, const char *types, int sel, gf_err *err)
{
    int has_egt = gf_sqlite_has_column(d->db, "NVTX_EVENTS", "endGlobalTid");
    if (has_egt < 0)
        return gf_sqlite_fail(d->db, d->path, "NVTX_EVENTS", err);
    char tail[300];
    snprintf(tail, sizeof tail, "WHERE %s%s ORDER BY rowid", types,
             sel == SEL_PROJ && has_egt ? " AND endGlobalTid IS NULL" : "");
    static const char *const opt[] = {"end", "globalTid", "textId", "text", "domainId"};
    char sql[800];
    size_t o = (size_t)snprintf(sql, sizeof sql, "SELECT rowid, start");
    for (int i = 0; i < 5; i++) {
        int hc = gf_sqlite_has_column(d->db, "NVTX_EVENTS", opt[i]);
        if (hc < 0)
            return gf_sqlite_fail(d->db, d->path, "NVTX_EVENTS", err);
        o += (size_t)snprintf(sql + o, sizeof sql - o, i == 0 ? ", %s%s%s, eventType" : ", %s%s%s",
                              hc ? "\"" : "", hc ? opt[i] : "NULL", hc ? "\"" : "");
    }
    snprintf(sql + o, sizeof sql - o, " FROM NVTX_EVENTS %s", tail);
    memset(q, 0, sizeof *q);
    q->table = "NVTX_EVENTS";
    if (sqlite3_prepare_v2(d->db, sql, -1, &q->st, NULL) != SQLITE_OK)
        return gf_sqlite_fail(d->db, d->path, "NVTX_EVENTS", err);
    return 0;
}

static int load_ranges_cb(gf_stats_db *d, nset *s, int sel, range_fn each, void *arg, gf_err *err)
{
    memset(s, 0, sizeof *s);
    const char *types = sel == SEL_PUSHPOP ? "eventType IN (59, 70)" : "eventType IN (59, 60, 70, 71)";
    char where[200];
    snprintf(where, sizeof where, "WHERE %s", types);
    int64_t maxts;
    if (max_ts(d, sel == SEL_SUM ? "" : where, &maxts, err) != 0)
        return -1;
    gf_hmap dom, cache; /* domains; (domain str id, textId) → fullname str id */
    gf_hmap_init(&dom);
    gf_hmap_init(&cache);
    sbuf b = {0};
    int ret = load_domains(d, &dom, err);
    if (ret != 0)
        goto out;
    gf_sqlq q;
    if ((ret = prepare_ranges(d, &q, types, sel, err)) != 0)
        goto out;
    for (int i = 0; i < 8; i++)
        q.idx[i] = i;
    int rc;
    int64_t n = 0;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        if ((++n & 0xffff) == 0 && gf_stats_interrupted(err)) {
            ret = -1;
            break;
        }
        if (s->n == s->cap) {
            size_t nc = s->cap ? s->cap * 2 : 1024;
            nrange *nr = realloc(s->r, nc * sizeof *nr);
            if (!nr) {
                ret = oom(err);
                break;
            }
            s->r = nr;
            s->cap = nc;
        }
        nrange *x = &s->r[s->n];
        memset(x, 0, sizeof *x);
        x->rowid = col_i64(&q, 0, 0);
        x->start = col_i64(&q, 1, 0);
        x->end = col_null(&q, 2) ? maxts : col_i64(&q, 2, 0);
        int64_t et = col_i64(&q, 3, 59);
        x->style = (et == 60 || et == 71) ? ST_STARTEND : ST_PUSHPOP;
        x->gtid = col_i64(&q, 4, 0);
        x->parent = -1;
        x->level = 0;
        /* the name */
        int32_t dname = -1;
        if (!col_null(&q, 7)) {
            int64_t *dv = gf_hmap_get(&dom, dom_key(x->gtid, col_i64(&q, 7, 0)));
            if (dv)
                dname = (int32_t)*dv;
        }
        int32_t tsid = -1;
        if (!col_null(&q, 5)) {
            int64_t tid = col_i64(&q, 5, 0);
            uint64_t ck = ((uint64_t)(uint32_t)(dname + 1) << 40) ^ (uint64_t)tid;
            int64_t *cv = gf_hmap_get(&cache, ck);
            if (cv && (tid >> 40) == 0) {
                x->name = (int32_t)*cv;
                if (each) {
                    if (each(arg, x, err) != 0) {
                        ret = -1;
                        break;
                    }
                } else {
                    s->n++;
                }
                continue;
            }
            gf_stats_string(d, tid, &tsid, NULL, err);
            if (err->code) {
                ret = -1;
                break;
            }
        }
        b.len = 0;
        int bad = 0;
        if (dname >= 0) {
            size_t l;
            const char *t = gf_strtab_get(d->str, dname, &l);
            bad |= sb_put(&b, t, l);
        }
        bad |= sb_put(&b, ":", 1);
        if (tsid >= 0) {
            size_t l;
            const char *t = gf_strtab_get(d->str, tsid, &l);
            bad |= sb_put(&b, t, l);
        } else if (!col_null(&q, 6)) {
            const char *t = (const char *)sqlite3_column_text(q.st, 6);
            if (t)
                bad |= sb_put(&b, t, (size_t)sqlite3_column_bytes(q.st, 6));
        }
        if (bad || (x->name = gf_strtab_intern(d->str, b.p, b.len)) < 0) {
            ret = oom(err);
            break;
        }
        if (tsid >= 0) {
            int64_t tid = col_i64(&q, 5, 0);
            if ((tid >> 40) == 0 &&
                !gf_hmap_put(&cache, ((uint64_t)(uint32_t)(dname + 1) << 40) ^ (uint64_t)tid, x->name, NULL)) {
                ret = oom(err);
                break;
            }
        }
        if (each) {
            if (each(arg, x, err) != 0) {
                ret = -1;
                break;
            }
        } else {
            s->n++;
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = gf_sqlite_fail(d->db, d->path, "NVTX_EVENTS", err);
    sqlite3_finalize(q.st);
out:
    gf_hmap_free(&dom);
    gf_hmap_free(&cache);
    free(b.p);
    return ret;
}

static int cmp_tree(const void *x, const void *y, void *arg)
{
    const nrange *r = arg;
    const nrange *a = &r[*(const int32_t *)x], *b = &r[*(const int32_t *)y];
    if (a->gtid != b->gtid)
        return a->gtid < b->gtid ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return a->rowid < b->rowid ? -1 : a->rowid > b->rowid;
}

/* Parents and levels (nvtxpptrace.py / nvtx_gpu_proj_trace.py: NVTX_PARENT from the R-tree self-join,
 * min((cr.start - pr.start) + (pr.end - cr.end)) over pr != cr enclosing cr on the same globalTid, i.e.
 * the shortest enclosing range; equal tightness: the lowest rowid; then the recursive `tree` CTE from the
 * roots). */
static int build_tree(nset *s, gf_err *err)
{
    s->ord = malloc((s->n ? s->n : 1) * sizeof *s->ord);
    int32_t *act = malloc((s->n ? s->n : 1) * sizeof *act);
    if (!s->ord || !act) {
        free(act);
        return oom(err);
    }
    for (size_t i = 0; i < s->n; i++)
        s->ord[i] = (int32_t)i;
    if (s->n > 1) /* qsort wants a non-NULL base even for 0 elements */
        qsort_r(s->ord, s->n, sizeof *s->ord, cmp_tree, s->r);
    nrange *R = s->r;
    size_t nact = 0;
    int64_t cur = 0;
    for (size_t k = 0; k < s->n; k++) {
        if ((k & 0xffff) == 0xffff && gf_stats_interrupted(err)) {
            free(act);
            return -1;
        }
        int32_t ci = s->ord[k];
        nrange *c = &R[ci];
        if (k == 0 || c->gtid != cur) {
            nact = 0;
            cur = c->gtid;
        }
        /* identical ranges (adjacent in this order): tightness 0 — each one's parent is the lowest-rowid
         * other one, so they form a cycle the tree never reaches */
        int32_t same = -1;
        if (k > 0 && R[s->ord[k - 1]].gtid == c->gtid && R[s->ord[k - 1]].start == c->start &&
            R[s->ord[k - 1]].end == c->end) {
            size_t f = k - 1;
            while (f > 0 && R[s->ord[f - 1]].gtid == c->gtid && R[s->ord[f - 1]].start == c->start &&
                   R[s->ord[f - 1]].end == c->end)
                f--;
            same = s->ord[f]; /* the lowest rowid of the group */
        } else if (k + 1 < s->n && R[s->ord[k + 1]].gtid == c->gtid && R[s->ord[k + 1]].start == c->start &&
                   R[s->ord[k + 1]].end == c->end) {
            same = s->ord[k + 1];
        }
        if (same >= 0) {
            c->parent = same;
            c->level = -1;
        } else {
            int32_t best = -1;
            size_t w = 0;
            for (size_t i = 0; i < nact; i++) {
                nrange *a = &R[act[i]];
                if (a->end < c->start)
                    continue; /* closed before c: drop it from the open list */
                act[w++] = act[i];
                if (a->end >= c->end) {
                    int64_t la = a->end - a->start;
                    if (best < 0 || la < R[best].end - R[best].start ||
                        (la == R[best].end - R[best].start && a->rowid < R[best].rowid))
                        best = act[i];
                }
            }
            nact = w;
            c->parent = best;
            c->level = best < 0 ? 0 : (R[best].level < 0 ? -1 : R[best].level + 1);
        }
        act[nact++] = ci;
    }
    /* a member of an identical group sorts after its parent only when it is not the first: levels of
     * children of cycle members are already -1 (their parent's level was -1 when they were reached) */
    free(act);
    return 0;
}

/* ":1:2:3" — the rowids from the root down to range i (reachable: its level is its depth) */
typedef struct pathbuf {
    int32_t *p;
    size_t cap;
} pathbuf;

static int range_stack(const nset *s, int32_t i, sbuf *b, pathbuf *pb)
{
    size_t depth = (size_t)s->r[i].level + 1;
    if (depth > pb->cap) {
        size_t nc = pb->cap ? pb->cap : 64;
        while (nc < depth)
            nc *= 2;
        int32_t *np = realloc(pb->p, nc * sizeof *np);
        if (!np)
            return -1;
        pb->p = np;
        pb->cap = nc;
    }
    size_t n = 0;
    for (int32_t p = i; p >= 0 && n < depth; p = s->r[p].parent)
        pb->p[n++] = p;
    b->len = 0;
    char num[24];
    while (n) {
        int l = snprintf(num, sizeof num, ":%lld", (long long)s->r[pb->p[--n]].rowid);
        if (sb_put(b, num, (size_t)l) != 0)
            return -1;
    }
    return 0;
}

static int nvtx_present(gf_stats_db *d, gf_stats_res *res, gf_err *err, int *present)
{
    int h = gf_sqlite_has_table(d->db, "NVTX_EVENTS");
    if (h < 0)
        return gf_sqlite_fail(d->db, d->path, "NVTX_EVENTS", err);
    *present = h;
    if (!h)
        gf_stats_skip(d, res, "does not contain NV Tools Extension (NVTX) data.");
    return 0;
}

/* ---- nvtx_pushpop_trace ---- */

static const gf_col pp_cols[] = {
    {"Start", GF_U_TS},  {"End", GF_U_TS},        {"Duration", GF_U_NS}, {"DurChild", GF_U_NS},
    {"DurNonChild", GF_U_NS}, {"Name", GF_U_NONE}, {"PID", GF_U_NONE},   {"TID", GF_U_NONE},
    {"Lvl", GF_U_NONE},  {"NumChild", GF_U_NONE}, {"RangeId", GF_U_NONE}, {"ParentId", GF_U_NONE},
    {"RangeStack", GF_U_NONE}, {"NameTree", GF_U_NONE},
};

static int cmp_out(const void *x, const void *y, void *arg)
{
    const nrange *r = arg;
    const nrange *a = &r[*(const int32_t *)x], *b = &r[*(const int32_t *)y];
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    int64_t da = a->end - a->start, db = b->end - b->start;
    if (da != db)
        return da < db ? -1 : 1;
    return a->rowid < b->rowid ? -1 : a->rowid > b->rowid;
}

int gf_rep_nvtx_pushpop_trace(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    int present = 0;
    if (nvtx_present(d, res, err, &present) != 0)
        return -1;
    if (!present)
        return 0;
    nset s;
    if (load_ranges(d, &s, SEL_PUSHPOP, err) != 0 || build_tree(&s, err) != 0) {
        nset_free(&s);
        return -1;
    }
    /* DurChild / NumChild: over every range whose parent it is (nvtxpptrace.py: totals GROUP BY parentId) */
    for (size_t i = 0; i < s.n; i++) {
        int32_t p = s.r[i].parent;
        if (p >= 0) {
            s.r[p].cdur += s.r[i].end - s.r[i].start;
            s.r[p].nchild++;
        }
    }
    /* rows: the ranges the tree reaches, ORDER BY start, duration */
    size_t m = 0;
    for (size_t i = 0; i < s.n; i++)
        if (s.r[i].level >= 0)
            s.ord[m++] = (int32_t)i;
    if (m > 1) /* qsort wants a non-NULL base even for 0 elements */
        qsort_r(s.ord, m, sizeof *s.ord, cmp_out, s.r);
    pathbuf path = {NULL, 0};
    sbuf b = {0}, nt = {0};
    gf_tab t;
    gf_tab_begin(&t, out, o, pp_cols, 14);
    int ret = 0;
    for (size_t k = 0; ret == 0 && k < m; k++) {
        if ((k & 0xffff) == 0xffff && gf_stats_interrupted(err)) {
            ret = -1;
            break;
        }
        nrange *x = &s.r[s.ord[k]];
        int64_t dur = x->end - x->start;
        gf_tab_int(&t, x->start);
        gf_tab_int(&t, x->start + dur);
        gf_tab_int(&t, dur);
        gf_tab_int(&t, x->cdur);
        gf_tab_int(&t, dur - x->cdur);
        size_t nl;
        const char *nm = gf_strtab_get(d->str, x->name, &nl);
        gf_tab_text(&t, nm, nl);
        gf_tab_int(&t, (x->gtid >> 24) & 0xFFFFFF);
        gf_tab_int(&t, x->gtid & 0xFFFFFF);
        gf_tab_int(&t, x->level);
        gf_tab_int(&t, x->nchild);
        gf_tab_int(&t, x->rowid);
        if (x->parent >= 0)
            gf_tab_int(&t, s.r[x->parent].rowid);
        else
            gf_tab_null(&t);
        if (range_stack(&s, s.ord[k], &b, &path) != 0) {
            ret = oom(err);
            break;
        }
        gf_tab_text(&t, b.p ? b.p : "", b.len);
        nt.len = 0;
        int bad = 0;
        for (int32_t l = 0; l < x->level; l++)
            bad |= sb_put(&nt, "--", 2);
        nm = gf_strtab_get(d->str, x->name, &nl);
        bad |= sb_put(&nt, nm, nl);
        if (bad) {
            ret = oom(err);
            break;
        }
        gf_tab_text(&t, nt.p, nt.len);
        gf_tab_end_row(&t);
    }
    free(path.p);
    free(b.p);
    free(nt.p);
    res->rows = t.rows;
    if (gf_tab_finish(&t, ret == 0 ? err : NULL) != 0)
        ret = -1;
    nset_free(&s);
    return ret;
}

/* ---- the GPU projection ---- */

typedef struct opkey {
    int64_t gpid, corr, start, end;
} opkey;

typedef struct call {
    int64_t gtid, start, end, corr, pmin, pmax;
} call;

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

typedef struct vec {
    void *p;
    size_t n, cap, sz;
} vec;

static void *vec_push(vec *v)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 1024;
        void *np = realloc(v->p, nc * v->sz);
        if (!np)
            return NULL;
        v->p = np;
        v->cap = nc;
    }
    return (char *)v->p + v->sz * v->n++;
}

/* The CUDA calls that launched GPU work, with the span of that work: GPU ops (kernels, memcpys, memsets)
 * grouped by (globalPid, correlationId), joined with CUPTI_ACTIVITY_KIND_RUNTIME on correlationId and
 * op.globalPid == (r.globalTid & 0xFFFFFFFFFF000000). *has_ops: any GPU op table exists. */
static int load_calls(gf_stats_db *d, vec *calls, int *has_ops, gf_err *err)
{
    static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET"};
    static const char *const ocols[] = {"start", "end", "correlationId", "globalPid"};
    vec ops = {NULL, 0, 0, sizeof(opkey)};
    *has_ops = 0;
    int ret = 0;
    for (int i = 0; i < 3 && ret == 0; i++) {
        gf_sqlq q;
        int r = gf_stats_prepare(d, &q, tables[i], ocols, 4, 4, NULL, err);
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
            if (col_null(&q, 0) || col_null(&q, 1) || col_null(&q, 2) || col_null(&q, 3))
                continue;
            opkey *k = vec_push(&ops);
            if (!k) {
                ret = oom(err);
                break;
            }
            k->start = col_i64(&q, 0, 0);
            k->end = col_i64(&q, 1, 0);
            k->corr = col_i64(&q, 2, 0);
            k->gpid = col_i64(&q, 3, 0);
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
    if (ops.n > 1) /* qsort wants a non-NULL base even for 0 elements */
        qsort(op, ops.n, sizeof *op, cmp_opkey);
    /* one entry per (gpid, corr): min(start), max(end) */
    size_t w = 0;
    for (size_t i = 0; i < ops.n; i++) {
        if (w && op[w - 1].gpid == op[i].gpid && op[w - 1].corr == op[i].corr) {
            if (op[i].start < op[w - 1].start)
                op[w - 1].start = op[i].start;
            if (op[i].end > op[w - 1].end)
                op[w - 1].end = op[i].end;
        } else {
            op[w++] = op[i];
        }
    }
    ops.n = w;
    static const char *const rcols[] = {"start", "end", "correlationId", "globalTid"};
    gf_sqlq q;
    int r = gf_stats_prepare(d, &q, "CUPTI_ACTIVITY_KIND_RUNTIME", rcols, 4, 4, NULL, err);
    if (r <= 0) {
        free(ops.p);
        return r;
    }
    int rc;
    int64_t n = 0;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        if ((++n & 0xffff) == 0 && gf_stats_interrupted(err)) {
            ret = -1;
            break;
        }
        if (col_null(&q, 0) || col_null(&q, 1) || col_null(&q, 2) || col_null(&q, 3))
            continue;
        opkey key = {col_i64(&q, 3, 0) & (int64_t)0xFFFFFFFFFF000000ll, col_i64(&q, 2, 0), 0, 0};
        opkey *hit = bsearch(&key, op, ops.n, sizeof *op, cmp_opkey);
        if (!hit)
            continue;
        call *c = vec_push(calls);
        if (!c) {
            ret = oom(err);
            break;
        }
        c->gtid = col_i64(&q, 3, 0);
        c->start = col_i64(&q, 0, 0);
        c->end = col_i64(&q, 1, 0);
        c->corr = key.corr;
        c->pmin = hit->start;
        c->pmax = hit->end;
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = gf_sqlite_fail(d->db, d->path, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
    sqlite3_finalize(q.st);
    free(ops.p);
    return ret;
}

/* Projects the calls onto every range of their thread that encloses them (start <= call.start and
 * end >= call.end): sweep by start with the list of ranges that are still open. */
static int project(nset *s, vec *calls, gf_err *err)
{
    call *c = calls->p;
    if (calls->n > 1) /* qsort wants a non-NULL base even for 0 elements */
        qsort(c, calls->n, sizeof *c, cmp_call_time);
    nrange *R = s->r;
    int32_t *act = malloc((s->n ? s->n : 1) * sizeof *act);
    if (!act)
        return oom(err);
    for (size_t i = 0; i < s->n; i++) {
        R[i].pmin = INT64_MAX;
        R[i].pmax = INT64_MIN;
    }
    size_t ri = 0, nact = 0; /* s->ord is by (gtid, start, ...) */
    int64_t cur = INT64_MIN;
    for (size_t k = 0; k < calls->n; k++) {
        if ((k & 0xffff) == 0xffff && gf_stats_interrupted(err)) {
            free(act);
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
            nrange *a = &R[act[i]];
            if (a->end < x->start)
                continue;
            act[w++] = act[i];
            if (a->end >= x->end) {
                if (x->pmin < a->pmin)
                    a->pmin = x->pmin;
                if (x->pmax > a->pmax)
                    a->pmax = x->pmax;
                a->nops++;
            }
        }
        nact = w;
    }
    free(act);
    /* NumChild: projected ranges whose parent (NVTX_PARENT) is this one */
    for (size_t i = 0; i < s->n; i++)
        if (R[i].nops && R[i].parent >= 0)
            R[R[i].parent].nchild++;
    return 0;
}

static int projection(gf_stats_db *d, gf_stats_res *res, nset *s, int *ok, gf_err *err)
{
    *ok = 0;
    int present = 0;
    if (nvtx_present(d, res, err, &present) != 0)
        return -1;
    if (!present)
        return 0;
    int h = gf_sqlite_has_table(d->db, "CUPTI_ACTIVITY_KIND_RUNTIME");
    if (h < 0)
        return gf_sqlite_fail(d->db, d->path, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
    if (!h)
        return gf_stats_skip(d, res, "does not contain CUDA API data.");
    vec calls = {NULL, 0, 0, sizeof(call)};
    int has_ops;
    if (load_calls(d, &calls, &has_ops, err) != 0) {
        free(calls.p);
        return -1;
    }
    if (!has_ops) {
        free(calls.p);
        return gf_stats_skip(d, res, "does not contain GPU operation data.");
    }
    if (load_ranges(d, s, SEL_PROJ, err) != 0 || build_tree(s, err) != 0 || project(s, &calls, err) != 0) {
        free(calls.p);
        return -1;
    }
    free(calls.p);
    *ok = 1;
    return 0;
}

static const gf_col proj_cols[] = {
    {"Name", GF_U_NONE},       {"Projected Start", GF_U_TS}, {"Projected Duration", GF_U_NS},
    {"Orig Start", GF_U_TS},   {"Orig Duration", GF_U_NS},   {"Style", GF_U_NONE},
    {"PID", GF_U_NONE},        {"TID", GF_U_NONE},           {"NumGPUOps", GF_U_NONE},
    {"Lvl", GF_U_NONE},        {"NumChild", GF_U_NONE},      {"RangeId", GF_U_NONE},
    {"ParentId", GF_U_NONE},   {"RangeStack", GF_U_NONE},
};

static const char *style_name(int st)
{
    return st == ST_STARTEND ? "StartEnd" : "PushPop";
}

int gf_rep_nvtx_gpu_proj_trace(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    nset s;
    memset(&s, 0, sizeof s);
    int ok;
    if (projection(d, res, &s, &ok, err) != 0) {
        nset_free(&s);
        return -1;
    }
    if (!ok) {
        nset_free(&s);
        return 0;
    }
    /* rows in RangeId order: the script's ORDER BY "Projected Start", "Projected Duration" DESC names no
     * column (the aliases are "Projected Start:ts_ns", ...), so SQLite sorts by two constant strings and
     * the rows come as the projection's GROUP BY rt.rangeId produced them (nsys 2022.4 does the same) */
    pathbuf path = {NULL, 0};
    sbuf b = {0};
    gf_tab t;
    gf_tab_begin(&t, out, o, proj_cols, 14);
    int ret = 0;
    for (size_t i = 0; ret == 0 && i < s.n; i++) {
        nrange *x = &s.r[i];
        if (!x->nops)
            continue;
        size_t nl;
        const char *nm = gf_strtab_get(d->str, x->name, &nl);
        gf_tab_text(&t, nm, nl);
        gf_tab_int(&t, x->pmin);
        gf_tab_int(&t, x->pmax - x->pmin);
        gf_tab_int(&t, x->start);
        gf_tab_int(&t, x->end - x->start);
        gf_tab_cstr(&t, style_name(x->style));
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
            if (range_stack(&s, (int32_t)i, &b, &path) != 0) {
                ret = oom(err);
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
    nset_free(&s);
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

typedef struct grpctx {
    const gf_strtab *st;
    const gf_sumgrp *g;
    int by_total;
} grpctx;

/* GROUP BY (name, style): NULL-free names in BINARY order, then style text */
static int cmp_group_key(const void *x, const void *y, void *arg)
{
    const grpctx *c = arg;
    const gf_sumgrp *a = &c->g[*(const int32_t *)x], *b = &c->g[*(const int32_t *)y];
    if (c->by_total && a->a.sum != b->a.sum)
        return a->a.sum > b->a.sum ? -1 : 1;
    int s = gf_stats_strcmp(c->st, a->name, b->name);
    if (s)
        return s;
    return a->style - b->style; /* 'PushPop' < 'StartEnd' */
}

/* the groups' output order: ORDER BY total DESC, ties in GROUP BY (name, style) order */
static int32_t *group_order(gf_stats_db *d, gf_sums *s)
{
    int32_t *ord = malloc((s->n ? s->n : 1) * sizeof *ord);
    if (!ord)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        ord[i] = (int32_t)i;
    grpctx c = {d->str, s->g, 1};
    if (s->n > 1) /* qsort wants a non-NULL base even for 0 elements */
        qsort_r(ord, s->n, sizeof *ord, cmp_group_key, &c);
    return ord;
}

int gf_rep_nvtx_gpu_proj_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    nset s;
    memset(&s, 0, sizeof s);
    int ok;
    if (projection(d, res, &s, &ok, err) != 0 || !ok) {
        nset_free(&s);
        return ok ? 0 : (res->skipped[0] ? 0 : -1);
    }
    gf_sums g;
    gf_sums_init(&g);
    pjgrp *pg = NULL;
    size_t pcap = 0;
    int ret = 0;
    for (size_t i = 0; i < s.n && ret == 0; i++) {
        nrange *x = &s.r[i];
        if (!x->nops)
            continue;
        int isnew;
        gf_sumgrp *gr = gf_sums_get(&g, ((uint64_t)(uint32_t)x->name << 1) | x->style, &isnew);
        if (!gr) {
            ret = oom(err);
            break;
        }
        if (isnew) {
            gr->name = x->name;
            gr->style = x->style;
            if (g.n > pcap) {
                pcap = pcap ? pcap * 2 : 64;
                pjgrp *np = realloc(pg, pcap * sizeof *np);
                if (!np) {
                    ret = oom(err);
                    break;
                }
                pg = np;
            }
            memset(&pg[gr - g.g], 0, sizeof *pg);
        }
        pjgrp *p = &pg[gr - g.g];
        if (gf_agg_add(&gr->a, x->pmax - x->pmin) != 0) {
            ret = oom(err);
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
    int32_t *ord = ret == 0 ? group_order(d, &g) : NULL;
    if (ret == 0 && !ord)
        ret = oom(err);
    gf_tab t;
    gf_tab_begin(&t, out, o, pjs_cols, 14);
    for (size_t k = 0; ret == 0 && k < g.n; k++) {
        gf_sumgrp *gr = &g.g[ord[k]];
        pjgrp *p = &pg[ord[k]];
        gf_agg *a = &gr->a;
        size_t nl;
        const char *nm = gf_strtab_get(d->str, gr->name, &nl);
        gf_tab_text(&t, nm, nl);
        gf_tab_cstr(&t, style_name(gr->style));
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
    nset_free(&s);
    return ret;
}

/* ---- nvtx_sum ---- */

static const gf_col sum_cols[] = {
    {"Time", GF_U_PCT}, {"Total Time", GF_U_NS}, {"Instances", GF_U_NONE}, {"Avg", GF_U_NS},
    {"Med", GF_U_NS},   {"Min", GF_U_NS},        {"Max", GF_U_NS},         {"StdDev", GF_U_NS},
    {"Style", GF_U_NONE}, {"Range", GF_U_NONE},
};

static int sum_range(void *arg, const nrange *x, gf_err *err)
{
    gf_sums *g = arg;
    gf_sumgrp *gr = gf_sums_get(g, ((uint64_t)(uint32_t)x->name << 1) | x->style, NULL);
    if (!gr || gf_agg_add(&gr->a, x->end - x->start) != 0)
        return oom(err);
    gr->name = x->name;
    gr->style = x->style;
    return 0;
}

int gf_rep_nvtx_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    int present = 0;
    if (nvtx_present(d, res, err, &present) != 0)
        return -1;
    if (!present)
        return 0;
    nset s;
    gf_sums g;
    gf_sums_init(&g);
    int ret = load_ranges_cb(d, &s, SEL_SUM, sum_range, &g, err);
    nset_free(&s);
    int32_t *ord = ret == 0 ? group_order(d, &g) : NULL;
    if (ret == 0 && !ord)
        ret = oom(err);
    int64_t grand = 0;
    for (size_t i = 0; i < g.n; i++)
        grand += g.g[i].a.sum;
    gf_tab t;
    gf_tab_begin(&t, out, o, sum_cols, 10);
    for (size_t k = 0; ret == 0 && k < g.n; k++) {
        gf_sumgrp *gr = &g.g[ord[k]];
        gf_sums_time_cells(&t, &gr->a, grand);
        gf_tab_cstr(&t, style_name(gr->style));
        size_t nl;
        const char *nm = gf_strtab_get(d->str, gr->name, &nl);
        gf_tab_text(&t, nm, nl);
        gf_tab_end_row(&t);
    }
    res->rows = t.rows;
    if (gf_tab_finish(&t, ret == 0 ? err : NULL) != 0)
        ret = -1;
    free(ord);
    gf_sums_free(&g);
    return ret;
}
