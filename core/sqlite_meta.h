/* What an nsys SQLite export says about its capture, for comparing two captures fairly: nsys and schema
 * versions, GPUs, driver versions, OS/CPU, the capture's duration and start, and fingerprints (SHA-256)
 * of the host name and of the profiled command line. The command line, its arguments, the working
 * directory and the environment (META_DATA_CAPTURE) are sensitive: only their hash leaves this file.
 * Every table and column is probed; what an export lacks stays empty (or -1). */
#ifndef GF_SQLITE_META_H
#define GF_SQLITE_META_H

#include <stddef.h>
#include <stdint.h>
#include "gf_err.h"

typedef struct gf_capture_meta {
    char nsys_version[64];   /* EXPORT_PRODUCT_VERSION (META_DATA_EXPORT or EXPORT_META_DATA): the exporting nsys */
    char schema_version[32]; /* EXPORT_SCHEMA_VERSION */
    char recorded_version[32]; /* the recording nsys: the last "20YY.N[.N...]" in TargetInstallDir
                                  (TARGET_INFO_SYSTEM_ENV; .../nsight-systems/2022.1.3/target-linux-x64), or "" */
    char *gpus;              /* TARGET_INFO_GPU names in id order, '\n'-separated (malloc'd), or NULL */
    size_t ngpus;
    char driver[64];       /* TARGET_INFO_SYSTEM_ENV NvDriverVersion */
    char cuda_driver[32];  /* TARGET_INFO_SYSTEM_ENV CudaDriverVersion */
    char os[128];          /* OsDescription */
    char cpu[128];         /* CpuDescription */
    char host_hash[65];    /* SHA-256 hex of Hostname (TARGET_INFO_SYSTEM_ENV), else of EXPORT_HOST */
    char command_hash[65]; /* SHA-256 hex of the PROCESS_<n>:COMMAND / :ARGUMENT_<k> values (META_DATA_CAPTURE,
                              table order, each followed by a NUL byte) */
    int64_t duration_ns;   /* ANALYSIS_DETAILS.duration, or -1 */
    char start_utc[40];    /* TARGET_INFO_SESSION_START_TIME.utcTime */
    int64_t kernels;       /* rows in CUPTI_ACTIVITY_KIND_KERNEL (0 when absent) */
    int64_t callchains;    /* 1 when CUDA_CALLCHAINS has rows, else 0 */
} gf_capture_meta;

/* Reads the metadata of an SQLite export (read-only). A file that is not an SQLite database fails with
 * GF_EXIT_INPUT; missing tables are not errors. */
int gf_sqlite_capture_meta(const char *path, gf_capture_meta *m, gf_err *err);
void gf_capture_meta_free(gf_capture_meta *m);

#endif
