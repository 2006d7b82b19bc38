/* The flamegraph page's data (stacks.h, gf_stacks_write_tree_json): the collapse table's merged call tree.
 * Stacks are sorted by their frames' name ranks (a prefix before its extensions), so the call tree in
 * pre-order with children in name order is one pass that opens a node wherever a stack leaves the
 * previous one's path (flamegraph.pl merges sorted input the same way). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "mem.h"
#include "sort_intro.h"
#include "stacks.h"

/* A frame no node refers to. The page's names are the frames its nodes use, numbered in the order the nodes
 * first use them: the data depends on the tree alone, not on the order the frames were interned (a page folded
 * as its stacks were made, core/trace_flame.c, has the bytes of one folded after them). */
#define UNUSED UINT32_MAX

typedef struct srec {
    const uint32_t *ids;
    const uint32_t *rank; /* frame id → rank of its name (the same array for every stack) */
    size_t depth;
    int64_t weight, inst;
} srec;

static int by_name(const void *a, const void *b, void *ctx)
{
    const gf_stacks *s = ctx;
    const char *x = gf_stacks_frame(s, *(const uint32_t *)a, NULL), *y = gf_stacks_frame(s, *(const uint32_t *)b, NULL);
    return strcmp(x, y);
}

/* x before y: their frames' name ranks in order, a prefix before its extensions. Only the same stack compares
 * equal (a collapse table has each once; where one came twice, the tree merges them either way), so the
 * unstable sort below gives the tree glibc's qsort_r gave (issue 42: its merge sort through a callback took
 * 5 % of the hierarchical page's CPU on the 1M bench). */
static inline int frames_before(const srec *x, const srec *y)
{
    size_t n = x->depth < y->depth ? x->depth : y->depth;
    for (size_t i = 0; i < n; i++)
        if (x->ids[i] != y->ids[i])
            return x->rank[x->ids[i]] < x->rank[y->ids[i]];
    return x->depth < y->depth;
}
#define SREC_BEFORE(x, y) frames_before(&(x), &(y))
GF_INTRO_SORT(sort_by_frames, srec, SREC_BEFORE)

typedef struct tnode {
    uint32_t frame, depth;
    int64_t value, inst;
} tnode;

/* The merged call tree of the stacks sorted by frames_before into *t (*tn nodes); 0, or -1 on OOM. */
static int build_tree(const srec *order, size_t ns, uint32_t *path, tnode **t, size_t *tn)
{
    size_t cap = 0;
    const srec *prev = NULL;
    for (size_t k = 0; k < ns; k++) {
        const srec *r = &order[k];
        size_t common = 0;
        while (prev && common < r->depth && common < prev->depth && prev->ids[common] == r->ids[common])
            common++;
        for (size_t d = common; d < r->depth; d++) {
            if (GF_GROW(*t, cap, *tn + 1, 256) != 0)
                return -1;
            (*t)[*tn] = (tnode){r->ids[d], (uint32_t)d, 0, 0};
            path[d] = (uint32_t)(*tn)++;
        }
        for (size_t d = 0; d < r->depth; d++) {
            (*t)[path[d]].value += r->weight;
            (*t)[path[d]].inst += r->inst;
        }
        prev = r;
    }
    return 0;
}

/* names, "nodes" and the optional "counts" and "kinds" of the tree's tn nodes; names[] and slot[] (frame id →
 * index in the page's names) are filled here */
static void write_tree(const gf_stacks *s, const tnode *t, size_t tn, uint32_t *names, uint32_t *slot, FILE *out)
{
    uint32_t nused = 0;
    for (size_t i = 0; i < gf_stacks_nframes(s); i++)
        slot[i] = UNUSED;
    for (size_t i = 0; i < tn; i++)
        if (slot[t[i].frame] == UNUSED) {
            slot[t[i].frame] = nused;
            names[nused++] = t[i].frame;
        }
    fprintf(out, "{\"total\":%" PRId64 ",\"names\":[", gf_stacks_total(s));
    gf_stacks_write_names(s, names, nused, out);
    fputs("],\"nodes\":[", out);
    for (size_t i = 0; i < tn; i++) {
        char buf[80], *e = buf + sizeof buf;
        char *b = gf_fmt_i64(e, (int64_t)t[i].depth);
        *--b = ',';
        b = gf_fmt_i64(b, t[i].value);
        *--b = ',';
        b = gf_fmt_i64(b, (int64_t)slot[t[i].frame]);
        if (i)
            *--b = ',';
        fwrite(b, 1, (size_t)(e - b), out);
    }
    putc(']', out);
    if (gf_stacks_has_instances(s)) {
        fputs(",\"counts\":[", out);
        for (size_t i = 0; i < tn; i++) {
            char buf[32], *e = buf + sizeof buf, *b = gf_fmt_i64(e, t[i].inst);
            if (i)
                *--b = ',';
            fwrite(b, 1, (size_t)(e - b), out);
        }
        putc(']', out);
    }
    if (gf_stacks_has_kinds(s)) {
        fputs(",\"kinds\":[", out);
        for (uint32_t i = 0; i < nused; i++)
            fprintf(out, i ? ",\"%s\"" : "\"%s\"", gf_frame_kind_names[gf_stacks_frame_kind(s, names[i])]);
        putc(']', out);
    }
    putc('}', out);
}

void gf_stacks_write_names(const gf_stacks *s, const uint32_t *ids, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *name = gf_stacks_frame(s, ids[i], &len);
        if (i)
            putc(',', out);
        gf_json_file_string(out, name, len);
    }
}

int gf_stacks_write_tree_json(const gf_stacks *s, FILE *out, gf_err *err)
{
    size_t nf = gf_stacks_nframes(s), ns = gf_stacks_count(s);
    uint32_t *names = malloc((nf ? nf : 1) * sizeof *names);
    uint32_t *rank = malloc((nf ? nf : 1) * sizeof *rank);
    srec *order = malloc((ns ? ns : 1) * sizeof *order);
    uint32_t *path = malloc((gf_stacks_max_depth(s) + 1) * sizeof *path);
    tnode *t = NULL;
    size_t tn = 0;
    int rc = 0;
    if (!names || !rank || !order || !path) {
        rc = gf_oom(err, "flamegraph");
        goto done;
    }
    for (uint32_t i = 0; i < nf; i++)
        names[i] = i;
    qsort_r(names, nf, sizeof *names, by_name, (void *)s);
    for (uint32_t i = 0; i < nf; i++)
        rank[names[i]] = i;
    for (size_t i = 0; i < ns; i++) {
        order[i].ids = gf_stacks_get(s, i, &order[i].depth, &order[i].weight);
        order[i].rank = rank;
        order[i].inst = gf_stacks_instances(s, i);
    }
    sort_by_frames(order, ns);
    if (build_tree(order, ns, path, &t, &tn) != 0) {
        rc = gf_oom(err, "flamegraph");
        goto done;
    }
    write_tree(s, t, tn, names, rank, out); /* the ranks are no longer needed: their array holds the slots */
    if (ferror(out))
        rc = gf_errf(err, GF_EXIT_ERROR, "write error (flamegraph data)");
done:
    free(names);
    free(rank);
    free(order);
    free(path);
    free(t);
    return rc;
}
