/* The analysis.json writer (docs/spec/NVTX_ANALYSIS.md §10, §14, §15): byte-compatible with Python's
 * json.dumps(sort_keys=True, indent=2) through core/pyjson.c. It writes what the analysis (nvtx.c)
 * worked out, handed over as one gf_nvtx_doc. */
#ifndef GF_NVTX_JSON_H
#define GF_NVTX_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "nvtx.h"
#include "nvtx_stats.h"
#include "nvtx_tree.h"

/* A harness iteration: its index and its row (host or GPU table). */
typedef struct gf_nvtx_iter {
    int64_t index;
    size_t row;
} gf_nvtx_iter;

typedef struct gf_nvtx_doc {
    const gf_nvtx *nv; /* rows, strings, the §15 CUDA totals */
    const gf_nvtx_input *in;
    const gf_nvtx_trie *trie;
    const gf_nvtx_group *hg, *gg; /* host / GPU range groups, in §9 order */
    size_t nhg, ngg;
    const size_t *horder, *gorder; /* their member rows */
    const gf_nvtx_iter *hit, *git; /* host / GPU iterations by index */
    size_t nhit, ngit;
    const int64_t *idx; /* iterations[]: the sorted union of their indexes */
    size_t nit;
    int64_t record_count;
    char *const *warnings;
    size_t nwarnings;
} gf_nvtx_doc;

/* analysis.json, trailing newline included (malloc'd; *len its length), or NULL on OOM. */
char *gf_nvtx_json(const gf_nvtx_doc *d, size_t *len);

#endif
