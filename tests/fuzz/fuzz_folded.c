/* Folded-stack import (flamegraph.pl / inferno format, optional `# {json}` first line), then every
 * writer of the collapse table: folded, the flamegraph tree JSON and speedscope. */
#include "fuzz_file.h"
#include "stacks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(data, size, ".folded");
    gf_stacks *s = gf_stacks_new();
    gf_folded_stats st;
    gf_err err;
    if (gf_stacks_read_folded(s, path, &st, &err) == 0) {
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            gf_stacks_write_folded(s, devnull, 1, &err);
            gf_stacks_write_tree_json(s, devnull, &err);
            gf_stacks_write_speedscope(s, devnull, "fuzz", "nanoseconds", &err);
            fclose(devnull);
        }
    }
    gf_stacks_free(s);
    unlink(path);
    return 0;
}
