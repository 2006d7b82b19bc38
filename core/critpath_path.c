/* The longest path over the graph of a step, what-if lags, and the path itself (critpath.h). */
#include <stdlib.h>
#include <string.h>

#include "critpath.h"
#include "trace_nvtx_group.h"

int gf_cp_longest(size_t np, size_t ne, const int32_t *src, const int32_t *dst, const int64_t *lag, int64_t root_t,
                  int64_t *T, int32_t *pred, gf_err *err)
{
    size_t *off = calloc(np + 1, sizeof *off);
    int32_t *out = malloc((ne ? ne : 1) * sizeof *out), *indeg = calloc(np ? np : 1, sizeof *indeg);
    int32_t *queue = malloc((np ? np : 1) * sizeof *queue);
    if (!off || !out || !indeg || !queue) {
        free(off), free(out), free(indeg), free(queue);
        return gf_errf(err, GF_EXIT_ERROR, "critical path: out of memory");
    }
    for (size_t e = 0; e < ne; e++) {
        off[src[e] + 1]++;
        indeg[dst[e]]++;
    }
    for (size_t p = 0; p < np; p++)
        off[p + 1] += off[p];
    size_t *fill = malloc((np ? np : 1) * sizeof *fill);
    if (!fill) {
        free(off), free(out), free(indeg), free(queue);
        return gf_errf(err, GF_EXIT_ERROR, "critical path: out of memory");
    }
    memcpy(fill, off, np * sizeof *fill);
    for (size_t e = 0; e < ne; e++)
        out[fill[src[e]]++] = (int32_t)e;
    free(fill);
    size_t qh = 0, qt = 0;
    for (size_t p = 0; p < np; p++) {
        T[p] = root_t;
        pred[p] = -1;
        if (indeg[p] == 0)
            queue[qt++] = (int32_t)p;
    }
    while (qh < qt) {
        int32_t u = queue[qh++];
        for (size_t x = off[u]; x < off[u + 1]; x++) {
            int32_t e = out[x], d = dst[e];
            int64_t v = T[u] + lag[e];
            int32_t c = pred[d];
            if (c < 0 || v > T[d] || (v == T[d] && (T[u] > T[src[c]] || (T[u] == T[src[c]] && e < c)))) {
                T[d] = v;
                pred[d] = e;
            }
            if (--indeg[d] == 0)
                queue[qt++] = d;
        }
    }
    free(off), free(out), free(indeg), free(queue);
    if (qt < np)
        return gf_errf(err, GF_EXIT_ERROR, "critical path: the graph has a cycle (%zu points not ordered)", np - qt);
    return 0;
}

/* does range r (an NVTX event) or one it was pushed inside have name `name`? */
static int in_range(const gf_trace *t, const gf_cp_graph *g, int32_t r, int32_t name)
{
    for (int depth = 0; r >= 0 && depth < 4096; depth++) {
        if (t->name[r] == name || gf_trace_nvtx_group(t, t->name[r]) == name)
            return 1;
        int64_t *p = gf_hmap_get(&g->parent, (uint64_t)r);
        r = p ? (int32_t)*p : -1;
    }
    return 0;
}

void gf_cp_scale(const gf_trace *t, const gf_cp_graph *g, const gf_cp_rule *r, size_t nr, int64_t *lag_out)
{
    for (size_t e = 0; e < g->ne; e++) {
        double f = 1.0;
        for (size_t k = 0; k < nr; k++) {
            if (!(r[k].cls_mask & (1u << g->cls[e])))
                continue;
            if ((r[k].name >= 0 || r[k].nvtx >= 0) && !g->isdur[e])
                continue;
            if (r[k].name >= 0 && (g->item[e] < 0 || g->cls[e] == GF_CP_HOST || t->name[g->item[e]] != r[k].name))
                continue;
            if (r[k].nvtx >= 0 && !in_range(t, g, g->range[e], r[k].nvtx))
                continue;
            f *= r[k].factor;
        }
        lag_out[e] = f == 1.0 ? g->lag[e] : (int64_t)((double)g->lag[e] * f + 0.5);
    }
}

int gf_cp_path(const gf_cp_graph *g, const int64_t *lag, int32_t **edges, size_t *n, int64_t *length, gf_err *err)
{
    int64_t *T = malloc((g->np ? g->np : 1) * sizeof *T);
    int32_t *pred = malloc((g->np ? g->np : 1) * sizeof *pred);
    *edges = NULL;
    *n = 0;
    if (!T || !pred) {
        free(T), free(pred);
        return gf_errf(err, GF_EXIT_ERROR, "critical path: out of memory");
    }
    int64_t t0 = g->tobs[g->root];
    int rc = gf_cp_longest(g->np, g->ne, g->src, g->dst, lag, t0, T, pred, err);
    size_t cnt = 0;
    for (int32_t p = g->sink; rc == 0 && p >= 0 && pred[p] >= 0; p = g->src[pred[p]])
        cnt++;
    int32_t *out = rc == 0 ? malloc((cnt ? cnt : 1) * sizeof *out) : NULL;
    if (rc == 0 && !out)
        rc = gf_errf(err, GF_EXIT_ERROR, "critical path: out of memory");
    if (rc == 0) {
        size_t k = cnt;
        for (int32_t p = g->sink; p >= 0 && pred[p] >= 0; p = g->src[pred[p]])
            out[--k] = pred[p];
        *edges = out;
        *n = cnt;
        *length = T[g->sink] - t0;
    }
    free(T);
    free(pred);
    return rc;
}
