/* The GPU operation table of gpustats.py read from the trace in place (trace_findings_gpuops.h). */
#include "trace_findings_gpuops.h"
#include "trace_findings_int.h"

#include <stdlib.h>
#include <string.h>

/* A GPU operation's rank in gpustats.py's union (after profiling overhead, 0) */
static uint8_t union_rank(int kind)
{
    return kind == GF_EV_KERNEL ? 1 : kind == GF_EV_MEMCPY ? 2 : 3;
}

uint64_t gf_gpuops_order(const gf_trace *t, uint32_t ref)
{
    if (ref >= t->n)
        return t->overhead[ref - t->n].seq;
    return (uint64_t)union_rank(t->kind[ref]) << 32 | t->seq[ref];
}

/* The range CTE's bare contextId (SELECT min(start), max(end), ..., contextId ... GROUP BY deviceId, pid):
 * SQLite takes a bare column from the row on which the last min/max aggregate, max(end), took a new value
 * (OP_CollSeq clears the hit flag before each of them), so from the first row in union order (rank, then
 * seq) with the group's latest end. 1 when the row (e, order) comes before the best so far. Measured
 * against nsys 2022.4 (tests/gen/findings_export.py quirks: two contexts on one device of one process). */
static int range_row(int64_t e, uint64_t order, int64_t best_e, uint64_t best_order)
{
    return e > best_e || (e == best_e && order < best_order);
}

static const char *const overhead_names[] = {"CUDA profiling data flush overhead", "CUDA profiling stop overhead",
                                             "CUDA profiling overhead"};

/* 1 when PROFILER_OVERHEAD row o is CUDA profiling overhead (oid: overhead_names' string ids, -1 absent) in
 * the filter (as a globalTid table) */
static int cuda_overhead(const gf_overhead *o, const int32_t oid[3], const gf_fwin *w)
{
    return o->name >= 0 && (o->name == oid[0] || o->name == oid[1] || o->name == oid[2]) &&
           gf_fwin_cpu(w, o->start, o->end, o->pid, o->tid);
}

/* Event i's group key (pid, deviceId); 0 when the GPU rules leave the event out (not GPU work, start <= 0,
 * outside the window). GPU work comes in runs of one group: the callers look the last key up once. */
static int gpu_key(const gf_trace *t, const gf_fwin *w, size_t i, uint64_t *key)
{
    if (!gf_ev_is_gpu_work(t->kind[i]) || t->start[i] <= 0 ||
        !gf_fwin_gpu(w, t->start[i], t->start[i] + t->dur[i], t->pid[i]))
        return 0;
    *key = ((uint64_t)(uint32_t)(t->pid[i] + 1) << 32) | (uint32_t)(lane_dev(t, i) + 1);
    return 1;
}

static int cmp_pid_dev(const void *a, const void *b, void *ctx)
{
    const gf_gpuops *G = ctx;
    const gf_gpuop_group *x = &G->g[*(const size_t *)a], *y = &G->g[*(const size_t *)b];
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static int cmp_oh_start(const void *a, const void *b, void *ctx)
{
    const gf_trace *t = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (t->overhead[i].start != t->overhead[j].start)
        return t->overhead[i].start < t->overhead[j].start ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* the groups' order by (pid, deviceId) and the overhead rows in the filter by start */
static int order_groups(const gf_trace *t, const gf_fwin *w, gf_gpuops *G)
{
    G->sorted = malloc((G->n ? G->n : 1) * sizeof *G->sorted);
    G->rank = malloc((G->n ? G->n : 1) * sizeof *G->rank);
    G->oh = malloc((t->noverhead ? t->noverhead : 1) * sizeof *G->oh);
    if (!G->sorted || !G->rank || !G->oh)
        return -1;
    for (size_t k = 0; k < G->n; k++)
        G->sorted[k] = k;
    qsort_r(G->sorted, G->n, sizeof *G->sorted, cmp_pid_dev, G);
    for (size_t k = 0; k < G->n; k++)
        G->rank[G->sorted[k]] = k;
    int32_t oid[3];
    for (int k = 0; k < 3; k++)
        oid[k] = gf_strtab_find(t->str, overhead_names[k], strlen(overhead_names[k]));
    for (size_t i = 0; i < t->noverhead; i++)
        if (cuda_overhead(&t->overhead[i], oid, w))
            G->oh[G->noh++] = (uint32_t)i;
    qsort_r(G->oh, G->noh, sizeof *G->oh, cmp_oh_start, (void *)t);
    return 0;
}

void gf_gpuops_free(gf_gpuops *G)
{
    free(G->g);
    free(G->sorted);
    free(G->rank);
    free(G->oh);
    gf_hmap_free(&G->idx);
    memset(G, 0, sizeof *G);
}

int gf_gpuops_scan(const gf_trace *t, const gf_fwin *w, gf_gpuops *G, gf_err *err)
{
    memset(G, 0, sizeof *G);
    if (t->n + t->noverhead >= UINT32_MAX)
        return gf_errf(err, GF_EXIT_ERROR, "GPU rules: %zu events and %zu profiler overhead rows: more than 32-bit "
                       "row numbers hold", t->n, t->noverhead);
    gf_hmap_init(&G->idx);
    uint64_t key, last_key = GF_HMAP_EMPTY;
    int64_t gi = -1, prev = INT64_MIN;
    for (size_t i = 0; i < t->n; i++) {
        if (!gpu_key(t, w, i, &key))
            continue;
        int ins = 0;
        if (key != last_key) {
            int64_t *v = gf_hmap_put(&G->idx, key, (int64_t)G->n, &ins);
            if (!v)
                goto oom;
            gi = *v;
            last_key = key;
        }
        if (t->start[i] < prev) {
            gf_gpuops_free(G);
            return gf_errf(err, GF_EXIT_ERROR, "GPU rules: the trace's events are not in start order (event %zu)", i);
        }
        prev = t->start[i];
        if (ins) {
            if (GF_GROW(G->g, G->cap, G->n + 1, 8) != 0)
                goto oom;
            G->g[G->n++] = (gf_gpuop_group){.pid = t->pid[i], .dev = lane_dev(t, i), .rs = INT64_MAX, .re = INT64_MIN};
        }
        gf_gpuop_group *g = &G->g[gi];
        int64_t e = t->start[i] + t->dur[i];
        uint64_t order = gf_gpuops_order(t, (uint32_t)i);
        if (g->rs == INT64_MAX || range_row(e, order, g->re, g->best_order)) {
            g->best = (uint32_t)i;
            g->best_order = order;
            g->ctx = ev_context(t, i);
        }
        if (t->start[i] < g->rs)
            g->rs = t->start[i];
        if (e > g->re)
            g->re = e;
    }
    if (order_groups(t, w, G) != 0) {
        gf_gpuops_free(G);
        return gf_oom(err, "findings");
    }
    return 0;
oom:
    gf_gpuops_free(G);
    return gf_oom(err, "findings");
}

/* overhead row k (an index into G->oh) to each group of its process whose range holds it strictly */
static void each_overhead(const gf_trace *t, const gf_gpuops *G, size_t k, gf_gpuop_fn *fn, void *arg)
{
    const gf_overhead *o = &t->overhead[G->oh[k]];
    for (size_t j = 0; j < G->n; j++) {
        size_t gi = G->sorted[j];
        const gf_gpuop_group *g = &G->g[gi];
        if (g->pid == o->pid && o->start > g->rs && o->end < g->re)
            fn(arg, gi, o->start, o->end, (uint32_t)(t->n + G->oh[k]));
    }
}

void gf_gpuops_each(const gf_trace *t, const gf_fwin *w, const gf_gpuops *G, gf_gpuop_fn *fn, void *arg)
{
    uint64_t key, last_key = GF_HMAP_EMPTY;
    size_t gi = 0, oh = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (!gpu_key(t, w, i, &key))
            continue;
        if (key != last_key) { /* every group is in the scan's index */
            gi = (size_t)*gf_hmap_get(&G->idx, key);
            last_key = key;
        }
        for (; oh < G->noh && t->overhead[G->oh[oh]].start <= t->start[i]; oh++)
            each_overhead(t, G, oh, fn, arg);
        fn(arg, gi, t->start[i], t->start[i] + t->dur[i], (uint32_t)i);
    }
    for (; oh < G->noh; oh++)
        each_overhead(t, G, oh, fn, arg);
}
