/* A flamegraph page's fold of its NVTX frames, decided before its stacks are made (core/trace_flame.c, for a
 * page whose raw stacks would be many: a step number in every NVTX path). It holds the merged call tree's nodes
 * down to the NVTX frames: contexts (the frame-id sequences above the NVTX level) and, under each, the NVTX
 * nodes of the caller's path trie (a parent numbered before its children). From the GPU operations' weights it
 * sums their totals, counts the distinct stacks (context, NVTX node, tail: the up to two frames under the NVTX
 * level), and maps each NVTX node to its node in the folded tree: gf_stacks_fold's fold (policy
 * flamegraph.fold_share) of the NVTX frames, the outermost small node of a path replaced by a fold node under
 * which its subtree merges by frame. Small contexts are not folded here (their operations keep their NVTX
 * frames), nor anything under the NVTX frames: gf_stacks_fold does the rest with the same totals. */
#ifndef GF_FLAME_FOLD_H
#define GF_FLAME_FOLD_H

#include <stddef.h>
#include <stdint.h>

enum { GF_NVTX_FOLD_NONE = -1, GF_NVTX_FOLD_NO_LAUNCH = -2 }; /* NVTX nodes of operations outside the trie */

typedef struct gf_nvtx_fold gf_nvtx_fold;

/* Over the trie's first tn nodes (copied: the trie may grow); NULL on OOM. */
gf_nvtx_fold *gf_nvtx_fold_new(const int32_t *tparent, const uint32_t *tframe, size_t tn);
void gf_nvtx_fold_free(gf_nvtx_fold *x);
/* The context of these frames (outermost first), made when new; -1 on OOM. */
int32_t gf_nvtx_fold_context(gf_nvtx_fold *x, const uint32_t *frames, size_t n);
/* One GPU operation: its context, its NVTX node (a trie node, or GF_NVTX_FOLD_*), the key of its frames under
 * the NVTX level (the same for the same frames), its weight. 0, or -1 on OOM. */
int gf_nvtx_fold_add(gf_nvtx_fold *x, int32_t context, int32_t node, uint64_t tail, int64_t weight);
size_t gf_nvtx_fold_stacks(const gf_nvtx_fold *x); /* the distinct stacks of the operations added */
int64_t gf_nvtx_fold_total(const gf_nvtx_fold *x);
/* Folds the nodes under min (none whose context, or an ancestor of it, is under min): child(arg, parent, frame)
 * gives the trie node of frame under parent (-1: a root), made when new (< -1: failed); fold_frame is the fold
 * frame's id. *nodes and *weight: the nodes folded and their total. 0, or -1 (OOM, or child failed). */
int gf_nvtx_fold_map(gf_nvtx_fold *x, int64_t min, uint32_t fold_frame,
                     int32_t (*child)(void *arg, int32_t parent, uint32_t frame), void *arg, size_t *nodes,
                     int64_t *weight);
/* NVTX node node (of the trie's first tn) of an operation in context in the folded tree; others as given. */
int32_t gf_nvtx_fold_node(const gf_nvtx_fold *x, int32_t context, int32_t node);

#endif
