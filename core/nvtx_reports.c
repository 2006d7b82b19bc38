/* The NVTX session and its readers: the two NVTX reports (docs/spec/NVTX_ANALYSIS.md §5) and the CUDA
 * reports of schema 2 (§15), CSV → rows on libcsv (core/csv.c). */
#include "nvtx_reports.h"
#include "mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "hmap.h"
#include "pyjson.h"

/* ---- the session ------------------------------------------------------------------------------- */

gf_nvtx *gf_nvtx_new(void)
{
    gf_nvtx *nv = calloc(1, sizeof(gf_nvtx));
    if (nv && !(nv->strs = gf_strtab_new())) {
        free(nv);
        return NULL;
    }
    if (nv)
        gf_strtab_set_max_len(nv->strs, SIZE_MAX); /* range names are grouped by: never cut them */
    return nv;
}

void gf_nvtx_set_legacy_names(gf_nvtx *nv, int on)
{
    nv->names_without_domain_prefix = on;
}

void gf_nvtx_free(gf_nvtx *nv)
{
    if (!nv)
        return;
    gf_strtab_free(nv->strs);
    free(nv->kern);
    free(nv->xfer);
    free(nv->host);
    free(nv->gpu);
    free(nv);
}

size_t gf_nvtx_host_count(const gf_nvtx *nv) { return nv->nhost; }
size_t gf_nvtx_gpu_count(const gf_nvtx *nv) { return nv->ngpu; }
const gf_nvtx_host_row *gf_nvtx_host_rows(const gf_nvtx *nv) { return nv->host; }
const gf_nvtx_gpu_row *gf_nvtx_gpu_rows(const gf_nvtx *nv) { return nv->gpu; }

const char *gf_nvtx_string(const gf_nvtx *nv, uint32_t id, size_t *len)
{
    if (id >= gf_strtab_count(nv->strs))
        return NULL;
    return gf_strtab_get(nv->strs, (int32_t)id, len);
}

/* ---- CSV reading ------------------------------------------------------------------------------- */

enum { H_START, H_END, H_DUR, H_DCHILD, H_DNONCHILD, H_NAME, H_PID, H_TID, H_LVL, H_NCHILD, H_RID, H_PARENT, H_N };
static const char *const HOST_COLS[H_N] = {"Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)",
                                           "DurNonChild (ns)", "Name", "PID", "TID", "Lvl", "NumChild",
                                           "RangeId", "ParentId"};
enum { G_NAME, G_PSTART, G_PDUR, G_OSTART, G_ODUR, G_STYLE, G_PID, G_TID, G_NGPU, G_LVL, G_NCHILD, G_RID, G_PARENT,
       G_N };
static const char *const GPU_COLS[G_N] = {"Name", "Projected Start (ns)", "Projected Duration (ns)",
                                          "Orig Start (ns)", "Orig Duration (ns)", "Style", "PID", "TID",
                                          "NumGPUOps", "Lvl", "NumChild", "RangeId", "ParentId"};

typedef struct reader {
    gf_nvtx *nv;
    gf_csv *csv;
    const char *path;
    gf_err *err;
    const char *const *cols;
    int colidx[16]; /* required column -> field index */
} reader;

/* Field of a required column in the current row ("" when the row is short). */
static const char *field(reader *r, int col, size_t *n)
{
    return gf_csv_field(r->csv, (size_t)r->colidx[col], n);
}

static int bad_int(reader *r, int col, const char *v, size_t n)
{
    char *cr = gf_py_str_repr(r->cols[col], strlen(r->cols[col]));
    char *vr = v ? gf_py_str_repr(v, n) : NULL;
    gf_errf(r->err, GF_EXIT_INPUT, "Invalid integer in %s column %s: %s", r->path, cr ? cr : "?",
            v ? (vr ? vr : "?") : "None");
    free(cr);
    free(vr);
    return -1;
}

static int py_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Python int(): optional surrounding whitespace, sign, digits with single '_' between digits. */
static int parse_int(reader *r, int col, int64_t *out)
{
    size_t n;
    const char *s = field(r, col, &n);
    if (!s)
        return bad_int(r, col, NULL, 0);
    size_t i = 0, e = n;
    while (i < e && py_space(s[i]))
        i++;
    while (e > i && py_space(s[e - 1]))
        e--;
    int neg = 0;
    if (i < e && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    if (i >= e || s[i] < '0' || s[i] > '9')
        return bad_int(r, col, s, n);
    uint64_t acc = 0;
    int prev_us = 0;
    for (; i < e; i++) {
        char c = s[i];
        if (c == '_') {
            if (prev_us)
                return bad_int(r, col, s, n);
            prev_us = 1;
            continue;
        }
        if (c < '0' || c > '9')
            return bad_int(r, col, s, n);
        prev_us = 0;
        if (acc > (UINT64_MAX - 9) / 10)
            return bad_int(r, col, s, n);
        acc = acc * 10 + (uint64_t)(c - '0');
    }
    if (prev_us)
        return bad_int(r, col, s, n);
    if (neg ? acc > (uint64_t)INT64_MAX + 1 : acc > (uint64_t)INT64_MAX)
        return bad_int(r, col, s, n);
    *out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return 0;
}

static int parse_i32(reader *r, int col, int32_t *out)
{
    int64_t v;
    if (parse_int(r, col, &v))
        return -1;
    *out = (int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
    return 0;
}

/* Interns s[0..n) as a uint32 id; UINT32_MAX and an error when memory is exhausted. */
static uint32_t intern(gf_nvtx *nv, const char *s, size_t n, const char *path, gf_err *err)
{
    int32_t id = gf_strtab_intern(nv->strs, s ? s : "", s ? n : 0);
    if (id < 0) {
        gf_errf(err, GF_EXIT_ERROR, "out of memory reading %s", path);
        return UINT32_MAX;
    }
    return (uint32_t)id;
}

static int name_of(reader *r, int col, uint32_t *id, uint8_t *colon)
{
    size_t n = 0;
    const char *s = field(r, col, &n);
    *colon = 0;
    if (n > 0 && s[0] == ':' && !r->nv->names_without_domain_prefix) {
        s++;
        n--;
        *colon = 1;
    }
    *id = intern(r->nv, s, n, r->path, r->err);
    return *id == UINT32_MAX ? -1 : 0;
}

static int parse_parent(reader *r, int col, int64_t *v, uint8_t *has)
{
    size_t n;
    const char *s = field(r, col, &n);
    /* Python: value in (None, "") -> None. nsys < 2023.1 writes Python's None as the text "None". */
    if (!s || n == 0 || (n == 4 && !memcmp(s, "None", 4))) {
        *has = 0;
        *v = 0;
        return 0;
    }
    *has = 1;
    return parse_int(r, col, v);
}

/* Makes room for one more row in *rows (n used of *cap); 0, or -1 on OOM. */
static int reserve_row(void **rows, size_t n, size_t *cap, size_t size)
{
    return gf_grow(rows, cap, n + 1, size, 1024);
}

static int host_row(reader *r)
{
    gf_nvtx *nv = r->nv;
    if (reserve_row((void **)&nv->host, nv->nhost, &nv->caphost, sizeof *nv->host))
        return gf_errf(r->err, GF_EXIT_ERROR, "out of memory reading %s", r->path);
    gf_nvtx_host_row *h = &nv->host[nv->nhost];
    memset(h, 0, sizeof *h);
    if (name_of(r, H_NAME, &h->name, &h->colon) || parse_int(r, H_START, &h->start) ||
        parse_int(r, H_END, &h->end) || parse_int(r, H_DUR, &h->dur) || parse_int(r, H_DCHILD, &h->dchild) ||
        parse_int(r, H_DNONCHILD, &h->dnonchild) || parse_int(r, H_PID, &h->pid) || parse_int(r, H_TID, &h->tid) ||
        parse_i32(r, H_LVL, &h->lvl) || parse_i32(r, H_NCHILD, &h->nchild) || parse_int(r, H_RID, &h->rid) ||
        parse_parent(r, H_PARENT, &h->parent, &h->has_parent))
        return -1;
    nv->nhost++;
    return 0;
}

static int gpu_row(reader *r)
{
    gf_nvtx *nv = r->nv;
    size_t n1, n2;
    const char *nm = field(r, G_NAME, &n1), *rid = field(r, G_RID, &n2);
    if (!nm || !rid || n1 == 0 || n2 == 0)
        return 0; /* gpuflame extension (§5): older nsys' synthetic row for GPU work outside every range */
    if (reserve_row((void **)&nv->gpu, nv->ngpu, &nv->capgpu, sizeof *nv->gpu))
        return gf_errf(r->err, GF_EXIT_ERROR, "out of memory reading %s", r->path);
    gf_nvtx_gpu_row *g = &nv->gpu[nv->ngpu];
    memset(g, 0, sizeof *g);
    size_t sl = 0;
    const char *st = field(r, G_STYLE, &sl);
    if (name_of(r, G_NAME, &g->name, &g->colon) || parse_int(r, G_PSTART, &g->pstart) ||
        parse_int(r, G_PDUR, &g->pdur) || parse_int(r, G_OSTART, &g->ostart) || parse_int(r, G_ODUR, &g->odur) ||
        parse_int(r, G_PID, &g->pid) || parse_int(r, G_TID, &g->tid) || parse_int(r, G_NGPU, &g->ngpu) ||
        parse_i32(r, G_LVL, &g->lvl) || parse_i32(r, G_NCHILD, &g->nchild) || parse_int(r, G_RID, &g->rid) ||
        parse_parent(r, G_PARENT, &g->parent, &g->has_parent))
        return -1;
    if ((g->style = intern(nv, st, sl, r->path, r->err)) == UINT32_MAX)
        return -1;
    nv->ngpu++;
    return 0;
}

/* Exact header names (§5): idx[k] is the field of names[k] (the first such column, or the last one with
 * last_wins). Every missing one is listed, in the given order. */
static int map_header(gf_csv *c, const char *path, const char *const *names, int n, int last_wins, int *idx,
                      gf_err *err)
{
    char missing[1024] = "";
    size_t mlen = 0;
    size_t nc = gf_csv_ncols(c);
    for (int k = 0; k < n; k++) {
        idx[k] = -1;
        for (size_t f = 0; f < nc && (last_wins || idx[k] < 0); f++)
            if (!strcmp(gf_csv_colname(c, f), names[k]))
                idx[k] = (int)f;
        if (idx[k] < 0 && mlen < sizeof missing)
            mlen += (size_t)snprintf(missing + mlen, sizeof missing - mlen, "%s%s", mlen ? ", " : "", names[k]);
    }
    if (mlen)
        return gf_errf(err, GF_EXIT_INPUT, "Nsight report %s is missing required columns: %s", path, missing);
    return 0;
}

static int os_error(const char *path, int e, gf_err *err)
{
    char *pr = gf_py_str_repr(path, strlen(path));
    gf_errf(err, GF_EXIT_INPUT, "Could not read Nsight report %s: [Errno %d] %s: %s", path, e, strerror(e),
            pr ? pr : path);
    free(pr);
    return -1;
}

/* A report without rows: an error for the host report, valid (no rows) for the GPU report (§5). */
static int no_rows(const char *path, int gpu, gf_err *err)
{
    return gpu ? 0 : gf_errf(err, GF_EXIT_NO_DATA, "Nsight report contains no rows: %s", path);
}

/* OS errors first, with the spec's message (Python's OSError text); *size is the file's size. */
static int check_file(const char *path, off_t *size, gf_err *err)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    if (!fp)
        return os_error(path, errno, err);
    int ok = fstat(fileno(fp), &st) == 0;
    fclose(fp);
    if (ok && S_ISDIR(st.st_mode))
        return os_error(path, EISDIR, err);
    *size = ok ? st.st_size : 1; /* size unknown: read it as usual */
    return 0;
}

/* Reserves rows from the file size (a row takes 40+ bytes), so the table is not copied while growing;
 * pages never written cost nothing. */
static void presize(gf_nvtx *nv, int gpu, off_t size)
{
    size_t want = (size_t)size / 40 + 1024;
    void **rows = gpu ? (void **)&nv->gpu : (void **)&nv->host;
    size_t *cap = gpu ? &nv->capgpu : &nv->caphost;
    if (want > *cap) {
        if (gf_resize(rows, want, gpu ? sizeof *nv->gpu : sizeof *nv->host) == 0)
            *cap = want;
    }
}

static int read_report(gf_nvtx *nv, const char *path, int gpu, gf_err *err)
{
    size_t *count = gpu ? &nv->ngpu : &nv->nhost;
    *count = 0;
    off_t size = 0;
    if (check_file(path, &size, err))
        return -1;
    if (size == 0)
        return no_rows(path, gpu, err);
    presize(nv, gpu, size);
    reader r = {.nv = nv, .path = path, .err = err, .cols = gpu ? GPU_COLS : HOST_COLS};
    gf_csv_opts o;
    memset(&o, 0, sizeof o);
    o.allow_short_rows = 1;
    gf_err cerr;
    if (gf_csv_open(&r.csv, path, &o, &cerr) != 0) {
        if (cerr.code == GF_EXIT_NO_DATA) /* nothing but a BOM or blank lines */
            return no_rows(path, gpu, err);
        *err = cerr;
        return -1;
    }
    int rc = map_header(r.csv, path, r.cols, gpu ? G_N : H_N, 0, r.colidx, err);
    size_t rows = 0;
    while (rc == 0) {
        int k = gf_csv_next(r.csv, err);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
        rows++;
        if ((gpu ? gpu_row(&r) : host_row(&r)) != 0)
            rc = -1;
    }
    if (rc == 0 && rows == 0)
        rc = no_rows(path, gpu, err);
    if (rc != 0)
        *count = 0;
    gf_csv_close(r.csv);
    return rc;
}

int gf_nvtx_read_host(gf_nvtx *nv, const char *path, gf_err *err) { return read_report(nv, path, 0, err); }
int gf_nvtx_read_gpu(gf_nvtx *nv, const char *path, gf_err *err) { return read_report(nv, path, 1, err); }

/* ---- §15: capture-wide CUDA work (schema 2) ---------------------------------------------------- */

static int cuda_int(gf_csv *c, const char *path, const char *col, int idx, int64_t *v, gf_err *err)
{
    const char *cols[1] = {col};
    reader r = {.csv = c, .path = path, .err = err, .cols = cols};
    r.colidx[0] = idx;
    return parse_int(&r, 0, v);
}

/* Opens a CSV that may be absent, empty or header-only (→ *out NULL, 0). */
static int cuda_open(const char *path, gf_csv **out, gf_err *err)
{
    *out = NULL;
    struct stat st;
    if (!path || stat(path, &st) != 0 || st.st_size == 0)
        return 0;
    gf_csv_opts o;
    memset(&o, 0, sizeof o);
    o.allow_short_rows = 1;
    gf_err cerr;
    if (gf_csv_open(out, path, &o, &cerr) != 0) {
        if (cerr.code == GF_EXIT_NO_DATA)
            return 0;
        *err = cerr;
        return -1;
    }
    return 0;
}

/* The slot of key in the list *v (n used of *cap, element size `size`, found through idx); a new
 * zeroed slot when absent. NULL on OOM. */
static void *list_slot(gf_hmap *idx, uint64_t key, void **v, size_t *n, size_t *cap, size_t size)
{
    int ins;
    int64_t *at = gf_hmap_put(idx, key, (int64_t)*n, &ins);
    if (!at)
        return NULL;
    if (ins) {
        if (gf_grow(v, cap, *n + 1, size, 16) != 0)
            return NULL;
        memset((char *)*v + *n * size, 0, size);
        ++*n;
    }
    return (char *)*v + (size_t)*at * size;
}

static int read_kern_sum(gf_nvtx *nv, gf_csv *c, const char *path, gf_hmap *idx, gf_err *err)
{
    static const char *const kc[] = {"Name", "Instances", "Total Time (ns)"};
    int col[3];
    size_t cap = 0;
    int rc = map_header(c, path, kc, 3, 1, col, err);
    while (rc == 0) {
        int k = gf_csv_next(c, err);
        if (k <= 0)
            return k;
        size_t n;
        const char *name = gf_csv_field(c, (size_t)col[0], &n);
        int64_t inst, ns;
        if (cuda_int(c, path, kc[1], col[1], &inst, err) || cuda_int(c, path, kc[2], col[2], &ns, err))
            return -1;
        uint32_t id = intern(nv, name, n, path, err);
        if (id == UINT32_MAX)
            return -1;
        gf_nvtx_kern *kn = list_slot(idx, id, (void **)&nv->kern, &nv->nkern, &cap, sizeof *nv->kern);
        if (!kn)
            return gf_oom(err, NULL);
        kn->name = id;
        kn->inst += inst;
        kn->ns += ns;
    }
    return rc;
}

static int read_transfers(gf_nvtx *nv, gf_csv *c, const char *path, gf_hmap *idx, gf_err *err)
{
    static const char *const tc[] = {"Name", "SrcMemKd", "DstMemKd", "Bytes (B)", "Duration (ns)"};
    int col[5];
    size_t cap = 0;
    int rc = map_header(c, path, tc, 5, 1, col, err);
    while (rc == 0) {
        int k = gf_csv_next(c, err);
        if (k <= 0)
            return k;
        size_t nn, sn, dn;
        const char *name = gf_csv_field(c, (size_t)col[0], &nn);
        const char *src = gf_csv_field(c, (size_t)col[1], &sn);
        const char *dst = gf_csv_field(c, (size_t)col[2], &dn);
        if (memmem(name, nn, "memset", 6))
            continue;
        if (sn == 0 && dn == 0 && !memmem(name, nn, "memcpy", 6))
            continue; /* a kernel row */
        if (sn == 0 || dn == 0)
            return gf_errf(err, GF_EXIT_INPUT, "Nsight report %s line %zu (%.*s) is missing a memory kind", path,
                           gf_csv_line(c), (int)(nn > 200 ? 200 : nn), name);
        int64_t bytes, ns;
        if (cuda_int(c, path, tc[3], col[3], &bytes, err) || cuda_int(c, path, tc[4], col[4], &ns, err))
            return -1;
        uint32_t s = intern(nv, src, sn, path, err), d = s == UINT32_MAX ? s : intern(nv, dst, dn, path, err);
        if (d == UINT32_MAX)
            return -1;
        gf_nvtx_xfer *x = list_slot(idx, (uint64_t)s << 32 | d, (void **)&nv->xfer, &nv->nxfer, &cap, sizeof *nv->xfer);
        if (!x)
            return gf_oom(err, NULL);
        x->src = s;
        x->dst = d;
        x->n += 1;
        x->bytes += bytes;
        x->ns += ns;
    }
    return rc;
}

static int cmp_kern(const void *a, const void *b, void *strs)
{
    return gf_strtab_cmp(strs, (int32_t)((const gf_nvtx_kern *)a)->name, (int32_t)((const gf_nvtx_kern *)b)->name);
}

static int cmp_xfer(const void *a, const void *b, void *strs)
{
    const gf_nvtx_xfer *x = a, *y = b;
    int c = gf_strtab_cmp(strs, (int32_t)x->src, (int32_t)y->src);
    return c ? c : gf_strtab_cmp(strs, (int32_t)x->dst, (int32_t)y->dst);
}

typedef int (*cuda_reader)(gf_nvtx *nv, gf_csv *c, const char *path, gf_hmap *idx, gf_err *err);

/* Reads one CUDA report (absent, empty or header-only: nothing) with fn. */
static int read_cuda_report(gf_nvtx *nv, const char *path, cuda_reader fn, gf_err *err)
{
    gf_csv *c;
    if (cuda_open(path, &c, err))
        return -1;
    if (!c)
        return 0;
    gf_hmap idx;
    gf_hmap_init(&idx);
    int rc = fn(nv, c, path, &idx, err);
    gf_hmap_free(&idx);
    gf_csv_close(c);
    return rc ? -1 : 0;
}

int gf_nvtx_read_cuda(gf_nvtx *nv, const char *kpath, const char *tpath, gf_err *err)
{
    nv->nkern = nv->nxfer = 0;
    if (read_cuda_report(nv, kpath, read_kern_sum, err) || read_cuda_report(nv, tpath, read_transfers, err))
        return -1;
    if (nv->nkern)
        qsort_r(nv->kern, nv->nkern, sizeof *nv->kern, cmp_kern, nv->strs);
    if (nv->nxfer)
        qsort_r(nv->xfer, nv->nxfer, sizeof *nv->xfer, cmp_xfer, nv->strs);
    return 0;
}
