/* `nsys stats` reports computed in C straight from an SQLite export (docs/REPORTS.md).
 *
 * One file per report family: core/stats_cuda_sum.c (cuda_gpu_kern_sum, cuda_api_sum,
 * cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum), core/stats_cuda_trace.c (cuda_gpu_trace, cuda_api_trace),
 * core/stats_nvtx.c (nvtx_pushpop_trace, nvtx_sum; the NVTX ranges and their tree, core/stats_nvtx.h),
 * core/stats_nvtx_proj.c (nvtx_gpu_proj_trace, nvtx_gpu_proj_sum). This file
 * holds what they share: the open export (tables and columns probed through core/trace_sqlite.c), the
 * report table, the cell writer (CSV/JSON bytes as nsys writes them) and the numbers (SQLite's round(),
 * the median/stdev aggregates nsys registers, Python's float repr).
 *
 * Rows stream to the output; nothing goes through Lua. Memory is bounded by what a report must hold:
 * the groups of a summary (and their durations, for the median), the ranges of an NVTX report. */
#ifndef GF_STATS_H
#define GF_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "gf_err.h"
#include "hmap.h"
#include "strtab.h"

struct sqlite3;
struct sqlite3_stmt;

enum { GF_STATS_CSV = 0, GF_STATS_JSON = 1 };
enum { GF_KNAME_DEMANGLED = 0, GF_KNAME_BASE = 1, GF_KNAME_MANGLED = 2 };

typedef struct gf_stats_opts {
    int format;    /* GF_STATS_CSV or GF_STATS_JSON */
    int mem_bytes; /* csv:mem=B: memory columns in bytes, "(B)" (default MB, "(MB)") */
    int kname;     /* cuda_gpu_kern_sum / cuda_gpu_trace: GF_KNAME_* (report argument :base / :mangled) */
} gf_stats_opts;

/* An open export, shared by every report run on it. */
typedef struct gf_stats_db {
    struct sqlite3 *db;
    char *path;
    gf_strtab *str;     /* strings used by the reports (names, labels) */
    gf_hmap sid;        /* StringIds id → str id (+1; 0 = no such string) */
    struct sqlite3_stmt *sid_st;
    int has_stringids;
} gf_stats_db;

gf_stats_db *gf_stats_open(const char *path, gf_err *err);
void gf_stats_close(gf_stats_db *d);

/* The outcome of one report. */
typedef struct gf_stats_res {
    int64_t rows;
    char skipped[512]; /* "" or nsys's SKIPPED reason ("<db> does not contain CUDA kernel data.") */
} gf_stats_res;

typedef struct gf_stats_report {
    const char *name;    /* current (2023.1+) name */
    const char *old;     /* the name before 2023.1, or NULL */
    const char *summary; /* one line for --help-reports */
    int args;            /* 1: accepts :base / :mangled */
    int (*run)(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
} gf_stats_report;

/* The reports, NULL-terminated by name. */
extern const gf_stats_report gf_stats_reports[];
const gf_stats_report *gf_stats_find(const char *name);

/* Writes one report (header + rows; nothing at all when there is no row, as nsys) to out. */
int gf_stats_run(gf_stats_db *d, const char *report, const gf_stats_opts *o, FILE *out, gf_stats_res *res,
                 gf_err *err);

/* ---- shared by the report files ---- */

/* A column: its header label and its unit, as the scripts spell "Label:unit". */
enum { GF_U_NONE, GF_U_NS, GF_U_TS, GF_U_PCT, GF_U_MEM, GF_U_THRU };
typedef struct gf_col {
    const char *label;
    int unit;
} gf_col;

typedef struct gf_tab {
    FILE *out;
    const gf_stats_opts *o;
    const gf_col *cols;
    int ncols;
    int col;       /* next column of the current row */
    int64_t rows;  /* rows written */
    int err;       /* a write failed */
    char *buf;     /* the current row */
    size_t len, cap;
} gf_tab;

void gf_tab_begin(gf_tab *t, FILE *out, const gf_stats_opts *o, const gf_col *cols, int ncols);
void gf_tab_null(gf_tab *t);
void gf_tab_int(gf_tab *t, int64_t v);
void gf_tab_float(gf_tab *t, double v); /* a REAL as SQLite hands it to Python: repr() */
/* A value of a GF_U_MEM column (bytes, or MB with 3 decimals) / of GF_U_THRU (B/s as MB/s, 3 decimals). */
void gf_tab_mem_int(gf_tab *t, int64_t v);
void gf_tab_mem_float(gf_tab *t, double v);
void gf_tab_thru(gf_tab *t, double bytes_per_s);
void gf_tab_text(gf_tab *t, const char *s, size_t len);
void gf_tab_cstr(gf_tab *t, const char *s);
/* Ends a row (the header is written before the first one). */
void gf_tab_end_row(gf_tab *t);
/* Ends the table (JSON: the closing bracket; nothing when no row was written). 0 ok, -1 write error. */
int gf_tab_finish(gf_tab *t, gf_err *err);

/* SQLite 3.36's round(x, n) (the SQLite inside nsys 2022.4: printf("%.*f") with its long-double rounder,
 * then its own text→double), bit for bit. */
double gf_sqlite_round(double x, int n);

/* A group of a summary report: count/sum/min/max, Welford's mean and M2 in the order rows come (the
 * stdev() aggregate nsys registers), and every value (the median). */
typedef struct gf_agg {
    int64_t n, sum, min, max;
    double mean, m2;
    int64_t *v;
    size_t cap;
} gf_agg;

int gf_agg_add(gf_agg *a, int64_t x); /* -1 on OOM */
void gf_agg_free(gf_agg *a);
double gf_agg_avg(const gf_agg *a);
double gf_agg_stdev(const gf_agg *a); /* sample standard deviation; 0.0 below two values */
/* median(): the middle value (an INTEGER) when the count is odd or both middle values are equal, else
 * their mean (a REAL). Sorts a->v. */
int gf_agg_median(gf_agg *a, int64_t *iv, double *dv); /* returns 1 when the median is an integer */

/* The text of StringIds id (NULL when there is no such string), interned in d->str; *sid = its str id. */
const char *gf_stats_string(gf_stats_db *d, int64_t id, int32_t *sid, size_t *len, gf_err *err);

/* gf_sqlite_prepare_cols for a report: 1 prepared, 0 when the table is absent (nothing captured), -1
 * when it exists without one of the first nreq columns (exit 6 naming the file, table and column). */
struct gf_sqlq;
int gf_stats_prepare(gf_stats_db *d, struct gf_sqlq *q, const char *table, const char *const *cols, int ncols,
                     int nreq, const char *tail, gf_err *err);

/* Sets res->skipped to "<db> <reason>" (nsys's SKIPPED message). Returns 0. */
int gf_stats_skip(gf_stats_db *d, gf_stats_res *res, const char *reason);

/* Checks SIGINT/SIGTERM in long loops: -1 and err (exit 130) once one arrived. */
int gf_stats_interrupted(gf_err *err);

/* The groups of a summary report, by a 64-bit key, in the order they were first seen. */
typedef struct gf_sumgrp {
    gf_agg a;
    int64_t key;
    int32_t name;  /* str id, or -1 for NULL */
    int32_t style; /* nvtx_sum: 0 PushPop, 1 StartEnd */
} gf_sumgrp;

typedef struct gf_sums {
    gf_hmap idx;
    gf_sumgrp *g;
    size_t n, cap;
} gf_sums;

void gf_sums_init(gf_sums *s);
void gf_sums_free(gf_sums *s);
/* The group of key (created with name -1 when new; *isnew says so), NULL on OOM. */
gf_sumgrp *gf_sums_get(gf_sums *s, uint64_t key, int *isnew);
/* The eight columns every time summary starts with: round(total*100.0/grand, 1), total, count,
 * round(avg, 1), round(median, 1), min, max, round(stdev, 1). */
void gf_sums_time_cells(gf_tab *t, gf_agg *a, int64_t grand);
/* SQLite's BINARY collation of two str ids (-1 = NULL sorts first). */
int gf_stats_strcmp(const gf_strtab *st, int32_t a, int32_t b);

/* The API name of the scripts: a 6-character "_vNNNN" suffix removed (cuda_api_sum / cuda_api_trace). */
void gf_stats_api_name(const char *v, size_t len, size_t *outlen);

/* Report entry points (one family per file). */
int gf_rep_kern_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
int gf_rep_api_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
int gf_rep_mem_time_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
int gf_rep_mem_size_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
int gf_rep_gpu_trace(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
int gf_rep_api_trace(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
int gf_rep_nvtx_pushpop_trace(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
int gf_rep_nvtx_gpu_proj_trace(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
int gf_rep_nvtx_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);
int gf_rep_nvtx_gpu_proj_sum(gf_stats_db *d, const gf_stats_opts *o, FILE *out, gf_stats_res *res, gf_err *err);

/* Memcpy operation and memory kind labels for exports without the ENUM_* tables (schema 2.9.1): the
 * labels ENUM_CUDA_MEMCPY_OPER / ENUM_CUDA_MEM_KIND hold in every later export. */
#define GF_NCOPYKIND 64
int gf_stats_enum(gf_stats_db *d, const char *table, int32_t *out, int nout, gf_err *err);

#endif
