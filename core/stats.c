/* The report table, the open export, the cell writer and the numbers shared by core/stats_*.c.
 * The rules (script and line they come from) are in docs/REPORTS.md. */
#include "stats.h"
#include "mem.h"
#include "interrupt.h"

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "pyjson.h"
#include "sqlite_export.h"



const gf_stats_report gf_stats_reports[] = {
    {"cuda_gpu_kern_sum", "gpukernsum", "CUDA GPU Kernel Summary ([:base|:mangled])", 1, gf_rep_kern_sum},
    {"cuda_api_sum", "cudaapisum", "CUDA API Summary", 0, gf_rep_api_sum},
    {"cuda_gpu_mem_time_sum", "gpumemtimesum", "CUDA GPU MemOps Summary (by Time)", 0, gf_rep_mem_time_sum},
    {"cuda_gpu_mem_size_sum", "gpumemsizesum", "CUDA GPU MemOps Summary (by Size)", 0, gf_rep_mem_size_sum},
    {"cuda_gpu_trace", "gputrace", "CUDA GPU Trace ([:base|:mangled])", 1, gf_rep_gpu_trace},
    {"cuda_api_trace", "cudaapitrace", "CUDA API Trace", 0, gf_rep_api_trace},
    {"nvtx_pushpop_trace", "nvtxpptrace", "NVTX Push/Pop Range Trace", 0, gf_rep_nvtx_pushpop_trace},
    {"nvtx_gpu_proj_trace", "nvtxgpuproj", "NVTX GPU Projection Trace", 0, gf_rep_nvtx_gpu_proj_trace},
    {"nvtx_sum", "nvtxsum", "NVTX Range Summary", 0, gf_rep_nvtx_sum},
    {"nvtx_gpu_proj_sum", NULL, "NVTX GPU Projection Summary", 0, gf_rep_nvtx_gpu_proj_sum},
    {NULL, NULL, NULL, 0, NULL},
};

const gf_stats_report *gf_stats_find(const char *name)
{
    for (const gf_stats_report *r = gf_stats_reports; r->name; r++)
        if (strcmp(r->name, name) == 0 || (r->old && strcmp(r->old, name) == 0))
            return r;
    return NULL;
}

/* ---- the export ---- */

gf_stats_db *gf_stats_open(const char *path, gf_err *err)
{
    gf_stats_db *d = calloc(1, sizeof *d);
    if (!d) {
        gf_oom(err, NULL);
        return NULL;
    }
    gf_hmap_init(&d->sid);
    d->path = strdup(path);
    d->str = gf_strtab_new();
    if (!d->path || !d->str) {
        gf_oom(err, NULL);
        gf_stats_close(d);
        return NULL;
    }
    if (gf_sqlite_open_export(path, &d->db, err) != 0) {
        gf_stats_close(d);
        return NULL;
    }
    int h = gf_sqlite_has_table(d->db, "StringIds");
    if (h < 0) {
        gf_sqlite_fail(d->db, path, "sqlite_master", err);
        gf_stats_close(d);
        return NULL;
    }
    d->has_stringids = h;
    if (h && sqlite3_prepare_v2(d->db, "SELECT value FROM StringIds WHERE id = ?1", -1, &d->sid_st, NULL) !=
                 SQLITE_OK) {
        gf_sqlite_fail(d->db, path, "StringIds", err);
        gf_stats_close(d);
        return NULL;
    }
    /* the reports sort and group in memory; SQLite's own sorter (ORDER BY) spills to temporary files */
    sqlite3_exec(d->db, "PRAGMA temp_store = FILE", NULL, NULL, NULL);
    return d;
}

void gf_stats_close(gf_stats_db *d)
{
    if (!d)
        return;
    if (d->sid_st)
        sqlite3_finalize(d->sid_st);
    if (d->db)
        sqlite3_close(d->db);
    gf_hmap_free(&d->sid);
    gf_strtab_free(d->str);
    free(d->path);
    free(d);
}

const char *gf_stats_string(gf_stats_db *d, int64_t id, int32_t *sid, size_t *len, gf_err *err)
{
    if (sid)
        *sid = -1;
    if (!d->sid_st)
        return NULL;
    int64_t *v = gf_hmap_get(&d->sid, (uint64_t)id);
    if (!v) {
        int32_t s = -1;
        sqlite3_reset(d->sid_st);
        sqlite3_bind_int64(d->sid_st, 1, id);
        int rc = sqlite3_step(d->sid_st);
        if (rc == SQLITE_ROW && sqlite3_column_type(d->sid_st, 0) != SQLITE_NULL) {
            const char *t = (const char *)sqlite3_column_text(d->sid_st, 0);
            s = gf_strtab_intern(d->str, t ? t : "", t ? (size_t)sqlite3_column_bytes(d->sid_st, 0) : 0);
            if (s < 0) {
                gf_oom(err, NULL);
                return NULL;
            }
        } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            gf_sqlite_fail(d->db, d->path, "StringIds", err);
            return NULL;
        }
        sqlite3_reset(d->sid_st);
        v = gf_hmap_put(&d->sid, (uint64_t)id, s + 1, NULL);
        if (!v) {
            gf_oom(err, NULL);
            return NULL;
        }
    }
    if (*v == 0)
        return NULL;
    if (sid)
        *sid = (int32_t)(*v - 1);
    return gf_strtab_get(d->str, (int32_t)(*v - 1), len);
}

int gf_stats_prepare(gf_stats_db *d, gf_sqlq *q, const char *table, const char *const *cols, int ncols, int nreq,
                     const char *tail, gf_err *err)
{
    int r = gf_sqlite_prepare_cols(d->db, d->path, q, table, cols, ncols, nreq, tail, err);
    if (r != 0)
        return r;
    int h = gf_sqlite_has_table(d->db, table);
    if (h < 0)
        return gf_sqlite_fail(d->db, d->path, table, err);
    if (h == 0)
        return 0;
    for (int i = 0; i < nreq; i++) {
        int c = gf_sqlite_has_column(d->db, table, cols[i]);
        if (c < 0)
            return gf_sqlite_fail(d->db, d->path, table, err);
        if (c == 0)
            return gf_errf(err, GF_EXIT_INPUT, "%s: table %s has no column %s (not an nsys export, or a damaged one)",
                           d->path, table, cols[i]);
    }
    return gf_errf(err, GF_EXIT_INPUT, "%s: %s: cannot read", d->path, table);
}

int gf_stats_skip(gf_stats_db *d, gf_stats_res *res, const char *reason)
{
    snprintf(res->skipped, sizeof res->skipped, "%s %s", d->path, reason);
    return 0;
}

int gf_stats_interrupted(gf_err *err)
{
    if (!gf_interrupted)
        return 0;
    return gf_errf(err, GF_EXIT_INTERRUPTED, "interrupted");
}

/* ENUM_CUDA_MEMCPY_OPER / ENUM_CUDA_MEM_KIND labels (id → label), with the labels of every schema 3.x
 * export for schema 2.9.1 exports that have no ENUM_* tables (docs/spec/NSYS.md §7.6). */
static const char *const oper_fallback[] = {"Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array",
                                            "Array-to-Host", "Array-to-Array", "Array-to-Device",
                                            "Device-to-Array", "Device-to-Device", "Host-to-Host", "Peer-to-Peer",
                                            "Unified Host-to-Device", "Unified Device-to-Host",
                                            "Unified Device-to-Device"};
static const char *const kind_fallback[] = {"Pageable", "Pinned", "Device", "Array",
                                            "Managed", "Device Static", "Managed Static", "Unknown"};

int gf_stats_enum(gf_stats_db *d, const char *table, int32_t *out, int nout, gf_err *err)
{
    for (int i = 0; i < nout; i++)
        out[i] = -1;
    static const char *const cols[] = {"id", "label"};
    gf_sqlq q;
    int r = gf_stats_prepare(d, &q, table, cols, 2, 2, NULL, err);
    if (r < 0)
        return -1;
    if (r == 0) {
        int oper = strcmp(table, "ENUM_CUDA_MEMCPY_OPER") == 0;
        const char *const *fb = oper ? oper_fallback : kind_fallback;
        int nfb = oper ? 14 : 8;
        for (int i = 0; i < nfb && i < nout; i++)
            if ((out[i] = gf_strtab_intern_cstr(d->str, fb[i])) < 0)
                return gf_oom(err, NULL);
        return 0;
    }
    int rc;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(q.st, 0);
        const char *v = (const char *)sqlite3_column_text(q.st, 1);
        if (id >= 0 && id < nout && v && (out[id] = gf_strtab_intern_cstr(d->str, v)) < 0) {
            sqlite3_finalize(q.st);
            return gf_oom(err, NULL);
        }
    }
    sqlite3_finalize(q.st);
    return rc == SQLITE_DONE ? 0 : gf_sqlite_fail(d->db, d->path, table, err);
}

int gf_stats_run(gf_stats_db *d, const char *report, const gf_stats_opts *o, FILE *out, gf_stats_res *res,
                 gf_err *err)
{
    memset(res, 0, sizeof *res);
    gf_err_clear(err); /* the report code reads err->code after string look-ups */
    const gf_stats_report *r = gf_stats_find(report);
    if (!r)
        return gf_errf(err, GF_EXIT_USAGE, "unknown report '%s' (see --help-reports)", report);
    /* every current script: table_checks 'StringIds': '{DBFILE} file does not contain StringIds table.' */
    if (!d->has_stringids)
        return gf_stats_skip(d, res, "file does not contain StringIds table.");
    return r->run(d, o, out, res, err);
}

/* ---- numbers ---- */

/* sqlite3_mprintf("%.*f", prec, r) as SQLite 3.36's printf.c writes it (etFLOAT): a long-double
 * "rounder" of 0.5e-prec, nudged by realvalue*3e-16, added before the digits are generated, at most 16
 * significant digits. */
static void sqlite_fmt_f(char *buf, double rv, int precision)
{
    static const double arRound[] = {5.0e-01, 5.0e-02, 5.0e-03, 5.0e-04, 5.0e-05,
                                     5.0e-06, 5.0e-07, 5.0e-08, 5.0e-09, 5.0e-10};
    long double realvalue = rv;
    char *b = buf;
    if (realvalue < 0.0) {
        realvalue = -realvalue;
        *b++ = '-';
    }
    int idx = precision & 0xfff;
    double rounder = arRound[idx % 10];
    while (idx >= 10) {
        rounder *= 1.0e-10;
        idx -= 10;
    }
    {
        double rx = (double)realvalue;
        uint64_t u;
        memcpy(&u, &rx, sizeof u);
        int ex = -1023 + (int)((u >> 52) & 0x7ff);
        if (precision + (ex / 3) < 15)
            rounder += (double)(realvalue * 3e-16);
        realvalue += rounder;
    }
    int exp = 0;
    if (realvalue > 0.0) {
        long double scale = 1.0;
        while (realvalue >= 1e100 * scale && exp <= 350) {
            scale *= 1e100;
            exp += 100;
        }
        while (realvalue >= 1e10 * scale && exp <= 350) {
            scale *= 1e10;
            exp += 10;
        }
        while (realvalue >= 10.0 * scale && exp <= 350) {
            scale *= 10.0;
            exp++;
        }
        realvalue /= scale;
        while (realvalue < 1e-8) {
            realvalue *= 1e8;
            exp -= 8;
        }
        while (realvalue < 1.0) {
            realvalue *= 10.0;
            exp--;
        }
    }
    int e2 = exp, nsd = 16;
#define GETDIGIT()                                                                                          \
    (nsd <= 0 ? '0' : (nsd--, dg = (int)realvalue, realvalue = (realvalue - (long double)dg) * 10.0, (char)('0' + dg)))
    int dg;
    if (e2 < 0) {
        *b++ = '0';
    } else {
        for (; e2 >= 0; e2--)
            *b++ = GETDIGIT();
    }
    if (precision > 0)
        *b++ = '.';
    for (e2++; e2 < 0; precision--, e2++)
        *b++ = '0';
    while ((precision--) > 0)
        *b++ = GETDIGIT();
#undef GETDIGIT
    *b = '\0';
}

/* sqlite3AtoF (SQLite 3.36) for the plain [-]digits[.digits] text sqlite_fmt_f writes. */
static double sqlite_atof(const char *z)
{
    const int64_t LARGEST = INT64_MAX;
    int sign = 1, d = 0;
    int64_t s = 0;
    if (*z == '-') {
        sign = -1;
        z++;
    }
    while (*z >= '0' && *z <= '9') {
        s = s * 10 + (*z - '0');
        z++;
        if (s >= (LARGEST - 9) / 10)
            while (*z >= '0' && *z <= '9') {
                z++;
                d++;
            }
    }
    if (*z == '.') {
        z++;
        while (*z >= '0' && *z <= '9') {
            if (s < (LARGEST - 9) / 10) {
                s = s * 10 + (*z - '0');
                d--;
            }
            z++;
        }
    }
    int e = d, esign = 1;
    if (e < 0) {
        esign = -1;
        e = -e;
    }
    if (s == 0)
        return sign < 0 ? -0.0 : 0.0;
    while (e > 0) {
        if (esign > 0) {
            if (s >= LARGEST / 10)
                break;
            s *= 10;
        } else {
            if (s % 10 != 0)
                break;
            s /= 10;
        }
        e--;
    }
    s = sign < 0 ? -s : s;
    if (e == 0)
        return (double)s;
    long double scale = 1.0;
    while (e % 22) {
        scale *= 1.0e+1;
        e -= 1;
    }
    while (e > 0) {
        scale *= 1.0e+22;
        e -= 22;
    }
    return esign < 0 ? (double)(s / scale) : (double)(s * scale);
}

double gf_sqlite_round(double r, int n)
{
    if (n > 30)
        n = 30;
    if (n < 0)
        n = 0;
    if (isnan(r) || r < -4503599627370496.0 || r > +4503599627370496.0)
        return r;
    if (n == 0)
        return (double)((int64_t)(r + (r < 0 ? -0.5 : +0.5)));
    char buf[400];
    sqlite_fmt_f(buf, r, n);
    return sqlite_atof(buf);
}

int gf_agg_add(gf_agg *a, int64_t x)
{
    if (GF_GROW(a->v, a->cap, (size_t)a->n + 1, 8) != 0)
        return -1;
    a->v[a->n] = x;
    if (a->n == 0 || x < a->min)
        a->min = x;
    if (a->n == 0 || x > a->max)
        a->max = x;
    a->n++;
    a->sum += x;
    /* extension-functions.c varianceStep (the stdev() nsys registers) */
    double dx = (double)x;
    double delta = dx - a->mean;
    a->mean += delta / (double)a->n;
    a->m2 += delta * (dx - a->mean);
    return 0;
}

void gf_agg_free(gf_agg *a)
{
    free(a->v);
    memset(a, 0, sizeof *a);
}

double gf_agg_avg(const gf_agg *a)
{
    return a->n ? (double)a->sum / (double)a->n : 0.0;
}

double gf_agg_stdev(const gf_agg *a)
{
    return a->n > 1 ? sqrt(a->m2 / (double)(a->n - 1)) : 0.0;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

int gf_agg_median(gf_agg *a, int64_t *iv, double *dv)
{
    if (a->n == 0) {
        *iv = 0;
        *dv = 0;
        return 1;
    }
    if ((size_t)a->n > 1) /* qsort wants a non-NULL base even for 0 elements */
        qsort(a->v, (size_t)a->n, sizeof *a->v, cmp_i64);
    int64_t lo = a->v[(a->n - 1) / 2], hi = a->v[a->n / 2];
    if (lo == hi) {
        *iv = lo;
        *dv = (double)lo;
        return 1;
    }
    *dv = (double)(lo + hi) / 2.0;
    return 0;
}

/* ---- the cell writer ---- */

static void tab_put(gf_tab *t, const char *s, size_t n)
{
    if (GF_GROW(t->buf, t->cap, t->len + n + 1, 256) != 0) {
        t->err = 1;
        return;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static const char *unit_suffix(const gf_tab *t, int unit)
{
    switch (unit) {
    case GF_U_NS:
    case GF_U_TS:
        return " (ns)";
    case GF_U_PCT:
        return " (%)";
    case GF_U_MEM:
        return t->o->mem_bytes ? " (B)" : " (MB)";
    case GF_U_THRU:
        return " (MB/s)";
    default:
        return "";
    }
}

/* CSV as nsys writes it: a field is wrapped in double quotes when it holds a comma, and nothing is
 * escaped (a quote or a newline inside a field is written as is). */
static void csv_field(gf_tab *t, const char *s, size_t n)
{
    if (memchr(s, ',', n)) {
        tab_put(t, "\"", 1);
        tab_put(t, s, n);
        tab_put(t, "\"", 1);
    } else {
        tab_put(t, s, n);
    }
}

/* JSON strings as nsys writes them: '"', '\\', tab, backspace and form feed escaped; other bytes raw. */
static void json_string(gf_tab *t, const char *s, size_t n)
{
    tab_put(t, "\"", 1);
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        const char *esc = NULL;
        switch (s[i]) {
        case '"':
            esc = "\\\"";
            break;
        case '\\':
            esc = "\\\\";
            break;
        case '\t':
            esc = "\\t";
            break;
        case '\b':
            esc = "\\b";
            break;
        case '\f':
            esc = "\\f";
            break;
        default:
            break;
        }
        if (esc) {
            tab_put(t, s + from, i - from);
            tab_put(t, esc, strlen(esc));
            from = i + 1;
        }
    }
    tab_put(t, s + from, n - from);
    tab_put(t, "\"", 1);
}

void gf_tab_begin(gf_tab *t, FILE *out, const gf_stats_opts *o, const gf_col *cols, int ncols)
{
    memset(t, 0, sizeof *t);
    t->out = out;
    t->o = o;
    t->cols = cols;
    t->ncols = ncols;
}

/* before a value: the separator (CSV) or the key (JSON) */
static void cell_open(gf_tab *t)
{
    if (t->o->format == GF_STATS_JSON) {
        char key[256];
        const gf_col *c = &t->cols[t->col];
        int n = snprintf(key, sizeof key, "%s%s", c->label, unit_suffix(t, c->unit));
        tab_put(t, t->col ? ",\n    " : "    ", t->col ? 6 : 4);
        json_string(t, key, (size_t)n < sizeof key ? (size_t)n : sizeof key - 1);
        tab_put(t, ": ", 2);
    } else if (t->col) {
        tab_put(t, ",", 1);
    }
    t->col++;
}

void gf_tab_null(gf_tab *t)
{
    cell_open(t);
    if (t->o->format == GF_STATS_JSON)
        tab_put(t, "null", 4);
}

/* integer text without printf */
static size_t i64_text(int64_t v, char *buf)
{
    char tmp[24];
    size_t n = 0, o = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        buf[o++] = '-';
    while (n)
        buf[o++] = tmp[--n];
    buf[o] = '\0';
    return o;
}

void gf_tab_int(gf_tab *t, int64_t v)
{
    char b[24];
    size_t n = i64_text(v, b);
    cell_open(t);
    tab_put(t, b, n);
}

void gf_tab_float(gf_tab *t, double v)
{
    char b[40];
    gf_py_float_repr(v, b, sizeof b);
    cell_open(t);
    tab_put(t, b, strlen(b));
}

static void fixed3(gf_tab *t, double v)
{
    char b[64];
    int n = snprintf(b, sizeof b, "%.3f", v);
    cell_open(t);
    tab_put(t, b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

void gf_tab_mem_int(gf_tab *t, int64_t v)
{
    if (t->o->mem_bytes)
        gf_tab_int(t, v);
    else
        fixed3(t, (double)v / 1e6);
}

void gf_tab_mem_float(gf_tab *t, double v)
{
    if (t->o->mem_bytes)
        gf_tab_float(t, v);
    else
        fixed3(t, v / 1e6);
}

void gf_tab_thru(gf_tab *t, double bps)
{
    fixed3(t, bps / 1e6);
}

void gf_tab_text(gf_tab *t, const char *s, size_t len)
{
    cell_open(t);
    if (t->o->format == GF_STATS_JSON)
        json_string(t, s, len);
    else
        csv_field(t, s, len);
}

void gf_tab_cstr(gf_tab *t, const char *s)
{
    gf_tab_text(t, s, strlen(s));
}

static void write_header(gf_tab *t)
{
    if (t->o->format == GF_STATS_JSON) {
        fputs("[\n", t->out);
        return;
    }
    for (int i = 0; i < t->ncols; i++) {
        char h[256];
        int n = snprintf(h, sizeof h, "%s%s%s", i ? "," : "", t->cols[i].label, unit_suffix(t, t->cols[i].unit));
        fwrite(h, 1, (size_t)n < sizeof h ? (size_t)n : sizeof h - 1, t->out);
    }
    fputc('\n', t->out);
}

void gf_tab_end_row(gf_tab *t)
{
    if (t->rows == 0)
        write_header(t);
    if (t->o->format == GF_STATS_JSON) {
        fputs(t->rows ? ",\n  {\n" : "  {\n", t->out);
        fwrite(t->buf, 1, t->len, t->out);
        fputs("\n  }", t->out);
    } else {
        tab_put(t, "\n", 1);
        fwrite(t->buf, 1, t->len, t->out);
    }
    t->len = 0;
    t->col = 0;
    t->rows++;
}

int gf_tab_finish(gf_tab *t, gf_err *err)
{
    /* no row: CSV writes nothing at all (not even the header), JSON an empty list "[\n]\n" (nsys 2022.4) */
    if (t->o->format == GF_STATS_JSON)
        fputs(t->rows ? "\n]\n" : "[\n]\n", t->out);
    free(t->buf);
    t->buf = NULL;
    if (t->err)
        return gf_oom(err, NULL);
    return 0;
}

/* ---- summary groups ---- */

void gf_sums_init(gf_sums *s)
{
    memset(s, 0, sizeof *s);
    gf_hmap_init(&s->idx);
}

void gf_sums_free(gf_sums *s)
{
    for (size_t i = 0; i < s->n; i++)
        gf_agg_free(&s->g[i].a);
    free(s->g);
    gf_hmap_free(&s->idx);
    memset(s, 0, sizeof *s);
}

gf_sumgrp *gf_sums_get(gf_sums *s, uint64_t key, int *isnew)
{
    int ins = 0;
    int64_t *v = gf_hmap_put(&s->idx, key, (int64_t)s->n, &ins);
    if (!v)
        return NULL;
    if (isnew)
        *isnew = ins;
    if (!ins)
        return &s->g[*v];
    if (GF_GROW(s->g, s->cap, s->n + 1, 16) != 0)
        return NULL;
    gf_sumgrp *g = &s->g[s->n++];
    memset(g, 0, sizeof *g);
    g->key = (int64_t)key;
    g->name = -1;
    return g;
}

void gf_sums_time_cells(gf_tab *t, gf_agg *a, int64_t grand)
{
    /* round(summary.total * 100.0 / (SELECT total FROM totals), 1): NULL when the grand total is 0 */
    if (grand != 0)
        gf_tab_float(t, gf_sqlite_round((double)a->sum * 100.0 / (double)grand, 1));
    else
        gf_tab_null(t);
    gf_tab_int(t, a->sum);
    gf_tab_int(t, a->n);
    gf_tab_float(t, gf_sqlite_round(gf_agg_avg(a), 1));
    int64_t im;
    double dm;
    gf_agg_median(a, &im, &dm);
    gf_tab_float(t, gf_sqlite_round(dm, 1));
    gf_tab_int(t, a->min);
    gf_tab_int(t, a->max);
    gf_tab_float(t, gf_sqlite_round(gf_agg_stdev(a), 1));
}

int gf_stats_strcmp(const gf_strtab *st, int32_t a, int32_t b)
{
    if (a == b)
        return 0;
    if (a < 0 || b < 0)
        return a < 0 ? -1 : 1;
    size_t la, lb;
    const char *sa = gf_strtab_get(st, a, &la);
    const char *sb = gf_strtab_get(st, b, &lb);
    int c = memcmp(sa, sb, la < lb ? la : lb);
    if (c)
        return c;
    return la < lb ? -1 : la > lb;
}
