/* A flamegraph page's fold of its NVTX frames before its stacks are made (flame_fold.h). Pairs (context, NVTX
 * node) are the call tree's NVTX nodes, chained per trie node; (context, GF_NVTX_FOLD_*) pairs are kept for the
 * count of distinct stacks only. */
#include "flame_fold.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "mem.h"

struct gf_nvtx_fold {
    int32_t *tparent; /* the trie's first tn nodes: parent (-1: a root) and frame */
    uint32_t *tframe;
    size_t tn;
    gf_hmap cnodes;   /* (parent + 1) << 32 | frame → context node */
    int32_t *cparent; /* context node → its parent (node 0: the root, no frame) */
    int64_t *cval;    /* its total */
    uint8_t *csmall;  /* it or an ancestor is under the minimum */
    size_t cn, ccap;
    int32_t *head; /* trie node → its first pair, or -1 */
    int32_t *pctx, *pnext, *ptail, *pmap;
    int64_t *pval;
    uint8_t *punder;
    size_t pn, pcap;
    gf_hmap odd;        /* context << 2 | (node + 2) → pair, for the GF_NVTX_FOLD_* nodes */
    gf_hmap tails;      /* tail key → tail id */
    gf_hmap more_tails; /* pair << 32 | tail id: the tails of a pair after its first */
    size_t stacks;
    int64_t total;
};

static int32_t context_child(gf_nvtx_fold *x, int32_t parent, uint32_t frame)
{
    int ins = 0;
    int64_t *v = gf_hmap_put(&x->cnodes, ((uint64_t)(uint32_t)(parent + 1) << 32) | frame, (int64_t)x->cn, &ins);
    if (!v)
        return -1;
    if (!ins)
        return (int32_t)*v;
    void **const cols[] = {(void **)&x->cparent, (void **)&x->cval, (void **)&x->csmall};
    const size_t elem[] = {sizeof *x->cparent, sizeof *x->cval, sizeof *x->csmall};
    if (x->cn >= INT32_MAX || gf_grow_cols(cols, elem, 3, &x->ccap, x->cn + 1, 16) != 0)
        return -1;
    x->cparent[x->cn] = parent;
    x->cval[x->cn] = 0;
    x->csmall[x->cn] = 0;
    return (int32_t)x->cn++;
}

gf_nvtx_fold *gf_nvtx_fold_new(const int32_t *tparent, const uint32_t *tframe, size_t tn)
{
    gf_nvtx_fold *x = tn < INT32_MAX ? calloc(1, sizeof *x) : NULL;
    if (!x)
        return NULL;
    size_t n = tn ? tn : 1;
    x->tn = tn;
    x->tparent = malloc(n * sizeof *x->tparent);
    x->tframe = malloc(n * sizeof *x->tframe);
    x->head = malloc(n * sizeof *x->head);
    /* as many pairs as trie nodes where there is one context (the usual case): sized once */
    void **const cols[] = {(void **)&x->pctx, (void **)&x->pnext, (void **)&x->ptail, (void **)&x->pmap,
                           (void **)&x->pval, (void **)&x->punder};
    const size_t elem[] = {sizeof *x->pctx, sizeof *x->pnext, sizeof *x->ptail, sizeof *x->pmap, sizeof *x->pval,
                           sizeof *x->punder};
    if (!x->tparent || !x->tframe || !x->head || gf_grow_cols(cols, elem, 6, &x->pcap, tn + 16, 16) != 0 ||
        context_child(x, -1, UINT32_MAX) != 0) { /* the root context, node 0 */
        gf_nvtx_fold_free(x);
        return NULL;
    }
    memcpy(x->tparent, tparent, tn * sizeof *x->tparent);
    memcpy(x->tframe, tframe, tn * sizeof *x->tframe);
    memset(x->head, 0xff, n * sizeof *x->head);
    return x;
}

void gf_nvtx_fold_free(gf_nvtx_fold *x)
{
    if (!x)
        return;
    gf_hmap_free(&x->cnodes);
    gf_hmap_free(&x->odd);
    gf_hmap_free(&x->tails);
    gf_hmap_free(&x->more_tails);
    free(x->tparent);
    free(x->tframe);
    free(x->cparent);
    free(x->cval);
    free(x->csmall);
    free(x->head);
    free(x->pctx);
    free(x->pnext);
    free(x->ptail);
    free(x->pmap);
    free(x->pval);
    free(x->punder);
    free(x);
}

int32_t gf_nvtx_fold_context(gf_nvtx_fold *x, const uint32_t *frames, size_t n)
{
    int32_t c = 0;
    for (size_t d = 0; d < n && c >= 0; d++)
        c = context_child(x, c, frames[d]);
    return c;
}

static int32_t new_pair(gf_nvtx_fold *x, int32_t c, int32_t node)
{
    void **const cols[] = {(void **)&x->pctx, (void **)&x->pnext, (void **)&x->ptail, (void **)&x->pmap,
                           (void **)&x->pval, (void **)&x->punder};
    const size_t elem[] = {sizeof *x->pctx, sizeof *x->pnext, sizeof *x->ptail, sizeof *x->pmap, sizeof *x->pval,
                           sizeof *x->punder};
    if (x->pn >= INT32_MAX || gf_grow_cols(cols, elem, 6, &x->pcap, x->pn + 1, 1024) != 0)
        return -1;
    int32_t q = (int32_t)x->pn++;
    x->pctx[q] = c;
    x->pnext[q] = -1;
    x->ptail[q] = -1;
    x->pmap[q] = node;
    x->pval[q] = 0;
    x->punder[q] = 0;
    if (node >= 0) {
        x->pnext[q] = x->head[node];
        x->head[node] = q;
    }
    return q;
}

static int32_t find_pair(const gf_nvtx_fold *x, int32_t c, int32_t node)
{
    int32_t q = x->head[node];
    while (q >= 0 && x->pctx[q] != c)
        q = x->pnext[q];
    return q;
}

/* The pair (c, node), made when new; -1 on OOM. */
static int32_t pair_of(gf_nvtx_fold *x, int32_t c, int32_t node)
{
    if (node >= 0) {
        int32_t q = find_pair(x, c, node);
        return q >= 0 ? q : new_pair(x, c, node);
    }
    uint64_t key = ((uint64_t)(uint32_t)c << 2) | (uint64_t)(node + 2);
    int64_t *v = gf_hmap_get(&x->odd, key);
    if (v)
        return (int32_t)*v;
    int32_t q = new_pair(x, c, node);
    return q >= 0 && gf_hmap_put(&x->odd, key, q, NULL) ? q : -1;
}

int gf_nvtx_fold_add(gf_nvtx_fold *x, int32_t context, int32_t node, uint64_t tail, int64_t weight)
{
    if (node >= (int32_t)x->tn || node < GF_NVTX_FOLD_NO_LAUNCH || context < 0 || (size_t)context >= x->cn)
        return -1;
    x->total += weight;
    for (int32_t c = context; c > 0; c = x->cparent[c])
        x->cval[c] += weight;
    int32_t q = pair_of(x, context, node);
    int64_t *v = q >= 0 ? gf_hmap_put(&x->tails, tail, (int64_t)x->tails.n, NULL) : NULL;
    if (!v)
        return -1;
    if (node >= 0)
        x->pval[q] += weight; /* its own; its children's are added by gf_nvtx_fold_map */
    int32_t t = (int32_t)*v;
    if (x->ptail[q] < 0) {
        x->ptail[q] = t;
        x->stacks++;
    } else if (x->ptail[q] != t) {
        int ins = 0;
        if (!gf_hmap_put(&x->more_tails, ((uint64_t)(uint32_t)q << 32) | (uint32_t)t, 0, &ins))
            return -1;
        x->stacks += (size_t)ins;
    }
    return 0;
}

size_t gf_nvtx_fold_stacks(const gf_nvtx_fold *x)
{
    return x->stacks;
}

int64_t gf_nvtx_fold_total(const gf_nvtx_fold *x)
{
    return x->total;
}

/* Each NVTX node's total from its own weight and its children's (a child is numbered after its parent), and
 * each context's smallness. 0, or -1 on OOM. */
static int totals(gf_nvtx_fold *x, int64_t min)
{
    for (size_t n = x->tn; n-- > 0;)
        for (int32_t q = x->head[n]; q >= 0; q = x->pnext[q]) {
            int32_t par = x->tparent[n], c = x->pctx[q];
            int64_t v = x->pval[q];
            if (par < 0)
                continue;
            int32_t pq = pair_of(x, c, par);
            if (pq < 0)
                return -1;
            x->pval[pq] += v;
        }
    for (size_t c = 1; c < x->cn; c++)
        x->csmall[c] = x->csmall[x->cparent[c]] || x->cval[c] < min;
    return 0;
}

int gf_nvtx_fold_map(gf_nvtx_fold *x, int64_t min, uint32_t fold_frame,
                     int32_t (*child)(void *arg, int32_t parent, uint32_t frame), void *arg, size_t *nodes,
                     int64_t *weight)
{
    *nodes = 0;
    *weight = 0;
    if (totals(x, min) != 0)
        return -1;
    for (size_t n = 0; n < x->tn; n++)
        for (int32_t q = x->head[n]; q >= 0; q = x->pnext[q]) {
            int32_t c = x->pctx[q], par = x->tparent[n], pm = -1, m = (int32_t)n;
            int under = 0;
            if (x->csmall[c]) { /* left as it is: gf_stacks_fold folds the context */
                x->pmap[q] = m;
                continue;
            }
            if (par >= 0) {
                int32_t pq = find_pair(x, c, par);
                pm = x->pmap[pq];
                under = x->punder[pq];
            }
            if (under) {
                m = child(arg, pm, x->tframe[n]);
            } else if (x->pval[q] < min) {
                m = child(arg, pm, fold_frame);
                under = 1;
                ++*nodes;
                *weight += x->pval[q];
            }
            if (m < -1)
                return -1;
            x->pmap[q] = m;
            x->punder[q] = (uint8_t)under;
        }
    return 0;
}

int32_t gf_nvtx_fold_node(const gf_nvtx_fold *x, int32_t context, int32_t node)
{
    int32_t q = node >= 0 && (size_t)node < x->tn ? find_pair(x, context, node) : -1;
    return q >= 0 ? x->pmap[q] : node;
}
