/* NVTX_EVENTS without SQL's ORDER BY (issue 29). The ranges were read `ORDER BY globalTid, start,
 * coalesce(end, INT64_MAX) DESC`, after two more scans of the table (the domain names, the latest timestamp
 * that ends open ranges): SQLite sorted millions of rows through temp files. Here one scan in table (rowid)
 * order does what the three queries did; the ranges go straight into the model's columns (keep-all builds
 * hold them there anyway) with temporary values, and are then put in that ORDER BY's order in C. SQLite's
 * sorter is stable (equal keys keep the scan's order, which is rowid order), so a stable sort by the same
 * keys gives the same sequence; everything that depends on the sequence (nesting levels, the order in which
 * lanes, names and details are first seen, arrival order) is computed after the sort, as the old loop did,
 * so the model is the same. Bounded builds (a heap, not columns) and tables holding values that are not
 * integers (whose SQL order C does not reproduce) keep the ORDER BY (trace_sqlite.c import_nvtx).
 *
 * While a range waits for the sort its columns hold: corr = coalesce(end, INT64_MAX) (the sort key), lane =
 * the thread's ordinal, name = a StringIds name, -1 (none) or -(k + 2) for the k-th distinct inline text,
 * stack = eventType | NULL_START | NULL_END, detail = index of its domainId in dom[] or -1. */
#include "trace_build.h"
#include "trace_sqlite_imp.h"
#include "trace_sqlite_int.h"
#include "trace_sqlite_nvtx.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "trace.h"

enum { NULL_START = 1 << 8, NULL_END = 1 << 9 };
enum { C_START, C_END, C_TYPE, C_TID, C_TEXT, C_TEXTID, C_DOMAIN, NCOLS, C_ROWID = NCOLS, C_EGT };

typedef struct nvscan {
    imp *m;
    size_t from;      /* the block's first event */
    gf_hmap thr;      /* globalTid (NULL: its own key) → thread ordinal */
    int64_t *tgtid;   /* ordinal → globalTid as the old loop read it (NULL → 0) */
    uint8_t *tnull;   /* ordinal → globalTid was NULL */
    size_t nthr, thr_cap;
    int32_t last_thr, null_thr; /* the previous row's thread; the ordinal of NULL (-1: none yet) */
    uint32_t *trank;  /* ordinal → rank in ORDER BY globalTid (NULL first) */
    gf_strtab *text;  /* inline range texts, in order of first appearance in the table */
    int32_t *textmap; /* text id → model strtab id (-1: not yet) */
    int64_t *dom;     /* domainIds of ranges in a named domain */
    size_t ndom, dom_cap;
    gf_hmap domains;  /* (pid, domainId) → strtab id of the domain's name */
    int64_t maxa, maxb; /* max(coalesce(end, start)), max(start) over every row */
    int havea, haveb;
    int with_rid;       /* the query reads rowid and endGlobalTid (trace_types.h nvtx_rowid) */
    uint32_t *rid;      /* the ranges' rowids (UINT32_MAX: ended on another thread), as they arrive */
    size_t nrid, rid_cap;
} nvscan;

static void scan_free(nvscan *s)
{
    gf_hmap_free(&s->thr);
    gf_hmap_free(&s->domains);
    free(s->tgtid);
    free(s->tnull);
    free(s->trank);
    free(s->textmap);
    free(s->dom);
    free(s->rid);
    if (s->text)
        gf_strtab_free(s->text);
}

static int32_t thread_of(nvscan *s, int64_t gtid, int isnull)
{
    if (s->nthr && s->tgtid[s->last_thr] == gtid && s->tnull[s->last_thr] == isnull)
        return s->last_thr; /* rows come in runs of one thread */
    int ins = 1;
    int64_t *v = NULL;
    if (isnull && s->null_thr >= 0)
        return s->last_thr = s->null_thr;
    if (!isnull) {
        if ((uint64_t)gtid == GF_HMAP_EMPTY)
            return -2; /* not a key of the map: let SQL sort */
        if (!(v = gf_hmap_put(&s->thr, (uint64_t)gtid, (int64_t)s->nthr, &ins)))
            return -1;
        if (!ins)
            return s->last_thr = (int32_t)*v;
    }
    void **const cols[] = {(void **)&s->tgtid, (void **)&s->tnull};
    const size_t elem[] = {sizeof *s->tgtid, sizeof *s->tnull};
    if (s->nthr >= INT32_MAX || gf_grow_cols(cols, elem, 2, &s->thr_cap, s->nthr + 1, 16) != 0)
        return -1;
    s->tgtid[s->nthr] = gtid;
    s->tnull[s->nthr] = (uint8_t)isnull;
    if (isnull)
        s->null_thr = (int32_t)s->nthr;
    return s->last_thr = (int32_t)s->nthr++;
}

/* A domain-create row (eventType 75), as the old query `WHERE eventType = 75` read it. */
static int domain_row(nvscan *s, gf_sqlq *q, int64_t gtid)
{
    imp *m = s->m;
    int64_t pid = (gtid >> 24) & 0xFFFFFF;
    int32_t n = gf_tsq_str_of(m, gf_sqlq_i64(q, C_TEXTID, -1));
    size_t len;
    const char *txt;
    if (n < 0 && (txt = gf_sqlq_text(q, C_TEXT, &len)))
        n = gf_strtab_intern(m->t->str, txt, len);
    int64_t dom = gf_sqlq_i64(q, C_DOMAIN, 0);
    uint64_t key = ((uint64_t)pid << 32) ^ (uint64_t)dom;
    /* the projection names a domain after its earliest row (by start) and joins on (pid, domainId) whole */
    if (n < 0 || dom <= 0 || dom > (int64_t)UINT32_MAX || gf_hmap_get(&s->domains, key))
        m->nvtx_inexact = 1;
    if (n >= 0 && !gf_hmap_put(&s->domains, key, n, NULL))
        return -1;
    return 0;
}

/* trace_types.h nvtx_rowid: the range's rowid (UINT32_MAX when it ended on another thread: the projection reads
 * only `endGlobalTid IS NULL`); bad: a value the projection reads otherwise than this import. -1 on OOM. */
static int exact_range(nvscan *s, gf_sqlq *q, int64_t gtid, int mark, int bad)
{
    int64_t rowid = gf_sqlq_i64(q, C_ROWID, 0);
    if (bad || rowid < 0 || rowid >= (int64_t)UINT32_MAX)
        s->m->nvtx_inexact = 1;
    gf_tsq_exact_hi(s->m, gtid);
    if (gf_grow((void **)&s->rid, &s->rid_cap, s->nrid + 1, sizeof *s->rid, 1024) != 0)
        return -1;
    s->rid[s->nrid++] = gf_sqlq_null(q, C_EGT) && !mark ? (uint32_t)rowid : UINT32_MAX; /* marks: not projected */
    return 0;
}

/* One range row into the columns with its temporary values. 0, 1 (not representable: keep the ORDER BY),
 * -1 (error, err filled). */
static int range_row(nvscan *s, gf_sqlq *q, int64_t et, int64_t gtid, int tnull, int snull, int enull)
{
    imp *m = s->m;
    gf_trace *t = m->t;
    int32_t th = thread_of(s, gtid, tnull);
    if (th < 0)
        return th == -2 ? 1 : gf_oom(m->err, m->path);
    int32_t nm = gf_tsq_str_of(m, gf_sqlq_i64(q, C_TEXTID, -1));
    size_t len;
    const char *txt;
    if (nm < 0 && (txt = gf_sqlq_text(q, C_TEXT, &len))) {
        int32_t k = gf_strtab_intern(s->text, txt, len);
        if (k < 0)
            return gf_oom(m->err, m->path);
        nm = -(k + 2);
    }
    gf_event e;
    e.start = snull ? 0 : gf_sqlq_i64(q, C_START, 0);
    int64_t end = et == 34 ? e.start : enull ? 0 : gf_sqlq_i64(q, C_END, 0); /* a mark: a point in time */
    e.dur = end - e.start; /* an open range's is set once the last timestamp is known */
    e.corr = enull ? INT64_MAX : end;
    e.lane = th;
    e.name = nm;
    e.stack = (int32_t)et | (snull ? NULL_START : 0) | (enull ? NULL_END : 0);
    e.pid = (int32_t)((gtid >> 24) & 0xFFFFFF);
    e.kind = GF_EV_NVTX;
    if (gf_trace_add(t, &e, NULL, m->err) != 0)
        return -1;
    int64_t dom = gf_sqlq_i64(q, C_DOMAIN, 0);
    if (s->with_rid && exact_range(s, q, gtid, et == 34, tnull || snull || enull || e.dur < 0 || nm == -1 || dom < 0 ||
                                                            dom > (int64_t)UINT32_MAX) != 0)
        return gf_oom(m->err, m->path);
    if (dom) {
        if (gf_grow((void **)&s->dom, &s->dom_cap, s->ndom + 1, sizeof *s->dom, 64) != 0)
            return gf_oom(m->err, m->path);
        s->dom[s->ndom] = dom;
        t->detail[gf_trace_added(t) - 1] = (int32_t)s->ndom++;
    }
    return 0;
}

/* The whole table in rowid order. 0 done, 1 a value that is not an integer (or NULL), -1 error. */
static int scan(nvscan *s, gf_sqlq *q)
{
    int rc;
    while ((rc = gf_sqlq_step(q)) == SQLITE_ROW) {
        int ts = gf_sqlq_type(q, C_START), te = gf_sqlq_type(q, C_END);
        int ty = gf_sqlq_type(q, C_TYPE), tt = gf_sqlq_type(q, C_TID);
        if ((ts != SQLITE_INTEGER && ts != SQLITE_NULL) || (te != SQLITE_INTEGER && te != SQLITE_NULL) ||
            (ty != SQLITE_INTEGER && ty != SQLITE_NULL) || (tt != SQLITE_INTEGER && tt != SQLITE_NULL))
            return 1;
        int snull = ts == SQLITE_NULL, enull = te == SQLITE_NULL;
        int64_t start = snull ? 0 : gf_sqlq_i64(q, C_START, 0);
        if (!enull || !snull) {
            int64_t a = enull ? start : gf_sqlq_i64(q, C_END, 0);
            s->maxa = s->havea && s->maxa > a ? s->maxa : a;
            s->havea = 1;
        }
        if (!snull) {
            s->maxb = s->haveb && s->maxb > start ? s->maxb : start;
            s->haveb = 1;
        }
        if (ty == SQLITE_NULL)
            continue;
        int64_t et = gf_sqlq_i64(q, C_TYPE, 0);
        int64_t gtid = tt == SQLITE_NULL ? 0 : gf_sqlq_i64(q, C_TID, 0);
        int r = 0;
        if (et == 75)
            r = domain_row(s, q, gtid) != 0 ? gf_oom(s->m->err, s->m->path) : 0;
        else if (et == 59 || et == 60 || et == 70 || et == 71)
            r = range_row(s, q, et, gtid, tt == SQLITE_NULL, snull, enull);
        else if (et == 34) /* an NVTX mark (trace.h GF_NVTX_MARK) */
            r = range_row(s, q, et, gtid, tt == SQLITE_NULL, snull, 0);
        if (r != 0)
            return r;
    }
    return gf_tsq_step_fail(s->m, q, rc) != 0 ? -1 : 0;
}

/* ORDER BY start, coalesce(end, INT64_MAX) DESC within one thread (NULL start first); ties: table order */
static int cmp_in_thread(const gf_trace *t, size_t i, size_t j)
{
    int ni = !(t->stack[i] & NULL_START), nj = !(t->stack[j] & NULL_START);
    if (ni != nj)
        return ni < nj ? -1 : 1;
    if (t->start[i] != t->start[j])
        return t->start[i] < t->start[j] ? -1 : 1;
    if (t->corr[i] != t->corr[j])
        return t->corr[i] > t->corr[j] ? -1 : 1;
    return 0;
}

static int cmp_ord(const void *a, const void *b, void *arg)
{
    const nvscan *s = arg;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    int c = cmp_in_thread(s->m->t, s->from + i, s->from + j);
    return c ? c : i < j ? -1 : i > j;
}

static int cmp_thread(const void *a, const void *b, void *arg)
{
    const nvscan *s = arg;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (s->tnull[i] != s->tnull[j])
        return s->tnull[i] ? -1 : 1;
    return s->tgtid[i] < s->tgtid[j] ? -1 : s->tgtid[i] > s->tgtid[j];
}

/* The block in ORDER BY globalTid, start, coalesce(end, INT64_MAX) DESC order, stably: threads counted
 * into place by rank, then each thread's rows, already in order when the table was written in start order,
 * checked and sorted only when they are not. */
static int sort_block(nvscan *s)
{
    gf_trace *t = s->m->t;
    size_t n = gf_trace_added(t) - s->from;
    uint32_t *byrank = malloc((s->nthr ? s->nthr : 1) * sizeof *byrank);
    size_t *at = calloc(s->nthr + 1, sizeof *at);
    uint32_t *ord = gf_mem_scratch((n ? n : 1) * sizeof *ord);
    s->trank = malloc((s->nthr ? s->nthr : 1) * sizeof *s->trank);
    int ret;
    if (!byrank || !at || !ord || !s->trank) {
        ret = gf_oom(s->m->err, s->m->path);
        goto out;
    }
    for (size_t k = 0; k < s->nthr; k++)
        byrank[k] = (uint32_t)k;
    qsort_r(byrank, s->nthr, sizeof *byrank, cmp_thread, s);
    for (size_t k = 0; k < s->nthr; k++)
        s->trank[byrank[k]] = (uint32_t)k;
    for (size_t i = 0; i < n; i++)
        at[s->trank[t->lane[s->from + i]] + 1]++;
    for (size_t k = 0; k < s->nthr; k++)
        at[k + 1] += at[k];
    for (size_t i = 0; i < n; i++)
        ord[at[s->trank[t->lane[s->from + i]]]++] = (uint32_t)i;
    for (size_t k = 0, lo = 0; k < s->nthr; lo = at[k++]) { /* at[k]: one past rank k's rows now */
        size_t hi = at[k], sorted = 1;
        for (size_t i = lo + 1; i < hi && sorted; i++)
            sorted = cmp_in_thread(t, s->from + ord[i - 1], s->from + ord[i]) <= 0;
        if (!sorted)
            qsort_r(ord + lo, hi - lo, sizeof *ord, cmp_ord, s);
    }
    ret = gf_trace_reorder_added(t, s->from, ord, s->m->err);
    if (ret == 0 && s->rid) { /* the rowids follow their ranges */
        uint32_t *r = malloc((n ? n : 1) * sizeof *r);
        if (!r) {
            ret = gf_oom(s->m->err, s->m->path);
            goto out;
        }
        for (size_t k = 0; k < n; k++)
            r[k] = s->rid[ord[k]];
        free(s->rid);
        s->rid = r;
    }
out:
    free(byrank);
    free(at);
    free(ord);
    return ret;
}

/* The ranges in their final order: what the old loop computed per row, in the same order. */
static int settle_block(nvscan *s, int64_t last)
{
    imp *m = s->m;
    gf_trace *t = m->t;
    int32_t unnamed = gf_strtab_intern_cstr(t->str, "(unnamed)");
    size_t ntext = gf_strtab_count(s->text);
    s->textmap = malloc((ntext ? ntext : 1) * sizeof *s->textmap);
    if (unnamed < 0 || !s->textmap)
        return gf_oom(m->err, m->path);
    memset(s->textmap, 0xff, (ntext ? ntext : 1) * sizeof *s->textmap);
    gf_tsq_nest nest = {.tid = -1};
    gf_detail d;
    for (size_t i = s->from, n = gf_trace_added(t); i < n; i++) {
        int32_t fl = t->stack[i], nm = t->name[i];
        int64_t gtid = s->tgtid[t->lane[i]], et = fl & 0xff;
        int64_t end = fl & NULL_END ? last : t->corr[i];
        if (fl & NULL_END)
            t->dur[i] = end - t->start[i] < 0 ? 0 : end - t->start[i];
        if (nm <= -2) {
            int32_t k = -nm - 2;
            if (s->textmap[k] < 0) {
                size_t len;
                const char *txt = gf_strtab_get(s->text, k, &len);
                if ((s->textmap[k] = gf_strtab_intern(t->str, txt, len)) < 0)
                    return gf_oom(m->err, m->path);
            }
            nm = s->textmap[k];
        }
        gf_detail_clear(&d);
        if (t->detail[i] >= 0) {
            int64_t *v = gf_hmap_get(&s->domains, ((uint64_t)t->pid[i] << 32) ^ (uint64_t)s->dom[t->detail[i]]);
            if (v)
                d.domain = (int32_t)*v;
        }
        if (et == 59 || et == 70) /* push/pop: nesting level on this thread */
            d.nvtx_level = gf_tsq_nest_level(&nest, gtid, end);
        else if (et == 34)
            d.nvtx_level = GF_NVTX_MARK;
        int32_t lane = gf_tsq_cpu_lane(m, 1, gtid);
        if (lane < 0)
            return -1;
        t->lane[i] = lane;
        t->name[i] = nm >= 0 ? nm : unnamed;
        t->corr[i] = -1;
        t->stack[i] = -1;
        if (gf_trace_set_added_detail(t, i, &d, m->err) != 0)
            return -1;
    }
    return 0;
}

/* The same query with rowid and endGlobalTid (NULL where the export lacks it) after the columns, for
 * trace_types.h nvtx_rowid. 0, or -1 (q unchanged) when SQLite refuses it. */
static int with_rowids(imp *m, gf_sqlq *q)
{
    int egt = gf_sqlite_has_column(m->db, "NVTX_EVENTS", "endGlobalTid");
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT \"start\", \"end\", \"eventType\", \"globalTid\", \"text\", \"textId\", \"domainId\", rowid, %s "
             "FROM \"NVTX_EVENTS\"",
             egt == 1 ? "\"endGlobalTid\"" : "NULL");
    sqlite3_stmt *st;
    if (egt < 0 || sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_finalize(q->st); /* not yet prefetching */
    q->st = st;
    for (int c = 0; c <= C_EGT; c++)
        q->idx[c] = c;
    return 0;
}

int gf_tsq_nvtx_table_order(imp *m)
{
    static const char *const cols[] = {"start", "end", "eventType", "globalTid", "text", "textId", "domainId"};
    gf_trace *t = m->t;
    if (!gf_trace_keeps_all(t))
        return 1;
    gf_sqlq q;
    int r = gf_tsq_prepare(m, &q, "NVTX_EVENTS", cols, NCOLS, 0, NULL);
    if (r <= 0)
        return r < 0 ? -1 : 1;
    for (int c = 0; c < NCOLS; c++)
        if (q.idx[c] < 0) { /* an unusual table: the old queries say what they say about it */
            gf_sqlq_finalize(&q);
            return 1;
        }
    nvscan s;
    memset(&s, 0, sizeof s);
    s.m = m;
    s.from = gf_trace_added(t);
    s.null_thr = -1;
    if (with_rowids(m, &q) == 0)
        s.with_rid = 1;
    else
        m->nvtx_inexact = 1;
    gf_hmap_init(&s.thr);
    gf_hmap_init(&s.domains);
    if (!(s.text = gf_strtab_new())) {
        gf_sqlq_finalize(&q);
        return gf_oom(m->err, m->path);
    }
    gf_tsq_prefetch(m, &q, 1u << C_TEXT, 1); /* the connection is the reader's until q ends */
    r = scan(&s, &q);
    if (q.st)
        gf_sqlq_finalize(&q);
    if (r == 1)
        gf_trace_drop_added(t, s.from); /* the old path reads it again, from the start */
    int64_t last = s.havea && s.haveb ? (s.maxa > s.maxb ? s.maxa : s.maxb) : 0;
    if (r == 0 && (r = sort_block(&s)) == 0)
        r = settle_block(&s, last);
    if (r == 0 && s.with_rid && !m->nvtx_inexact && s.nrid == gf_trace_added(t) - s.from) {
        t->nvtx_rowid = s.rid;
        t->nvtx_seq0 = s.from;
        t->nvtx_nrid = s.nrid;
        s.rid = NULL;
    }
    scan_free(&s);
    return r;
}
