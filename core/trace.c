/* The Trace model (trace.h): creating and freeing a trace, warnings, the source name, and the export's
 * rows that are not timeline events (profiler overhead, graph executions), and the launch partners of a
 * finished trace (gf_trace_partners). The builder is trace_build.c, trimming a finished trace trace_trim.c. */
#include "trace.h"
#include "hmap.h"
#include "mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const gf_ev_kind_names[GF_EV_NKINDS] = {"cuda_api", "kernel", "memcpy", "memset", "sync", "nvtx",
                                                      "osrt", "cpu_sample", "cpu_running"};
const char *const gf_lane_kind_names[3] = {"cpu", "gpu", "nvtx"};

int gf_ev_is_nvtx_mark(const gf_trace *t, size_t i)
{
    return t->kind[i] == GF_EV_NVTX && t->detail[i] >= 0 && t->details[t->detail[i]].nvtx_level == GF_NVTX_MARK;
}

void gf_detail_clear(gf_detail *d)
{
    for (int i = 0; i < 3; i++)
        d->grid[i] = d->block[i] = -1;
    d->regs = d->copy = d->domain = d->nvtx_level = -1;
    d->bytes = d->smem_static = d->smem_dynamic = -1;
    d->graph_node = d->graph = -1;
    d->context = d->src_dev = d->dst_dev = -1;
    d->copy_kind = d->src_kind = d->dst_kind = d->mem_kind = -1;
}

gf_trace *gf_trace_new(void)
{
    gf_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->str = gf_strtab_new();
    t->stack_off = malloc(sizeof *t->stack_off * 16);
    if (!t->str || !t->stack_off) {
        gf_strtab_free(t->str);
        free(t->stack_off);
        free(t);
        return NULL;
    }
    t->stacks_cap = 15;
    t->stack_off[0] = 0;
    return t;
}

void gf_trace_free_events(gf_trace *t)
{
    free(t->start);
    free(t->dur);
    free(t->corr);
    free(t->lane);
    free(t->name);
    free(t->stack);
    free(t->pid);
    free(t->detail);
    free(t->kind);
    free(t->seq);
    free(t->nvtx_rowid);
    free(t->details);
    t->seq = NULL;
    t->nvtx_rowid = NULL;
    t->nvtx_nrid = 0;
    t->start = t->dur = t->corr = NULL;
    t->lane = t->name = t->stack = t->pid = t->detail = NULL;
    t->kind = NULL;
    t->details = NULL;
    t->n = t->ndetails = 0;
}

void gf_trace_free(gf_trace *t)
{
    if (!t)
        return;
    if (t->b && t->b_free)
        t->b_free(t->b);
    gf_trace_free_events(t);
    free(t->lanes);
    free(t->frames);
    free(t->stack_off);
    free(t->flame);
    for (size_t i = 0; i < t->nwarnings; i++)
        free(t->warnings[i]);
    free(t->warnings);
    free(t->source);
    free(t->clock);
    free(t->rank_label);
    gf_hmap_free(&t->raw_names);
    gf_hmap_free(&t->raw_by_seq);
    gf_hmap_free(&t->nvtx_group);
    free(t->overhead);
    free(t->graph_execs);
    gf_strtab_free(t->str);
    free(t);
}

int gf_trace_warn(gf_trace *t, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < t->nwarnings; i++)
        if (strcmp(t->warnings[i], buf) == 0)
            return 0;
    if (GF_RESIZE(t->warnings, t->nwarnings + 1) != 0)
        return -1;
    if (!(t->warnings[t->nwarnings] = strdup(buf)))
        return -1;
    t->nwarnings++;
    return 0;
}

int gf_trace_set_source(gf_trace *t, const char *path)
{
    const char *slash = strrchr(path, '/');
    free(t->source);
    t->source = strdup(slash ? slash + 1 : path);
    return t->source ? 0 : -1;
}

int gf_trace_add_overhead(gf_trace *t, const gf_overhead *o)
{
    if (GF_GROW(t->overhead, t->overhead_cap, t->noverhead + 1, 64) != 0)
        return -1;
    t->overhead[t->noverhead++] = *o;
    return 0;
}

int gf_trace_add_graph_exec(gf_trace *t, const gf_graph_exec *g)
{
    if (GF_GROW(t->graph_execs, t->graph_execs_cap, t->ngraph_execs + 1, 64) != 0)
        return -1;
    t->graph_execs[t->ngraph_execs++] = *g;
    return 0;
}

/* ---- queries: launch partners by correlation id (gf_trace_partners) ---- */

/* Launches ordered by (pid, corr, index) — or by (corr, index) when pids are ignored — so that GPU work
 * finds its launch by binary search: 4 bytes per launch where a hash map of both keys took 40. */
typedef struct launch_order {
    const gf_trace *t;
    int by_corr;
} launch_order;

static int cmp_launch(const void *a, const void *b, void *ctx)
{
    const launch_order *o = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (!o->by_corr && o->t->pid[i] != o->t->pid[j])
        return o->t->pid[i] < o->t->pid[j] ? -1 : 1;
    if (o->t->corr[i] != o->t->corr[j])
        return o->t->corr[i] < o->t->corr[j] ? -1 : 1;
    if (o->t->unordered && o->t->start[i] != o->t->start[j])
        return o->t->start[i] < o->t->start[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* The first launch in cmp_launch's order (the lowest index; in an unordered trace the earliest start first) with GPU
 * work g's correlation id (and process, unless by_corr), or -1. */
static int64_t find_launch(const gf_trace *t, const uint32_t *ids, size_t n, int by_corr, size_t g)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2, i = ids[mid];
        int less = !by_corr && t->pid[i] != t->pid[g] ? t->pid[i] < t->pid[g] : t->corr[i] < t->corr[g];
        if (less)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n)
        return -1;
    size_t i = ids[lo];
    return t->corr[i] == t->corr[g] && (by_corr || t->pid[i] == t->pid[g]) ? (int64_t)i : -1;
}

static int sorted_partners(const gf_trace *t, size_t nl, int any_pidless, int32_t *p);

/* CUPTI numbers each process's correlation ids 1, 2, 3, ...: when the launches' ids are that dense, GPU work
 * finds its launch in a table indexed by (process, id) (gf_launch_index) instead of by binary search in a
 * sorted copy of the launches (a sort of every launch through an indirect comparison, then a random walk per
 * GPU operation). */
typedef struct corr_span {
    int64_t pid, lo, hi;
    uint64_t base;
} corr_span;

static int64_t span_of(gf_launch_index *x, int64_t pid)
{
    if (pid != x->memo_pid) {
        int64_t *v = gf_hmap_get(&x->slot, (uint64_t)(uint32_t)pid);
        x->memo_pid = pid;
        x->memo = v ? *v : -1;
    }
    return x->memo;
}

/* One pass: the spans of the launches' ids per process, their count (*nl), and whether GPU work without a
 * process has an id (*pidless). 1 when the spans fit a table of at most 2 entries a launch (plus 64K), 0 when
 * they are too sparse, -1 on OOM. */
static int launch_spans(const gf_trace *t, gf_launch_index *x, size_t *nl, int *pidless, uint64_t *total)
{
    *nl = 0;
    *pidless = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->corr[i] < 0)
            continue;
        if (t->kind[i] != GF_EV_API) {
            *pidless |= gf_ev_is_gpu_work(t->kind[i]) && t->pid[i] < 0;
            continue;
        }
        ++*nl;
        int ins;
        int64_t *v = gf_hmap_put(&x->slot, (uint64_t)(uint32_t)t->pid[i], (int64_t)x->n, &ins);
        if (!v)
            return -1;
        if (ins) {
            if (GF_GROW(x->sp, x->cap, x->n + 1, 16) != 0)
                return -1;
            x->sp[x->n++] = (corr_span){t->pid[i], t->corr[i], t->corr[i], 0};
        }
        corr_span *c = &x->sp[*v];
        if (t->corr[i] < c->lo)
            c->lo = t->corr[i];
        if (t->corr[i] > c->hi)
            c->hi = t->corr[i];
    }
    uint64_t limit = 2 * (uint64_t)*nl + 65536;
    *total = 0;
    for (size_t k = 0; k < x->n; k++) {
        uint64_t w = (uint64_t)x->sp[k].hi - (uint64_t)x->sp[k].lo + 1;
        if (w > limit || *total + w > limit)
            return 0;
        x->sp[k].base = *total;
        *total += w;
    }
    return 1;
}

int gf_launch_index_build(const gf_trace *t, gf_launch_index *x, gf_err *err)
{
    memset(x, 0, sizeof *x);
    x->memo_pid = INT64_MIN; /* no pid is INT64_MIN: the first lookup misses */
    x->memo = -1;
    gf_hmap_init(&x->slot);
    if (t->n > INT32_MAX) {
        gf_launch_index_free(x);
        return gf_errf(err, GF_EXIT_ERROR, "trace: %zu events: launch partners are indexed by 32 bits", t->n);
    }
    uint64_t total = 0;
    size_t nl;
    int pidless;
    int rc = launch_spans(t, x, &nl, &pidless, &total);
    if (rc == 1 && !pidless) {
        if (!(x->tab = malloc((total ? total : 1) * sizeof *x->tab))) {
            gf_launch_index_free(x);
            return gf_oom(err, "trace");
        }
        memset(x->tab, 0xff, (total ? total : 1) * sizeof *x->tab);
        for (size_t i = 0; i < t->n; i++) {
            if (t->kind[i] != GF_EV_API || t->corr[i] < 0)
                continue;
            const corr_span *c = &x->sp[span_of(x, t->pid[i])];
            int32_t *slot = &x->tab[c->base + (uint64_t)(t->corr[i] - c->lo)];
            if (*slot < 0 || (t->unordered && t->start[i] < t->start[*slot]))
                *slot = (int32_t)i;
        }
        return 0;
    }
    if (rc < 0 || (x->partner = malloc((t->n ? t->n : 1) * sizeof *x->partner)) == NULL) {
        gf_launch_index_free(x);
        return gf_oom(err, "trace");
    }
    for (size_t i = 0; i < t->n; i++)
        x->partner[i] = -1;
    if (sorted_partners(t, nl, pidless, x->partner) != 0) {
        gf_launch_index_free(x);
        return gf_oom(err, "trace");
    }
    return 0;
}

int64_t gf_launch_index_find(gf_launch_index *x, const gf_trace *t, size_t g)
{
    if (x->partner)
        return x->partner[g];
    if (!gf_ev_is_gpu_work(t->kind[g]) || t->corr[g] < 0)
        return -1;
    int64_t k = span_of(x, t->pid[g]);
    const corr_span *c = k >= 0 ? &x->sp[k] : NULL;
    return c && t->corr[g] >= c->lo && t->corr[g] <= c->hi ? x->tab[c->base + (uint64_t)(t->corr[g] - c->lo)] : -1;
}

void gf_launch_index_free(gf_launch_index *x)
{
    free(x->tab);
    free(x->partner);
    free(x->sp);
    gf_hmap_free(&x->slot);
    memset(x, 0, sizeof *x);
}

/* The launches sorted by (pid, corr, index), then by (corr, index) for GPU work without a process (CSV input),
 * each GPU operation's launch found by binary search. 0, or -1 on OOM. */
static int sorted_partners(const gf_trace *t, size_t nl, int any_pidless, int32_t *p)
{
    uint32_t *ids = malloc((nl ? nl : 1) * sizeof *ids);
    if (!ids)
        return -1;
    nl = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->kind[i] == GF_EV_API && t->corr[i] >= 0)
            ids[nl++] = (uint32_t)i;
    launch_order by_pid = {t, 0}, by_corr = {t, 1};
    for (int pass = 0; pass < 1 + any_pidless; pass++) {
        qsort_r(ids, nl, sizeof *ids, cmp_launch, pass ? &by_corr : &by_pid);
        for (size_t i = 0; i < t->n; i++) {
            if (!gf_ev_is_gpu_work(t->kind[i]) || t->corr[i] < 0 || (pass && t->pid[i] >= 0) || p[i] >= 0)
                continue;
            int64_t v = find_launch(t, ids, nl, pass, i);
            if (v >= 0)
                p[i] = (int32_t)v;
        }
    }
    free(ids);
    return 0;
}

int gf_trace_partners(const gf_trace *t, int32_t **partner, gf_err *err)
{
    gf_launch_index x;
    if (gf_launch_index_build(t, &x, err) != 0)
        return -1;
    int32_t *p = x.partner;
    x.partner = NULL;
    if (!p && !(p = malloc((t->n ? t->n : 1) * sizeof *p))) {
        gf_launch_index_free(&x);
        return gf_oom(err, "trace");
    }
    if (x.tab)
        for (size_t i = 0; i < t->n; i++)
            p[i] = (int32_t)gf_launch_index_find(&x, t, i);
    gf_launch_index_free(&x);
    /* an API call links to the first GPU work it launched */
    for (size_t i = 0; i < t->n; i++)
        if (gf_ev_is_gpu_work(t->kind[i]) && p[i] >= 0 && p[p[i]] < 0)
            p[p[i]] = (int32_t)i;
    *partner = p;
    return 0;
}
