#include "nvtx.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "pyjson.h"
#include "yamltree.h"

/* ---- string table ------------------------------------------------------------------------------ */

typedef struct strtab {
    char *arena;
    size_t alen, acap;
    size_t *off;   /* id -> offset in arena */
    uint32_t *len; /* id -> length */
    uint32_t n, cap;
    uint32_t *slots; /* hash slots: id + 1, 0 = empty */
    uint32_t *hashes;
    size_t nslots;
} strtab;

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    h ^= h >> 32;
    h *= 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

static void strtab_free(strtab *t)
{
    free(t->arena);
    free(t->off);
    free(t->len);
    free(t->slots);
    free(t->hashes);
    memset(t, 0, sizeof *t);
}

static int strtab_grow_slots(strtab *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t id = 0; id < t->n; id++) {
        size_t i = t->hashes[id] & (ns - 1);
        while (s[i])
            i = (i + 1) & (ns - 1);
        s[i] = id + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
    return 0;
}

/* Returns the id of s, adding it when new; UINT32_MAX on out of memory. */
static uint32_t intern(strtab *t, const char *s, size_t n)
{
    if ((size_t)t->n * 2 + 2 > t->nslots && strtab_grow_slots(t))
        return UINT32_MAX;
    uint64_t h = hash_bytes(s, n);
    size_t i = h & (t->nslots - 1);
    while (t->slots[i]) {
        uint32_t id = t->slots[i] - 1;
        if (t->hashes[id] == (uint32_t)h && t->len[id] == n && memcmp(t->arena + t->off[id], s, n) == 0)
            return id;
        i = (i + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 256;
        size_t *no = realloc(t->off, nc * sizeof *no);
        if (!no)
            return UINT32_MAX;
        t->off = no;
        uint32_t *nl = realloc(t->len, nc * sizeof *nl);
        if (!nl)
            return UINT32_MAX;
        t->len = nl;
        uint32_t *nh = realloc(t->hashes, nc * sizeof *nh);
        if (!nh)
            return UINT32_MAX;
        t->hashes = nh;
        t->cap = nc;
    }
    if (t->alen + n + 1 > t->acap) {
        size_t nc = t->acap ? t->acap : 65536;
        while (t->alen + n + 1 > nc)
            nc *= 2;
        char *na = realloc(t->arena, nc);
        if (!na)
            return UINT32_MAX;
        t->arena = na;
        t->acap = nc;
    }
    memcpy(t->arena + t->alen, s, n);
    t->arena[t->alen + n] = '\0';
    uint32_t id = t->n++;
    t->off[id] = t->alen;
    t->len[id] = (uint32_t)n;
    t->hashes[id] = (uint32_t)h;
    t->alen += n + 1;
    t->slots[i] = id + 1;
    return id;
}

static const char *str_of(const strtab *t, uint32_t id) { return t->arena + t->off[id]; }

/* ---- (PID, TID, RangeId) -> int map ------------------------------------------------------------ */

typedef struct kslot {
    int64_t a, b, c, v;
} kslot;

typedef struct kmap {
    kslot *s;
    uint8_t *used;
    size_t nslots, n;
} kmap;

static inline uint64_t key_hash(int64_t a, int64_t b, int64_t c)
{
    uint64_t h = (uint64_t)c * 0x9E3779B97F4A7C15ULL;
    h ^= ((uint64_t)b * 0xC2B2AE3D27D4EB4FULL) ^ ((uint64_t)a * 0x165667B19E3779F9ULL);
    return h ^ (h >> 32);
}

static void kmap_free(kmap *m)
{
    free(m->s);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static int kmap_init(kmap *m, size_t expect)
{
    memset(m, 0, sizeof *m);
    size_t ns = 16;
    while (ns < expect + expect / 2 + 2)
        ns *= 2;
    m->s = malloc(ns * sizeof *m->s);
    m->used = calloc(ns, 1);
    m->nslots = ns;
    if (!m->s || !m->used) {
        kmap_free(m);
        return -1;
    }
    return 0;
}

/* Sets key -> v (overwrites). Callers keep the load under 2/3 (kmap_reserve or sizing up front). */
static void kmap_put(kmap *m, int64_t a, int64_t b, int64_t c, int64_t v)
{
    size_t mask = m->nslots - 1, i = key_hash(a, b, c) & mask;
    while (m->used[i]) {
        kslot *k = &m->s[i];
        if (k->c == c && k->a == a && k->b == b) {
            k->v = v;
            return;
        }
        i = (i + 1) & mask;
    }
    m->used[i] = 1;
    m->s[i] = (kslot){a, b, c, v};
    m->n++;
}

/* Grows the table when it is two-thirds full. */
static int kmap_reserve(kmap *m)
{
    if ((m->n + 1) * 3 <= m->nslots * 2)
        return 0;
    kmap nm;
    if (kmap_init(&nm, m->nslots))
        return -1;
    for (size_t k = 0; k < m->nslots; k++)
        if (m->used[k])
            kmap_put(&nm, m->s[k].a, m->s[k].b, m->s[k].c, m->s[k].v);
    kmap_free(m);
    *m = nm;
    return 0;
}

static inline int kmap_get(const kmap *m, int64_t a, int64_t b, int64_t c, int64_t *v)
{
    if (!m->nslots)
        return 0;
    size_t mask = m->nslots - 1, i = key_hash(a, b, c) & mask;
    while (m->used[i]) {
        const kslot *k = &m->s[i];
        if (k->c == c && k->a == a && k->b == b) {
            *v = k->v;
            return 1;
        }
        i = (i + 1) & mask;
    }
    return 0;
}

/* ---- row lookup by key ------------------------------------------------------------------------------
 * nsys RangeIds are NVTX_EVENTS row ids: unique and dense. When the ids span less than 4x the row count,
 * a direct array indexed by RangeId finds rows (checking PID/TID); keys that share a RangeId across
 * threads, and sparse ids, go through the hash map. Duplicate keys: the last row wins. */

typedef struct rowidx {
    const char *rows;
    size_t stride, opid, otid, orid;
    int64_t base;
    size_t span;
    int32_t *slot; /* 0 empty, i + 1 row i, -1 several keys (see over) */
    kmap over;
} rowidx;

#define RI_FIELD(x, i, off) (*(const int64_t *)((x)->rows + (size_t)(i) * (x)->stride + (off)))

static void rowidx_free(rowidx *x)
{
    free(x->slot);
    kmap_free(&x->over);
    x->slot = NULL;
}

static int rowidx_build(rowidx *x, const void *rows, size_t n, size_t stride, size_t opid, size_t otid, size_t orid)
{
    memset(x, 0, sizeof *x);
    x->rows = rows;
    x->stride = stride;
    x->opid = opid;
    x->otid = otid;
    x->orid = orid;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t r = RI_FIELD(x, i, orid);
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    int direct = n > 0 && (uint64_t)hi - (uint64_t)lo < (uint64_t)n * 4 + 1024;
    if (kmap_init(&x->over, direct ? 16 : n))
        return -1;
    if (!direct) {
        for (size_t i = 0; i < n; i++)
            kmap_put(&x->over, RI_FIELD(x, i, opid), RI_FIELD(x, i, otid), RI_FIELD(x, i, orid), (int64_t)i);
        return 0;
    }
    x->base = lo;
    x->span = (size_t)((uint64_t)hi - (uint64_t)lo) + 1;
    x->slot = calloc(x->span, sizeof *x->slot);
    if (!x->slot || n >= INT32_MAX)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int32_t *s = &x->slot[RI_FIELD(x, i, orid) - lo];
        if (*s > 0) {
            size_t r0 = (size_t)*s - 1;
            if (RI_FIELD(x, r0, opid) == RI_FIELD(x, i, opid) && RI_FIELD(x, r0, otid) == RI_FIELD(x, i, otid)) {
                *s = (int32_t)i + 1;
                continue;
            }
            if (kmap_reserve(&x->over))
                return -1;
            kmap_put(&x->over, RI_FIELD(x, r0, opid), RI_FIELD(x, r0, otid), RI_FIELD(x, r0, orid), (int64_t)r0);
            *s = -1;
        }
        if (*s < 0) {
            if (kmap_reserve(&x->over))
                return -1;
            kmap_put(&x->over, RI_FIELD(x, i, opid), RI_FIELD(x, i, otid), RI_FIELD(x, i, orid), (int64_t)i);
        } else {
            *s = (int32_t)i + 1;
        }
    }
    return 0;
}

static inline int rowidx_get(const rowidx *x, int64_t pid, int64_t tid, int64_t rid, int64_t *row)
{
    if (!x->slot)
        return kmap_get(&x->over, pid, tid, rid, row);
    if (rid < x->base || (uint64_t)rid - (uint64_t)x->base >= x->span)
        return 0;
    int32_t s = x->slot[rid - x->base];
    if (s == 0)
        return 0;
    if (s < 0)
        return kmap_get(&x->over, pid, tid, rid, row);
    size_t r = (size_t)s - 1;
    if (RI_FIELD(x, r, x->opid) != pid || RI_FIELD(x, r, x->otid) != tid)
        return 0;
    *row = (int64_t)r;
    return 1;
}

/* ---- the session --------------------------------------------------------------------------------- */

struct gf_nvtx {
    strtab strs;
    gf_nvtx_host_row *host;
    size_t nhost, caphost;
    gf_nvtx_gpu_row *gpu;
    size_t ngpu, capgpu;
    /* schema 2: kernels (name id, instances, ns) and transfers (src id, dst id, count, bytes, ns) */
    struct cuda_kern { uint32_t name; __int128 inst, ns; } *kern;
    size_t nkern;
    struct cuda_xfer { uint32_t src, dst; __int128 n, bytes, ns; } *xfer;
    size_t nxfer;
    int names_without_domain_prefix; /* nsys < 2023.1: default-domain names carry no ':' to strip */
};

void gf_nvtx_set_legacy_names(gf_nvtx *nv, int on)
{
    nv->names_without_domain_prefix = on;
}

gf_nvtx *gf_nvtx_new(void)
{
    return calloc(1, sizeof(gf_nvtx));
}

void gf_nvtx_free(gf_nvtx *nv)
{
    if (!nv)
        return;
    strtab_free(&nv->strs);
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
    if (id >= nv->strs.n)
        return NULL;
    if (len)
        *len = nv->strs.len[id];
    return str_of(&nv->strs, id);
}

/* ---- CSV reading (libcsv) ---------------------------------------------------------------------- */

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
    int gpu;
    int ncols;
    const char *const *cols;
    int colidx[16]; /* required column -> field index */
    int failed;
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
    r->failed = 1;
    return -1;
}

/* Python int(): optional surrounding whitespace, sign, digits with single '_' between digits. */
static int parse_int(reader *r, int col, int64_t *out)
{
    size_t n;
    const char *s = field(r, col, &n);
    if (!s)
        return bad_int(r, col, NULL, 0);
    size_t i = 0, e = n;
    while (i < e && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v'))
        i++;
    while (e > i && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n' || s[e - 1] == '\r' ||
                     s[e - 1] == '\f' || s[e - 1] == '\v'))
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

static int name_of(reader *r, int col, uint32_t *id, uint8_t *colon)
{
    size_t n = 0;
    const char *s = field(r, col, &n);
    if (!s) {
        s = "";
        n = 0;
    }
    *colon = 0;
    if (n > 0 && s[0] == ':' && !r->nv->names_without_domain_prefix) {
        s++;
        n--;
        *colon = 1;
    }
    *id = intern(&r->nv->strs, s, n);
    if (*id == UINT32_MAX) {
        r->failed = 1;
        return gf_errf(r->err, GF_EXIT_ERROR, "out of memory reading %s", r->path);
    }
    return 0;
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

static int host_row(reader *r)
{
    gf_nvtx *nv = r->nv;
    if (nv->nhost == nv->caphost) {
        size_t nc = nv->caphost ? nv->caphost * 2 : 1024;
        gf_nvtx_host_row *nr = realloc(nv->host, nc * sizeof *nr);
        if (!nr)
            return gf_errf(r->err, GF_EXIT_ERROR, "out of memory reading %s", r->path);
        nv->host = nr;
        nv->caphost = nc;
    }
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
    if (nv->ngpu == nv->capgpu) {
        size_t nc = nv->capgpu ? nv->capgpu * 2 : 1024;
        gf_nvtx_gpu_row *nr = realloc(nv->gpu, nc * sizeof *nr);
        if (!nr)
            return gf_errf(r->err, GF_EXIT_ERROR, "out of memory reading %s", r->path);
        nv->gpu = nr;
        nv->capgpu = nc;
    }
    gf_nvtx_gpu_row *g = &nv->gpu[nv->ngpu];
    memset(g, 0, sizeof *g);
    uint8_t dummy;
    size_t sl = 0;
    const char *st = field(r, G_STYLE, &sl);
    if (name_of(r, G_NAME, &g->name, &g->colon) || parse_int(r, G_PSTART, &g->pstart) ||
        parse_int(r, G_PDUR, &g->pdur) || parse_int(r, G_OSTART, &g->ostart) || parse_int(r, G_ODUR, &g->odur) ||
        parse_int(r, G_PID, &g->pid) || parse_int(r, G_TID, &g->tid) || parse_int(r, G_NGPU, &g->ngpu) ||
        parse_i32(r, G_LVL, &g->lvl) || parse_i32(r, G_NCHILD, &g->nchild) || parse_int(r, G_RID, &g->rid) ||
        parse_parent(r, G_PARENT, &g->parent, &g->has_parent))
        return -1;
    (void)dummy;
    g->style = intern(&nv->strs, st ? st : "", st ? sl : 0);
    if (g->style == UINT32_MAX)
        return gf_errf(r->err, GF_EXIT_ERROR, "out of memory reading %s", r->path);
    nv->ngpu++;
    return 0;
}

/* Exact header names (§5); every missing one is listed, in the spec's order. */
static int map_header(reader *r)
{
    char missing[1024] = "";
    size_t mlen = 0;
    size_t nc = gf_csv_ncols(r->csv);
    for (int c = 0; c < r->ncols; c++) {
        r->colidx[c] = -1;
        for (size_t f = 0; f < nc; f++)
            if (!strcmp(gf_csv_colname(r->csv, f), r->cols[c])) {
                r->colidx[c] = (int)f;
                break;
            }
        if (r->colidx[c] < 0 && mlen < sizeof missing)
            mlen += (size_t)snprintf(missing + mlen, sizeof missing - mlen, "%s%s", mlen ? ", " : "", r->cols[c]);
    }
    if (mlen)
        return gf_errf(r->err, GF_EXIT_INPUT, "Nsight report %s is missing required columns: %s", r->path, missing);
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

static int read_report(gf_nvtx *nv, const char *path, int gpu, gf_err *err)
{
    if (gpu)
        nv->ngpu = 0;
    else
        nv->nhost = 0;
    /* OS errors first, with the spec's message (Python's OSError text) */
    FILE *fp = fopen(path, "rb");
    struct stat st;
    if (!fp)
        return os_error(path, errno, err);
    int isdir = fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode);
    int empty = !isdir && st.st_size == 0;
    fclose(fp);
    if (isdir)
        return os_error(path, EISDIR, err);
    if (empty) { /* 0 bytes: a GPU report without rows is valid (§5) */
        if (!gpu)
            return gf_errf(err, GF_EXIT_NO_DATA, "Nsight report contains no rows: %s", path);
        return 0;
    }
    /* Reserve rows from the file size (a row takes 40+ bytes), so the table is not copied while growing;
     * pages never written cost nothing. */
    size_t want = (size_t)st.st_size / 40 + 1024;
    if (gpu && want > nv->capgpu) {
        gf_nvtx_gpu_row *nr = realloc(nv->gpu, want * sizeof *nr);
        if (nr) {
            nv->gpu = nr;
            nv->capgpu = want;
        }
    } else if (!gpu && want > nv->caphost) {
        gf_nvtx_host_row *nr = realloc(nv->host, want * sizeof *nr);
        if (nr) {
            nv->host = nr;
            nv->caphost = want;
        }
    }
    reader r;
    memset(&r, 0, sizeof r);
    r.nv = nv;
    r.path = path;
    r.err = err;
    r.gpu = gpu;
    r.ncols = gpu ? G_N : H_N;
    r.cols = gpu ? GPU_COLS : HOST_COLS;
    gf_csv_opts o;
    memset(&o, 0, sizeof o);
    o.allow_short_rows = 1;
    gf_err cerr;
    if (gf_csv_open(&r.csv, path, &o, &cerr) != 0) {
        if (cerr.code == GF_EXIT_NO_DATA) { /* nothing but a BOM or blank lines */
            if (!gpu)
                return gf_errf(err, GF_EXIT_NO_DATA, "Nsight report contains no rows: %s", path);
            return 0;
        }
        *err = cerr;
        return -1;
    }
    int rc = map_header(&r);
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
    if (rc == 0 && !gpu && rows == 0)
        rc = gf_errf(err, GF_EXIT_NO_DATA, "Nsight report contains no rows: %s", path);
    if (rc != 0) {
        if (gpu)
            nv->ngpu = 0;
        else
            nv->nhost = 0;
    }
    gf_csv_close(r.csv);
    return rc;
}

int gf_nvtx_read_host(gf_nvtx *nv, const char *path, gf_err *err) { return read_report(nv, path, 0, err); }
int gf_nvtx_read_gpu(gf_nvtx *nv, const char *path, gf_err *err) { return read_report(nv, path, 1, err); }

/* ---- §15: capture-wide CUDA work (schema 2) -------------------------------------------------------- */

static int cuda_col(gf_csv *c, const char *path, const char *const *names, int n, int *idx, gf_err *err)
{
    char missing[512] = "";
    size_t ml = 0;
    for (int k = 0; k < n; k++) {
        idx[k] = -1;
        for (size_t f = 0; f < gf_csv_ncols(c); f++)
            if (!strcmp(gf_csv_colname(c, f), names[k]))
                idx[k] = (int)f;
        if (idx[k] < 0 && ml < sizeof missing)
            ml += (size_t)snprintf(missing + ml, sizeof missing - ml, "%s%s", ml ? ", " : "", names[k]);
    }
    if (ml)
        return gf_errf(err, GF_EXIT_INPUT, "Nsight report %s is missing required columns: %s", path, missing);
    return 0;
}

static int cuda_int(gf_csv *c, const char *path, const char *col, int idx, int64_t *v, gf_err *err)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.csv = c;
    r.path = path;
    r.err = err;
    const char *cols[1] = {col};
    r.cols = cols;
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

int gf_nvtx_read_cuda(gf_nvtx *nv, const char *kpath, const char *tpath, gf_err *err)
{
    nv->nkern = nv->nxfer = 0;
    gf_csv *c;
    int rc = 0;
    if (cuda_open(kpath, &c, err))
        return -1;
    if (c) {
        static const char *const kc[] = {"Name", "Instances", "Total Time (ns)"};
        int idx[3];
        size_t cap = 0;
        rc = cuda_col(c, kpath, kc, 3, idx, err);
        while (rc == 0) {
            int k = gf_csv_next(c, err);
            if (k <= 0) {
                rc = k;
                break;
            }
            size_t n;
            const char *name = gf_csv_field(c, (size_t)idx[0], &n);
            int64_t inst, ns;
            if (cuda_int(c, kpath, kc[1], idx[1], &inst, err) || cuda_int(c, kpath, kc[2], idx[2], &ns, err)) {
                rc = -1;
                break;
            }
            uint32_t id = intern(&nv->strs, name, n);
            size_t at = 0;
            while (at < nv->nkern && nv->kern[at].name != id)
                at++;
            if (at == nv->nkern) {
                if (nv->nkern == cap) {
                    cap = cap ? cap * 2 : 16;
                    void *p = realloc(nv->kern, cap * sizeof *nv->kern);
                    if (!p || id == UINT32_MAX) {
                        rc = gf_errf(err, GF_EXIT_ERROR, "out of memory");
                        break;
                    }
                    nv->kern = p;
                }
                nv->kern[nv->nkern++] = (struct cuda_kern){id, 0, 0};
            }
            nv->kern[at].inst += inst;
            nv->kern[at].ns += ns;
        }
        gf_csv_close(c);
        if (rc)
            return -1;
    }
    if (cuda_open(tpath, &c, err))
        return -1;
    if (c) {
        static const char *const tc[] = {"Name", "SrcMemKd", "DstMemKd", "Bytes (B)", "Duration (ns)"};
        int idx[5];
        size_t cap = 0;
        rc = cuda_col(c, tpath, tc, 5, idx, err);
        while (rc == 0) {
            int k = gf_csv_next(c, err);
            if (k <= 0) {
                rc = k;
                break;
            }
            size_t nn, sn, dn;
            const char *name = gf_csv_field(c, (size_t)idx[0], &nn);
            const char *src = gf_csv_field(c, (size_t)idx[1], &sn);
            const char *dst = gf_csv_field(c, (size_t)idx[2], &dn);
            if (memmem(name, nn, "memset", 6))
                continue;
            int memcpy_row = memmem(name, nn, "memcpy", 6) != NULL;
            if (sn == 0 && dn == 0 && !memcpy_row)
                continue; /* a kernel row */
            if (sn == 0 || dn == 0) {
                rc = gf_errf(err, GF_EXIT_INPUT, "Nsight report %s line %zu (%.*s) is missing a memory kind", tpath,
                             gf_csv_line(c), (int)(nn > 200 ? 200 : nn), name);
                break;
            }
            int64_t bytes, ns;
            if (cuda_int(c, tpath, tc[3], idx[3], &bytes, err) || cuda_int(c, tpath, tc[4], idx[4], &ns, err)) {
                rc = -1;
                break;
            }
            uint32_t s = intern(&nv->strs, src, sn), d = intern(&nv->strs, dst, dn);
            size_t at = 0;
            while (at < nv->nxfer && !(nv->xfer[at].src == s && nv->xfer[at].dst == d))
                at++;
            if (at == nv->nxfer) {
                if (nv->nxfer == cap) {
                    cap = cap ? cap * 2 : 16;
                    void *p = realloc(nv->xfer, cap * sizeof *nv->xfer);
                    if (!p || s == UINT32_MAX || d == UINT32_MAX) {
                        rc = gf_errf(err, GF_EXIT_ERROR, "out of memory");
                        break;
                    }
                    nv->xfer = p;
                }
                nv->xfer[nv->nxfer++] = (struct cuda_xfer){s, d, 0, 0, 0};
            }
            nv->xfer[at].n += 1;
            nv->xfer[at].bytes += bytes;
            nv->xfer[at].ns += ns;
        }
        gf_csv_close(c);
        if (rc)
            return -1;
    }
    return 0;
}

static int cmp_str(const strtab *s, uint32_t a, uint32_t b);
static const strtab *g_cuda_strs;

static int cmp_kern(const void *a, const void *b)
{
    return cmp_str(g_cuda_strs, ((const struct cuda_kern *)a)->name, ((const struct cuda_kern *)b)->name);
}

static int cmp_xfer(const void *a, const void *b)
{
    const struct cuda_xfer *x = a, *y = b;
    int c = cmp_str(g_cuda_strs, x->src, y->src);
    return c ? c : cmp_str(g_cuda_strs, x->dst, y->dst);
}

static void write_capture_work(gf_pyj *j, gf_nvtx *nv)
{
    const strtab *S = &nv->strs;
    g_cuda_strs = S;
    if (nv->nkern)
        qsort(nv->kern, nv->nkern, sizeof *nv->kern, cmp_kern);
    if (nv->nxfer)
        qsort(nv->xfer, nv->nxfer, sizeof *nv->xfer, cmp_xfer);
    gf_pyj_begin_object(j);
    gf_pyj_key(j, "kernels");
    gf_pyj_begin_array(j);
    for (size_t i = 0; i < nv->nkern; i++) {
        gf_pyj_begin_object(j);
        gf_pyj_key(j, "cumulative_duration_ns");
        gf_pyj_int128(j, nv->kern[i].ns);
        gf_pyj_key(j, "instances");
        gf_pyj_int128(j, nv->kern[i].inst);
        gf_pyj_key(j, "name");
        gf_pyj_string(j, str_of(S, nv->kern[i].name), S->len[nv->kern[i].name]);
        gf_pyj_end_object(j);
    }
    gf_pyj_end_array(j);
    gf_pyj_key(j, "memory_transfers");
    gf_pyj_begin_array(j);
    for (size_t i = 0; i < nv->nxfer; i++) {
        const struct cuda_xfer *x = &nv->xfer[i];
        gf_pyj_begin_object(j);
        gf_pyj_key(j, "cumulative_duration_ns");
        gf_pyj_int128(j, x->ns);
        gf_pyj_key(j, "destination_memory_kind");
        gf_pyj_string(j, str_of(S, x->dst), S->len[x->dst]);
        gf_pyj_key(j, "instances");
        gf_pyj_int128(j, x->n);
        gf_pyj_key(j, "source_memory_kind");
        gf_pyj_string(j, str_of(S, x->src), S->len[x->src]);
        gf_pyj_key(j, "total_bytes");
        gf_pyj_int128(j, x->bytes);
        gf_pyj_end_object(j);
    }
    gf_pyj_end_array(j);
    gf_pyj_end_object(j);
}

/* ---- manifest ------------------------------------------------------------------------------------ */

gf_yv *gf_nvtx_load_manifest(const char *path, gf_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        gf_errf(err, GF_EXIT_INPUT, "Profiling manifest does not exist: %s", path);
        return NULL;
    }
    int status;
    gf_err detail;
    gf_yv *m = gf_yaml_load_file(path, &status, &detail);
    if (!m) {
        if (status == GF_YAML_MISSING)
            gf_errf(err, GF_EXIT_INPUT, "Profiling manifest does not exist: %s", path);
        else
            gf_errf(err, GF_EXIT_INPUT, "Profiling manifest is invalid YAML: %s", path);
        return NULL;
    }
    if (m->kind != GF_YV_MAP) {
        gf_yv_free(m);
        gf_errf(err, GF_EXIT_INPUT, "Profiling manifest must contain a mapping: %s", path);
        return NULL;
    }
    const gf_yv *cr = gf_yv_get(m, "capture_range");
    if (!cr || cr->kind != GF_YV_STR) {
        gf_yv_free(m);
        gf_errf(err, GF_EXIT_INPUT, "Manifest must define a string capture_range.");
        return NULL;
    }
    return m;
}

/* ---- statistics ---------------------------------------------------------------------------------- */

static int bitlen(unsigned __int128 v)
{
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

double gf_nvtx_div(__int128 num, unsigned __int128 den)
{
    if (num == 0 || den == 0)
        return 0.0;
    int neg = num < 0;
    unsigned __int128 a = neg ? (unsigned __int128)0 - (unsigned __int128)num : (unsigned __int128)num;
    /* Denominators beyond 61 bits (never in practice): drop low bits of both. */
    while (bitlen(den) > 61) {
        den >>= 1;
        a >>= 1;
    }
    int shift = 66 - (bitlen(a) - bitlen(den));
    unsigned __int128 q;
    int sticky;
    if (shift > 0) {
        unsigned __int128 as = a << shift;
        q = as / den;
        sticky = as % den != 0;
    } else {
        shift = 0;
        q = a / den;
        sticky = a % den != 0;
    }
    int L = bitlen(q);
    double r;
    if (L <= 53) {
        r = ldexp((double)(uint64_t)q, -shift);
    } else {
        int s = L - 53;
        unsigned __int128 kept = q >> s, rem = q & ((((unsigned __int128)1) << s) - 1);
        unsigned __int128 half = ((unsigned __int128)1) << (s - 1);
        if (rem > half || (rem == half && (sticky || (kept & 1))))
            kept++;
        r = ldexp((double)(uint64_t)kept, s - shift);
    }
    return neg ? -r : r;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* LSD radix sort for int64 (sign bit flipped); qsort for small inputs. */
static void sort_i64(int64_t *v, size_t n)
{
    if (n < 256) {
        qsort(v, n, sizeof *v, cmp_i64);
        return;
    }
    uint64_t *a = (uint64_t *)v, *b = malloc(n * sizeof *b);
    if (!b) {
        qsort(v, n, sizeof *v, cmp_i64);
        return;
    }
    for (size_t i = 0; i < n; i++)
        a[i] ^= 0x8000000000000000ULL;
    uint64_t or_all = 0, and_all = ~0ULL;
    for (size_t i = 0; i < n; i++) {
        or_all |= a[i];
        and_all &= a[i];
    }
    uint64_t *src = a, *dst = b;
    for (int pass = 0; pass < 8; pass++) {
        int sh = pass * 8;
        if ((((or_all ^ and_all) >> sh) & 0xFF) == 0)
            continue; /* all equal in this byte */
        size_t cnt[256] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[(src[i] >> sh) & 0xFF]++;
        size_t pos = 0;
        for (int k = 0; k < 256; k++) {
            size_t c = cnt[k];
            cnt[k] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> sh) & 0xFF]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] ^= 0x8000000000000000ULL;
    free(b);
}

void gf_nvtx_summarize(int64_t *v, size_t n, gf_nvtx_summary *s)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return;
    sort_i64(v, n);
    __int128 sum = 0;
    unsigned __int128 sq = 0;
    int sq_overflow = 0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        unsigned __int128 m = (unsigned __int128)(v[i] < 0 ? -(__int128)v[i] : (__int128)v[i]);
        unsigned __int128 p = m * m;
        if (sq + p < sq)
            sq_overflow = 1;
        sq += p;
    }
    s->total = sum;
    s->min = v[0];
    s->max = v[n - 1];
    s->mean = gf_nvtx_div(sum, n);
    if (n % 2) {
        s->median_is_int = 1;
        s->median_i = v[n / 2];
        s->median_f = (double)v[n / 2];
    } else {
        s->median_f = gf_nvtx_div((__int128)v[n / 2 - 1] + v[n / 2], 2);
    }
    if (n < 2) {
        s->stddev = 0.0;
        return;
    }
    /* variance = (n*Σx² − (Σx)²) / (n(n−1)), exact in 128-bit integers, rounded once */
    unsigned __int128 nn = n;
    unsigned __int128 usum = (unsigned __int128)(sum < 0 ? -sum : sum);
    unsigned __int128 a, b;
    int ovf = sq_overflow || __builtin_mul_overflow(nn, sq, &a) || __builtin_mul_overflow(usum, usum, &b);
    if (!ovf && a >= b) {
        double var = gf_nvtx_div((__int128)(a - b), nn * (nn - 1));
        s->stddev = sqrt(var);
    } else {
        /* beyond 128 bits: two-pass in long double */
        long double mean = (long double)sum / (long double)n, acc = 0;
        for (size_t i = 0; i < n; i++) {
            long double d = (long double)v[i] - mean;
            acc += d * d;
        }
        s->stddev = sqrt((double)(acc / (long double)(n - 1)));
    }
}

/* ---- version warning ------------------------------------------------------------------------------ */

static int word_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

int gf_nvtx_version_family(const char *s, int64_t *year, int *release_is_1)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + 6 <= n; i++) {
        if (i > 0 && word_char((unsigned char)s[i - 1]))
            continue;
        size_t k = i;
        while (k < n && k - i < 4 && s[k] >= '0' && s[k] <= '9')
            k++;
        if (k - i != 4 || k >= n || s[k] != '.')
            continue;
        size_t d = k + 1, e = d;
        while (e < n && s[e] >= '0' && s[e] <= '9')
            e++;
        if (e == d)
            continue;
        if (e < n && word_char((unsigned char)s[e]))
            continue; /* \d+ is greedy and backtracking only leaves a digit next: no boundary */
        *year = (s[i] - '0') * 1000 + (s[i + 1] - '0') * 100 + (s[i + 2] - '0') * 10 + (s[i + 3] - '0');
        size_t z = d;
        while (z < e - 1 && s[z] == '0')
            z++;
        *release_is_1 = (e - z == 1 && s[z] == '1');
        return 1;
    }
    return 0;
}

/* ---- analysis -------------------------------------------------------------------------------------- */

/* Paths are interned in a trie: path id -> (parent path id, name id); id 0 is the empty path. */
typedef struct ptrie {
    uint32_t *parent, *name, *depth;
    uint32_t n, cap;
    kmap map; /* (parent, name, 0) -> id */
} ptrie;

static int ptrie_init(ptrie *t, size_t expect)
{
    memset(t, 0, sizeof *t);
    t->cap = 1024;
    t->parent = malloc(t->cap * sizeof *t->parent);
    t->name = malloc(t->cap * sizeof *t->name);
    t->depth = malloc(t->cap * sizeof *t->depth);
    if (!t->parent || !t->name || !t->depth || kmap_init(&t->map, expect + 16))
        return -1;
    t->parent[0] = 0;
    t->name[0] = UINT32_MAX;
    t->depth[0] = 0;
    t->n = 1;
    return 0;
}

static void ptrie_free(ptrie *t)
{
    free(t->parent);
    free(t->name);
    free(t->depth);
    kmap_free(&t->map);
}

static uint32_t ptrie_child(ptrie *t, uint32_t parent, uint32_t name)
{
    int64_t v;
    if (kmap_get(&t->map, parent, name, 0, &v))
        return (uint32_t)v;
    if (t->n == t->cap) {
        uint32_t nc = t->cap * 2;
        uint32_t *a = realloc(t->parent, nc * sizeof *a);
        if (!a)
            return UINT32_MAX;
        t->parent = a;
        a = realloc(t->name, nc * sizeof *a);
        if (!a)
            return UINT32_MAX;
        t->name = a;
        a = realloc(t->depth, nc * sizeof *a);
        if (!a)
            return UINT32_MAX;
        t->depth = a;
        t->cap = nc;
    }
    if (kmap_reserve(&t->map))
        return UINT32_MAX;
    uint32_t id = t->n++;
    t->parent[id] = parent;
    t->name[id] = name;
    t->depth[id] = t->depth[parent] + 1;
    kmap_put(&t->map, parent, name, 0, id);
    return id;
}

enum { W_NEW = 0, W_BUSY = 1, W_DONE = 2 };

/* A table to walk: the key of each row, its name, its parent; lookups through `keys`. */
typedef struct walk {
    size_t n;
    const int64_t *pid, *tid, *rid, *parent; /* strided views */
    size_t stride;                           /* in bytes */
    const uint8_t *has_parent;
    const uint32_t *name;
    size_t name_stride, hp_stride; /* in bytes */
    const rowidx *keys;
    const uint8_t *harness;
    uint8_t *state;
    uint32_t *wpath;
    size_t *stack;
} walk;

#define W_I64(w, f, i) (*(const int64_t *)((const char *)(w)->f + (i) * (w)->stride))
#define W_NAME(w, i) (*(const uint32_t *)((const char *)(w)->name + (i) * (w)->name_stride))
#define W_HASP(w, i) (*(const uint8_t *)((const char *)(w)->has_parent + (i) * (w)->hp_stride))

/* The scope walk of §7 from row r, memoized: the names up to (not including) the first harness range,
 * a root, or a parent absent from the table. Returns 0 or -1 (cycle; err filled). */
static int walk_from(walk *w, ptrie *t, size_t r, uint32_t *out, gf_err *err)
{
    size_t sp = 0, cur = r;
    uint32_t base = 0;
    for (;;) {
        if (w->state[cur] == W_DONE) {
            base = w->wpath[cur];
            break;
        }
        if (w->state[cur] == W_BUSY)
            return gf_errf(err, GF_EXIT_INPUT, "Cycle in NVTX range hierarchy at (%lld, %lld, %lld).",
                           (long long)W_I64(w, pid, cur), (long long)W_I64(w, tid, cur), (long long)W_I64(w, rid, cur));
        if (w->harness[cur]) {
            w->state[cur] = W_DONE;
            w->wpath[cur] = 0;
            base = 0;
            break;
        }
        w->state[cur] = W_BUSY;
        w->stack[sp++] = cur;
        if (!W_HASP(w, cur))
            break;
        int64_t p;
        if (!rowidx_get(w->keys, W_I64(w, pid, cur), W_I64(w, tid, cur), W_I64(w, parent, cur), &p))
            break;
        cur = (size_t)p;
    }
    while (sp > 0) {
        size_t node = w->stack[--sp];
        base = ptrie_child(t, base, W_NAME(w, node));
        if (base == UINT32_MAX)
            return gf_errf(err, GF_EXIT_ERROR, "out of memory");
        w->wpath[node] = base;
        w->state[node] = W_DONE;
    }
    *out = base;
    return 0;
}

/* Final scoped path of a row: its walk, or [own name] when the walk is empty. */
static int scoped(walk *w, ptrie *t, size_t r, uint32_t *out, gf_err *err)
{
    uint32_t p = 0;
    if (walk_from(w, t, r, &p, err))
        return -1;
    if (p == 0)
        p = ptrie_child(t, 0, W_NAME(w, r));
    if (p == UINT32_MAX)
        return gf_errf(err, GF_EXIT_ERROR, "out of memory");
    *out = p;
    return 0;
}

typedef struct iter_ref {
    int64_t index;
    size_t row;
} iter_ref;

static int cmp_iter(const void *a, const void *b)
{
    const iter_ref *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* `^iteration (\d+)$` fully matched (ASCII digits); index beyond int64 does not match. */
static int iteration_index(const char *s, size_t n, int64_t *idx)
{
    static const char pre[] = "iteration ";
    size_t pl = sizeof pre - 1;
    if (n <= pl || memcmp(s, pre, pl) != 0)
        return 0;
    uint64_t acc = 0;
    for (size_t i = pl; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        if (acc > ((uint64_t)INT64_MAX - 9) / 10)
            return 0;
        acc = acc * 10 + (uint64_t)(s[i] - '0');
    }
    *idx = (int64_t)acc;
    return 1;
}

typedef struct group {
    uint32_t path, style;
    size_t count, first; /* members in order[first .. first+count) */
} group;

typedef struct sort_ctx {
    const ptrie *t;
    const strtab *s;
} sort_ctx;

static sort_ctx g_sort; /* qsort has no context argument in C11 */

static void path_names(const ptrie *t, uint32_t p, uint32_t *buf)
{
    uint32_t d = t->depth[p];
    while (p) {
        buf[--d] = t->name[p];
        p = t->parent[p];
    }
}

static int cmp_str(const strtab *s, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    size_t la = s->len[a], lb = s->len[b];
    int c = memcmp(str_of(s, a), str_of(s, b), la < lb ? la : lb);
    if (c)
        return c;
    return la < lb ? -1 : la > lb;
}

static int cmp_path(uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    const ptrie *t = g_sort.t;
    uint32_t da = t->depth[a], db = t->depth[b];
    uint32_t sa[da ? da : 1], sb[db ? db : 1];
    path_names(t, a, sa);
    path_names(t, b, sb);
    uint32_t m = da < db ? da : db;
    for (uint32_t i = 0; i < m; i++) {
        int c = cmp_str(g_sort.s, sa[i], sb[i]);
        if (c)
            return c;
    }
    return da < db ? -1 : da > db;
}

static int cmp_group(const void *x, const void *y)
{
    const group *a = x, *b = y;
    int c = cmp_path(a->path, b->path);
    if (c)
        return c;
    if (a->style != b->style)
        return cmp_str(g_sort.s, a->style, b->style);
    return 0;
}

static void write_path_name(gf_pyj *j, const ptrie *t, const strtab *s, uint32_t p)
{
    uint32_t d = t->depth[p];
    uint32_t names[d ? d : 1];
    path_names(t, p, names);
    size_t len = 0;
    for (uint32_t i = 0; i < d; i++)
        len += s->len[names[i]] + (i ? 1 : 0);
    char *buf = malloc(len + 1);
    if (!buf) {
        j->oom = 1;
        return;
    }
    size_t o = 0;
    for (uint32_t i = 0; i < d; i++) {
        if (i)
            buf[o++] = '.';
        memcpy(buf + o, str_of(s, names[i]), s->len[names[i]]);
        o += s->len[names[i]];
    }
    gf_pyj_string(j, buf, len);
    free(buf);
}

static void write_summary(gf_pyj *j, int64_t *vals, size_t n)
{
    if (n == 0) {
        gf_pyj_null(j);
        return;
    }
    gf_nvtx_summary s;
    gf_nvtx_summarize(vals, n, &s);
    gf_pyj_begin_object(j);
    gf_pyj_key(j, "maximum_ns");
    gf_pyj_int(j, s.max);
    gf_pyj_key(j, "mean_ns");
    gf_pyj_float(j, s.mean);
    gf_pyj_key(j, "median_ns");
    if (s.median_is_int)
        gf_pyj_int(j, s.median_i);
    else
        gf_pyj_float(j, s.median_f);
    gf_pyj_key(j, "minimum_ns");
    gf_pyj_int(j, s.min);
    gf_pyj_key(j, "stddev_ns");
    gf_pyj_float(j, s.stddev);
    gf_pyj_key(j, "total_ns");
    gf_pyj_int128(j, s.total);
    gf_pyj_end_object(j);
}

/* Groups rows by key (path or (path, style)); fills groups[] sorted and order[] (row indexes per group,
 * in row order). Returns the number of groups or (size_t)-1 on out of memory. */
static size_t make_groups(const uint32_t *path, const uint32_t *style, const uint8_t *skip, size_t n, group **out,
                          size_t **order_out)
{
    kmap m;
    size_t ng = 0, capg = 64;
    group *g = malloc(capg * sizeof *g);
    uint32_t *gid = malloc((n ? n : 1) * sizeof *gid);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!g || !gid || !order || kmap_init(&m, n < 1024 ? 1024 : n / 4)) {
        free(g);
        free(gid);
        free(order);
        return (size_t)-1;
    }
    for (size_t i = 0; i < n; i++) {
        if (skip[i])
            continue;
        int64_t v;
        uint32_t st = style ? style[i] : 0;
        if (!kmap_get(&m, path[i], st, 0, &v)) {
            if (kmap_reserve(&m)) {
                ng = (size_t)-1;
                break;
            }
            if (ng == capg) {
                capg *= 2;
                group *ngp = realloc(g, capg * sizeof *ngp);
                if (!ngp) {
                    ng = (size_t)-1;
                    break;
                }
                g = ngp;
            }
            g[ng] = (group){path[i], st, 0, 0};
            v = (int64_t)ng++;
            kmap_put(&m, path[i], st, 0, v);
        }
        gid[i] = (uint32_t)v;
        g[v].count++;
    }
    kmap_free(&m);
    if (ng == (size_t)-1) {
        free(g);
        free(gid);
        free(order);
        return ng;
    }
    size_t pos = 0;
    for (size_t k = 0; k < ng; k++) {
        g[k].first = pos;
        pos += g[k].count;
        g[k].count = 0;
    }
    for (size_t i = 0; i < n; i++)
        if (!skip[i]) {
            group *gg = &g[gid[i]];
            order[gg->first + gg->count++] = i;
        }
    free(gid);
    *out = g;
    *order_out = order;
    return ng;
}

static void int_list(char *buf, size_t cap, const int64_t *v, size_t n)
{
    size_t o = (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < n && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (o < cap)
        snprintf(buf + o, cap - o, "]");
}

static int add_warning(gf_nvtx_result *res, const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 1;
    char *w = malloc(n);
    char **nw = realloc(res->warnings, (res->nwarnings + 1) * sizeof *nw);
    if (!w || !nw) {
        free(w);
        if (nw)
            res->warnings = nw;
        return -1;
    }
    res->warnings = nw;
    snprintf(w, n, fmt, a ? a : "", b ? b : "");
    res->warnings[res->nwarnings++] = w;
    return 0;
}

void gf_nvtx_result_free(gf_nvtx_result *res)
{
    if (!res)
        return;
    free(res->json);
    for (size_t i = 0; i < res->nwarnings; i++)
        free(res->warnings[i]);
    free(res->warnings);
    memset(res, 0, sizeof *res);
}

/* Record count: len(record_ids or []). */
static int record_count(const gf_yv *v, int64_t *out)
{
    if (!v || v->kind == GF_YV_NULL || (v->kind == GF_YV_BOOL && !v->b) || (v->kind == GF_YV_INT && v->i == 0) ||
        (v->kind == GF_YV_FLOAT && v->f == 0)) {
        *out = 0;
        return 0;
    }
    if (v->kind == GF_YV_SEQ || v->kind == GF_YV_MAP) {
        *out = (int64_t)v->n;
        return 0;
    }
    if (v->kind == GF_YV_STR) { /* Python len(str): code points */
        int64_t n = 0;
        for (size_t i = 0; i < v->len; i++)
            if (((unsigned char)v->s[i] & 0xC0) != 0x80)
                n++;
        *out = n;
        return 0;
    }
    return -1;
}

int gf_nvtx_analyze(gf_nvtx *nv, const gf_nvtx_input *in, gf_nvtx_result *res, gf_err *err)
{
    memset(res, 0, sizeof *res);
    const gf_yv *man = in->manifest;
    const gf_yv *cr = gf_yv_get(man, "capture_range");
    if (!cr || cr->kind != GF_YV_STR)
        return gf_errf(err, GF_EXIT_INPUT, "Manifest must define a string capture_range.");
    int64_t nrec;
    if (record_count(gf_yv_get(man, "record_ids"), &nrec))
        return gf_errf(err, GF_EXIT_INPUT, "Manifest record_ids must be a list.");
    strtab *S = &nv->strs;
    size_t nh = nv->nhost, ng = nv->ngpu;
    const gf_nvtx_host_row *H = nv->host;
    const gf_nvtx_gpu_row *G = nv->gpu;

    int rc = -1;
    kmap harness = {0};
    rowidx hkeys, gkeys;
    memset(&hkeys, 0, sizeof hkeys);
    memset(&gkeys, 0, sizeof gkeys);
    ptrie trie;
    memset(&trie, 0, sizeof trie);
    uint8_t *hharn = NULL, *gharn = NULL, *hstate = NULL, *gstate = NULL, *hskip = NULL, *gskip = NULL;
    uint32_t *hw = NULL, *gw = NULL, *hpath = NULL, *gpath = NULL, *gstyle = NULL;
    size_t *stack = NULL, *horder = NULL, *gorder = NULL;
    iter_ref *hit = NULL, *git = NULL;
    group *hg = NULL, *gg = NULL;
    int64_t *vals = NULL, *vals2 = NULL;
    size_t nhit = 0, ngit = 0, nhg = 0, ngg = 0;
    gf_pyj j;
    gf_pyj_init(&j);

    /* 1. the capture range (§6.1) */
    uint32_t cap_name = intern(S, cr->s, cr->len);
    size_t cap = (size_t)-1, ncap = 0;
    for (size_t i = 0; i < nh; i++)
        if (H[i].name == cap_name && !H[i].has_parent) {
            if (ncap++ == 0)
                cap = i;
        }
    if (ncap != 1) {
        char *r = gf_py_str_repr(cr->s, cr->len);
        gf_errf(err, GF_EXIT_INPUT, "Expected exactly one top-level host capture range named %s, but found %zu.",
                r ? r : "?", ncap);
        free(r);
        goto out;
    }

    if (rowidx_build(&hkeys, H, nh, sizeof *H, offsetof(gf_nvtx_host_row, pid), offsetof(gf_nvtx_host_row, tid),
                     offsetof(gf_nvtx_host_row, rid)) ||
        rowidx_build(&gkeys, G, ng, sizeof *G, offsetof(gf_nvtx_gpu_row, pid), offsetof(gf_nvtx_gpu_row, tid),
                     offsetof(gf_nvtx_gpu_row, rid)) ||
        ptrie_init(&trie, 1024))
        goto oom;

    /* 2. harness iterations on the host (§6.2) */
    hit = malloc((nh ? nh : 1) * sizeof *hit);
    hharn = calloc(nh ? nh : 1, 1);
    hskip = calloc(nh ? nh : 1, 1);
    if (!hit || !hharn || !hskip)
        goto oom;
    const gf_nvtx_host_row *C = &H[cap];
    for (size_t i = 0; i < nh; i++) {
        int64_t idx;
        if (H[i].has_parent && H[i].parent == C->rid && H[i].pid == C->pid && H[i].tid == C->tid &&
            iteration_index(str_of(S, H[i].name), S->len[H[i].name], &idx))
            hit[nhit++] = (iter_ref){idx, i};
    }
    qsort(hit, nhit, sizeof *hit, cmp_iter);
    {
        size_t dup_row = (size_t)-1;
        int64_t dup_idx = 0;
        for (size_t k = 1; k < nhit; k++)
            if (hit[k].index == hit[k - 1].index && (k < 2 || hit[k - 2].index != hit[k].index) &&
                hit[k].row < dup_row) {
                dup_row = hit[k].row;
                dup_idx = hit[k].index;
            }
        if (dup_row != (size_t)-1) {
            gf_errf(err, GF_EXIT_INPUT, "Duplicate host range for iteration %lld.", (long long)dup_idx);
            goto out;
        }
    }
    if (kmap_init(&harness, nhit + 1))
        goto oom;
    kmap_put(&harness, C->pid, C->tid, C->rid, -1);
    for (size_t k = 0; k < nhit; k++)
        kmap_put(&harness, H[hit[k].row].pid, H[hit[k].row].tid, H[hit[k].row].rid, hit[k].index);
    for (size_t i = 0; i < nh; i++) {
        int64_t v;
        if (kmap_get(&harness, H[i].pid, H[i].tid, H[i].rid, &v))
            hharn[i] = 1;
    }
    for (size_t k = 0; k < nhit; k++)
        hskip[hit[k].row] = 1;

    /* 3. GPU iterations: GPU rows with a harness iteration's key (§6.3) */
    git = malloc((ng ? ng : 1) * sizeof *git);
    gharn = calloc(ng ? ng : 1, 1);
    gskip = calloc(ng ? ng : 1, 1);
    if (!git || !gharn || !gskip)
        goto oom;
    for (size_t i = 0; i < ng; i++) {
        int64_t v;
        if (kmap_get(&harness, G[i].pid, G[i].tid, G[i].rid, &v)) {
            gharn[i] = 1;
            if (v >= 0 || !(G[i].pid == C->pid && G[i].tid == C->tid && G[i].rid == C->rid)) {
                /* an iteration key (the capture key maps to -1) */
            }
            int is_cap = G[i].pid == C->pid && G[i].tid == C->tid && G[i].rid == C->rid;
            if (!is_cap) {
                for (size_t k = 0; k < ngit; k++)
                    if (git[k].index == v) {
                        gf_errf(err, GF_EXIT_INPUT, "Duplicate GPU projection for iteration %lld.", (long long)v);
                        goto out;
                    }
                git[ngit++] = (iter_ref){v, i};
                gskip[i] = 1;
            }
        }
    }
    qsort(git, ngit, sizeof *git, cmp_iter);

    /* 4. scoped names (§7) */
    hstate = calloc(nh ? nh : 1, 1);
    hw = malloc((nh ? nh : 1) * sizeof *hw);
    hpath = malloc((nh ? nh : 1) * sizeof *hpath);
    stack = malloc(((nh > ng ? nh : ng) + 1) * sizeof *stack);
    gpath = malloc((ng ? ng : 1) * sizeof *gpath);
    gstyle = malloc((ng ? ng : 1) * sizeof *gstyle);
    if (!hstate || !hw || !hpath || !stack || !gpath || !gstyle)
        goto oom;
    walk hwk = {nh, &H[0].pid, &H[0].tid, &H[0].rid, &H[0].parent, sizeof *H, &H[0].has_parent,
                &H[0].name, sizeof *H, sizeof *H, &hkeys, hharn, hstate, hw, stack};
    if (nh == 0)
        goto out;
    for (size_t i = 0; i < nh; i++)
        if (!hskip[i] && scoped(&hwk, &trie, i, &hpath[i], err))
            goto out;
    walk gwk;
    memset(&gwk, 0, sizeof gwk);
    if (ng) {
        gstate = calloc(ng, 1);
        gw = malloc(ng * sizeof *gw);
        if (!gstate || !gw)
            goto oom;
        gwk = (walk){ng, &G[0].pid, &G[0].tid, &G[0].rid, &G[0].parent, sizeof *G, &G[0].has_parent,
                     &G[0].name, sizeof *G, sizeof *G, &gkeys, gharn, gstate, gw, stack};
    }
    for (size_t i = 0; i < ng; i++) {
        gstyle[i] = G[i].style;
        if (gskip[i])
            continue;
        int64_t h;
        if (rowidx_get(&hkeys, G[i].pid, G[i].tid, G[i].rid, &h)) {
            if (hskip[h]) { /* cannot happen: iteration keys were taken above */
                if (scoped(&hwk, &trie, (size_t)h, &gpath[i], err))
                    goto out;
            } else {
                gpath[i] = hpath[h];
            }
        } else if (scoped(&gwk, &trie, i, &gpath[i], err)) {
            goto out;
        }
    }

    /* 5. groups (§9) */
    nhg = make_groups(hpath, NULL, hskip, nh, &hg, &horder);
    if (nhg == (size_t)-1) {
        nhg = 0;
        goto oom;
    }
    ngg = make_groups(gpath, gstyle, gskip, ng, &gg, &gorder);
    if (ngg == (size_t)-1) {
        ngg = 0;
        goto oom;
    }
    g_sort.t = &trie;
    g_sort.s = S;
    qsort(hg, nhg, sizeof *hg, cmp_group);
    qsort(gg, ngg, sizeof *gg, cmp_group);
    size_t maxn = (nh > ng ? nh : ng) + nhit + 1;
    vals = malloc(maxn * sizeof *vals);
    vals2 = malloc(maxn * sizeof *vals2);
    if (!vals || !vals2)
        goto oom;

    /* 6. iterations: sorted union of host and GPU indexes (GPU ⊆ host by construction) */
    size_t nit = 0;
    int64_t *idx = malloc((nhit + ngit + 1) * sizeof *idx);
    if (!idx)
        goto oom;
    {
        size_t a = 0, b = 0;
        while (a < nhit || b < ngit) {
            int64_t x;
            if (b >= ngit || (a < nhit && hit[a].index <= git[b].index)) {
                x = hit[a].index;
                if (b < ngit && git[b].index == x)
                    b++;
                a++;
            } else {
                x = git[b++].index;
            }
            idx[nit++] = x;
        }
    }

    /* 7. warnings (§11) */
    {
        const char *ver = in->nsys_version ? in->nsys_version : "unknown";
        int64_t year;
        int rel1;
        if (!gf_nvtx_version_family(ver, &year, &rel1)) {
            if (add_warning(res, "Could not determine the Nsight Systems version; report parsing is validated "
                                 "against Nsight Systems 2025.1.%s%s", NULL, NULL))
                goto oom;
        } else if (year != 2025 || !rel1) {
            if (add_warning(res, "%s has not been validated; report parsing is validated against Nsight Systems "
                                 "2025.1.%s", ver, NULL))
                goto oom;
        }
        const gf_yv *wl = gf_yv_get(man, "workload");
        const gf_yv *itv = gf_yv_get(wl, "iterations");
        size_t lcap = (nit + 16) * 24 + 64;
        char *lst = malloc(lcap);
        int64_t *tmp = malloc((nit + 1) * sizeof *tmp);
        if (!lst || !tmp) {
            free(lst);
            free(tmp);
            free(idx);
            goto oom;
        }
        int werr = 0;
        if (itv && itv->kind == GF_YV_INT) {
            int64_t N = itv->i;
            /* missing: 0..N-1 not in idx (idx sorted); listed in full like Python's sorted(set) */
            size_t nm = 0, p = 0;
            int64_t *miss = NULL;
            size_t capm = 0;
            for (int64_t k = 0; k < N && !werr; k++) {
                while (p < nit && idx[p] < k)
                    p++;
                if (p < nit && idx[p] == k)
                    continue;
                if (nm == capm) {
                    capm = capm ? capm * 2 : 64;
                    int64_t *nmiss = realloc(miss, capm * sizeof *nmiss);
                    if (!nmiss) {
                        werr = 1;
                        break;
                    }
                    miss = nmiss;
                }
                miss[nm++] = k;
            }
            if (!werr && nm) {
                size_t c2 = nm * 24 + 64;
                char *l2 = malloc(c2);
                if (!l2)
                    werr = 1;
                else {
                    int_list(l2, c2, miss, nm);
                    werr = add_warning(res, "Missing expected iteration indexes: %s.%s", l2, NULL);
                    free(l2);
                }
            }
            free(miss);
            size_t nu = 0;
            for (size_t k = 0; k < nit; k++)
                if (idx[k] >= N || idx[k] < 0)
                    tmp[nu++] = idx[k];
            if (!werr && nu) {
                int_list(lst, lcap, tmp, nu);
                werr = add_warning(res, "Unexpected iteration indexes: %s.%s", lst, NULL);
            }
        }
        /* 3: iterations without host (cannot happen, kept as an invariant guard) */
        size_t nmh = 0, a = 0;
        for (size_t k = 0; k < nit; k++) {
            while (a < nhit && hit[a].index < idx[k])
                a++;
            if (!(a < nhit && hit[a].index == idx[k]))
                tmp[nmh++] = idx[k];
        }
        if (!werr && nmh) {
            int_list(lst, lcap, tmp, nmh);
            werr = add_warning(res, "Missing host ranges for iterations: %s.%s", lst, NULL);
        }
        size_t nmg = 0, b = 0;
        for (size_t k = 0; k < nit; k++) {
            while (b < ngit && git[b].index < idx[k])
                b++;
            if (!(b < ngit && git[b].index == idx[k]))
                tmp[nmg++] = idx[k];
        }
        if (!werr && nmg) {
            int_list(lst, lcap, tmp, nmg);
            werr = add_warning(res, "Missing GPU projections for iterations: %s.%s", lst, NULL);
        }
        /* 5/6: a group whose joined name equals the capture range */
        int in_host = 0, in_gpu = 0;
        for (size_t k = 0; k < nhg && !in_host; k++)
            in_host = trie.depth[hg[k].path] == 1 && trie.name[hg[k].path] == cap_name;
        for (size_t k = 0; k < ngg && !in_gpu; k++)
            in_gpu = trie.depth[gg[k].path] == 1 && trie.name[gg[k].path] == cap_name;
        /* a multi-element path can also join to the capture range's text ("a.b") */
        if (!in_host || !in_gpu) {
            for (int side = 0; side < 2; side++) {
                group *gs = side ? gg : hg;
                size_t gn = side ? ngg : nhg;
                int *flag = side ? &in_gpu : &in_host;
                for (size_t k = 0; k < gn && !*flag; k++) {
                    uint32_t d = trie.depth[gs[k].path];
                    if (d < 2)
                        continue;
                    uint32_t names[d];
                    path_names(&trie, gs[k].path, names);
                    size_t len = d - 1;
                    for (uint32_t q = 0; q < d; q++)
                        len += S->len[names[q]];
                    if (len != cr->len)
                        continue;
                    size_t o = 0;
                    int eq = 1;
                    for (uint32_t q = 0; q < d && eq; q++) {
                        if (q) {
                            eq = cr->s[o] == '.';
                            o++;
                        }
                        eq = eq && !memcmp(cr->s + o, str_of(S, names[q]), S->len[names[q]]);
                        o += S->len[names[q]];
                    }
                    *flag = eq;
                }
            }
        }
        char *crr = gf_py_str_repr(cr->s, cr->len);
        if (!crr)
            werr = 1;
        if (!werr && !in_host)
            werr = add_warning(res, "Host report does not contain capture range %s.%s", crr, NULL);
        if (!werr && !in_gpu)
            werr = add_warning(res, "GPU projection report does not contain capture range %s.%s", crr, NULL);
        free(crr);
        free(lst);
        free(tmp);
        if (werr) {
            free(idx);
            goto oom;
        }
    }

    /* 8. analysis.json (§10, §14) */
    int schema2 = in->schema_version == 2;
    gf_pyj_begin_object(&j);
    if (schema2) {
        gf_pyj_key(&j, "capture_gpu_work");
        write_capture_work(&j, nv);
    }
    gf_pyj_key(&j, "gpu_projected_ranges");
    gf_pyj_begin_array(&j);
    for (size_t k = 0; k < ngg; k++) {
        group *g = &gg[k];
        __int128 ops = 0, host_total = 0;
        for (size_t q = 0; q < g->count; q++) {
            const gf_nvtx_gpu_row *r = &G[gorder[g->first + q]];
            ops += r->ngpu;
            host_total += r->odur;
            vals[q] = r->pdur;
        }
        gf_pyj_begin_object(&j);
        gf_pyj_key(&j, "gpu_operation_count");
        gf_pyj_int128(&j, ops);
        gf_pyj_key(&j, "host_total_ns");
        gf_pyj_int128(&j, host_total);
        gf_pyj_key(&j, "instances");
        gf_pyj_int(&j, (int64_t)g->count);
        gf_pyj_key(&j, "name");
        write_path_name(&j, &trie, S, g->path);
        gf_pyj_key(&j, "projected");
        write_summary(&j, vals, g->count);
        gf_pyj_key(&j, "style");
        gf_pyj_string(&j, str_of(S, g->style), S->len[g->style]);
        gf_pyj_end_object(&j);
    }
    gf_pyj_end_array(&j);

    gf_pyj_key(&j, "host_ranges");
    gf_pyj_begin_array(&j);
    for (size_t k = 0; k < nhg; k++) {
        group *g = &hg[k];
        __int128 child = 0;
        for (size_t q = 0; q < g->count; q++) {
            const gf_nvtx_host_row *r = &H[horder[g->first + q]];
            child += r->dchild;
            vals[q] = r->dnonchild;
            vals2[q] = r->dur;
        }
        gf_pyj_begin_object(&j);
        gf_pyj_key(&j, "child_total_ns");
        gf_pyj_int128(&j, child);
        gf_pyj_key(&j, "exclusive");
        write_summary(&j, vals, g->count);
        gf_pyj_key(&j, "inclusive");
        write_summary(&j, vals2, g->count);
        gf_pyj_key(&j, "instances");
        gf_pyj_int(&j, (int64_t)g->count);
        gf_pyj_key(&j, "name");
        write_path_name(&j, &trie, S, g->path);
        gf_pyj_end_object(&j);
    }
    gf_pyj_end_array(&j);

    /* iteration_summary */
    gf_pyj_key(&j, "iteration_summary");
    gf_pyj_begin_object(&j);
    gf_pyj_key(&j, "gpu_projected");
    for (size_t k = 0; k < ngit; k++)
        vals[k] = G[git[k].row].pdur;
    write_summary(&j, vals, ngit);
    gf_pyj_key(&j, "gpu_projected_iterations");
    gf_pyj_int(&j, (int64_t)ngit);
    gf_pyj_key(&j, "host_exclusive");
    for (size_t k = 0; k < nhit; k++)
        vals[k] = H[hit[k].row].dnonchild;
    write_summary(&j, vals, nhit);
    gf_pyj_key(&j, "host_inclusive");
    for (size_t k = 0; k < nhit; k++)
        vals[k] = H[hit[k].row].dur;
    write_summary(&j, vals, nhit);
    gf_pyj_key(&j, "host_iterations");
    gf_pyj_int(&j, (int64_t)nhit);
    gf_pyj_key(&j, "iterations");
    gf_pyj_int(&j, (int64_t)nit);
    gf_pyj_end_object(&j);

    gf_pyj_key(&j, "iterations");
    gf_pyj_begin_array(&j);
    {
        size_t a = 0, b = 0;
        for (size_t k = 0; k < nit; k++) {
            while (a < nhit && hit[a].index < idx[k])
                a++;
            while (b < ngit && git[b].index < idx[k])
                b++;
            gf_pyj_begin_object(&j);
            gf_pyj_key(&j, "gpu_projection");
            if (b < ngit && git[b].index == idx[k]) {
                const gf_nvtx_gpu_row *r = &G[git[b].row];
                gf_pyj_begin_object(&j);
                gf_pyj_key(&j, "gpu_operation_count");
                gf_pyj_int(&j, r->ngpu);
                gf_pyj_key(&j, "host_range_total_ns");
                gf_pyj_int(&j, r->odur);
                gf_pyj_key(&j, "projected_ns");
                gf_pyj_int(&j, r->pdur);
                gf_pyj_end_object(&j);
            } else {
                gf_pyj_null(&j);
            }
            gf_pyj_key(&j, "host");
            if (a < nhit && hit[a].index == idx[k]) {
                const gf_nvtx_host_row *r = &H[hit[a].row];
                gf_pyj_begin_object(&j);
                gf_pyj_key(&j, "child_total_ns");
                gf_pyj_int(&j, r->dchild);
                gf_pyj_key(&j, "exclusive_ns");
                gf_pyj_int(&j, r->dnonchild);
                gf_pyj_key(&j, "inclusive_ns");
                gf_pyj_int(&j, r->dur);
                gf_pyj_end_object(&j);
            } else {
                gf_pyj_null(&j);
            }
            gf_pyj_key(&j, "index");
            gf_pyj_int(&j, idx[k]);
            gf_pyj_end_object(&j);
        }
    }
    gf_pyj_end_array(&j);
    free(idx);

    gf_pyj_key(&j, "provenance");
    gf_pyj_begin_object(&j);
    gf_pyj_key(&j, "manifest_path");
    gf_pyj_string(&j, in->manifest_path, strlen(in->manifest_path));
    gf_pyj_key(&j, "nsys_version");
    {
        const char *ver = in->nsys_version ? in->nsys_version : "unknown";
        gf_pyj_string(&j, ver, strlen(ver));
    }
    gf_pyj_key(&j, "reports");
    gf_pyj_begin_object(&j);
    if (schema2 && in->kern_report && in->trace_report) {
        gf_pyj_key(&j, "cuda_gpu_kern_sum");
        gf_pyj_string(&j, in->kern_report, strlen(in->kern_report));
        gf_pyj_key(&j, "cuda_gpu_trace");
        gf_pyj_string(&j, in->trace_report, strlen(in->trace_report));
    }
    gf_pyj_key(&j, "nvtx_gpu_proj_trace");
    gf_pyj_string(&j, in->gpu_report, strlen(in->gpu_report));
    gf_pyj_key(&j, "nvtx_pushpop_trace");
    gf_pyj_string(&j, in->host_report, strlen(in->host_report));
    gf_pyj_end_object(&j);
    if (in->source) {
        gf_pyj_key(&j, "source");
        gf_pyj_string(&j, in->source, strlen(in->source));
    }
    gf_pyj_key(&j, "trace_path");
    gf_pyj_string(&j, in->trace_path, strlen(in->trace_path));
    gf_pyj_end_object(&j);

    gf_pyj_key(&j, "run");
    gf_pyj_begin_object(&j);
    gf_pyj_key(&j, "capture_range");
    gf_pyj_yv(&j, cr);
    gf_pyj_key(&j, "cuda");
    {
        const gf_yv *c = gf_yv_get(man, "cuda");
        if (c && c->kind == GF_YV_MAP)
            gf_pyj_yv(&j, c);
        else {
            gf_pyj_begin_object(&j);
            gf_pyj_end_object(&j);
        }
    }
    gf_pyj_key(&j, "device");
    gf_pyj_yv(&j, gf_yv_get(man, "device"));
    gf_pyj_key(&j, "git_commit");
    gf_pyj_yv(&j, gf_yv_get(man, "git_commit"));
    gf_pyj_key(&j, "profile_name");
    gf_pyj_yv(&j, gf_yv_get(man, "profile_name"));
    gf_pyj_key(&j, "record_count");
    gf_pyj_int(&j, nrec);
    gf_pyj_key(&j, "run_id");
    gf_pyj_yv(&j, gf_yv_get(man, "run_id"));
    gf_pyj_key(&j, "workload");
    {
        const gf_yv *w = gf_yv_get(man, "workload");
        if (w && w->kind == GF_YV_MAP)
            gf_pyj_yv(&j, w);
        else {
            gf_pyj_begin_object(&j);
            gf_pyj_end_object(&j);
        }
    }
    gf_pyj_end_object(&j);

    gf_pyj_key(&j, "schema_version");
    gf_pyj_int(&j, schema2 ? 2 : 1);
    gf_pyj_key(&j, "warnings");
    gf_pyj_begin_array(&j);
    for (size_t k = 0; k < res->nwarnings; k++)
        gf_pyj_string(&j, res->warnings[k], strlen(res->warnings[k]));
    gf_pyj_end_array(&j);
    gf_pyj_end_object(&j);

    res->json = gf_pyj_finish(&j, &res->json_len);
    if (!res->json)
        goto oom;
    res->iterations = nit;
    res->host_iterations = nhit;
    res->gpu_iterations = ngit;
    res->host_groups = nhg;
    res->gpu_groups = ngg;
    rc = 0;
    goto out;
oom:
    gf_errf(err, GF_EXIT_ERROR, "out of memory during the NVTX analysis");
out:
    if (rc != 0) {
        gf_pyj_free(&j);
        gf_nvtx_result_free(res);
    }
    rowidx_free(&hkeys);
    rowidx_free(&gkeys);
    kmap_free(&harness);
    ptrie_free(&trie);
    free(hharn);
    free(gharn);
    free(hstate);
    free(gstate);
    free(hskip);
    free(gskip);
    free(hw);
    free(gw);
    free(hpath);
    free(gpath);
    free(gstyle);
    free(stack);
    free(horder);
    free(gorder);
    free(hit);
    free(git);
    free(hg);
    free(gg);
    free(vals);
    free(vals2);
    return rc;
}
