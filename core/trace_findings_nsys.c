/* nsys analyze's rules (findings.h): cuda-sync-api, cuda-sync-memcpy/-memset, cuda-async-memcpy,
 * gpu-starv and gpu-low-util, following nsys 2022.4's SQL step by step; the comments name the statement
 * each step reproduces (rules/<rule>.py; gpustats.py builds the GPU operation table). Ties of an ORDER BY
 * ... LIMIT are broken by table order (gf_trace.seq), as SQLite's stable sorter does. */
#include "trace_findings_nsys.h"
#include "trace_findings_int.h"
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

/* ---- the GPU operation table of gpustats.py, per (process, device) ---- */

typedef struct fop {
    int64_t s, e;
    int32_t ctx;
    uint8_t rank; /* union order: 0 profiler overhead, 1 kernel, 2 memcpy, 3 memset */
    uint32_t seq;
} __attribute__((packed)) fop; /* 25 bytes, not 32: 2.2M of them for the 368 MB export (issue 29) */

typedef struct fgroup {
    int32_t pid;
    int64_t dev;
    fop *ops;
    size_t n, cap;
    int64_t rs, re; /* range of the GPU operations (before overhead) */
    int32_t ctx;    /* the group's contextId as SQLite's GROUP BY leaves it (range_row) */
} fgroup;

/* The range CTE's bare contextId (SELECT min(start), max(end), ..., contextId ... GROUP BY deviceId, pid):
 * SQLite takes a bare column from the row on which the last min/max aggregate, max(end), took a new value
 * (OP_CollSeq clears the hit flag before each of them), so from the first row in union order (rank, then
 * seq) with the group's latest end. 1 when the row (e, rank, seq) comes before the best so far. Measured
 * against nsys 2022.4 (tests/gen/findings_export.py quirks: two contexts on one device of one process). */
static int range_row(int64_t e, uint64_t order, int64_t best_e, uint64_t best_order)
{
    return e > best_e || (e == best_e && order < best_order);
}

typedef struct fgroups {
    fgroup *g;
    size_t n, cap;
} fgroups;

static void groups_free(fgroups *G)
{
    for (size_t i = 0; i < G->n; i++)
        free(G->g[i].ops);
    free(G->g);
    memset(G, 0, sizeof *G);
}

static int cmp_group_pid_dev(const void *a, const void *b)
{
    const fgroup *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static const char *const overhead_names[] = {"CUDA profiling data flush overhead", "CUDA profiling stop overhead",
                                             "CUDA profiling overhead"};

/* The string ids of overhead_names in t (-1: absent) */
static void overhead_ids(const gf_trace *t, int32_t oid[3])
{
    for (int k = 0; k < 3; k++)
        oid[k] = gf_strtab_find(t->str, overhead_names[k], strlen(overhead_names[k]));
}

/* 1 when PROFILER_OVERHEAD row o is CUDA profiling overhead in the filter (as a globalTid table) */
static int cuda_overhead(const gf_overhead *o, const int32_t oid[3], const gf_fwin *w)
{
    return o->name >= 0 && (o->name == oid[0] || o->name == oid[1] || o->name == oid[2]) &&
           gf_fwin_cpu(w, o->start, o->end, o->pid, o->tid);
}

/* A GPU operation's rank in gpustats.py's union (after profiling overhead, 0) */
static uint8_t union_rank(int kind)
{
    return kind == GF_EV_KERNEL ? 1 : kind == GF_EV_MEMCPY ? 2 : 3;
}

/* The (process, device) groups of the GPU operations as they are met (build_groups, gap_groups). */
typedef struct group_index {
    gf_hmap idx;
    uint64_t last_key; /* GPU work comes in runs of one (process, device) */
    int64_t last_g;
} group_index;

/* Event i's group, *dev its device: 1 and *added set when it is group number `next`, new; 0 when the GPU
 * rules leave the event out (not GPU work, start <= 0, outside the window); -1 on OOM. */
static int group_of(group_index *x, const gf_trace *t, const gf_fwin *w, size_t i, size_t next, int64_t *g,
                    int64_t *dev, int *added)
{
    if (!gf_ev_is_gpu_work(t->kind[i]) || t->start[i] <= 0 ||
        !gf_fwin_gpu(w, t->start[i], t->start[i] + t->dur[i], t->pid[i]))
        return 0;
    *dev = lane_dev(t, i);
    uint64_t key = ((uint64_t)(uint32_t)(t->pid[i] + 1) << 32) | (uint32_t)(*dev + 1);
    *added = 0;
    int64_t *v = key == x->last_key && x->last_g >= 0 ? &x->last_g : gf_hmap_put(&x->idx, key, (int64_t)next, added);
    if (!v)
        return -1;
    x->last_key = key;
    x->last_g = *g = *v;
    return 1;
}

/* ops = kernels, memcpys, memsets with start > 0 (and in the filter), grouped by (pid, deviceId) in that
 * order, then the CUDA profiling overhead rows of the same process strictly inside a group's range
 * (one copy per device), as _add_profiling_overhead does. */
static int build_groups(const gf_trace *t, const gf_fwin *w, fgroups *G, gf_err *err)
{
    memset(G, 0, sizeof *G);
    group_index x = {.last_key = GF_HMAP_EMPTY, .last_g = -1};
    gf_hmap_init(&x.idx);
    for (size_t i = 0; i < t->n; i++) {
        int k = t->kind[i], ins;
        int64_t gi, dev;
        int in = group_of(&x, t, w, i, G->n, &gi, &dev, &ins);
        if (in < 0)
            goto fail;
        if (!in)
            continue;
        if (ins) {
            if (grow((void **)&G->g, &G->cap, G->n + 1, sizeof *G->g) != 0)
                goto fail;
            fgroup *g = &G->g[G->n++];
            memset(g, 0, sizeof *g);
            g->pid = t->pid[i];
            g->dev = dev;
            g->rs = INT64_MAX;
            g->re = INT64_MIN;
        }
        fgroup *g = &G->g[gi];
        if (grow((void **)&g->ops, &g->cap, g->n + 1, sizeof *g->ops) != 0)
            goto fail;
        g->ops[g->n++] = (fop){t->start[i], t->start[i] + t->dur[i], ev_context(t, i), union_rank(k), t->seq[i]};
    }
    gf_hmap_free(&x.idx);
    if (G->n > 1)
        qsort(G->g, G->n, sizeof *G->g, cmp_group_pid_dev);
    for (size_t gi = 0; gi < G->n; gi++) {
        fgroup *g = &G->g[gi];
        uint64_t best = 0;
        for (size_t k = 0; k < g->n; k++) {
            const fop *o = &g->ops[k];
            uint64_t order = (uint64_t)o->rank << 32 | o->seq;
            if (k == 0 || range_row(o->e, order, g->re, best)) {
                best = order;
                g->ctx = o->ctx;
            }
            if (o->s < g->rs)
                g->rs = o->s;
            if (o->e > g->re)
                g->re = o->e;
        }
    }
    /* profiling overhead (PROFILER_OVERHEAD, filtered like a globalTid table) */
    int32_t oid[3];
    overhead_ids(t, oid);
    for (size_t i = 0; i < t->noverhead; i++) {
        const gf_overhead *o = &t->overhead[i];
        if (!cuda_overhead(o, oid, w))
            continue;
        for (size_t gi = 0; gi < G->n; gi++) {
            fgroup *g = &G->g[gi];
            if (g->pid != o->pid || !(o->start > g->rs) || !(o->end < g->re))
                continue;
            if (grow((void **)&g->ops, &g->cap, g->n + 1, sizeof *g->ops) != 0)
                goto fail2;
            g->ops[g->n++] = (fop){o->start, o->end, g->ctx, 0, o->seq};
        }
    }
    return 0;
fail:
    gf_hmap_free(&x.idx);
fail2:
    groups_free(G);
    return gf_oom(err, "findings");
}

/* a total order of a group's operations: (start, rank, seq) */
#define OP_BEFORE(x, y) ((x).s != (y).s ? (x).s < (y).s : (x).rank != (y).rank ? (x).rank < (y).rank : (x).seq < (y).seq)
GF_INTRO_SORT(sort_ops, fop, OP_BEFORE)
#define I64_BEFORE(x, y) ((x) < (y))
GF_INTRO_SORT(sort_starts, int64_t, I64_BEFORE)

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
typedef struct gend {
    int64_t e;
    uint32_t ref; /* the event, or t->n + the PROFILER_OVERHEAD row */
} __attribute__((packed)) gend;

typedef struct ggroup {
    int32_t pid;
    int64_t dev;
    int64_t *s;
    gend *e;
    size_t n, cap;
    int64_t rs, re; /* range of the GPU operations (before overhead) */
    uint32_t best;  /* the row whose contextId GROUP BY leaves (range_row) */
    int32_t ctx;
} ggroup;

typedef struct ggroups {
    ggroup *g;
    size_t n, cap;
} ggroups;

static void ggroups_free(ggroups *G)
{
    for (size_t i = 0; i < G->n; i++) {
        free(G->g[i].s);
        free(G->g[i].e);
    }
    free(G->g);
    memset(G, 0, sizeof *G);
}

/* union order of a row (overhead, kernels, memcpys, memsets; table order): rank << 32 | seq */
static uint64_t ref_order(const gf_trace *t, uint32_t ref)
{
    if (ref >= t->n)
        return t->overhead[ref - t->n].seq;
    return (uint64_t)union_rank(t->kind[ref]) << 32 | t->seq[ref];
}

static int ggroup_add(ggroup *g, int64_t s, int64_t e, uint32_t ref)
{
    if (g->n == g->cap) {
        size_t cap = g->cap;
        if (grow((void **)&g->s, &cap, g->n + 1, sizeof *g->s) != 0 ||
            grow((void **)&g->e, &g->cap, g->n + 1, sizeof *g->e) != 0)
            return -1;
    }
    g->s[g->n] = s;
    g->e[g->n++] = (gend){e, ref};
    return 0;
}

static int cmp_ggroup(const void *a, const void *b)
{
    const ggroup *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* build_groups' rows, as starts and ends */
static int gap_groups(const gf_trace *t, const gf_fwin *w, ggroups *G, gf_err *err)
{
    memset(G, 0, sizeof *G);
    if (t->n + t->noverhead >= UINT32_MAX)
        return gf_errf(err, GF_EXIT_ERROR, "gpu-starv: %zu events and %zu profiler overhead rows: more than 32-bit "
                       "row numbers hold", t->n, t->noverhead);
    group_index x = {.last_key = GF_HMAP_EMPTY, .last_g = -1};
    gf_hmap_init(&x.idx);
    for (size_t i = 0; i < t->n; i++) {
        int ins;
        int64_t gi, dev;
        int in = group_of(&x, t, w, i, G->n, &gi, &dev, &ins);
        if (in < 0)
            goto fail;
        if (!in)
            continue;
        if (ins) {
            if (grow((void **)&G->g, &G->cap, G->n + 1, sizeof *G->g) != 0)
                goto fail;
            G->g[G->n++] = (ggroup){.pid = t->pid[i], .dev = dev, .rs = INT64_MAX, .re = INT64_MIN};
        }
        ggroup *g = &G->g[gi];
        int64_t s = t->start[i], e = t->start[i] + t->dur[i];
        if (g->n == 0 || range_row(e, ref_order(t, (uint32_t)i), g->re, ref_order(t, g->best)))
            g->best = (uint32_t)i;
        if (s < g->rs)
            g->rs = s;
        if (e > g->re)
            g->re = e;
        if (ggroup_add(g, s, e, (uint32_t)i) != 0)
            goto fail;
    }
    gf_hmap_free(&x.idx);
    if (G->n > 1)
        qsort(G->g, G->n, sizeof *G->g, cmp_ggroup);
    for (size_t gi = 0; gi < G->n; gi++)
        G->g[gi].ctx = ev_context(t, G->g[gi].best);
    int32_t oid[3];
    overhead_ids(t, oid);
    for (size_t i = 0; i < t->noverhead; i++) {
        const gf_overhead *o = &t->overhead[i];
        if (!cuda_overhead(o, oid, w))
            continue;
        for (size_t gi = 0; gi < G->n; gi++) {
            ggroup *g = &G->g[gi];
            if (g->pid == o->pid && o->start > g->rs && o->end < g->re &&
                ggroup_add(g, o->start, o->end, (uint32_t)(t->n + i)) != 0)
                goto fail2;
        }
    }
    return 0;
fail:
    gf_hmap_free(&x.idx);
fail2:
    ggroups_free(G);
    return gf_oom(err, "findings");
}

/* a group's ends by time; equal ends are put in union order where a gap needs them (gap_context) */
#define END_BEFORE(x, y) ((x).e < (y).e)
GF_INTRO_SORT(sort_ends, gend, END_BEFORE)

typedef struct rowpos {
    uint64_t ord;
    uint32_t ref;
} rowpos;

static int cmp_rowpos(const void *a, const void *b)
{
    uint64_t x = ((const rowpos *)a)->ord, y = ((const rowpos *)b)->ord;
    return x < y ? -1 : x > y;
}

/* The context of the row at position k of the ends ordered by end, then union order (SQLite's sort of the
 * union): the run of ends equal to e[k], put in union order. */
static int gap_context(const gf_trace *t, const ggroup *g, size_t k, int32_t *ctx)
{
    size_t a = k, b = k + 1;
    while (a > 0 && g->e[a - 1].e == g->e[k].e)
        a--;
    while (b < g->n && g->e[b].e == g->e[k].e)
        b++;
    rowpos *run = gf_mem_scratch((b - a) * sizeof *run);
    if (!run)
        return -1;
    for (size_t j = a; j < b; j++)
        run[j - a] = (rowpos){ref_order(t, g->e[j].ref), g->e[j].ref};
    qsort(run, b - a, sizeof *run, cmp_rowpos);
    uint32_t ref = run[k - a].ref;
    free(run);
    *ctx = ref >= t->n ? g->ctx : ev_context(t, ref);
    return 0;
}

static int find_gaps(const gf_trace *t, const gf_fwin *w, int64_t min_gap_ns, int64_t limit, gf_gap_row **rows,
                     size_t *n, gf_err *err)
{
    ggroups G;
    if (gap_groups(t, w, &G, err) != 0)
        return -1;
    gf_gap_row *out = NULL;
    size_t nout = 0, cout = 0;
    /* starts/ends numbered by (pid, deviceId, start|end); a gap is end k → start k+1 of one group, made
     * in that order. With GPU_CUDA the only view, SQLite flattens it into the window's subquery and
     * ORDER BY duration DESC, gapStart comes before its LIMIT: the longest gaps overall. A VULKAN_/
     * OPENGL_/DX12_WORKLOAD table (even empty) adds views to a UNION ALL, which is not flattened: the
     * view's LIMIT keeps its first gaps in this order and only those are sorted (gpu-starv.py). */
    for (size_t gi = 0; gi < G.n; gi++) {
        ggroup *g = &G.g[gi];
        sort_starts(g->s, g->n);
        sort_ends(g->e, g->n);
        for (size_t k = 0; k + 1 < g->n; k++) {
            int64_t gs = g->e[k].e, ge = g->s[k + 1];
            int64_t d = ge - gs;
            if (!(d > min_gap_ns) || !(gs < ge))
                continue;
            int32_t ctx;
            if (grow((void **)&out, &cout, nout + 1, sizeof *out) != 0 || gap_context(t, g, k, &ctx) != 0)
                goto fail;
            out[nout++] = (gf_gap_row){d, gs, g->pid, ctx, g->dev};
        }
    }
    ggroups_free(&G);
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
fail:
    free(out);
    ggroups_free(&G);
    return gf_oom(err, "findings");
}

/* The groups (20 bytes a GPU op) never beside the NVTX projection's sweep (mem.h gf_mem_gate). */
int gf_find_gaps(const gf_trace *t, const gf_fwin *w, int64_t min_gap_ns, int64_t limit, gf_gap_row **rows,
                 size_t *n, gf_err *err)
{
    gf_mem_gate_enter();
    int rc = find_gaps(t, w, min_gap_ns, limit, rows, n, err);
    gf_mem_gate_leave();
    return rc;
}

int gf_find_gaps_ungated(const gf_trace *t, const gf_fwin *w, int64_t min_gap_ns, int64_t limit, gf_gap_row **rows,
                         size_t *n, gf_err *err)
{
    return find_gaps(t, w, min_gap_ns, limit, rows, n, err);
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
    const fgroup *x = *(const fgroup *const *)a, *y = *(const fgroup *const *)b;
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

static int find_low_util(const gf_trace *t, const gf_fwin *w, int chunks, double threshold, int64_t limit,
                         gf_util_row **rows, size_t *n, gf_err *err)
{
    if (chunks < 1)
        return gf_errf(err, GF_EXIT_USAGE, "chunks must be at least 1");
    fgroups G;
    if (build_groups(t, w, &G, err) != 0)
        return -1;
    size_t ng = G.n;
    chunk *C = calloc(ng ? ng * (size_t)chunks : 1, sizeof *C);
    fgroup **byrange = malloc((ng ? ng : 1) * sizeof *byrange);
    urow *U = NULL;
    size_t nu = 0, cu = 0;
    gf_util_row *out = NULL;
    if (!C || !byrange)
        goto fail;
    for (size_t gi = 0; gi < ng; gi++) {
        fgroup *g = &G.g[gi];
        chunk *c = C + gi * (size_t)chunks;
        /* range: chunkSize = ceil(CAST(max(end) - min(start) AS FLOAT) / N) */
        double size = ceil((double)(g->re - g->rs) / (double)chunks);
        for (int r = 0; r < chunks; r++) {
            double cs = (double)r * size + (double)g->rs;
            double cand = cs + size;
            c[r].cs = cs;
            c[r].ce = cand < (double)g->re ? cand : (double)g->re; /* min(x, end): the later argument on ties */
            c[r].valid = c[r].cs < c[r].ce;
        }
        sort_ops(g->ops, g->n);
        /* the LEFT JOIN: ops.start < cend AND ops.end > cstart; chunks are contiguous and increasing */
        int lo = 0;
        for (size_t k = 0; k < g->n; k++) {
            const fop *o = &g->ops[k];
            while (lo < chunks && !((double)o->s < c[lo].ce))
                lo++;
            for (int r = lo; r < chunks && c[r].cs < (double)o->e; r++) {
                if (!c[r].valid || !((double)o->s < c[r].ce) || !((double)o->e > c[r].cs))
                    continue;
                double a = (double)o->e < c[r].ce ? (double)o->e : c[r].ce;
                double b = (double)o->s > c[r].cs ? (double)o->s : c[r].cs;
                c[r].sum += a - b;
                c[r].nops++;
            }
        }
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
            size_t gi = (size_t)(byrange[k] - G.g);
            chunk *c = &C[gi * (size_t)chunks + (size_t)r];
            if (!c->valid || c->nops)
                continue;
            if (seen)
                c->low = 0; /* merged into the first group's row */
            seen = 1;
        }
    }
    /* chunkgroup and the coalescing GROUP BY groupId, deviceId, pid */
    for (size_t gi = 0; gi < ng; gi++) {
        fgroup *g = &G.g[gi];
        chunk *c = C + gi * (size_t)chunks;
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
    groups_free(&G);
    *rows = out;
    *n = nu;
    return 0;
fail:
    free(C);
    free(byrange);
    free(U);
    free(out);
    groups_free(&G);
    return gf_oom(err, "findings");
}

/* The groups never beside the NVTX projection's sweep (mem.h gf_mem_gate). */
int gf_find_low_util(const gf_trace *t, const gf_fwin *w, int chunks, double threshold, int64_t limit,
                     gf_util_row **rows, size_t *n, gf_err *err)
{
    gf_mem_gate_enter();
    int rc = find_low_util(t, w, chunks, threshold, limit, rows, n, err);
    gf_mem_gate_leave();
    return rc;
}
