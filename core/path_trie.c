/* The trie of NVTX paths (path_trie.h). A child is found in its parent's list while the parent has at most
 * LIST_MAX children, else in one table. Most parents have a few: the ops of one layer range, the layers of one
 * step. A table over all nodes took 16 bytes a slot at 3/4 load (~34 MB for the 1M bench's 1.1M nodes) and a
 * cache miss for each node made, where a parent's list mostly holds nodes made one after another: the page's
 * peak went from 240 to 219 MB and its CPU down ~7 % (issue 42). */
#include "path_trie.h"

#include <stdlib.h>

#include "mem.h"

enum { LIST_MAX = 16 };

static uint64_t wide_key(int32_t parent, uint32_t frame)
{
    return ((uint64_t)(uint32_t)(parent + 1) << 32) | frame;
}

void gf_path_trie_init(gf_path_trie *t)
{
    *t = (gf_path_trie){.root_first = -1};
    gf_hmap_init(&t->wide);
}

static size_t children(const gf_path_trie *t, int32_t parent)
{
    return parent < 0 ? t->nroots : t->nchild[parent];
}

static int32_t make(gf_path_trie *t, int32_t parent, uint32_t frame)
{
    if (t->n >= INT32_MAX)
        return -2;
    void **const cols[] = {(void **)&t->parent, (void **)&t->frame, (void **)&t->first, (void **)&t->next,
                           (void **)&t->nchild};
    const size_t elem[] = {sizeof *t->parent, sizeof *t->frame, sizeof *t->first, sizeof *t->next,
                           sizeof *t->nchild};
    if (gf_grow_cols(cols, elem, sizeof cols / sizeof cols[0], &t->cap, t->n + 1, 256) != 0)
        return -2;
    size_t n = t->n++;
    t->parent[n] = parent;
    t->frame[n] = frame;
    t->first[n] = t->next[n] = -1;
    t->nchild[n] = 0;
    if (parent < 0)
        t->nroots++;
    else if (t->nchild[parent] <= LIST_MAX)
        t->nchild[parent]++; /* past LIST_MAX the count says only that: the table holds them */
    return (int32_t)n;
}

/* parent's children, its list grown past LIST_MAX by child, into the table */
static int to_wide(gf_path_trie *t, int32_t parent, int32_t head)
{
    for (int32_t c = head; c >= 0; c = t->next[c])
        if (!gf_hmap_put(&t->wide, wide_key(parent, t->frame[c]), c, NULL))
            return -1;
    return 0;
}

int32_t gf_path_trie_child(gf_path_trie *t, int32_t parent, uint32_t frame)
{
    if (children(t, parent) > LIST_MAX) {
        int ins = 0;
        int64_t *v = gf_hmap_put(&t->wide, wide_key(parent, frame), (int64_t)t->n, &ins);
        if (!v)
            return -2;
        return ins ? make(t, parent, frame) : (int32_t)*v;
    }
    for (int32_t c = parent < 0 ? t->root_first : t->first[parent]; c >= 0; c = t->next[c])
        if (t->frame[c] == frame)
            return c;
    int32_t node = make(t, parent, frame);
    if (node < 0)
        return node;
    int32_t *head = parent < 0 ? &t->root_first : &t->first[parent]; /* after make: it may move first */
    t->next[node] = *head;
    *head = node;
    if (children(t, parent) > LIST_MAX && to_wide(t, parent, node) != 0)
        return -2;
    return node;
}

void gf_path_trie_prefetch(const gf_path_trie *t, int32_t parent, uint32_t frame)
{
    if (children(t, parent) > LIST_MAX)
        gf_hmap_prefetch(&t->wide, wide_key(parent, frame));
    else if (parent >= 0)
        __builtin_prefetch(&t->first[parent]);
}

void gf_path_trie_project(gf_path_trie *t, size_t factor)
{
    if (t->wide.n && t->wide.n <= SIZE_MAX / factor)
        (void)gf_hmap_reserve(&t->wide, t->wide.n * factor); /* failing, the table grows as before */
}

void gf_path_trie_done(gf_path_trie *t)
{
    free(t->first);
    free(t->next);
    free(t->nchild);
    t->first = t->next = NULL;
    t->nchild = NULL;
    gf_hmap_free(&t->wide);
    gf_hmap_init(&t->wide);
}

void gf_path_trie_free(gf_path_trie *t)
{
    gf_path_trie_done(t);
    free(t->parent);
    free(t->frame);
    t->parent = NULL;
    t->frame = NULL;
    t->n = t->cap = 0;
}
