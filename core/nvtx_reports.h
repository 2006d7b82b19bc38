/* The NVTX session (nvtx.h's gf_nvtx): the rows of the `nvtx_pushpop_trace` and `nvtx_gpu_proj_trace`
 * reports (docs/spec/NVTX_ANALYSIS.md §5) and the capture-wide CUDA totals of schema 2 (§15), with every
 * string interned in one gf_strtab. core/nvtx_reports.c reads the CSVs into it; its public functions
 * (gf_nvtx_new, gf_nvtx_read_*, the row accessors) are declared in nvtx.h. This header shows the
 * session to the analysis (nvtx.c) and to the analysis.json writer (nvtx_json.c). */
#ifndef GF_NVTX_REPORTS_H
#define GF_NVTX_REPORTS_H

#include <stddef.h>
#include <stdint.h>

#include "nvtx.h"
#include "strtab.h"

/* cuda_gpu_kern_sum rows merged by Name; sorted by name once read */
typedef struct gf_nvtx_kern {
    uint32_t name;
    __int128 inst, ns;
} gf_nvtx_kern;

/* cuda_gpu_trace memory rows grouped by (source, destination) memory kind; sorted by both once read */
typedef struct gf_nvtx_xfer {
    uint32_t src, dst;
    __int128 n, bytes, ns;
} gf_nvtx_xfer;

struct gf_nvtx {
    gf_strtab *strs; /* names, styles, memory kinds; names are never cut (gf_strtab_set_max_len) */
    gf_nvtx_host_row *host;
    size_t nhost, caphost;
    gf_nvtx_gpu_row *gpu;
    size_t ngpu, capgpu;
    gf_nvtx_kern *kern;
    size_t nkern;
    gf_nvtx_xfer *xfer;
    size_t nxfer;
    int names_without_domain_prefix; /* nsys < 2023.1: default-domain names carry no ':' to strip */
};

#endif
