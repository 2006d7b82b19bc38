/* NVTX names grouped by policy (trace.h): the distinct names of a trace's NVTX ranges handed to Lua, which
 * applies policy nvtx.group to each text once, and the resulting map of name ids kept in the trace for the
 * views that show NVTX names (flamegraph stacks, timeline, exports, findings). Only ids are mapped here;
 * the patterns are never seen by C. */
#include <stdlib.h>

#include "trace.h"
#include "trace_nvtx_group.h"
#include "mem.h"

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int gf_trace_nvtx_name_ids(const gf_trace *t, int32_t **ids, size_t *n, gf_err *err)
{
    gf_hmap seen;
    gf_hmap_init(&seen);
    size_t k = 0, cap = 0;
    int32_t *out = NULL;
    for (size_t i = 0; i < t->n; i++) {
        if (t->kind[i] != GF_EV_NVTX || t->name[i] < 0)
            continue;
        int ins = 0;
        if (!gf_hmap_put(&seen, (uint64_t)(uint32_t)t->name[i], 0, &ins))
            goto oom;
        if (!ins)
            continue;
        if (GF_GROW(out, cap, k + 1, 64) != 0)
            goto oom;
        out[k++] = t->name[i];
    }
    gf_hmap_free(&seen);
    if (k)
        qsort(out, k, sizeof *out, cmp_i32);
    *ids = out;
    *n = k;
    return 0;
oom:
    gf_hmap_free(&seen);
    free(out);
    return gf_oom(err, "nvtx names");
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
