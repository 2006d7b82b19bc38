/* NVTX names grouped by policy (core/trace_nvtx_group.c; the patterns are decided in Lua, policy nvtx.group).
 * gf_trace_nvtx_name_ids: the distinct name ids of the NVTX events (malloc'd, ascending). gf_trace_set_nvtx_group:
 * raw[k] is shown as text[k] (len[k] bytes, interned) in gpuflame's own views; replaces any earlier map.
 * gf_trace_nvtx_group: the id an NVTX name is shown under (itself when not grouped). */
#ifndef GF_TRACE_NVTX_GROUP_H
#define GF_TRACE_NVTX_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "hmap.h"
#include "trace_types.h"

int gf_trace_nvtx_name_ids(const gf_trace *t, int32_t **ids, size_t *n, gf_err *err);
int gf_trace_set_nvtx_group(gf_trace *t, const int32_t *raw, const char *const *text, const size_t *len, size_t n,
                            gf_err *err);
static inline int32_t gf_trace_nvtx_group(const gf_trace *t, int32_t name)
{
    if (!t->nvtx_group.n)
        return name;
    int64_t *v = gf_hmap_get(&t->nvtx_group, (uint64_t)(uint32_t)name);
    return v ? (int32_t)*v : name;
}

#endif
