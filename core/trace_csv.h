/* Import of `nsys stats` trace CSVs (cuda_api_trace, cuda_gpu_trace) into the Trace model. Column
 * indices are chosen in Lua (gpuflame.columns alias tables) and passed in; C never guesses a column. */
#ifndef GF_TRACE_CSV_H
#define GF_TRACE_CSV_H

#include "trace.h"

/* 0-based column indices, -1 when absent. */
typedef struct gf_trace_csv_cols {
    int start, dur, corr, name;
    int device, stream, grid[3], block[3], regs, bytes; /* cuda_gpu_trace */
    double bytes_scale;                                 /* 1e6 for "Bytes (MB)", 1 for "Bytes (B)" */
    int pid, tid, thread;                               /* cuda_api_trace */
} gf_trace_csv_cols;

void gf_trace_csv_cols_init(gf_trace_csv_cols *c);

/* Imports the API trace (may be NULL) and then the GPU trace (may be NULL) into t, which must be begun;
 * finishes t on success. Rows whose start or duration does not parse are skipped (the reference does
 * the same); a missing start, duration or name column is an error naming the file. */
int gf_trace_import_csv(gf_trace *t, const char *api_path, const gf_trace_csv_cols *api, const char *gpu_path,
                        const gf_trace_csv_cols *gpu, gf_err *err);

#endif
