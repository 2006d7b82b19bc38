/* nsys analyze's rules (findings.h): cuda-sync-api, cuda-sync-memcpy/-memset, cuda-async-memcpy,
 * gpu-starv and gpu-low-util, following nsys 2022.4's SQL step by step; the comments name the statement
 * each step reproduces (rules/<rule>.py; gpustats.py builds the GPU operation table). Ties of an ORDER BY
 * ... LIMIT are broken by table order (gf_trace.seq), as SQLite's stable sorter does. */
#include "trace_findings_nsys.h"
#include "trace_findings_int.h"
#include "trace_findings_gpuops.h"
#include "trace_rawnames.h"
#include "sort_intro.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- API calls (cuda-sync-api) ---- */

static int cmp_dur_seq(const void *a, const void *b, void *trace)
{
    const gf_trace *tr = trace;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (tr->dur[i] != tr->dur[j])
        return tr->dur[i] > tr->dur[j] ? -1 : 1;
    return tr->seq[i] < tr->seq[j] ? -1 : tr->seq[i] > tr->seq[j];
}

int gf_find_api_calls(const gf_trace *t, const gf_fwin *w, const gf_like_set *names, int64_t limit, size_t **idx,
                      size_t *n, gf_err *err)
{
    name_memo m;
    if (memo_init(&m, t) != 0)
        return gf_oom(err, "findings");
    size_t *v = NULL, nv = 0, cap = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->kind[i] != GF_EV_API || !memo_match(&m, t, names, gf_trace_event_raw_name(t, i)) ||
            !gf_fwin_cpu(w, t->start[i], t->start[i] + t->dur[i], t->pid[i], lane_tid(t, i)))
            continue;
        if (grow((void **)&v, &cap, nv + 1, sizeof *v) != 0) {
            free(m.v);
            free(v);
            return gf_oom(err, "findings");
        }
        v[nv++] = i;
    }
    free(m.v);
    if (nv)
        qsort_r(v, nv, sizeof *v, cmp_dur_seq, (void *)t); /* ORDER BY 1 DESC: ties in table order */
    if (limit >= 0 && (size_t)limit < nv)
        nv = (size_t)limit;
    *idx = v;
    *n = nv;
    return 0;
}

/* ---- memory operations joined to their runtime call (cuda-sync-memcpy/-memset, cuda-async-memcpy) ---- */

/* SQL three-valued logic: 1 true, 0 false, -1 NULL */
static inline int tv_and(int a, int b)
{
    if (a == 0 || b == 0)
        return 0;
    return a < 0 || b < 0 ? -1 : 1;
}
static inline int tv_or(int a, int b)
{
    if (a == 1 || b == 1)
        return 1;
    return a < 0 || b < 0 ? -1 : 0;
}
static inline int tv_not(int a) { return a < 0 ? -1 : !a; }
static inline int tv_eq(int64_t a, int a_null, int64_t b, int b_null)
{
    return a_null || b_null ? -1 : a == b;
}

static int copy_kept(const gf_copy_query *q, const gf_detail *d)
{
    if (q->kind == GF_EV_MEMSET) {
        if (!q->mem_kinds)
            return 1;
        int r = 0;
        for (int k = 0; k < 32; k++)
            if (q->mem_kinds & (1u << k))
                r = tv_or(r, tv_eq(d ? d->mem_kind : -1, !d || d->mem_kind < 0, k, 0));
        return r == 1;
    }
    int keep = 1;
    if (q->small_h2d_bytes >= 0) { /* NOT (bytes <= 64000 AND copyKind == 1) */
        int small = !d || d->bytes < 0 ? -1 : d->bytes <= q->small_h2d_bytes;
        int h2d = tv_eq(d ? d->copy_kind : -1, !d || d->copy_kind < 0, 1, 0);
        keep = tv_and(keep, tv_not(tv_and(small, h2d)));
    }
    if (q->skip_same_device) { /* NOT (srcDeviceId IS NOT NULL AND srcDeviceId == dstDeviceId) */
        int has_src = d && d->src_dev >= 0;
        int same = tv_eq(d ? d->src_dev : -1, !has_src, d ? d->dst_dev : -1, !d || d->dst_dev < 0);
        keep = tv_and(keep, tv_not(tv_and(has_src, same)));
    }
    if (q->pageable_only) { /* srcKind == 0 OR dstKind == 0 */
        int s0 = tv_eq(d ? d->src_kind : -1, !d || d->src_kind < 0, 0, 0);
        int d0 = tv_eq(d ? d->dst_kind : -1, !d || d->dst_kind < 0, 0, 0);
        keep = tv_and(keep, tv_or(s0, d0));
    }
    return keep == 1;
}

static int cmp_copy(const void *a, const void *b, void *trace)
{
    const gf_trace *tr = trace;
    const gf_copy_row *x = a, *y = b;
    if (tr->dur[x->gpu] != tr->dur[y->gpu])
        return tr->dur[x->gpu] > tr->dur[y->gpu] ? -1 : 1;
    if (tr->seq[x->gpu] != tr->seq[y->gpu])
        return tr->seq[x->gpu] < tr->seq[y->gpu] ? -1 : 1;
    return tr->seq[x->api] < tr->seq[y->api] ? -1 : tr->seq[x->api] > tr->seq[y->api];
}

static int cmp_seq_idx(const void *a, const void *b, void *trace)
{
    const gf_trace *tr = trace;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return tr->seq[i] < tr->seq[j] ? -1 : tr->seq[i] > tr->seq[j];
}

int gf_find_copies(const gf_trace *t, const gf_fwin *w, const gf_copy_query *q, gf_copy_row **rows, size_t *n,
                   gf_err *err)
{
    /* correlation id → the matching runtime calls of every process (main.CUPTI_ACTIVITY_KIND_RUNTIME: not
     * filtered, joined on correlationId alone), in table order */
    name_memo m;
    if (memo_init(&m, t) != 0)
        return gf_oom(err, "findings");
    gf_hmap head;
    gf_hmap_init(&head);
    size_t *api = NULL, napi = 0, capi = 0;
    int64_t *next = NULL;
    gf_copy_row *out = NULL;
    size_t nout = 0, cout = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->kind[i] == GF_EV_API && t->corr[i] >= 0 && memo_match(&m, t, &q->api, gf_trace_event_raw_name(t, i))) {
            if (grow((void **)&api, &capi, napi + 1, sizeof *api) != 0)
                goto fail;
            api[napi++] = i;
        }
    if (napi)
        qsort_r(api, napi, sizeof *api, cmp_seq_idx, (void *)t);
    next = gf_mem_scratch((napi ? napi : 1) * sizeof *next);
    if (!next)
        goto fail;
    for (size_t k = napi; k-- > 0;) { /* build lists back to front so each is in table order */
        int ins;
        int64_t *v = gf_hmap_put(&head, (uint64_t)t->corr[api[k]], -1, &ins);
        if (!v)
            goto fail;
        next[k] = *v;
        *v = (int64_t)k;
    }
    for (size_t i = 0; i < t->n && napi; i++) {
        if (t->kind[i] != q->kind || t->corr[i] < 0 || !copy_kept(q, det(t, i)) ||
            !gf_fwin_gpu(w, t->start[i], t->start[i] + t->dur[i], t->pid[i]))
            continue;
        int64_t *v = gf_hmap_get(&head, (uint64_t)t->corr[i]);
        for (int64_t k = v ? *v : -1; k >= 0; k = next[k]) {
            if (grow((void **)&out, &cout, nout + 1, sizeof *out) != 0)
                goto fail;
            out[nout++] = (gf_copy_row){i, api[k]};
        }
    }
    if (nout)
        qsort_r(out, nout, sizeof *out, cmp_copy, (void *)t);
    if (q->limit >= 0 && (size_t)q->limit < nout)
        nout = (size_t)q->limit;
    free(m.v);
    free(api);
    free(next);
    gf_hmap_free(&head);
    *rows = out;
    *n = nout;
    return 0;
fail:
    free(m.v);
    free(api);
    free(next);
    free(out);
    gf_hmap_free(&head);
    return gf_oom(err, "findings");
}

/* ---- gpu-starv ---- */

static int cmp_gap(const void *a, const void *b)
{
    const gf_gap_row *x = a, *y = b;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return 0;
}

/* a stable sort (the window function's ORDER BY keeps the insertion order of equal keys) */
static int stable_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2)
        return 0;
    char *a = base, *tmp = gf_mem_scratch(n * size);
    if (!tmp)
        return -1;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (cmp(a + j * size, a + i * size) < 0)
                    memcpy(tmp + (k++) * size, a + (j++) * size, size);
                else
                    memcpy(tmp + (k++) * size, a + (i++) * size, size);
            }
            while (i < mid)
                memcpy(tmp + (k++) * size, a + (i++) * size, size);
            while (j < hi)
                memcpy(tmp + (k++) * size, a + (j++) * size, size);
        }
        memcpy(a, tmp, n * size);
    }
    free(tmp);
    return 0;
}

/* gpu-starv's own groups, slimmer than build_groups' (20 bytes a GPU op where those and the starts took 33: the
 * timeline's peak on the 5M-event export was this rule's): each group's starts, and its ends with the row each
 * came from. The ends are sorted by time alone; which row of a run of equal ends sits at a position (by union
 * order: rank, then seq) matters only for the context of a gap that starts there, found then. */
/* gpu-starv.py numbers each group's starts and its ends by time and pairs end k with start k + 1: a gap is
 * where the (k+1)-th start comes after the k-th end. k + 1 operations have ended then and k + 1 have started,
 * so all that started have ended: the gaps are exactly the gaps in the union of the group's operations, the
 * k-th end the latest end so far. The operations in start order (gf_gpuops_each) give them with no sort
 * and no copy of the operations. The row before a gap (its context) is, of the rows ending at that latest
 * end, the last in union order (SQLite sorts the run of equal ends so, and end k is the run's last). */
typedef struct gap_item {
    gf_gap_row row;
    size_t grp; /* its group's position in (pid, deviceId) order */
} gap_item;

typedef struct gap_run {
    const gf_trace *t;
    const gf_gpuops *G;
    int64_t min_gap;
    int64_t *maxend; /* per group: the latest end so far */
    uint32_t *last;  /* per group: the row with it (the last in union order on ties) */
    uint8_t *seen;
    gap_item *out;
    size_t n, cap;
    int oom;
} gap_run;

static void gap_visit(void *arg, size_t g, int64_t s, int64_t e, uint32_t ref)
{
    gap_run *r = arg;
    const gf_trace *t = r->t;
    if (r->seen[g] && s > r->maxend[g] && s - r->maxend[g] > r->min_gap && !r->oom) {
        if (GF_GROW(r->out, r->cap, r->n + 1, 64) != 0) {
            r->oom = 1;
        } else {
            uint32_t c = r->last[g];
            const gf_gpuop_group *gr = &r->G->g[g];
            r->out[r->n++] = (gap_item){{s - r->maxend[g], r->maxend[g], gr->pid,
                                         c >= t->n ? gr->ctx : ev_context(t, c), gr->dev}, r->G->rank[g]};
        }
    }
    if (!r->seen[g] || e > r->maxend[g] ||
        (e == r->maxend[g] && gf_gpuops_order(t, ref) > gf_gpuops_order(t, r->last[g]))) {
        r->maxend[g] = e;
        r->last[g] = ref;
    }
    r->seen[g] = 1;
}

/* the gaps in group order (stable: time order within a group) */
static gf_gap_row *gaps_by_group(const gap_run *r, size_t ng)
{
    gf_gap_row *o = malloc((r->n ? r->n : 1) * sizeof *o);
    size_t *at = calloc(ng + 1, sizeof *at);
    if (!o || !at) {
        free(o);
        free(at);
        return NULL;
    }
    for (size_t k = 0; k < r->n; k++)
        at[r->out[k].grp + 1]++;
    for (size_t g = 0; g < ng; g++)
        at[g + 1] += at[g];
    for (size_t k = 0; k < r->n; k++)
        o[at[r->out[k].grp]++] = r->out[k].row;
    free(at);
    return o;
}

int gf_find_gaps(const gf_trace *t, const gf_fwin *w, int64_t min_gap_ns, int64_t limit, gf_gap_row **rows,
                 size_t *n, gf_err *err)
{
    gf_gpuops G;
    if (gf_gpuops_scan(t, w, &G, err) != 0)
        return -1;
    gap_run r = {.t = t, .G = &G, .min_gap = min_gap_ns};
    size_t ng = G.n ? G.n : 1;
    r.maxend = malloc(ng * sizeof *r.maxend);
    r.last = malloc(ng * sizeof *r.last);
    r.seen = calloc(ng, 1);
    gf_gap_row *out = NULL;
    if (r.maxend && r.last && r.seen) {
        gf_gpuops_each(t, w, &G, gap_visit, &r);
        if (!r.oom)
            out = gaps_by_group(&r, G.n);
    }
    size_t nout = r.n;
    free(r.maxend);
    free(r.last);
    free(r.seen);
    free(r.out);
    gf_gpuops_free(&G);
    if (!out)
        return gf_oom(err, "findings");
    /* With GPU_CUDA the only view, SQLite flattens it into the window's subquery and ORDER BY duration DESC,
     * gapStart comes before its LIMIT: the longest gaps overall. A VULKAN_/OPENGL_/DX12_WORKLOAD table (even
     * empty) adds views to a UNION ALL, which is not flattened: the view's LIMIT keeps its first gaps in this
     * order and only those are sorted (gpu-starv.py). */
    if (limit >= 0 && (size_t)limit < nout && (t->tables & (GF_TABLE_VULKAN | GF_TABLE_OPENGL | GF_TABLE_DX12)))
        nout = (size_t)limit;
    if (stable_sort(out, nout, sizeof *out, cmp_gap) != 0) {
        free(out);
        return gf_oom(err, "findings");
    }
    if (limit >= 0 && (size_t)limit < nout)
        nout = (size_t)limit;
    *rows = out;
    *n = nout;
    return 0;
}


/* ---- gpu-low-util ---- */

typedef struct chunk {
    double cs, ce; /* cstart, cend */
    double sum;    /* in-use ns */
    uint32_t nops; /* rows of the LEFT JOIN (0: the NULL group) */
    int valid, low;
    double tp;
} chunk;

typedef struct lowc { /* a low chunk that reaches the output grouping */
    size_t group;
    int r;
} lowc;

typedef struct urow {
    int64_t gid; /* rangeId - ROW_NUMBER() OVER (PARTITION BY pid, deviceId ORDER BY rangeId) */
    int64_t dev;
    int32_t pid, ctx;
    double start, end, wsum, ssum;
} urow;

static int cmp_urow_group(const void *a, const void *b)
{
    const urow *x = a, *y = b;
    if (x->gid != y->gid)
        return x->gid < y->gid ? -1 : 1;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_util(const void *a, const void *b)
{
    const gf_util_row *x = a, *y = b;
    if (x->avg != y->avg)
        return x->avg < y->avg ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur < y->dur ? -1 : 1;
    return 0;
}

static int cmp_group_dev_pid(const void *a, const void *b)
{
    const gf_gpuop_group *x = *(const gf_gpuop_group *const *)a, *y = *(const gf_gpuop_group *const *)b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* round(x, 1) as SQLite 3.x computes it (printf "%.1f" with its own rounding, then read back) */
static double sqlite_round1(double x)
{
    if (x < -4503599627370496.0 || x > 4503599627370496.0)
        return x;
    char *s = sqlite3_mprintf("%.1f", x);
    if (!s)
        return x;
    double r = strtod(s, NULL);
    sqlite3_free(s);
    return r;
}

/* The chunks of each group (range: chunkSize = ceil(CAST(max(end) - min(start) AS FLOAT) / N)) */
static void init_chunks(const gf_gpuop_group *g, chunk *c, int chunks)
{
    double size = ceil((double)(g->re - g->rs) / (double)chunks);
    for (int r = 0; r < chunks; r++) {
        double cs = (double)r * size + (double)g->rs;
        double cand = cs + size;
        c[r].cs = cs;
        c[r].ce = cand < (double)g->re ? cand : (double)g->re; /* min(x, end): the later argument on ties */
        c[r].valid = c[r].cs < c[r].ce;
    }
}

typedef struct util_run {
    const gf_gpuops *G;
    chunk *C;
    int chunks;
} util_run;

/* The LEFT JOIN of an operation to its group's chunks: ops.start < cend AND ops.end > cstart. Its overlap with
 * each is a whole number of ns (of the doubles SQLite computes), so the sums are the same in any order. */
static void util_visit(void *arg, size_t g, int64_t s, int64_t e, uint32_t ref)
{
    (void)ref;
    const util_run *u = arg;
    chunk *c = u->C + u->G->rank[g] * (size_t)u->chunks;
    int lo = 0, hi = u->chunks; /* the first chunk with s < cend (cend does not decrease) */
    while (lo < hi) {
        int m = lo + (hi - lo) / 2;
        if ((double)s < c[m].ce)
            hi = m;
        else
            lo = m + 1;
    }
    for (int r = lo; r < u->chunks && c[r].cs < (double)e; r++) {
        if (!c[r].valid || !((double)s < c[r].ce) || !((double)e > c[r].cs))
            continue;
        double a = (double)e < c[r].ce ? (double)e : c[r].ce;
        double b = (double)s > c[r].cs ? (double)s : c[r].cs;
        c[r].sum += a - b;
        c[r].nops++;
    }
}

int gf_find_low_util(const gf_trace *t, const gf_fwin *w, int chunks, double threshold, int64_t limit,
                     gf_util_row **rows, size_t *n, gf_err *err)
{
    if (chunks < 1)
        return gf_errf(err, GF_EXIT_USAGE, "chunks must be at least 1");
    gf_gpuops G;
    if (gf_gpuops_scan(t, w, &G, err) != 0)
        return -1;
    size_t ng = G.n;
    chunk *C = calloc(ng ? ng * (size_t)chunks : 1, sizeof *C);
    const gf_gpuop_group **byrange = malloc((ng ? ng : 1) * sizeof *byrange);
    urow *U = NULL;
    size_t nu = 0, cu = 0;
    gf_util_row *out = NULL;
    if (!C || !byrange)
        goto fail;
    for (size_t k = 0; k < ng; k++) /* chunk rows in (pid, deviceId) order */
        init_chunks(&G.g[G.sorted[k]], C + k * (size_t)chunks, chunks);
    util_run u = {&G, C, chunks};
    gf_gpuops_each(t, w, &G, util_visit, &u);
    for (size_t k = 0; k < ng; k++) {
        chunk *c = C + k * (size_t)chunks;
        for (int r = 0; r < chunks; r++) {
            if (!c[r].valid)
                continue;
            c[r].tp = c[r].sum / (c[r].ce - c[r].cs) * 100;
            c[r].low = c[r].tp < threshold;
        }
    }
    /* GROUP BY chunk.rangeId, ops.deviceId, ops.pid: a chunk without any operation groups under NULLs,
     * so the empty chunks of one rangeId merge across (pid, device) into one row, whose bare columns
     * are those of the first (deviceId, pid) in range's order (measured against nsys 2022.4 with
     * tests/gen/findings_export.py's planted and quirks exports: the others' empty chunks vanish). */
    for (size_t gi = 0; gi < ng; gi++)
        byrange[gi] = &G.g[gi];
    if (ng > 1)
        qsort(byrange, ng, sizeof *byrange, cmp_group_dev_pid);
    for (int r = 0; r < chunks; r++) {
        int seen = 0;
        for (size_t k = 0; k < ng; k++) {
            size_t row = G.rank[byrange[k] - G.g];
            chunk *c = &C[row * (size_t)chunks + (size_t)r];
            if (!c->valid || c->nops)
                continue;
            if (seen)
                c->low = 0; /* merged into the first group's row */
            seen = 1;
        }
    }
    /* chunkgroup and the coalescing GROUP BY groupId, deviceId, pid */
    for (size_t k = 0; k < ng; k++) {
        const gf_gpuop_group *g = &G.g[G.sorted[k]];
        chunk *c = C + k * (size_t)chunks;
        int64_t rownum = 0;
        int64_t cur = INT64_MIN;
        for (int r = 0; r < chunks; r++) {
            if (!c[r].valid || !c[r].low)
                continue;
            rownum++;
            int64_t gid = (int64_t)r - rownum;
            if (gid != cur || nu == 0) {
                if (grow((void **)&U, &cu, nu + 1, sizeof *U) != 0)
                    goto fail;
                U[nu++] = (urow){gid, g->dev, g->pid, g->ctx, c[r].cs, c[r].ce, 0, 0};
                cur = gid;
            }
            urow *u = &U[nu - 1];
            double sz = c[r].ce - c[r].cs;
            u->wsum += sz * c[r].tp;
            u->ssum += sz;
            if (c[r].ce > u->end)
                u->end = c[r].ce;
        }
    }
    if (nu > 1)
        qsort(U, nu, sizeof *U, cmp_urow_group);
    if (limit >= 0 && (size_t)limit < nu)
        nu = (size_t)limit; /* the inner LIMIT, in GROUP BY order */
    out = calloc(nu ? nu : 1, sizeof *out);
    if (!out)
        goto fail;
    for (size_t k = 0; k < nu; k++) {
        gf_util_row *o = &out[k];
        o->avg = sqlite_round1(U[k].wsum / U[k].ssum);
        snprintf(o->avg_text, sizeof o->avg_text, "%.1f", o->avg);
        o->start = U[k].start;
        o->dur = U[k].end - U[k].start;
        o->pid = U[k].pid;
        o->device = U[k].dev;
        o->context = U[k].ctx;
    }
    if (stable_sort(out, nu, sizeof *out, cmp_util) != 0)
        goto fail;
    free(C);
    free(byrange);
    free(U);
    gf_gpuops_free(&G);
    *rows = out;
    *n = nu;
    return 0;
fail:
    free(C);
    free(byrange);
    free(U);
    free(out);
    gf_gpuops_free(&G);
    return gf_oom(err, "findings");
}

