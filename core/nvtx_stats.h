/* Statistics of the NVTX analysis (docs/spec/NVTX_ANALYSIS.md §9): rows grouped by scoped path (and style),
 * groups in §9 order, and the duration summary (gf_nvtx_summarize and gf_nvtx_div, declared in nvtx.h
 * for the tests). */
#ifndef GF_NVTX_STATS_H
#define GF_NVTX_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "nvtx.h"
#include "strtab.h"

typedef struct gf_nvtx_group {
    uint32_t path, style;
    size_t count, first; /* members in order[first .. first+count) */
} gf_nvtx_group;

/* Groups the rows i < n that are not skip[i] by path[i] (and style[i] unless style is NULL): *out gets the
 * groups in first-seen order, *order_out the row indexes of each group in row order. Returns the number
 * of groups, or (size_t)-1 on OOM (nothing allocated). */
size_t gf_nvtx_make_groups(const uint32_t *path, const uint32_t *style, const uint8_t *skip, size_t n,
                           gf_nvtx_group **out, size_t **order_out);
/* Sorts groups by path (rank: gf_nvtx_trie_ranks) and then style name. */
void gf_nvtx_sort_groups(gf_nvtx_group *g, size_t n, const uint32_t *rank, const gf_strtab *strs);

#endif
