/* Differential stacks: the union of two collapse tables (BEFORE = side 0, AFTER = side 1) with both
 * weights per stack, for differential flamegraphs (`gpuflame diff`). Frames and stacks are interned once
 * in a union table; a leaf can be renamed per side on the way in (kernel-name normalisation), so stacks
 * that differ only in a normalised leaf merge. Writes difffolded.pl's two-column folded format and the
 * differential flamegraph page data. */
#ifndef GF_STACKDIFF_H
#define GF_STACKDIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gf_err.h"
#include "stacks.h"

typedef struct gf_stackdiff gf_stackdiff;

gf_stackdiff *gf_stackdiff_new(void);
void gf_stackdiff_free(gf_stackdiff *d);

/* Adds every stack of s to side 0 (BEFORE) or 1 (AFTER) with its weight × scale (scale >= 1: counts in
 * unit_ns units become ns). leaf_remap is NULL or indexed by s's frame ids: a new name for that frame
 * where it is a stack's leaf (NULL entry = keep). */
int gf_stackdiff_add(gf_stackdiff *d, int side, const gf_stacks *s, const char *const *leaf_remap, int64_t scale,
                     gf_err *err);

int64_t gf_stackdiff_total(const gf_stackdiff *d, int side);
size_t gf_stackdiff_count(const gf_stackdiff *d); /* distinct stacks in the union */
/* Stack i of the union: frame ids (gf_stackdiff_frame names them) and both weights. */
const uint32_t *gf_stackdiff_get(const gf_stackdiff *d, size_t i, size_t *depth, int64_t *before, int64_t *after);
const char *gf_stackdiff_frame(const gf_stackdiff *d, uint32_t id, size_t *len);

/* Per distinct leaf name (first-seen order): both sides' summed weights. cb returns non-zero to stop. */
typedef int (*gf_leaf_cb)(void *ud, const char *name, size_t len, int64_t before, int64_t after);
int gf_stackdiff_leaves(const gf_stackdiff *d, gf_leaf_cb cb, void *ud, gf_err *err);

/* "frame;...;leaf BEFORE AFTER" per union stack (first-seen order), after an optional "# {meta}" line. */
int gf_stackdiff_write_folded(const gf_stackdiff *d, FILE *out, const char *meta, gf_err *err);

/* Differential flamegraph data (script-safe JSON):
 *   {"total":[B,A],"names":[...],"nodes":[name,before,after,depth, ...],"folded":N}
 * nodes: the merged call tree in pre-order, children sorted by name, root excluded. A subtree whose share
 * of its side's total is below min_fraction on BOTH sides is left out (its weight stays in its parent's
 * values; "folded" counts such subtrees); nodes with zero weight on both sides are always left out. */
typedef struct gf_difftree_stats {
    size_t nodes, folded;
} gf_difftree_stats;
int gf_stackdiff_write_tree_json(const gf_stackdiff *d, FILE *out, double min_fraction, gf_difftree_stats *st,
                                 gf_err *err);

#endif
