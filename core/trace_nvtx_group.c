/* NVTX names grouped by policy (trace.h): the distinct names of a trace's NVTX ranges handed to Lua, which
 * applies policy nvtx.group to each text once, and the resulting map of name ids kept in the trace for the
 * views that show NVTX names (flamegraph stacks, timeline, exports, findings). Only ids are mapped here;
 * the patterns are never seen by C. */
#include <stdint.h>
#include <stdlib.h>

#include "trace.h"
#include "trace_nvtx_group.h"
#include "mem.h"

/* One bit per string of the trace, not a hash set: 2.2M ranges are a pass over two columns, and the ids come
 * out in order. */
int gf_trace_nvtx_name_ids(const gf_trace *t, int32_t **ids, size_t *n, gf_err *err)
{
    size_t nstr = gf_strtab_count(t->str), k = 0;
    uint64_t *seen = calloc(nstr / 64 + 1, sizeof *seen);
    if (!seen)
        return gf_oom(err, "nvtx names");
    for (size_t i = 0; i < t->n; i++) {
        int32_t nm = t->name[i];
        if (t->kind[i] == GF_EV_NVTX && nm >= 0 && (size_t)nm < nstr &&
            !(seen[(uint32_t)nm / 64] & (1ull << ((uint32_t)nm % 64)))) {
            seen[(uint32_t)nm / 64] |= 1ull << ((uint32_t)nm % 64);
            k++;
        }
    }
    int32_t *out = malloc((k ? k : 1) * sizeof *out);
    if (!out) {
        free(seen);
        return gf_oom(err, "nvtx names");
    }
    size_t j = 0;
    for (size_t w = 0; w <= nstr / 64; w++)
        for (uint64_t b = seen[w]; b; b &= b - 1)
            out[j++] = (int32_t)(w * 64 + (size_t)__builtin_ctzll(b));
    free(seen);
    *ids = out;
    *n = k;
    return 0;
}

int gf_trace_set_nvtx_group(gf_trace *t, const int32_t *raw, const char *const *text, const size_t *len, size_t n,
                            gf_err *err)
{
    gf_hmap m;
    gf_hmap_init(&m);
    for (size_t k = 0; k < n; k++) {
        if (raw[k] < 0 || (size_t)raw[k] >= gf_strtab_count(t->str)) {
            gf_hmap_free(&m);
            return gf_errf(err, GF_EXIT_USAGE, "nvtx groups: %d is not a name of this trace", (int)raw[k]);
        }
        int32_t id = gf_strtab_intern(t->str, text[k], len[k]);
        if (id < 0 || (id != raw[k] && !gf_hmap_put(&m, (uint64_t)(uint32_t)raw[k], id, NULL))) {
            gf_hmap_free(&m);
            return gf_oom(err, "nvtx groups");
        }
    }
    gf_hmap_free(&t->nvtx_group);
    t->nvtx_group = m;
    return 0;
}
