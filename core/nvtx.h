/* NVTX run analysis (docs/spec/NVTX_ANALYSIS.md, schema_version 1): reads the
 * `nvtx_pushpop_trace` (host) and `nvtx_gpu_proj_trace` (GPU) CSV reports of `nsys stats`, builds the
 * range trees per (PID, TID), finds the harness iterations by hierarchy, groups ranges by scoped name
 * and writes analysis.json byte-compatible with the upstream Python analyzer.
 *
 * The implementation, one concern a file: nvtx_reports.c (the session, CSV → rows), nvtx_tree.c (keys,
 * scoped paths, the scope walk), nvtx_stats.c (groups, summaries), nvtx_json.c (the writer),
 * nvtx_manifest.c (the manifest) and nvtx.c (the analysis phases). */
#ifndef GF_NVTX_H
#define GF_NVTX_H

#include <stddef.h>
#include <stdint.h>
#include "gf_err.h"

struct gf_yv;

typedef struct gf_nvtx_host_row {
    int64_t start, end, dur, dchild, dnonchild, pid, tid, rid, parent;
    int32_t lvl, nchild;
    uint32_t name;      /* string id: name with one leading ':' removed */
    uint8_t has_parent; /* 0: empty ParentId (a root) */
    uint8_t colon;      /* the raw name started with ':' */
} gf_nvtx_host_row;

typedef struct gf_nvtx_gpu_row {
    int64_t pstart, pdur, ostart, odur, pid, tid, ngpu, rid, parent;
    int32_t lvl, nchild;
    uint32_t name, style;
    uint8_t has_parent, colon;
} gf_nvtx_gpu_row;

typedef struct gf_nvtx gf_nvtx;

gf_nvtx *gf_nvtx_new(void);
/* Reports of nsys < 2023.1 name default-domain ranges without the leading ':' of `<domain>:<text>`
 * (nvtxpptrace.py: the domain name is prefixed only when the range has a named domain): the name is
 * then taken whole instead of losing one leading ':'. Call before reading. */
void gf_nvtx_set_legacy_names(gf_nvtx *nv, int on);
void gf_nvtx_free(gf_nvtx *nv);

/* Reads a report; replaces rows read before. Errors use the spec's exact messages (§12), code 6
 * (bad input) or 5 (host report without rows). */
int gf_nvtx_read_host(gf_nvtx *nv, const char *path, gf_err *err);
int gf_nvtx_read_gpu(gf_nvtx *nv, const char *path, gf_err *err);

/* §15 (schema 2): kernels from cuda_gpu_kern_sum (merged by Name) and memory transfers from
 * cuda_gpu_trace (grouped by source/destination memory kind). A NULL path or a 0-byte / header-only
 * file gives an empty list. */
int gf_nvtx_read_cuda(gf_nvtx *nv, const char *kern_sum_path, const char *gpu_trace_path, gf_err *err);

size_t gf_nvtx_host_count(const gf_nvtx *nv);
size_t gf_nvtx_gpu_count(const gf_nvtx *nv);
const gf_nvtx_host_row *gf_nvtx_host_rows(const gf_nvtx *nv);
const gf_nvtx_gpu_row *gf_nvtx_gpu_rows(const gf_nvtx *nv);
const char *gf_nvtx_string(const gf_nvtx *nv, uint32_t id, size_t *len);

/* Manifest checks (§2, §12): loads and validates; returns the tree (free with gf_yv_free) or NULL. */
struct gf_yv *gf_nvtx_load_manifest(const char *path, gf_err *err);

typedef struct gf_nvtx_input {
    const struct gf_yv *manifest;
    const char *nsys_version;
    /* provenance strings, already relative to the run directory where they should be */
    const char *manifest_path, *trace_path, *host_report, *gpu_report;
    /* schema_version 2 (§15): capture_gpu_work from the two CUDA reports read with gf_nvtx_read_cuda */
    int schema_version; /* 0 or 1: schema 1 */
    /* The Nsight Systems release ("YYYY.R", policy analyze.validated_version) report parsing is validated
     * against: another (or an unknown) version gets the §11 warning. NULL: no version warning. */
    const char *validated_version;
    const char *kern_report, *trace_report;
    /* provenance.source: how the report CSVs were made ("export": by gpuflame from an SQLite export,
     * docs/REPORTS.md); NULL leaves the key out (the spec's default output, written by `nsys stats`) */
    const char *source;
} gf_nvtx_input;

typedef struct gf_nvtx_result {
    char *json;          /* analysis.json text, trailing newline included */
    size_t json_len;
    char **warnings;
    size_t nwarnings;
    size_t iterations, host_iterations, gpu_iterations, host_groups, gpu_groups;
} gf_nvtx_result;

/* Runs the analysis over the rows read. On error nothing is produced (§12). */
int gf_nvtx_analyze(gf_nvtx *nv, const gf_nvtx_input *in, gf_nvtx_result *res, gf_err *err);
void gf_nvtx_result_free(gf_nvtx_result *res);

/* Duration summary (§9) over n integer values, exposed for tests. mean/median/stddev as the spec
 * computes them; median_is_int tells whether the median is an integer (odd n). */
typedef struct gf_nvtx_summary {
    __int128 total;
    double mean, median_f, stddev;
    int64_t median_i, min, max;
    int median_is_int;
} gf_nvtx_summary;
void gf_nvtx_summarize(int64_t *values, size_t n, gf_nvtx_summary *s); /* sorts values in place */
/* Correctly rounded num/den (den > 0). */
double gf_nvtx_div(__int128 num, unsigned __int128 den);

/* The first `\b(\d{4})\.(\d+)\b` match; 1 when found (year and release set), else 0. */
int gf_nvtx_version_family(const char *s, int64_t *year, int *release_is_1);
/* The same match with the release as a number (leading zeros ignored; -1 when it has more than 18
 * significant digits). */
int gf_nvtx_version_release(const char *s, int64_t *year, int64_t *release);

#endif
