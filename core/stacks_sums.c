/* Sums over a collapse table through its public API (stacks.h): per leaf frame (the kernels of the
 * ranked tables) and per frame of one kind (diff's grouping by NVTX range). */
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

int gf_stacks_leaf_sums(const gf_stacks *s, const int64_t *const *cols, size_t ncols, uint32_t **leaves,
                        int64_t **sums, size_t *nleaves, gf_err *err)
{
    size_t nf = gf_stacks_nframes(s), n = gf_stacks_count(s);
    if (!cols)
        ncols = 1;
    int64_t *per_frame = calloc((nf ? nf : 1) * ncols, sizeof *per_frame);
    uint32_t *order = malloc((nf ? nf : 1) * sizeof *order);
    unsigned char *seen = calloc(nf ? nf : 1, 1);
    int64_t *out = NULL;
    if (!per_frame || !order || !seen)
        goto oom;
    size_t nl = 0;
    for (size_t i = 0; i < n; i++) {
        size_t depth;
        int64_t weight;
        const uint32_t *ids = gf_stacks_get(s, i, &depth, &weight);
        uint32_t leaf = ids[depth - 1];
        if (!seen[leaf]) {
            seen[leaf] = 1;
            order[nl++] = leaf;
        }
        for (size_t c = 0; c < ncols; c++)
            per_frame[leaf * ncols + c] += cols ? cols[c][i] : weight;
    }
    out = malloc((nl ? nl : 1) * ncols * sizeof *out);
    if (!out)
        goto oom;
    for (size_t k = 0; k < nl; k++)
        memcpy(&out[k * ncols], &per_frame[(size_t)order[k] * ncols], ncols * sizeof *out);
    free(per_frame);
    free(seen);
    *leaves = order;
    *sums = out;
    *nleaves = nl;
    return 0;
oom:
    free(per_frame);
    free(order);
    free(seen);
    return gf_oom(err, "stacks");
}

int gf_stacks_kind_sums(const gf_stacks *s, int kind, uint32_t **frames, int64_t **sums, size_t *n, int64_t outside[2],
                        gf_err *err)
{
    size_t nf = gf_stacks_nframes(s) ? gf_stacks_nframes(s) : 1;
    int64_t *per = calloc(nf * 2, sizeof *per);
    uint32_t *order = malloc(nf * sizeof *order), *seen = calloc(nf, sizeof *seen);
    int64_t *out = NULL;
    if (!per || !order || !seen)
        goto oom;
    size_t k = 0;
    outside[0] = outside[1] = 0;
    for (size_t i = 0; i < gf_stacks_count(s); i++) {
        size_t depth;
        int64_t weight;
        const uint32_t *ids = gf_stacks_get(s, i, &depth, &weight);
        int64_t inst = gf_stacks_instances(s, i);
        int any = 0;
        for (size_t d = 0; d < depth; d++) {
            uint32_t id = ids[d];
            if (gf_stacks_frame_kind(s, id) != kind || seen[id] == i + 1)
                continue; /* a frame twice in one stack counts once */
            if (!seen[id])
                order[k++] = id;
            seen[id] = (uint32_t)i + 1;
            per[id * 2] += weight;
            per[id * 2 + 1] += inst;
            any = 1;
        }
        if (!any) {
            outside[0] += weight;
            outside[1] += inst;
        }
    }
    out = malloc((k ? k : 1) * 2 * sizeof *out);
    if (!out)
        goto oom;
    for (size_t j = 0; j < k; j++) {
        out[j * 2] = per[order[j] * 2];
        out[j * 2 + 1] = per[order[j] * 2 + 1];
    }
    free(per);
    free(seen);
    *frames = order;
    *sums = out;
    *n = k;
    return 0;
oom:
    free(per);
    free(order);
    free(seen);
    return gf_oom(err, "stacks");
}
