/* NVTX reports: nvtx_pushpop_trace and nvtx_sum, and the ranges and range tree they share with the GPU
 * projection (core/stats_nvtx_proj.c: nvtx_gpu_proj_trace, nvtx_gpu_proj_sum); core/stats_nvtx.h.
 *
 * The scripts find each range's parent with an R-tree self-join (the tightest enclosing range on the same
 * thread). Here: ranges are loaded once into an array, sorted per thread by (start, end desc, rowid) and
 * swept with a list of open ranges (the parent is the shortest open range that encloses; identical ranges
 * are each other's parents, as in the scripts, so they and what hangs below them have no level; equally
 * short ones are decided as the script's R-tree meets them: core/stats_nvtx_ties.c). Rules and sources:
 * docs/REPORTS.md. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_nvtx.h"

#include "mem.h"
#include "sqlite_export.h"

void gf_snv_free(gf_snv_set *s)
{
    free(s->r);
    free(s->ord);
    memset(s, 0, sizeof *s);
}

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
        uint64_t k = dom_key(gf_sqlq_i64(&q, 0, 0), gf_sqlq_i64(&q, 1, 0));
        if (gf_hmap_get(dom, k))
            continue; /* min(start): the first one wins */
        int32_t s = -1;
        if (!gf_sqlq_null(&q, 2)) {
            gf_stats_string(d, gf_sqlq_i64(&q, 2, 0), &s, NULL, err);
            if (err->code) {
                sqlite3_finalize(q.st);
                return -1;
            }
        }
        if (s < 0 && !gf_sqlq_null(&q, 3)) {
            const char *t = (const char *)sqlite3_column_text(q.st, q.idx[3]);
            s = gf_strtab_intern(d->str, t ? t : "", t ? (size_t)sqlite3_column_bytes(q.st, q.idx[3]) : 0);
            if (s < 0) {
                sqlite3_finalize(q.st);
                return gf_oom(err, NULL);
            }
        }
        if (!gf_hmap_put(dom, k, s, NULL)) {
            sqlite3_finalize(q.st);
            return gf_oom(err, NULL);
        }
    }
    sqlite3_finalize(q.st);
    return rc == SQLITE_DONE ? 0 : gf_sqlite_fail(d->db, d->path, "NVTX_EVENTS", err);
}

int gf_snv_put(gf_snv_buf *b, const char *s, size_t n)
{
    if (GF_GROW(b->p, b->cap, b->len + n + 1, 256) != 0)
        return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

/* Loads the ranges of `sel` in rowid order; fullname = coalesce(domain, '') || ':' ||
 * coalesce(StringIds[textId], text, ''). With `each`, ranges are handed to it one by one instead of kept
 * (nvtx_sum needs no tree: its memory is its groups). */
typedef int (*range_fn)(void *arg, const gf_snv_range *x, gf_err *err);

static int load_ranges_cb(gf_stats_db *d, gf_snv_set *s, int sel, range_fn each, void *arg, gf_err *err);

int gf_snv_load(gf_stats_db *d, gf_snv_set *s, int sel, gf_err *err)
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
             sel == GF_SNV_SEL_PROJ && has_egt ? " AND endGlobalTid IS NULL" : "");
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

static int load_ranges_cb(gf_stats_db *d, gf_snv_set *s, int sel, range_fn each, void *arg, gf_err *err)
{
    memset(s, 0, sizeof *s);
    const char *types = sel == GF_SNV_SEL_PUSHPOP ? "eventType IN (59, 70)" : "eventType IN (59, 60, 70, 71)";
    char where[200];
    snprintf(where, sizeof where, "WHERE %s", types);
    const char *mwhere = sel == GF_SNV_SEL_SUM ? "" : where;
    int64_t maxts = 0;
    /* the end of unended ranges: kept ranges learn it after the scan, and only when one is unended (a scan
     * less); ranges handed to `each` need it at once */
    size_t *open = NULL, nopen = 0, open_cap = 0;
    if (each && max_ts(d, mwhere, &maxts, err) != 0)
        return -1;
    gf_hmap dom, cache; /* domains; (domain str id, textId) → fullname str id */
    gf_hmap_init(&dom);
    gf_hmap_init(&cache);
    gf_snv_buf b = {0};
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
        if (GF_GROW(s->r, s->cap, s->n + 1, 1024) != 0) {
            ret = gf_oom(err, NULL);
            break;
        }
        gf_snv_range *x = &s->r[s->n];
        memset(x, 0, sizeof *x);
        x->rowid = gf_sqlq_i64(&q, 0, 0);
        x->start = gf_sqlq_i64(&q, 1, 0);
        x->end = gf_sqlq_null(&q, 2) ? maxts : gf_sqlq_i64(&q, 2, 0);
        if (!each && gf_sqlq_null(&q, 2)) {
            if (gf_grow((void **)&open, &open_cap, nopen + 1, sizeof *open, 64) != 0) {
                ret = gf_oom(err, NULL);
                break;
            }
            open[nopen++] = s->n;
        }
        int64_t et = gf_sqlq_i64(&q, 3, 59);
        x->style = (et == 60 || et == 71) ? GF_SNV_STARTEND : GF_SNV_PUSHPOP;
        x->gtid = gf_sqlq_i64(&q, 4, 0);
        x->parent = -1;
        x->level = 0;
        /* the name */
        int32_t dname = -1;
        if (!gf_sqlq_null(&q, 7)) {
            int64_t *dv = gf_hmap_get(&dom, dom_key(x->gtid, gf_sqlq_i64(&q, 7, 0)));
            if (dv)
                dname = (int32_t)*dv;
        }
        int32_t tsid = -1;
        if (!gf_sqlq_null(&q, 5)) {
            int64_t tid = gf_sqlq_i64(&q, 5, 0);
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
            bad |= gf_snv_put(&b, t, l);
        }
        bad |= gf_snv_put(&b, ":", 1);
        if (tsid >= 0) {
            size_t l;
            const char *t = gf_strtab_get(d->str, tsid, &l);
            bad |= gf_snv_put(&b, t, l);
        } else if (!gf_sqlq_null(&q, 6)) {
            const char *t = (const char *)sqlite3_column_text(q.st, 6);
            if (t)
                bad |= gf_snv_put(&b, t, (size_t)sqlite3_column_bytes(q.st, 6));
        }
        if (bad || (x->name = gf_strtab_intern(d->str, b.p, b.len)) < 0) {
            ret = gf_oom(err, NULL);
            break;
        }
        if (tsid >= 0) {
            int64_t tid = gf_sqlq_i64(&q, 5, 0);
            if ((tid >> 40) == 0 &&
                !gf_hmap_put(&cache, ((uint64_t)(uint32_t)(dname + 1) << 40) ^ (uint64_t)tid, x->name, NULL)) {
                ret = gf_oom(err, NULL);
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
    if (ret == 0 && nopen) {
        if (max_ts(d, mwhere, &maxts, err) != 0)
            ret = -1;
        for (size_t i = 0; ret == 0 && i < nopen; i++)
            s->r[open[i]].end = maxts;
    }
out:
    free(open);
    gf_hmap_free(&dom);
    gf_hmap_free(&cache);
    free(b.p);
    return ret;
}

static int cmp_tree(const void *x, const void *y, void *arg)
{
    const gf_snv_range *r = arg;
    const gf_snv_range *a = &r[*(const int32_t *)x], *b = &r[*(const int32_t *)y];
    if (a->gtid != b->gtid)
        return a->gtid < b->gtid ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return a->rowid < b->rowid ? -1 : a->rowid > b->rowid;
}

enum { MAX_SPLIT_THREADS = 64 };

/* Index of gtid among g[0..ng), -1 when absent; *last: the previous answer, tried first (a thread's ranges
 * come in runs). */
static int thread_slot(const int64_t *g, size_t ng, int64_t gtid, size_t *last)
{
    if (*last < ng && g[*last] == gtid)
        return (int)*last;
    for (size_t i = 0; i < ng; i++)
        if (g[i] == gtid)
            return (int)(*last = i);
    return -1;
}

/* s->ord in cmp_tree order. cmp_tree is a total order (rowid breaks ties), so any sort gives the same
 * one; the ranges come in table order with each thread's mostly in order already, so they are split by
 * thread (a stable counting pass) and a thread's ranges sorted only when they are out of order (issue 29:
 * this sort was a top cost of nvtx_gpu_proj_trace). Many threads: one qsort. */
static void tree_order(gf_snv_set *s)
{
    const gf_snv_range *R = s->r;
    int64_t g[MAX_SPLIT_THREADS];
    size_t ng = 0, last = 0, pos[MAX_SPLIT_THREADS + 1] = {0};
    for (size_t i = 0; i < s->n; i++) {
        if (thread_slot(g, ng, R[i].gtid, &last) >= 0)
            continue;
        if (ng == MAX_SPLIT_THREADS) {
            for (size_t k = 0; k < s->n; k++)
                s->ord[k] = (int32_t)k;
            qsort_r(s->ord, s->n, sizeof *s->ord, cmp_tree, s->r);
            return;
        }
        size_t k = ng++; /* kept ascending */
        for (; k > 0 && g[k - 1] > R[i].gtid; k--)
            g[k] = g[k - 1];
        g[k] = R[i].gtid;
    }
    for (size_t i = 0; i < s->n; i++)
        pos[thread_slot(g, ng, R[i].gtid, &last) + 1]++;
    for (size_t t = 1; t <= ng; t++)
        pos[t] += pos[t - 1];
    for (size_t i = 0; i < s->n; i++)
        s->ord[pos[thread_slot(g, ng, R[i].gtid, &last)]++] = (int32_t)i;
    for (size_t t = 0, lo = 0; t < ng; lo = pos[t++]) { /* pos[t]: now one past thread t's ranges */
        size_t k = lo + 1;
        while (k < pos[t] && cmp_tree(&s->ord[k - 1], &s->ord[k], s->r) < 0)
            k++;
        if (k < pos[t])
            qsort_r(s->ord + lo, pos[t] - lo, sizeof *s->ord, cmp_tree, s->r);
    }
}

/* Levels from the parents, in s->ord order (a parent sorts before its children); members of a group of
 * identical ranges (each other's parents) and what hangs below them: -1 */
static void levels(gf_snv_set *s)
{
    gf_snv_range *R = s->r;
    for (size_t k = 0; k < s->n; k++) {
        gf_snv_range *c = &R[s->ord[k]];
        const gf_snv_range *p = c->parent >= 0 ? &R[c->parent] : NULL;
        if (p && p->gtid == c->gtid && p->start == c->start && p->end == c->end)
            c->level = -1;
        else
            c->level = !p ? 0 : (p->level < 0 ? -1 : p->level + 1);
    }
}

/* Parents and levels (nvtxpptrace.py / nvtx_gpu_proj_trace.py: NVTX_PARENT from the R-tree self-join,
 * min((cr.start - pr.start) + (pr.end - cr.end)) over pr != cr enclosing cr on the same globalTid, i.e.
 * the shortest enclosing range; then the recursive `tree` CTE from the roots). Equal tightness: the one
 * the script's R-tree returns first (core/stats_nvtx_ties.c), which is the lowest rowid in a small set. */
int gf_snv_tree(gf_snv_set *s, gf_err *err)
{
    s->ord = malloc((s->n ? s->n : 1) * sizeof *s->ord);
    int32_t *act = malloc((s->n ? s->n : 1) * sizeof *act);
    uint8_t *tied = calloc(s->n ? s->n : 1, 1);
    size_t ntied = 0;
    if (!s->ord || !act || !tied) {
        free(act);
        free(tied);
        return gf_oom(err, NULL);
    }
    tree_order(s);
    gf_snv_range *R = s->r;
    size_t nact = 0;
    int64_t cur = 0;
    for (size_t k = 0; k < s->n; k++) {
        if ((k & 0xffff) == 0xffff && gf_stats_interrupted(err)) {
            free(act);
            free(tied);
            return -1;
        }
        int32_t ci = s->ord[k];
        gf_snv_range *c = &R[ci];
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
            int32_t best = -1, nbest = 0;
            size_t w = 0;
            for (size_t i = 0; i < nact; i++) {
                gf_snv_range *a = &R[act[i]];
                if (a->end < c->start)
                    continue; /* closed before c: drop it from the open list */
                act[w++] = act[i];
                if (a->end >= c->end) {
                    int64_t la = a->end - a->start, lb = best < 0 ? 0 : R[best].end - R[best].start;
                    if (best < 0 || la < lb) {
                        best = act[i];
                        nbest = 1;
                    } else if (la == lb) {
                        nbest++;
                        if (a->rowid < R[best].rowid)
                            best = act[i];
                    }
                }
            }
            nact = w;
            if (nbest > 1) {
                tied[ci] = 1;
                ntied++;
            }
            c->parent = best;
            c->level = best < 0 ? 0 : (R[best].level < 0 ? -1 : R[best].level + 1);
        }
        act[nact++] = ci;
    }
    /* a member of an identical group sorts after its parent only when it is not the first: levels of
     * children of cycle members are already -1 (their parent's level was -1 when they were reached) */
    free(act);
    if (ntied) {
        int rc = gf_snv_break_ties(s, tied, err);
        free(tied);
        if (rc != 0)
            return -1;
        levels(s);
        return 0;
    }
    free(tied);
    return 0;
}

/* ":1:2:3" — the rowids from the root down to range i (reachable: its level is its depth) */
int gf_snv_range_stack(const gf_snv_set *s, int32_t i, gf_snv_buf *b, gf_snv_path *pb)
{
    size_t depth = (size_t)s->r[i].level + 1;
    if (GF_GROW(pb->p, pb->cap, depth, 64) != 0)
        return -1;
    size_t n = 0;
    for (int32_t p = i; p >= 0 && n < depth; p = s->r[p].parent)
        pb->p[n++] = p;
    b->len = 0;
    char num[24];
    while (n) {
        int l = snprintf(num, sizeof num, ":%lld", (long long)s->r[pb->p[--n]].rowid);
        if (gf_snv_put(b, num, (size_t)l) != 0)
            return -1;
    }
    return 0;
}

int gf_snv_present(gf_stats_db *d, gf_stats_res *res, gf_err *err, int *present)
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
    const gf_snv_range *r = arg;
    const gf_snv_range *a = &r[*(const int32_t *)x], *b = &r[*(const int32_t *)y];
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
    if (gf_snv_present(d, res, err, &present) != 0)
        return -1;
    if (!present)
        return 0;
    gf_snv_set s;
    if (gf_snv_load(d, &s, GF_SNV_SEL_PUSHPOP, err) != 0 || gf_snv_tree(&s, err) != 0) {
        gf_snv_free(&s);
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
    gf_snv_path path = {NULL, 0};
    gf_snv_buf b = {0}, nt = {0};
    gf_tab t;
    gf_tab_begin(&t, out, o, pp_cols, 14);
    int ret = 0;
    for (size_t k = 0; ret == 0 && k < m; k++) {
        if ((k & 0xffff) == 0xffff && gf_stats_interrupted(err)) {
            ret = -1;
            break;
        }
        gf_snv_range *x = &s.r[s.ord[k]];
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
        if (gf_snv_range_stack(&s, s.ord[k], &b, &path) != 0) {
            ret = gf_oom(err, NULL);
            break;
        }
        gf_tab_text(&t, b.p ? b.p : "", b.len);
        nt.len = 0;
        int bad = 0;
        for (int32_t l = 0; l < x->level; l++)
            bad |= gf_snv_put(&nt, "--", 2);
        nm = gf_strtab_get(d->str, x->name, &nl);
        bad |= gf_snv_put(&nt, nm, nl);
        if (bad) {
            ret = gf_oom(err, NULL);
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
    gf_snv_free(&s);
    return ret;
}

/* ---- shared with core/stats_nvtx_proj.c ---- */

const char *gf_snv_style(int st)
{
    return st == GF_SNV_STARTEND ? "StartEnd" : "PushPop";
}

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
int32_t *gf_snv_group_order(gf_stats_db *d, gf_sums *s)
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

/* ---- nvtx_sum ---- */

static const gf_col sum_cols[] = {
    {"Time", GF_U_PCT}, {"Total Time", GF_U_NS}, {"Instances", GF_U_NONE}, {"Avg", GF_U_NS},
    {"Med", GF_U_NS},   {"Min", GF_U_NS},        {"Max", GF_U_NS},         {"StdDev", GF_U_NS},
    {"Style", GF_U_NONE}, {"Range", GF_U_NONE},
};

static int sum_range(void *arg, const gf_snv_range *x, gf_err *err)
{
    gf_sums *g = arg;
    gf_sumgrp *gr = gf_sums_get(g, ((uint64_t)(uint32_t)x->name << 1) | x->style, NULL);
    if (!gr || gf_agg_add(&gr->a, x->end - x->start) != 0)
        return gf_oom(err, NULL);
    gr->name = x->name;
    gr->style = x->style;
    return 0;
}

int gf_rep_nvtx_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err)
{
    int present = 0;
    if (gf_snv_present(d, res, err, &present) != 0)
        return -1;
    if (!present)
        return 0;
    gf_snv_set s;
    gf_sums g;
    gf_sums_init(&g);
    int ret = load_ranges_cb(d, &s, GF_SNV_SEL_SUM, sum_range, &g, err);
    gf_snv_free(&s);
    int32_t *ord = ret == 0 ? gf_snv_group_order(d, &g) : NULL;
    if (ret == 0 && !ord)
        ret = gf_oom(err, NULL);
    int64_t grand = 0;
    for (size_t i = 0; i < g.n; i++)
        grand += g.g[i].a.sum;
    gf_tab t;
    gf_tab_begin(&t, out, o, sum_cols, 10);
    for (size_t k = 0; ret == 0 && k < g.n; k++) {
        gf_sumgrp *gr = &g.g[ord[k]];
        gf_sums_time_cells(&t, &gr->a, grand);
        gf_tab_cstr(&t, gf_snv_style(gr->style));
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
