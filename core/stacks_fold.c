/* Folding a collapse table's small paths (stacks.h, gf_stacks_fold) through its public API: the merged
 * call tree's node totals from one pass over the stacks sorted by their frame ids (a prefix before its
 * extensions, so every node's stacks are consecutive), then a second pass in the same order that replaces
 * the outermost small frame of each stack by the fold frame and adds the result to the output table. */
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "sort_intro.h"
#include "stacks.h"
#include "threads.h"

typedef struct srec {
    const uint32_t *ids;
    uint32_t depth, idx;
} srec;

/* The stacks' order: by frame ids (a prefix before its extensions), then by index, which makes it total and
 * equal to a stable sort's of the stacks in table order. */
static inline int by_ids(const srec *x, const srec *y)
{
    uint32_t n = x->depth < y->depth ? x->depth : y->depth;
    for (uint32_t i = 0; i < n; i++)
        if (x->ids[i] != y->ids[i])
            return x->ids[i] < y->ids[i] ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}
#define SREC_BEFORE(x, y) (by_ids(&(x), &(y)) < 0)
GF_INTRO_SORT(sort_srecs, srec, SREC_BEFORE)

/* With a second thread, each half of the stacks is sorted on its own thread and the halves merged: the fold runs
 * last on the flamegraph's stacks thread, when the findings panel's rules have ended (2.2M stacks on the 368 MB
 * export: the sort was half of the fold). Below SORT_SPLIT_MIN stacks one thread sorts them all. */
enum { SORT_SPLIT_MIN = 1 << 16 };

/* The order's entries [lo, hi) sorted in place (a gf_range_fn: one half of the stacks). */
static void sort_range(void *order, size_t lo, size_t hi)
{
    sort_srecs((srec *)order + lo, hi - lo);
}

/* *order sorted by by_ids (the array may be replaced); 0, or -1 on OOM. */
static int sort_stacks(srec **order, size_t n, int threads)
{
    int two = gf_threads_resolve(threads, 2) >= 2 && n >= SORT_SPLIT_MIN;
    size_t mid = two ? n / 2 : n;
    /* the first half [0, mid) and, with two threads, the second [mid, n) on a thread of its own */
    gf_threads_in_two(two ? 2 : 1, n, mid, SORT_SPLIT_MIN, sort_range, *order);
    if (!two)
        return 0;
    const srec *lo = *order, *hi = *order + mid;
    size_t nlo = mid, nhi = n - mid;
    srec *m = gf_mem_scratch(n * sizeof *m); /* after the sorts: their scratch is free again */
    if (!m)
        return -1;
    size_t i = 0, j = 0, k = 0;
    while (i < nlo && j < nhi)
        m[k++] = by_ids(&hi[j], &lo[i]) < 0 ? hi[j++] : lo[i++];
    memcpy(m + k, lo + i, (nlo - i) * sizeof *m);
    k += nlo - i;
    memcpy(m + k, hi + j, (nhi - j) * sizeof *m);
    free(*order);
    *order = m;
    return 0;
}

typedef struct walk {
    const gf_stacks *s;
    const srec *order;
    size_t *path;   /* depth → node index of the current stack's prefix */
    int64_t *value; /* node index → total weight */
    size_t nn, cap;
} walk;

/* The nodes the k-th stack (sorted) opens, numbered in pre-order like the page's tree; with add, each is
 * given its stacks' weight. Returns the stack's frames or NULL (OOM). */
static const uint32_t *step(walk *w, size_t k, const uint32_t **prev, size_t *prev_depth, int add, size_t *depth)
{
    int64_t weight;
    const uint32_t *ids = w->order[k].ids;
    *depth = w->order[k].depth;
    gf_stacks_get(w->s, w->order[k].idx, NULL, &weight);
    size_t common = 0;
    while (*prev && common < *depth && common < *prev_depth && (*prev)[common] == ids[common])
        common++;
    for (size_t d = common; d < *depth; d++) {
        if (add) {
            if (GF_GROW(w->value, w->cap, w->nn + 1, 1024) != 0)
                return NULL;
            w->value[w->nn] = 0;
        }
        w->path[d] = w->nn++;
    }
    if (add)
        for (size_t d = 0; d < *depth; d++)
            w->value[w->path[d]] += weight;
    *prev = ids;
    *prev_depth = *depth;
    return ids;
}

/* out's id of s's frame id (interned on first use, with its kind). */
static uint32_t out_frame(const gf_stacks *s, gf_stacks *out, uint32_t *map, uint32_t id)
{
    if (map[id] != UINT32_MAX)
        return map[id];
    size_t len;
    const char *name = gf_stacks_frame(s, id, &len);
    uint32_t o = gf_stacks_intern(out, name, len);
    int kind = gf_stacks_frame_kind(s, id);
    if (o != UINT32_MAX && kind != 0 && gf_stacks_set_frame_kind(out, o, kind) != 0)
        return UINT32_MAX;
    return map[id] = o;
}

/* The folded stacks are added FOLD_BATCH at a time, each one's slot in out's table fetched before the first is
 * added (core/trace_flame.c's batches: on the 1M-kernel bench, 374,159 stacks out of 1,020,000). */
enum { FOLD_BATCH = 16 };

typedef struct fold_batch {
    uint32_t *buf; /* FOLD_BATCH stacks of up to max_depth frames */
    size_t stride, n, depth[FOLD_BATCH], k[FOLD_BATCH];
    uint64_t hash[FOLD_BATCH];
} fold_batch;

static int add_folded(const gf_stacks *s, const walk *w, fold_batch *b, gf_stacks *out, gf_err *err)
{
    for (size_t j = 0; j < b->n; j++) {
        size_t idx;
        int64_t weight;
        gf_stacks_get(s, w->order[b->k[j]].idx, NULL, &weight);
        int rc = gf_stacks_add_hashed(out, b->buf + j * b->stride, b->depth[j], b->hash[j], weight, &idx, err);
        if (rc != 0)
            return rc;
        gf_stacks_add_instances(out, idx, gf_stacks_instances(s, w->order[b->k[j]].idx));
    }
    b->n = 0;
    return 0;
}

/* stop: a prefolded table's fold frame (nothing at or under it is folded again), else UINT32_MAX */
static int fold_pass(const gf_stacks *s, walk *w, int64_t min_value, const char *fold_name, uint32_t stop,
                     gf_stacks *out, gf_fold_stats *st, gf_err *err)
{
    size_t nf = gf_stacks_nframes(s), n = gf_stacks_count(s);
    fold_batch b = {.stride = gf_stacks_max_depth(s) + 1};
    uint32_t *map = malloc((nf ? nf : 1) * sizeof *map);
    b.buf = malloc(FOLD_BATCH * b.stride * sizeof *b.buf);
    uint32_t fold = gf_stacks_intern(out, fold_name, strlen(fold_name));
    if (!map || !b.buf || fold == UINT32_MAX) {
        free(map);
        free(b.buf);
        return gf_oom(err, "flamegraph fold");
    }
    memset(map, 0xff, (nf ? nf : 1) * sizeof *map);
    const uint32_t *prev = NULL;
    size_t prev_depth = 0, last_folded = SIZE_MAX;
    w->nn = 0;
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        size_t depth;
        const uint32_t *ids = step(w, k, &prev, &prev_depth, 0, &depth);
        size_t cut = depth;
        for (size_t d = 0; d < depth && cut == depth && ids[d] != stop; d++)
            if (w->value[w->path[d]] < min_value)
                cut = d;
        if (cut < depth && w->path[cut] != last_folded) { /* a small node met for the first time */
            last_folded = w->path[cut];
            st->nodes++;
            st->weight += w->value[w->path[cut]];
        }
        uint32_t *buf = b.buf + b.n * b.stride;
        for (size_t d = 0; d < depth && rc == 0; d++) {
            buf[d] = d == cut ? fold : out_frame(s, out, map, ids[d]);
            if (buf[d] == UINT32_MAX)
                rc = gf_oom(err, "flamegraph fold");
        }
        b.hash[b.n] = gf_stacks_prefetch(out, buf, depth);
        b.depth[b.n] = depth;
        b.k[b.n++] = k;
        if (rc == 0 && b.n == FOLD_BATCH)
            rc = add_folded(s, w, &b, out, err);
    }
    if (rc == 0)
        rc = add_folded(s, w, &b, out, err);
    free(map);
    free(b.buf);
    return rc;
}

int gf_stacks_fold(const gf_stacks *s, int64_t min_value, const char *fold_name, int threads, gf_stacks *out,
                   gf_fold_stats *st, gf_err *err)
{
    size_t n = gf_stacks_count(s);
    memset(st, 0, sizeof *st);
    walk w = {s, NULL, NULL, NULL, 0, 0};
    srec *order = gf_mem_scratch((n ? n : 1) * sizeof *order);
    w.path = malloc((gf_stacks_max_depth(s) + 1) * sizeof *w.path);
    int rc = 0;
    if (!order || !w.path) {
        rc = gf_oom(err, "flamegraph fold");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        size_t depth;
        order[i].ids = gf_stacks_get(s, i, &depth, NULL);
        order[i].depth = (uint32_t)depth;
        order[i].idx = (uint32_t)i;
    }
    if (sort_stacks(&order, n, threads) != 0) {
        rc = gf_oom(err, "flamegraph fold");
        goto done;
    }
    w.order = order;
    const uint32_t *prev = NULL;
    size_t prev_depth = 0, depth;
    for (size_t k = 0; k < n; k++)
        if (!step(&w, k, &prev, &prev_depth, 1, &depth)) {
            rc = gf_oom(err, "flamegraph fold");
            goto done;
        }
    const gf_stacks_prefold *pre = gf_stacks_get_prefold(s);
    if (pre)
        *st = pre->done;
    rc = fold_pass(s, &w, min_value, fold_name, pre ? pre->frame : UINT32_MAX, out, st, err);
    if (rc == 0 && gf_stacks_meta(s))
        rc = gf_stacks_set_meta(out, gf_stacks_meta(s)) == 0 ? 0 : gf_oom(err, "flamegraph fold");
done:
    free(order);
    free(w.path);
    free(w.value);
    return rc;
}
