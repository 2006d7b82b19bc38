/* The graph of a step for its critical path (critpath.h, docs/SEMANTICS.md "Critical path"). */
#include "critpath.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "mem.h"
#include "critpath_int.h"

const char *const gf_cp_class_names[GF_CP_NCLASSES] = {"host", "launch", "queue",         "compute",
                                                       "copy", "sync",   "communication", "idle"};

int gf_cp_oom(gf_err *err)
{
    return gf_errf(err, GF_EXIT_ERROR, "critical path: out of memory");
}

static int32_t add_point(gf_cp_graph *g, int64_t t, int32_t ev, int32_t win)
{
    if (g->np == g->pcap) {
        size_t cap = g->pcap;
        if (gf_grow((void **)&g->tobs, &cap, g->np + 1, sizeof *g->tobs, 1024) != 0)
            return -1;
        cap = g->pcap;
        if (gf_grow((void **)&g->pev, &cap, g->np + 1, sizeof *g->pev, 1024) != 0)
            return -1;
        cap = g->pcap;
        if (gf_grow((void **)&g->pwin, &cap, g->np + 1, sizeof *g->pwin, 1024) != 0)
            return -1;
        g->pcap = cap;
    }
    g->tobs[g->np] = t;
    g->pev[g->np] = ev;
    g->pwin[g->np] = win;
    return (int32_t)g->np++;
}

static int grow_edges(gf_cp_graph *g)
{
    size_t need = g->ne + 1, c;
#define GROW(f)                                                                                                       \
    c = g->ecap;                                                                                                      \
    if (gf_grow((void **)&g->f, &c, need, sizeof *g->f, 4096) != 0)                                                   \
        return -1;
    GROW(src) GROW(dst) GROW(lag) GROW(minlag) GROW(item) GROW(range) GROW(cls) GROW(isdur)
#undef GROW
    g->ecap = c;
    return 0;
}

/* an edge; one against the clock (dst observed before src) is counted and left out; a dependency's minimal lag
 * never exceeds what was observed */
int gf_cp_edge(gf_cp_graph *g, int32_t s, int32_t d, int64_t minlag, int cls, int32_t item, int32_t range,
                    int isdur)
{
    if (s < 0 || d < 0)
        return 0;
    int64_t obs = g->tobs[d] - g->tobs[s];
    if (obs < 0) {
        g->dropped++;
        return 0;
    }
    if (minlag > obs)
        minlag = obs;
    if (g->ne == g->ecap && grow_edges(g) != 0)
        return -1;
    size_t e = g->ne++;
    g->src[e] = s;
    g->dst[e] = d;
    g->minlag[e] = g->lag[e] = minlag < 0 ? 0 : minlag;
    g->cls[e] = (uint8_t)cls;
    g->item[e] = item;
    g->range[e] = range;
    g->isdur[e] = (uint8_t)isdur;
    return 0;
}

void gf_cp_free(gf_cp_graph *g)
{
    free(g->tobs);
    free(g->pev);
    free(g->pwin);
    free(g->src);
    free(g->dst);
    free(g->lag);
    free(g->minlag);
    free(g->item);
    free(g->range);
    free(g->cls);
    free(g->isdur);
    gf_hmap_free(&g->parent);
    memset(g, 0, sizeof *g);
}

static int like_any(const gf_like_set *s, const char *name)
{
    if (!s || !name)
        return 0;
    for (size_t k = 0; k < s->nlike; k++)
        if (gf_like(s->like[k], name))
            return 1;
    return 0;
}

static const char *ev_name(const gf_trace *t, size_t i)
{
    return t->name[i] >= 0 ? gf_strtab_get(t->str, t->name[i], NULL) : NULL;
}

int32_t gf_cp_spoint(const bld *b, size_t i)
{
    int64_t *v = gf_hmap_get(&b->base, (uint64_t)i);
    return v ? (int32_t)*v : -1;
}

int gf_cp_is_range(const gf_trace *t, size_t i)
{
    return t->kind[i] == GF_EV_NVTX && t->lane[i] >= 0 && t->lanes[t->lane[i]].kind == GF_LANE_NVTX;
}

static int wanted(const gf_trace *t, size_t i)
{
    int k = t->kind[i];
    if (k == GF_EV_API)
        return t->lane[i] >= 0 && t->lanes[t->lane[i]].kind == GF_LANE_CPU;
    return gf_ev_is_gpu_work(k) || gf_cp_is_range(t, i);
}

/* the window holding event i (its process, rank and start), or -1; the step's own marker range is none */
static int window_of(const bld *b, size_t i)
{
    const gf_trace *t = b->t;
    int32_t rank = t->lane[i] >= 0 ? t->lanes[t->lane[i]].rank : -1;
    for (size_t k = 0; k < b->nw; k++) {
        const gf_step_win *w = &b->w[k];
        if ((w->pid >= 0 && t->pid[i] != w->pid) || rank != w->rank || t->start[i] < w->start || t->start[i] >= w->end)
            continue;
        if (t->kind[i] == GF_EV_NVTX && t->start[i] == w->start && t->start[i] + t->dur[i] == w->end &&
            t->lanes[t->lane[i]].tid == w->tid)
            return -1;
        return (int)k;
    }
    return -1;
}

static size_t first_at(const gf_trace *t, int64_t x)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (t->start[m] < x)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

/* points: the roots and sinks, then two per selected event */
static int select_events(bld *b, gf_err *err)
{
    const gf_trace *t = b->t;
    gf_cp_graph *g = b->g;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t k = 0; k < b->nw; k++) {
        lo = b->w[k].start < lo ? b->w[k].start : lo;
        hi = b->w[k].end > hi ? b->w[k].end : hi;
    }
    if ((g->root = add_point(g, lo, -1, -1)) < 0 || (g->sink = add_point(g, hi, -1, -1)) < 0)
        return gf_cp_oom(err);
    for (size_t k = 0; k < b->nw; k++) {
        if ((b->wroot[k] = add_point(g, b->w[k].start, -1, (int32_t)k)) < 0 || (b->wsink[k] = add_point(g, b->w[k].end, -1, (int32_t)k)) < 0)
            return gf_cp_oom(err);
        if (gf_cp_edge(g, g->root, b->wroot[k], 0, GF_CP_IDLE, -1, -1, 0) != 0 ||
            gf_cp_edge(g, b->wsink[k], g->sink, 0, GF_CP_IDLE, -1, -1, 0) != 0)
            return gf_cp_oom(err);
    }
    for (size_t i = first_at(t, lo); i < t->n && t->start[i] < hi; i++) {
        if (!wanted(t, i))
            continue;
        int k = window_of(b, i);
        if (k < 0)
            continue;
        if (gf_grow((void **)&b->ev, &b->evcap, b->nev + 1, sizeof *b->ev, 1024) != 0)
            return gf_cp_oom(err);
        b->ev[b->nev++] = i;
        int32_t s = add_point(g, t->start[i], (int32_t)i, k);
        if (s < 0 || add_point(g, t->start[i] + t->dur[i], (int32_t)i, k) < 0)
            return gf_cp_oom(err);
        if (!gf_hmap_put(&b->base, (uint64_t)i, s, NULL) || !gf_hmap_put(&b->winof, (uint64_t)i, k, NULL))
            return gf_cp_oom(err);
    }
    return 0;
}

int gf_cp_like(const gf_like_set *s, const gf_trace *t, size_t i)
{
    return like_any(s, ev_name(t, i));
}

int gf_cp_is_blocking(const bld *b, size_t i)
{
    return b->t->kind[i] == GF_EV_API && like_any(b->o->blocking, ev_name(b->t, i));
}

int gf_cp_is_comm(const bld *b, size_t i)
{
    return b->t->kind[i] == GF_EV_KERNEL && like_any(b->o->comm, ev_name(b->t, i));
}

static int gpu_class(const bld *b, size_t i)
{
    if (b->t->kind[i] != GF_EV_KERNEL)
        return GF_CP_COPY;
    return gf_cp_is_comm(b, i) ? GF_CP_COMM : GF_CP_COMPUTE;
}

/* a call's class: blocking → sync, launched GPU work → launch, else host */
static int call_class(const bld *b, size_t i)
{
    if (gf_cp_is_blocking(b, i))
        return GF_CP_SYNC;
    return b->partner[i] >= 0 ? GF_CP_LAUNCH : GF_CP_HOST;
}

static int cmp_mark(const void *pa, const void *pb)
{
    const mark *a = pa, *b = pb;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    if (a->tie != b->tie)
        return a->tie < b->tie ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}


/* the host marks of the selected events: per thread (window, pid, tid), calls and range boundaries */
static int host_marks(bld *b, gf_err *err)
{
    const gf_trace *t = b->t;
    gf_hmap threads;
    gf_hmap_init(&threads);
    mark *m = malloc((2 * b->nev + 1) * sizeof *m);
    size_t nm = 0;
    if (!m)
        return gf_cp_oom(err);
    for (size_t j = 0; j < b->nev; j++) {
        size_t i = b->ev[j];
        if (gf_ev_is_gpu_work(t->kind[i]))
            continue;
        const gf_lane *l = &t->lanes[t->lane[i]];
        int64_t k = *gf_hmap_get(&b->winof, (uint64_t)i);
        uint64_t key = ((uint64_t)k << 40) ^ ((uint64_t)l->tid & 0xFFFFFFFFFFull) ^ ((uint64_t)l->pid << 20);
        int ins;
        int64_t *th = gf_hmap_put(&threads, key, (int64_t)threads.n, &ins);
        if (!th) {
            free(m);
            gf_hmap_free(&threads);
            return gf_cp_oom(err);
        }
        int64_t thread = (k << 32) | (*th & 0xFFFFFFFF);
        int64_t end = t->start[i] + t->dur[i];
        if (t->kind[i] == GF_EV_API) {
            m[nm++] = (mark){thread, t->start[i], 0, 2, i};
        } else {
            m[nm++] = (mark){thread, t->start[i], -end, 1, i};
            if (end <= b->w[k].end)
                m[nm++] = (mark){thread, end, -t->start[i], 0, i};
        }
    }
    gf_hmap_free(&threads);
    qsort(m, nm, sizeof *m, cmp_mark);
    int rc = gf_cp_host_order(b, m, nm, err);
    free(m);
    return rc;
}

/* each point without an in-edge waits from its window's root (idle); in windows without a marker thread the
 * sink waits for every end */
static int root_edges(bld *b, gf_err *err)
{
    gf_cp_graph *g = b->g;
    int rc = 0;
    for (size_t j = 0; j < b->nev && rc == 0; j++) {
        size_t i = b->ev[j];
        int k = (int)*gf_hmap_get(&b->winof, (uint64_t)i);
        int32_t e = gf_cp_spoint(b, i) + 1;
        if (b->w[k].tid < 0 && g->tobs[e] <= g->tobs[b->wsink[k]]) /* what ends after the window is not waited for */
            rc = gf_cp_edge(g, e, b->wsink[k], 0, GF_CP_IDLE, -1, -1, 0);
    }
    uint8_t *has = calloc(g->np ? g->np : 1, 1);
    if (!has)
        return gf_cp_oom(err);
    for (size_t e = 0; e < g->ne; e++)
        has[g->dst[e]] = 1;
    for (size_t p = 0; p < g->np && rc == 0; p++) {
        if (has[p] || (int32_t)p == g->root)
            continue;
        int32_t ev = g->pev[p];
        int k = 0;
        if (ev >= 0)
            k = (int)*gf_hmap_get(&b->winof, (uint64_t)ev);
        else
            for (size_t w = 0; w < b->nw; w++)
                if (b->wsink[w] == (int32_t)p || b->wroot[w] == (int32_t)p)
                    k = (int)w;
        int64_t off = g->tobs[p] - g->tobs[b->wroot[k]];
        rc = gf_cp_edge(g, b->wroot[k], (int32_t)p, off, GF_CP_IDLE, -1, -1, 0);
    }
    free(has);
    return rc ? gf_cp_oom(err) : 0;
}

/* each point's binding in-edge (the latest release; ties: the later source, then the lower edge) gets the
 * observed remainder as its lag */
static int bind_edges(gf_cp_graph *g, gf_err *err)
{
    int32_t *best = malloc((g->np ? g->np : 1) * sizeof *best);
    if (!best)
        return gf_cp_oom(err);
    for (size_t p = 0; p < g->np; p++)
        best[p] = -1;
    for (size_t e = 0; e < g->ne; e++) {
        int32_t d = g->dst[e], c = best[d];
        if (c < 0) {
            best[d] = (int32_t)e;
            continue;
        }
        int64_t ve = g->tobs[g->src[e]] + g->minlag[e], vc = g->tobs[g->src[c]] + g->minlag[c];
        if (ve > vc || (ve == vc && g->tobs[g->src[e]] > g->tobs[g->src[c]]))
            best[d] = (int32_t)e;
    }
    for (size_t p = 0; p < g->np; p++)
        if (best[p] >= 0)
            g->lag[best[p]] = g->tobs[p] - g->tobs[g->src[best[p]]];
    free(best);
    return 0;
}

int gf_cp_build(const gf_trace *t, const int32_t *partner, const gf_step_win *w, size_t nw, const gf_cp_opts *o,
                gf_cp_graph *g, gf_err *err)
{
    memset(g, 0, sizeof *g);
    gf_hmap_init(&g->parent);
    if (nw == 0)
        return gf_errf(err, GF_EXIT_ERROR, "critical path: no window");
    bld b = {t, partner, w, nw, o, g, {0}, {0}, {0}, NULL, NULL, NULL, 0, 0};
    gf_hmap_init(&b.base);
    gf_hmap_init(&b.winof);
    gf_hmap_init(&b.callrange);
    b.wroot = malloc(nw * sizeof *b.wroot);
    b.wsink = malloc(nw * sizeof *b.wsink);
    int rc = b.wroot && b.wsink ? 0 : gf_cp_oom(err);
    if (rc == 0)
        rc = select_events(&b, err);
    for (size_t j = 0; j < b.nev && rc == 0; j++) { /* durations */
        size_t i = b.ev[j];
        int32_t s = gf_cp_spoint(&b, i);
        if (gf_cp_is_range(t, i))
            continue;
        int cls = t->kind[i] == GF_EV_API ? call_class(&b, i) : gpu_class(&b, i);
        int64_t min = t->dur[i];
        if (gf_cp_is_blocking(&b, i) || (cls == GF_CP_COMM && nw > 1))
            min = 0; /* a blocking call or a collective waits: its length is set by its other in-edges */
        if (gf_cp_edge(g, s, s + 1, min, cls, (int32_t)i, -1, 1) != 0)
            rc = gf_cp_oom(err);
    }
    if (rc == 0)
        rc = host_marks(&b, err);
    if (rc == 0)
        rc = gf_cp_gpu_edges(&b, err);
    if (rc == 0)
        rc = root_edges(&b, err);
    if (rc == 0)
        rc = bind_edges(g, err);
    gf_hmap_free(&b.base);
    gf_hmap_free(&b.winof);
    gf_hmap_free(&b.callrange);
    free(b.wroot);
    free(b.wsink);
    free(b.ev);
    if (rc != 0)
        gf_cp_free(g);
    return rc;
}
