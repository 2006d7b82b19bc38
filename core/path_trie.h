/* The trie of NVTX paths that the hierarchical GPU flamegraph folds launches into (core/trace_flame.c): a node
 * per distinct (parent node, frame), numbered in the order nodes are made. */
#ifndef GF_PATH_TRIE_H
#define GF_PATH_TRIE_H

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"

typedef struct gf_path_trie {
    int32_t *parent; /* node → parent node (-1: a root) */
    uint32_t *frame; /* node → frame */
    size_t n, cap;
    /* finding a child: each node's children in a list, newest first, until it has more than a few; then in
     * the table. Freed by gf_path_trie_done when no more nodes are made. */
    int32_t *first, *next; /* node → its newest child, its next older sibling (-1: none) */
    uint8_t *nchild;       /* node → its children, counted up to one more than a list holds */
    int32_t root_first;
    size_t nroots;
    gf_hmap wide; /* (parent + 1) << 32 | frame → node, for the children of a parent with many */
} gf_path_trie;

void gf_path_trie_init(gf_path_trie *t);
/* The node of frame under parent (-1: a root), made when new; -2 when out of memory. */
int32_t gf_path_trie_child(gf_path_trie *t, int32_t parent, uint32_t frame);
/* Starts fetching what a gf_path_trie_child(t, parent, frame) to come reads first. */
void gf_path_trie_prefetch(const gf_path_trie *t, int32_t parent, uint32_t frame);
/* Sizes the table once for factor times the entries it has now (a projection of what the rest will add). */
void gf_path_trie_project(gf_path_trie *t, size_t factor);
/* No more nodes are made: frees all but parent and frame. */
void gf_path_trie_done(gf_path_trie *t);
void gf_path_trie_free(gf_path_trie *t);

#endif
