/* The critical path's edges between events: host order, launch, stream order, synchronisation, collectives
 * across ranks (critpath.h, docs/SEMANTICS.md "Critical path"). */
#include <stdlib.h>
#include <string.h>

#include "critpath_int.h"
#include "mem.h"

/* one thread's host order: calls (nested ones hang from the call they started in) and NVTX range boundaries;
 * the gaps between them are host code of the innermost open range; the marker thread starts at the window's
 * root and ends at its sink */
static int thread_order(bld *b, const mark *m, size_t a, size_t z, int32_t **st, size_t *cap)
{
    const gf_trace *t = b->t;
    gf_cp_graph *g = b->g;
    int k = (int)(m[a].thread >> 32);
    const gf_step_win *w = &b->w[k];
    int marker = w->tid >= 0 && t->lanes[t->lane[m[a].ev]].tid == w->tid;
    int32_t cur = marker ? b->wroot[k] : -1, busy_call = -1;
    int64_t busy = INT64_MIN;
    size_t ns = 0;
    for (size_t j = a; j < z; j++) {
        size_t i = m[j].ev;
        int32_t s = gf_cp_spoint(b, i), top = ns ? (*st)[ns - 1] : -1;
        if (m[j].t < busy) { /* inside a call */
            if (m[j].type == 2) {
                if (gf_cp_edge(g, gf_cp_spoint(b, (size_t)busy_call), s, m[j].t - t->start[busy_call],
                               GF_CP_LAUNCH, (int32_t)busy_call, top, 0) != 0 ||
                    !gf_hmap_put(&b->callrange, (uint64_t)i, top, NULL))
                    return -1;
            }
            continue;
        }
        int32_t d = m[j].type == 0 ? s + 1 : s;
        if (cur >= 0 && gf_cp_edge(g, cur, d, g->tobs[d] - g->tobs[cur], GF_CP_HOST, top, top, 1) != 0)
            return -1;
        if (m[j].type == 2) {
            if (!gf_hmap_put(&b->callrange, (uint64_t)i, top, NULL))
                return -1;
            cur = s + 1;
            busy = t->start[i] + t->dur[i];
            busy_call = (int32_t)i;
        } else if (m[j].type == 1) {
            if (!gf_hmap_put(&g->parent, (uint64_t)i, top, NULL) || gf_grow((void **)st, cap, ns + 1, sizeof **st, 16))
                return -1;
            (*st)[ns++] = (int32_t)i;
            cur = s;
        } else {
            size_t q = ns;
            while (q > 0 && (*st)[q - 1] != (int32_t)i)
                q--;
            if (q > 0)
                ns = q - 1;
            cur = s + 1;
        }
    }
    if (marker && cur >= 0) {
        int32_t top = ns ? (*st)[ns - 1] : -1;
        if (gf_cp_edge(g, cur, b->wsink[k], g->tobs[b->wsink[k]] - g->tobs[cur], GF_CP_HOST, top, top, 1) != 0)
            return -1;
    }
    return 0;
}

int gf_cp_host_order(bld *b, mark *m, size_t nm, gf_err *err)
{
    int32_t *st = NULL;
    size_t cap = 0;
    for (size_t a = 0, z; a < nm; a = z) {
        for (z = a; z < nm && m[z].thread == m[a].thread; z++)
            ;
        if (thread_order(b, m, a, z, &st, &cap) != 0) {
            free(st);
            return gf_cp_oom(err);
        }
    }
    /* a marker thread without a call or range in its window: its root to its sink, host code */
    for (size_t k = 0; k < b->nw; k++) {
        int has = 0;
        for (size_t e = 0; e < b->g->ne && !has; e++)
            has = b->g->dst[e] == b->wsink[k] && b->g->cls[e] == GF_CP_HOST;
        if (!has && b->w[k].tid >= 0 &&
            gf_cp_edge(b->g, b->wroot[k], b->wsink[k], b->w[k].end - b->w[k].start, GF_CP_HOST, -1, -1, 1) != 0) {
            free(st);
            return gf_cp_oom(err);
        }
    }
    free(st);
    return 0;
}

typedef struct gop {
    int64_t k, key, t; /* window; sort key; time */
    size_t ev;
} gop;

static int cmp_gop(const void *pa, const void *pb)
{
    const gop *a = pa, *b = pb;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* synchronisation: a blocking call's end waits for the GPU work of its window that ended last before it
 * returned (and after it began), and for the GPU work it launched itself */
static int sync_edges(bld *b, const gop *byend, size_t n)
{
    const gf_trace *t = b->t;
    for (size_t j = 0; j < b->nev; j++) {
        size_t c = b->ev[j];
        if (!gf_cp_is_blocking(b, c))
            continue;
        int64_t k = *gf_hmap_get(&b->winof, (uint64_t)c), cs = t->start[c], ce = cs + t->dur[c];
        size_t lo = 0, hi = n; /* the first entry after (k, ce) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (byend[mid].k < k || (byend[mid].k == k && byend[mid].t <= ce))
                lo = mid + 1;
            else
                hi = mid;
        }
        int32_t ec = gf_cp_spoint(b, c) + 1;
        if (lo > 0 && byend[lo - 1].k == k && byend[lo - 1].t > cs &&
            gf_cp_edge(b->g, gf_cp_spoint(b, byend[lo - 1].ev) + 1, ec, 0, GF_CP_SYNC, (int32_t)c, -1, 0) != 0)
            return -1;
        int32_t p = b->partner[c];
        if (p >= 0 && gf_cp_spoint(b, (size_t)p) >= 0 &&
            gf_cp_edge(b->g, gf_cp_spoint(b, (size_t)p) + 1, ec, 0, GF_CP_SYNC, (int32_t)c, -1, 0) != 0)
            return -1;
    }
    return 0;
}

/* collectives across windows: the k-th kernel of one name on each window is one instance; it ends no earlier
 * than the shortest instance's length after the last window's kernel started */
static int comm_edges(bld *b, gop *cm, size_t n)
{
    gf_cp_graph *g = b->g;
    const gf_trace *t = b->t;
    for (size_t a = 0, z; a < n; a = z) {
        for (z = a; z < n && cm[z].k == cm[a].k && cm[z].key == cm[a].key; z++)
            ;
        int64_t c = INT64_MAX;
        int64_t wins = 0, lastk = -1;
        for (size_t j = a; j < z; j++) {
            c = t->dur[cm[j].ev] < c ? t->dur[cm[j].ev] : c;
            wins += cm[j].t != lastk;
            lastk = cm[j].t;
        }
        if (wins < 2)
            continue;
        for (size_t i = a; i < z; i++)
            for (size_t j = a; j < z; j++) {
                int32_t si = gf_cp_spoint(b, cm[j].ev), di = gf_cp_spoint(b, cm[i].ev) + 1;
                if (gf_cp_edge(g, si, di, c, GF_CP_COMM, (int32_t)cm[i].ev, -1, 1) != 0)
                    return -1;
            }
    }
    return 0;
}

/* collectives: (name, ordinal on its window) as k and key, the window as t, grouped by sorting */
static int comm_groups(bld *b, gf_err *err)
{
    const gf_trace *t = b->t;
    gop *cm = malloc((b->nev ? b->nev : 1) * sizeof *cm);
    gf_hmap ord;
    gf_hmap_init(&ord);
    size_t n = 0;
    int rc = cm ? 0 : -1;
    for (size_t j = 0; j < b->nev && rc == 0; j++) {
        size_t i = b->ev[j];
        if (!gf_cp_is_comm(b, i))
            continue;
        int64_t k = *gf_hmap_get(&b->winof, (uint64_t)i);
        int ins;
        int64_t *o = gf_hmap_put(&ord, ((uint64_t)k << 32) | (uint32_t)t->name[i], -1, &ins);
        if (!o) {
            rc = -1;
            break;
        }
        ++*o;
        cm[n++] = (gop){t->name[i], *o, k, i};
    }
    if (rc == 0) {
        qsort(cm, n, sizeof *cm, cmp_gop);
        rc = comm_edges(b, cm, n);
    }
    free(cm);
    gf_hmap_free(&ord);
    return rc ? gf_cp_oom(err) : 0;
}

/* each call's and GPU operation's duration edges in the range their call started in */
static void call_ranges(bld *b)
{
    gf_cp_graph *g = b->g;
    for (size_t e = 0; e < g->ne; e++) {
        if (!g->isdur[e] || g->item[e] < 0 || g->range[e] >= 0 || g->cls[e] == GF_CP_HOST)
            continue;
        int32_t c = g->item[e];
        if (b->t->kind[c] != GF_EV_API)
            c = b->partner[c];
        int64_t *r = c >= 0 ? gf_hmap_get(&b->callrange, (uint64_t)c) : NULL;
        if (r)
            g->range[e] = (int32_t)*r;
    }
}

/* cross-stream events, by each thread's order: record captures the GPU work the thread launched last, a stream
 * wait makes the next GPU work the thread launches on another stream wait for it */
static int event_edges(bld *b)
{
    const gf_trace *t = b->t;
    gf_hmap last, captured, pending; /* thread lane → event */
    gf_hmap_init(&last);
    gf_hmap_init(&captured);
    gf_hmap_init(&pending);
    int rc = 0;
    for (size_t j = 0; j < b->nev && rc == 0; j++) {
        size_t c = b->ev[j];
        if (t->kind[c] != GF_EV_API)
            continue;
        uint64_t th = (uint64_t)(uint32_t)t->lane[c];
        int32_t p = b->partner[c];
        int64_t *v;
        if (p >= 0 && gf_cp_spoint(b, (size_t)p) >= 0) {
            v = gf_hmap_get(&pending, th);
            if (v && *v >= 0 && t->lanes[t->lane[*v]].stream != t->lanes[t->lane[p]].stream) {
                rc = gf_cp_edge(b->g, gf_cp_spoint(b, (size_t)*v) + 1, gf_cp_spoint(b, (size_t)p), 0, GF_CP_QUEUE, p,
                                -1, 0);
                *v = -1;
            }
            if (!gf_hmap_put(&last, th, 0, NULL))
                rc = -1;
            else
                *gf_hmap_get(&last, th) = p;
        } else if (gf_cp_like(b->o->record, t, c)) {
            v = gf_hmap_get(&last, th);
            if (!gf_hmap_put(&captured, th, 0, NULL))
                rc = -1;
            else
                *gf_hmap_get(&captured, th) = v ? *v : -1;
        } else if (gf_cp_like(b->o->wait, t, c)) {
            v = gf_hmap_get(&captured, th);
            if (!gf_hmap_put(&pending, th, 0, NULL))
                rc = -1;
            else
                *gf_hmap_get(&pending, th) = v ? *v : -1;
        }
    }
    gf_hmap_free(&last);
    gf_hmap_free(&captured);
    gf_hmap_free(&pending);
    return rc;
}

int gf_cp_gpu_edges(bld *b, gf_err *err)
{
    const gf_trace *t = b->t;
    gf_cp_graph *g = b->g;
    gf_hmap last; /* GPU lane → its last operation */
    gf_hmap_init(&last);
    gop *byend = malloc((b->nev ? b->nev : 1) * sizeof *byend);
    size_t n = 0;
    int rc = byend ? 0 : -1;
    for (size_t j = 0; j < b->nev && rc == 0; j++) {
        size_t i = b->ev[j];
        if (!gf_ev_is_gpu_work(t->kind[i]))
            continue;
        int32_t s = gf_cp_spoint(b, i), p = b->partner[i];
        /* launch: the work starts no earlier than its call returns, or than observed where it started before */
        if (p >= 0 && gf_cp_edge(g, gf_cp_spoint(b, (size_t)p), s, t->dur[p], GF_CP_LAUNCH, p, -1, 0) != 0)
            rc = -1;
        int ins;
        int64_t *l = gf_hmap_put(&last, (uint64_t)(uint32_t)t->lane[i], -1, &ins);
        if (!l || (*l >= 0 && gf_cp_edge(g, gf_cp_spoint(b, (size_t)*l) + 1, s, 0, GF_CP_QUEUE, (int32_t)i, -1, 0)))
            rc = -1;
        else
            *l = (int64_t)i;
        int64_t k = *gf_hmap_get(&b->winof, (uint64_t)i);
        byend[n++] = (gop){k, 0, t->start[i] + t->dur[i], i};
    }
    gf_hmap_free(&last);
    if (rc == 0) {
        qsort(byend, n, sizeof *byend, cmp_gop);
        rc = sync_edges(b, byend, n);
    }
    free(byend);
    if (rc != 0)
        return gf_cp_oom(err);
    if (event_edges(b) != 0)
        return gf_cp_oom(err);
    if (b->nw > 1 && comm_groups(b, err) != 0)
        return -1;
    call_ranges(b);
    return 0;
}
