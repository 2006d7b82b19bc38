/* Differential stacks (see stackdiff.h). The union is a gf_stacks table (frames and stacks interned, the
 * table's own weights unused); both sides' weights live in two arrays indexed by union stack. */
#include "stacks_diff.h"
#include "mem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"

struct gf_stackdiff {
    gf_stacks *u;
    int64_t *w[2];
    size_t wcap;
    int64_t total[2];
    uint32_t *buf;
    size_t bufcap;
};

gf_stackdiff *gf_stackdiff_new(void)
{
    gf_stackdiff *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->u = gf_stacks_new();
    if (!d->u) {
        free(d);
        return NULL;
    }
    return d;
}

void gf_stackdiff_free(gf_stackdiff *d)
{
    if (!d)
        return;
    gf_stacks_free(d->u);
    free(d->w[0]);
    free(d->w[1]);
    free(d->buf);
    free(d);
}

static int grow_weights(gf_stackdiff *d, size_t need)
{
    size_t old = d->wcap;
    void **const cols[] = {(void **)&d->w[0], (void **)&d->w[1]};
    const size_t elem[] = {sizeof *d->w[0], sizeof *d->w[1]};
    if (gf_grow_cols(cols, elem, 2, &d->wcap, need, 1024) != 0)
        return -1;
    for (int s = 0; s < 2; s++)
        memset(d->w[s] + old, 0, (d->wcap - old) * sizeof *d->w[s]);
    return 0;
}

int gf_stackdiff_add(gf_stackdiff *d, int side, const gf_stacks *s, const char *const *leaf_remap, int64_t scale,
                     gf_err *err)
{
    if (side != 0 && side != 1)
        return gf_errf(err, GF_EXIT_ERROR, "stackdiff: side must be 0 or 1");
    if (scale < 1)
        scale = 1;
    size_t nf = gf_stacks_nframes(s), ns = gf_stacks_count(s);
    uint32_t *fmap = malloc((nf ? nf : 1) * 2 * sizeof *fmap);
    if (!fmap)
        return gf_oom(err, "stackdiff");
    uint32_t *lmap = fmap + nf;
    memset(fmap, 0xff, (nf ? nf : 1) * 2 * sizeof *fmap);
    int rc = 0;
    for (size_t i = 0; i < ns && rc == 0; i++) {
        size_t depth;
        int64_t w;
        const uint32_t *ids = gf_stacks_get(s, i, &depth, &w);
        if (GF_GROW(d->buf, d->bufcap, depth, 64) != 0) {
            rc = gf_oom(err, "stackdiff");
            break;
        }
        for (size_t k = 0; k < depth; k++) {
            uint32_t f = ids[k];
            int leaf = k + 1 == depth && leaf_remap && leaf_remap[f];
            uint32_t *map = leaf ? lmap : fmap;
            if (map[f] == UINT32_MAX) {
                size_t len;
                const char *name = leaf ? leaf_remap[f] : gf_stacks_frame(s, f, &len);
                if (leaf)
                    len = strlen(name);
                map[f] = gf_stacks_intern(d->u, name, len);
                if (map[f] == UINT32_MAX) {
                    rc = gf_oom(err, "stackdiff");
                    break;
                }
            }
            d->buf[k] = map[f];
        }
        if (rc)
            break;
        if (w > 0 && w > INT64_MAX / scale) {
            rc = gf_errf(err, GF_EXIT_INPUT, "stackdiff: weight %" PRId64 " x %" PRId64 " exceeds 2^63-1", w, scale);
            break;
        }
        int64_t sw = w * scale;
        if (d->total[side] > INT64_MAX - sw) {
            rc = gf_errf(err, GF_EXIT_INPUT, "stackdiff: the total weight exceeds 2^63-1");
            break;
        }
        size_t idx;
        if (gf_stacks_add_ids_at(d->u, d->buf, depth, 0, &idx, err) != 0) {
            rc = -1;
            break;
        }
        if (grow_weights(d, idx + 1) != 0) {
            rc = gf_oom(err, "stackdiff");
            break;
        }
        d->w[side][idx] += sw;
        d->total[side] += sw;
    }
    free(fmap);
    return rc;
}

int64_t gf_stackdiff_total(const gf_stackdiff *d, int side)
{
    return side == 0 || side == 1 ? d->total[side] : 0;
}

size_t gf_stackdiff_count(const gf_stackdiff *d)
{
    return gf_stacks_count(d->u);
}

const uint32_t *gf_stackdiff_get(const gf_stackdiff *d, size_t i, size_t *depth, int64_t *before, int64_t *after)
{
    const uint32_t *ids = gf_stacks_get(d->u, i, depth, NULL);
    if (ids) {
        if (before)
            *before = d->w[0][i];
        if (after)
            *after = d->w[1][i];
    }
    return ids;
}

const char *gf_stackdiff_frame(const gf_stackdiff *d, uint32_t id, size_t *len)
{
    return gf_stacks_frame(d->u, id, len);
}

int gf_stackdiff_leaves(const gf_stackdiff *d, gf_leaf_cb cb, void *ud, gf_err *err)
{
    const int64_t *const cols[2] = {d->w[0], d->w[1]};
    uint32_t *leaves;
    int64_t *sums;
    size_t nl;
    if (gf_stacks_leaf_sums(d->u, cols, 2, &leaves, &sums, &nl, err) != 0)
        return -1;
    for (size_t k = 0; k < nl; k++) {
        size_t len;
        const char *name = gf_stacks_frame(d->u, leaves[k], &len);
        if (cb(ud, name, len, sums[2 * k], sums[2 * k + 1]) != 0)
            break;
    }
    free(leaves);
    free(sums);
    return 0;
}

int gf_stackdiff_write_folded(const gf_stackdiff *d, FILE *out, const char *meta, gf_err *err)
{
    if (meta) {
        fputs("# ", out);
        for (const char *p = meta; *p; p++)
            putc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
        putc('\n', out);
    }
    size_t ns = gf_stacks_count(d->u);
    for (size_t i = 0; i < ns; i++) {
        size_t depth;
        const uint32_t *ids = gf_stacks_get(d->u, i, &depth, NULL);
        for (size_t k = 0; k < depth; k++) {
            size_t len;
            const char *f = gf_stacks_frame(d->u, ids[k], &len);
            if (k)
                putc(';', out);
            fwrite(f, 1, len, out);
        }
        char buf[64], *e = buf + sizeof buf;
        *--e = '\n';
        char *b = gf_fmt_i64(e, d->w[1][i]);
        *--b = ' ';
        b = gf_fmt_i64(b, d->w[0][i]);
        *--b = ' ';
        fwrite(b, 1, (size_t)(buf + sizeof buf - b), out);
    }
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "write error (differential folded stacks)");
    return 0;
}

/* ---- the differential call tree ----
 * As gf_stacks_write_tree_json: stacks sorted by their frames' name ranks, then one pass that opens a
 * node wherever a stack leaves the previous one's path. */

static int by_name(const void *a, const void *b, void *stacks)
{
    const gf_stacks *u = stacks;
    return strcmp(gf_stacks_frame(u, *(const uint32_t *)a, NULL), gf_stacks_frame(u, *(const uint32_t *)b, NULL));
}

typedef struct frames_order {
    const gf_stacks *u;
    const uint32_t *rank; /* frame id → rank of its name */
} frames_order;

static int by_frames(const void *a, const void *b, void *order)
{
    const frames_order *o = order;
    size_t dx, dy;
    const uint32_t *p = gf_stacks_get(o->u, *(const uint32_t *)a, &dx, NULL);
    const uint32_t *q = gf_stacks_get(o->u, *(const uint32_t *)b, &dy, NULL);
    size_t n = dx < dy ? dx : dy;
    for (size_t i = 0; i < n; i++)
        if (p[i] != q[i])
            return o->rank[p[i]] < o->rank[q[i]] ? -1 : 1;
    return dx < dy ? -1 : dx > dy;
}

typedef struct dnode {
    uint32_t frame, depth;
    int64_t v[2];
} dnode;

int gf_stackdiff_write_tree_json(const gf_stackdiff *d, FILE *out, double min_fraction, gf_difftree_stats *st,
                                 gf_err *err)
{
    gf_difftree_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    const gf_stacks *u = d->u;
    size_t nf = gf_stacks_nframes(u), ns = gf_stacks_count(u), maxd = gf_stacks_max_depth(u);
    uint32_t *names = malloc((nf ? nf : 1) * sizeof *names);
    uint32_t *rank = malloc((nf ? nf : 1) * sizeof *rank);
    uint32_t *order = malloc((ns ? ns : 1) * sizeof *order);
    uint32_t *path = malloc((maxd + 1) * sizeof *path);
    uint32_t *newid = malloc((nf ? nf : 1) * sizeof *newid);
    dnode *t = NULL;
    size_t tn = 0, tcap = 0;
    int rc = 0;
    if (!names || !rank || !order || !path || !newid) {
        rc = gf_oom(err, "differential flamegraph");
        goto done;
    }
    for (uint32_t i = 0; i < nf; i++)
        names[i] = i;
    qsort_r(names, nf, sizeof *names, by_name, (void *)u);
    for (uint32_t i = 0; i < nf; i++)
        rank[names[i]] = i;
    for (uint32_t i = 0; i < ns; i++)
        order[i] = i;
    frames_order fo = {u, rank};
    qsort_r(order, ns, sizeof *order, by_frames, &fo);
    const uint32_t *prev = NULL;
    size_t prev_depth = 0;
    for (size_t k = 0; k < ns; k++) {
        size_t depth;
        const uint32_t *ids = gf_stacks_get(u, order[k], &depth, NULL);
        int64_t wb = d->w[0][order[k]], wa = d->w[1][order[k]];
        size_t common = 0;
        while (prev && common < depth && common < prev_depth && prev[common] == ids[common])
            common++;
        for (size_t dd = common; dd < depth; dd++) {
            if (GF_GROW(t, tcap, tn + 1, 4096) != 0) {
                rc = gf_oom(err, "differential flamegraph");
                goto done;
            }
            t[tn].frame = ids[dd];
            t[tn].depth = (uint32_t)dd;
            t[tn].v[0] = t[tn].v[1] = 0;
            path[dd] = (uint32_t)tn++;
        }
        for (size_t dd = 0; dd < depth; dd++) {
            t[path[dd]].v[0] += wb;
            t[path[dd]].v[1] += wa;
        }
        prev = ids;
        prev_depth = depth;
    }
    /* which nodes are written: a node is left out (with its subtree) when it is below the threshold on
     * both sides, or zero on both */
    double thr[2] = {min_fraction > 0 ? min_fraction * (double)d->total[0] : 0,
                     min_fraction > 0 ? min_fraction * (double)d->total[1] : 0};
    memset(newid, 0xff, (nf ? nf : 1) * sizeof *newid);
    uint32_t nnames = 0;
    for (size_t i = 0; i < tn;) {
        dnode *x = &t[i];
        int keep = (x->v[0] > 0 && (double)x->v[0] >= thr[0]) || (x->v[1] > 0 && (double)x->v[1] >= thr[1]);
        if (!keep) {
            if (x->v[0] > 0 || x->v[1] > 0)
                st->folded++;
            uint32_t dep = x->depth;
            x->depth = UINT32_MAX; /* mark: not written */
            for (i++; i < tn && t[i].depth > dep && t[i].depth != UINT32_MAX; i++)
                t[i].depth = UINT32_MAX;
            continue;
        }
        if (newid[x->frame] == UINT32_MAX)
            newid[x->frame] = nnames++;
        i++;
    }
    /* names in new-id order */
    uint32_t *byid = names; /* reuse: byid[newid] = frame */
    for (uint32_t f = 0; f < nf; f++)
        if (newid[f] != UINT32_MAX)
            byid[newid[f]] = f;
    fputs("{\"total\":[", out);
    gf_json_file_int(out, d->total[0]);
    putc(',', out);
    gf_json_file_int(out, d->total[1]);
    fputs("],\"names\":[", out);
    gf_stacks_write_names(u, byid, nnames, out);
    fputs("],\"nodes\":[", out);
    for (size_t i = 0; i < tn; i++) {
        if (t[i].depth == UINT32_MAX)
            continue;
        char buf[128], *e = buf + sizeof buf;
        char *b = gf_fmt_i64(e, (int64_t)t[i].depth);
        *--b = ',';
        b = gf_fmt_i64(b, t[i].v[1]);
        *--b = ',';
        b = gf_fmt_i64(b, t[i].v[0]);
        *--b = ',';
        b = gf_fmt_i64(b, (int64_t)newid[t[i].frame]);
        if (st->nodes++)
            *--b = ',';
        fwrite(b, 1, (size_t)(e - b), out);
    }
    fprintf(out, "],\"folded\":%zu}", st->folded);
    if (ferror(out))
        rc = gf_errf(err, GF_EXIT_ERROR, "write error (differential flamegraph data)");
done:
    free(names);
    free(rank);
    free(order);
    free(path);
    free(newid);
    free(t);
    return rc;
}
