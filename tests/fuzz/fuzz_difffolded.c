/* Two-column folded import (difffolded.pl's "stack BEFORE AFTER", gpuflame diff --folded), then the
 * differential table: both columns joined (the AFTER leaves renamed, as kernel-name normalisation does),
 * and every writer: two-column folded, the differential tree JSON with and without folding, the leaves. */
#include "fuzz_file.h"
#include "stacks_diff.h"
#include "stacks.h"

static int on_leaf(void *ud, const char *name, size_t len, int64_t b, int64_t a)
{
    (void)ud;
    (void)name;
    (void)len;
    (void)b;
    (void)a;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(data, size, ".folded");
    gf_stacks *b = gf_stacks_new(), *a = gf_stacks_new();
    gf_folded_stats st;
    gf_err err;
    if (gf_stacks_read_folded2(b, a, path, &st, &err) == 0) {
        gf_stackdiff *d = gf_stackdiff_new();
        size_t nf = gf_stacks_nframes(a);
        const char **remap = calloc(nf ? nf : 1, sizeof *remap);
        for (size_t i = 0; i < nf; i += 2)
            remap[i] = "renamed;leaf";
        if (d && remap && gf_stackdiff_add(d, 0, b, NULL, 1, &err) == 0 &&
            gf_stackdiff_add(d, 1, a, remap, 1000, &err) == 0) {
            FILE *devnull = fopen("/dev/null", "w");
            if (devnull) {
                gf_stackdiff_write_folded(d, devnull, "{\"format\":\"difffolded\"}", &err);
                gf_stackdiff_write_tree_json(d, devnull, 0, NULL, &err);
                gf_stackdiff_write_tree_json(d, devnull, 0.01, NULL, &err);
                gf_stackdiff_leaves(d, on_leaf, NULL, &err);
                fclose(devnull);
            }
        }
        free(remap);
        gf_stackdiff_free(d);
    }
    gf_stacks_free(b);
    gf_stacks_free(a);
    unlink(path);
    return 0;
}
