/* What an nsys SQLite export says about its capture, read once for every use: for comparing two captures
 * fairly (diff: nsys and schema versions, GPUs, driver versions, OS/CPU, the capture's duration and start,
 * fingerprints (SHA-256) of the host name and of the profiled command line) and for merging several
 * reports (ranks: the session start, process ids and names, the host name, and only the environment
 * variables the caller names). The command line, its arguments and the working directory (META_DATA_CAPTURE)
 * are sensitive: only their hash leaves this file, and of the environment only the named variables are read.
 * Every table and column is probed; what an export lacks stays empty (or -1). */
#ifndef GF_SQLITE_META_H
#define GF_SQLITE_META_H

#include <stddef.h>
#include <stdint.h>
#include "gf_err.h"

typedef struct gf_sqlite_kv {
    char *key, *value;
} gf_sqlite_kv;

typedef struct gf_capture_meta {
    char nsys_version[64];   /* EXPORT_PRODUCT_VERSION (META_DATA_EXPORT or EXPORT_META_DATA): the exporting nsys */
    char schema_version[32]; /* EXPORT_SCHEMA_VERSION */
    char recorded_version[32]; /* the recording nsys: the last "20YY.N[.N...]" in TargetInstallDir
                                  (TARGET_INFO_SYSTEM_ENV; .../nsight-systems/2022.1.3/target-linux-x64), or "" */
    char *gpus;              /* TARGET_INFO_GPU names of the CUDA devices (smCount > 0, where the schema has it) in
                              * id order, '\n'-separated (malloc'd), or NULL */
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
    /* for merging several reports (issue 14, docs/TIMELINE_DATA.md "Several reports") */
    int64_t session_start;  /* UTC epoch ns of the capture start, -1 when the export has none */
    char session_field[96]; /* where it came from ("TARGET_INFO_SESSION_START_TIME.utcEpochNs", ...) */
    char *host;             /* TARGET_INFO_SYSTEM_ENV Hostname (malloc'd), or NULL */
    /* selected name/value pairs:
     *   "PROCESS_<n>:PID"         META_DATA_CAPTURE: the pid of the launched process n
     *   "PROCESS_<n>:ENV:<NAME>"  META_DATA_CAPTURE: its environment variable NAME, only for NAMEs in env_names
     *   "PROCESS_<n>:ARGS_HASH"   META_DATA_CAPTURE: 16 hex digits of SHA-256 over its COMMAND and ARGUMENT_<k>
 *                             values (each followed by a NUL byte): the command line itself never leaves C
 *   "PROCESSES:<pid>"         PROCESSES: process name */
    gf_sqlite_kv *kv;
    size_t nkv;
} gf_capture_meta;

/* Reads the metadata of an SQLite export (read-only). env_names (nenv of them; may be NULL when 0): the
 * environment variables whose values kv gets. A file that is not an SQLite database fails with
 * GF_EXIT_INPUT; missing tables are not errors. m is filled (and must be freed) even on failure. */
int gf_sqlite_capture_meta(const char *path, const char *const *env_names, size_t nenv, gf_capture_meta *m,
                           gf_err *err);
void gf_capture_meta_free(gf_capture_meta *m);

#endif
