/* Per-name GPU/API time totals straight from an nsys SQLite export (no nsys needed): what the
 * cuda_gpu_kern_sum / cuda_api_sum reports compute, i.e. SUM(end - start) grouped by name through
 * StringIds. The file is opened read-only; tables and columns are probed, not assumed.
 * (The full trace import lives in core/trace_sqlite.c; this file only aggregates.) */
#ifndef GF_SQLITE_KERNELS_H
#define GF_SQLITE_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include "gf_err.h"

enum { GF_SQL_KERNELS, GF_SQL_API };

typedef struct gf_name_total {
    char *name;
    int64_t total_ns;
    int64_t count;
} gf_name_total;

/* Fills *out (malloc'd, sorted by total descending, then name) with one entry per kernel name
 * (GF_SQL_KERNELS: CUPTI_ACTIVITY_KIND_KERNEL, name column demangledName, then shortName, then
 * mangledName) or per CUDA API name (GF_SQL_API: CUPTI_ACTIVITY_KIND_RUNTIME.nameId, the "_vNNNN"
 * suffix stripped as nsys does). A missing table or zero rows is not an error: *n = 0 and *why says
 * what was missing. A file that is not an SQLite database fails with GF_EXIT_INPUT. */
int gf_sqlite_totals(const char *path, int what, gf_name_total **out, size_t *n, char *why, size_t why_size,
                     gf_err *err);
void gf_name_totals_free(gf_name_total *t, size_t n);
/* 1 when path starts with the SQLite header magic. */
int gf_is_sqlite_file(const char *path);

#endif
