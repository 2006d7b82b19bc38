/* `perf script` text → collapse table (core/stacks_perf.c). The same input goes through the memory
 * splitter and the streaming file reader (default and a tiny line limit); whenever both succeed the
 * folded text must be identical (abort otherwise). Then the table's writers run on the result. */
#include <string.h>

#include "fuzz_file.h"
#include "stacks_perf.h"
#include "stacks.h"

static char *folded(gf_stacks *s, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        abort();
    gf_err err;
    if (gf_stacks_write_folded(s, f, 0, &err) != 0)
        abort();
    fclose(f);
    return buf;
}

static void same_or_abort(gf_stacks *a, gf_stacks *b)
{
    size_t la, lb;
    char *x = folded(a, &la), *y = folded(b, &lb);
    if (la != lb || memcmp(x, y, la) != 0 || gf_stacks_total(a) != gf_stacks_total(b))
        abort();
    free(x);
    free(y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gf_err err;
    gf_perf_fold_stats sm, sf;
    gf_stacks *m = gf_stacks_new();
    if (gf_perf_fold_mem(m, (const char *)data, size, &sm, &err) != 0)
        abort(); /* only out of memory can fail here */
    if (gf_stacks_total(m) != (int64_t)sm.samples)
        abort(); /* one count per sample */

    const char *path = fuzz_write_file(data, size, ".perf-script");
    static const size_t limits[] = {0, 64};
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        gf_stacks *f = gf_stacks_new();
        if (gf_perf_fold_file(f, path, limits[i], &sf, &err) == 0) {
            same_or_abort(m, f);
            if (memcmp(&sm, &sf, sizeof sm) != 0)
                abort();
        } else if (limits[i] == 0 || err.code != GF_EXIT_INPUT) {
            abort(); /* the default limit (8 MiB) is above libFuzzer's max_len */
        }
        gf_stacks_free(f);
    }
    unlink(path);

    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        gf_stacks_write_tree_json(m, devnull, &err);
        gf_stacks_write_speedscope(m, devnull, "fuzz", "none", &err);
        fclose(devnull);
    }
    gf_stacks_free(m);
    return 0;
}
