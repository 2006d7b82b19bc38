#include "trace_csv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "trace_build.h"

void gf_trace_csv_cols_init(gf_trace_csv_cols *c)
{
    c->start = c->dur = c->corr = c->name = -1;
    c->device = c->stream = c->regs = c->bytes = -1;
    for (int i = 0; i < 3; i++)
        c->grid[i] = c->block[i] = -1;
    c->bytes_scale = 1;
    c->pid = c->tid = c->thread = -1;
}

/* The current row's fields, fetched once per row (gf_csv_row) rather than once per field. */
typedef struct rowv {
    gf_csv *c;
    const char *base;
    const gf_csv_span *f;
    size_t n, ncols;
} rowv;

/* Field col of the row ("" when the row is short or col < 0). */
static inline const char *rv_field(const rowv *r, int col, size_t *len)
{
    if (col < 0 || (size_t)col >= r->n) {
        *len = 0;
        return "";
    }
    *len = r->f[col].len;
    return r->base + r->f[col].off;
}

/* The value of the n (1..8) bytes at s when all are ASCII digits (1), else 0; the 8 bytes at s are
 * readable (gf_csv_row). SWAR: the bytes after the field become leading zeros, then byte pairs, pairs of
 * pairs and the two halves are combined with one multiply each. */
static inline int digits8(const char *s, size_t n, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t hi = 0xF0F0F0F0F0F0F0F0u, zeros = 0x3030303030303030u;
    uint64_t x;
    memcpy(&x, s, 8);
    unsigned sh = (unsigned)(8 - n) * 8; /* 0..56 */
    x = (x << sh) | (zeros & ((UINT64_C(1) << sh) - 1));
    if ((x & hi) != zeros || ((x + 0x0606060606060606u) & hi) != zeros)
        return 0;
    x -= zeros;
    x = (x * 10) + (x >> 8); /* first digit of each pair in the even bytes */
    x = (((x & 0x000000FF000000FFu) * (100 + (UINT64_C(1000000) << 32))) +
         (((x >> 16) & 0x000000FF000000FFu) * (1 + (UINT64_C(10000) << 32)))) >> 32;
    *v = x;
    return 1;
#else
    uint64_t r = 0;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)(s[i] - '0') >= 10)
            return 0;
        r = r * 10 + (uint64_t)(s[i] - '0');
    }
    *v = r;
    return 1;
#endif
}

/* Whole field as an integer (surrounding blanks allowed; "5783718.0" accepted): 1 = a value, 0 = empty
 * or no such column, -1 = malformed (not an integer, or beyond int64). Hand-rolled: this runs several
 * times per row of multi-million-row CSVs. */
static int parse_i64_slow(const rowv *r, int col, int64_t *v);

static inline int parse_i64(const rowv *r, int col, int64_t *v)
{
    if (col >= 0 && (size_t)col < r->n) { /* the common case, inline: plain digits, eight at a time */
        static const uint64_t p10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
        size_t len = r->f[col].len;
        const char *s = r->base + r->f[col].off;
        uint64_t x, y;
        if (len - 1 < 8 && digits8(s, len, &x)) {
            *v = (int64_t)x;
            return 1;
        }
        if (len - 9 < 8 && digits8(s, 8, &x) && digits8(s + 8, len - 8, &y)) {
            *v = (int64_t)(x * p10[len - 8] + y);
            return 1;
        }
    }
    return parse_i64_slow(r, col, v);
}

/* parse_i64 of any other field: blanks, a sign, a decimal point, errors. */
static int parse_i64_slow(const rowv *r, int col, int64_t *v)
{
    size_t len;
    const char *s = rv_field(r, col, &len);
    const char *e = s + len;
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    if (s == e)
        return 0;
    int neg = 0;
    if (*s == '-' || *s == '+') {
        neg = *s == '-';
        s++;
    }
    if (s == e)
        return -1;
    uint64_t x = 0;
    const char *p = s;
    while (p < e && *p >= '0' && *p <= '9') {
        if (x > (uint64_t)INT64_MAX / 10)
            return -1;
        x = x * 10 + (uint64_t)(*p++ - '0');
        if (x > (uint64_t)INT64_MAX)
            return -1;
    }
    if (p == s)
        return -1;
    if (p < e) { /* an integral decimal such as 5783718.0 */
        if (*p != '.')
            return -1;
        for (p++; p < e; p++)
            if (*p < '0' || *p > '9')
                return -1;
    }
    *v = neg ? -(int64_t)x : (int64_t)x;
    return 1;
}

/* 1 when field col is 1..16 plain digits: parse_i64 would take it as a valid value. */
static inline int plain_digits(const rowv *r, int col)
{
    if (col < 0 || (size_t)col >= r->n)
        return 0;
    size_t len = r->f[col].len;
    const char *s = r->base + r->f[col].off;
    uint64_t x;
    if (len - 1 < 8)
        return digits8(s, len, &x);
    return len - 9 < 8 && digits8(s, 8, &x) && digits8(s + 8, len - 8, &x);
}

static int64_t opt_i64(const rowv *r, int col, int64_t def)
{
    int64_t v;
    return parse_i64(r, col, &v) == 1 ? v : def;
}

/* Start and duration of the current row: 1 = both present, 0 = one is empty (the row is skipped),
 * -1 = malformed or a negative duration (err names file, line and column). */
static int start_dur(const rowv *r, const gf_trace_csv_cols *k, gf_event *e, gf_err *err)
{
    int cols[2] = {k->start, k->dur};
    int64_t *dst[2] = {&e->start, &e->dur};
    int any_empty = 0;
    for (int i = 0; i < 2; i++) {
        int p = parse_i64(r, cols[i], dst[i]);
        const char *why = p < 0 ? "invalid integer" : (i == 1 && p == 1 && *dst[i] < 0 ? "negative duration" : NULL);
        if (why) {
            size_t n;
            const char *v = rv_field(r, cols[i], &n);
            const char *name = gf_csv_colname(r->c, (size_t)cols[i]);
            return gf_errf(err, GF_EXIT_INPUT, "%s:%zu:%d (column '%s'): %s '%.*s%s'", gf_csv_path(r->c), gf_csv_line(r->c),
                           cols[i] + 1, name ? name : "?", why, (int)(n > 80 ? 80 : n), v, n > 80 ? "..." : "");
        }
        if (p == 0)
            any_empty = 1;
    }
    return any_empty ? 0 : 1;
}

static int32_t intern_field(gf_trace *t, const rowv *r, int col)
{
    if (col < 0)
        return -1;
    size_t len;
    const char *s = rv_field(r, col, &len);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
        len--;
    if (!len)
        return -1;
    return gf_strtab_intern(t->str, s, len);
}

/* 1 when field col of the current row, trimmed as intern_field trims it, is string id (not -1): the device
 * column repeats a few values, so comparing saves hashing it every row. */
static int same_field(gf_trace *t, const rowv *r, int col, int32_t id)
{
    if (col < 0 || id < 0)
        return 0;
    size_t len, il;
    const char *s = rv_field(r, col, &len);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
        len--;
    const char *is = gf_strtab_get(t->str, id, &il);
    return len == il && memcmp(s, is, len) == 0;
}

/* The device of the last rows by the field's raw bytes (up to DEV_RAW of them), before same_field's
 * trimming, string table look-up and memcmp: rows alternate among a few devices. */
enum { DEV_SLOTS = 4, DEV_RAW = 56 };
typedef struct dev_raw {
    int32_t id; /* -1: empty */
    uint32_t len;
    char b[DEV_RAW + 8];
} dev_raw;

/* The device id of field col when its bytes are those of a slot, else -1. */
static inline int32_t dev_raw_find(const dev_raw *dr, const rowv *r, int col)
{
    if (col < 0 || (size_t)col >= r->n)
        return -1;
    size_t len = r->f[col].len;
    const char *s = r->base + r->f[col].off;
    for (int i = 0; i < DEV_SLOTS; i++) {
        if (dr[i].id < 0 || dr[i].len != len)
            continue;
        uint64_t x, y;
        if (len >= 8) { /* the last 8 bytes first (names of devices differ at their end), then the rest */
            memcpy(&x, s + len - 8, 8);
            memcpy(&y, dr[i].b + len - 8, 8);
            if (x != y)
                continue;
        }
        size_t j = 0;
        for (; j + 8 <= len; j += 8) {
            memcpy(&x, s + j, 8);
            memcpy(&y, dr[i].b + j, 8);
            if (x != y)
                break;
        }
        if (j + 8 > len) { /* the words matched; below 8 bytes, byte by byte */
            while (j < len && s[j] == dr[i].b[j])
                j++;
            if (j >= len || len >= 8)
                return dr[i].id;
        }
    }
    return -1;
}

static void dev_raw_put(dev_raw *dr, int *next, const rowv *r, int col, int32_t id)
{
    if (id < 0 || col < 0 || (size_t)col >= r->n || r->f[col].len > DEV_RAW)
        return;
    dev_raw *d = &dr[*next];
    *next = (*next + 1) % DEV_SLOTS;
    d->id = id;
    d->len = (uint32_t)r->f[col].len;
    memcpy(d->b, r->base + r->f[col].off, d->len);
}

/* Every column this reader uses, for gf_csv_require on short rows. */
static size_t used_cols(const gf_trace_csv_cols *k, int *out)
{
    const int cols[] = {k->start, k->dur, k->corr, k->name, k->device, k->stream, k->grid[0], k->grid[1], k->grid[2],
                        k->block[0], k->block[1], k->block[2], k->regs, k->bytes, k->pid, k->tid, k->thread};
    memcpy(out, cols, sizeof cols);
    return sizeof cols / sizeof cols[0];
}

static int check_cols(const char *path, const gf_trace_csv_cols *k, gf_err *err)
{
    if (k->start < 0 || k->dur < 0 || k->name < 0)
        return gf_errf(err, GF_EXIT_INPUT, "%s: trace CSV needs start, duration and name columns", path);
    return 0;
}

enum { ROW_EVENT = 1, ROW_SKIPPED = 2, ROW_DROP = 3 };

/* Rows the bounded build drops, counted per kind and handed over in bulk (gf_trace_add_dropped) before
 * the next gf_trace_add and at the end. */
typedef struct pending {
    uint64_t n[GF_EV_NKINDS];
    int any;
} pending;

static void flush_dropped(gf_trace *t, pending *p)
{
    if (!p->any)
        return;
    for (int k = 0; k < GF_EV_NKINDS; k++)
        if (p->n[k]) {
            gf_trace_add_dropped(t, k, p->n[k]);
            p->n[k] = 0;
        }
    p->any = 0;
}

/* The next row with the columns this import uses: ROW_EVENT (start and duration in *e), ROW_SKIPPED (a
 * row without times), 0 at the end, -1 on error (err set: a short row names its missing columns); with
 * thr >= 0 (gf_trace_drop_thr) also ROW_DROP: a duration <= thr (in *e) and a start of plain digits, valid
 * but not parsed (e->start -1). */
static inline int next_event(rowv *r, const gf_trace_csv_cols *k, const int *need, size_t nneed, int64_t thr,
                              gf_event *e, gf_err *err)
{
    int rc = gf_csv_next_row(r->c, &r->base, &r->f, &r->n, err);
    if (rc != 1)
        return rc < 0 ? -1 : 0;
    if (r->n < r->ncols && gf_csv_require(r->c, need, nneed, err) != 0)
        return -1;
    int64_t d;
    if (thr >= 0 && parse_i64(r, k->dur, &d) == 1 && d >= 0 && d <= thr && plain_digits(r, k->start)) {
        e->dur = d; /* a row the build drops: its start is valid, its value never read */
        e->start = -1;
        return ROW_DROP;
    }
    int sd = start_dur(r, k, e, err);
    return sd < 0 ? -1 : sd == 0 ? ROW_SKIPPED : ROW_EVENT;
}

/* The lanes of the last keys seen, by key bits: threads and streams come back often (most rows find their
 * lane here, without the hash map). */
enum { LANE_CACHE = 16 };
typedef struct lane_cache {
    uint64_t key;
    int64_t lane; /* -1: empty */
} lane_cache;

static void lane_cache_init(lane_cache *lc)
{
    for (int i = 0; i < LANE_CACHE; i++)
        lc[i] = (lane_cache){0, -1};
}

/* In front of the lane caches, by the raw bytes of the key fields (each 1..8 bytes): a row whose fields
 * hold the same bytes as a recent row's takes its lane (and pid) without parsing them. */
enum { RAW_SLOTS = 16 };
typedef struct raw_slot {
    uint64_t a, b; /* the fields' bytes (a: or a string id) */
    int64_t va;    /* a's value */
    int32_t lane;  /* -1: empty */
    uint8_t al, bl;
} raw_slot;

static void raw_init(raw_slot *rs)
{
    for (int i = 0; i < RAW_SLOTS; i++)
        rs[i] = (raw_slot){0, 0, 0, -1, 0, 0};
}

/* Field col's bytes as a word and its length; 0 when it is empty, longer than 8 bytes or absent. */
static inline int raw_word(const rowv *r, int col, uint64_t *w, uint8_t *len)
{
    if (col < 0 || (size_t)col >= r->n)
        return 0;
    size_t n = r->f[col].len;
    if (n - 1 >= 8)
        return 0;
    uint64_t x;
    memcpy(&x, r->base + r->f[col].off, 8); /* 8 readable bytes after the field (gf_csv_row) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    *w = x & (~UINT64_C(0) << (64 - 8 * n));
#else
    *w = x & (~UINT64_C(0) >> (64 - 8 * n));
#endif
    *len = (uint8_t)n;
    return 1;
}

/* The slot holding key (a, b) (*hit 1), else the slot to fill (*hit 0). Two ways per set: a few keys that
 * rows alternate among may share a set without evicting each other; the newest goes first. */
static inline raw_slot *raw_find(raw_slot *rs, uint64_t a, uint8_t al, uint64_t b, uint8_t bl, int *hit)
{
    raw_slot *s = &rs[(((a * UINT64_C(0x9E3779B97F4A7C15)) ^ (b * UINT64_C(0xC2B2AE3D27D4EB4F))) >> 60) & ~1u];
    for (int i = 0; i < 2; i++)
        if (s[i].lane >= 0 && s[i].a == a && s[i].b == b && s[i].al == al && s[i].bl == bl) {
            *hit = 1;
            return &s[i];
        }
    *hit = 0;
    if (s[0].lane >= 0)
        s[1] = s[0];
    return &s[0];
}

static int import_api(gf_trace *t, const char *path, const gf_trace_csv_cols *k, int partner_pass, gf_err *err)
{
    gf_csv *c;
    gf_csv_opts o = {0};
    o.allow_short_rows = 1;
    if (check_cols(path, k, err) != 0)
        return -1;
    if (gf_csv_open(&c, path, &o, err) != 0)
        return err->code == GF_EXIT_NO_DATA ? 0 : -1;
    rowv rv = {c, "", NULL, 0, gf_csv_ncols(c)};
    int rc;
    int need[17];
    size_t nneed = used_cols(k, need);
    gf_hmap lanes; /* (pid, tid) → lane */
    gf_hmap_init(&lanes);
    lane_cache lc[LANE_CACHE];
    lane_cache_init(lc);
    raw_slot rs[RAW_SLOTS];
    raw_init(rs);
    gf_event e;
    pending pend = {{0}, 0};
    int64_t thr = partner_pass ? -1 : gf_trace_drop_thr(t, 0);
    while ((rc = next_event(&rv, k, need, nneed, thr, &e, err)) > 0) {
        if (rc == ROW_SKIPPED)
            continue;
        uint64_t pw, tw;
        uint8_t pl, tl;
        int known = 0;
        raw_slot *slot = raw_word(&rv, k->pid, &pw, &pl) && raw_word(&rv, k->tid, &tw, &tl)
                             ? raw_find(rs, pw, pl, tw, tl, &known)
                             : NULL;
        int64_t pid = known ? slot->va : opt_i64(&rv, k->pid, -1), tid = known ? 0 : opt_i64(&rv, k->tid, -1);
        e.corr = opt_i64(&rv, k->corr, -1);
        e.pid = (int32_t)pid;
        e.kind = GF_EV_API;
        e.stack = -1;
        e.name = -1; /* interned only when the build reads it: most rows of a bounded build are dropped */
        int needs = gf_trace_needs_name(t, &e);
        if (needs && rc == ROW_DROP)
            parse_i64(&rv, k->start, &e.start); /* plain digits (next_event): a partner is kept */
        if (needs && (e.name = intern_field(t, &rv, k->name)) < 0 &&
            (e.name = gf_strtab_intern_cstr(t->str, "?")) < 0)
            goto oom;
        if (known) {
            e.lane = slot->lane;
        } else {
            uint64_t key = ((uint64_t)(pid & 0xFFFFFFFF) << 32) ^ (uint64_t)(tid & 0xFFFFFFFF);
            lane_cache *hit = &lc[(key ^ (key >> 32)) % LANE_CACHE];
            int64_t *v = hit->lane >= 0 && hit->key == key ? &hit->lane : gf_hmap_get(&lanes, key);
            if (v) {
                e.lane = (int32_t)*v;
            } else {
                if ((e.lane = gf_trace_lane(t, GF_LANE_CPU, 0, pid, tid, -1, -1, -1, err)) < 0)
                    break;
                int32_t tn = intern_field(t, &rv, k->thread);
                if (tn >= 0)
                    gf_trace_lane_set_thread_name(t, e.lane, tn);
                if (!gf_hmap_put(&lanes, key, e.lane, NULL))
                    goto oom;
            }
            *hit = (lane_cache){key, e.lane};
            if (slot)
                *slot = (raw_slot){pw, tw, pid, e.lane, pl, tl};
        }
        if (!needs && e.dur <= thr) { /* dropped: only counted */
            pend.n[GF_EV_API]++;
            pend.any = 1;
            continue;
        }
        flush_dropped(t, &pend);
        if ((partner_pass ? gf_trace_add_partner(t, &e, err) : gf_trace_add(t, &e, NULL, err)) != 0) {
            rc = -1;
            break;
        }
        if (!partner_pass)
            thr = gf_trace_drop_thr(t, 0);
    }
    flush_dropped(t, &pend);
    gf_hmap_free(&lanes);
    gf_csv_close(c);
    return rc < 0 ? -1 : 0;
oom:
    gf_hmap_free(&lanes);
    gf_csv_close(c);
    return gf_oom(err, path);
}

enum { CUDA_NAMES = 8 };
typedef struct cuda_name {
    int32_t name;
    int64_t cls; /* as in import_gpu's names map */
} cuda_name;

/* "... (3)" → 3 */
static int64_t device_number(const char *s, size_t len)
{
    if (len < 3 || s[len - 1] != ')')
        return -1;
    size_t i = len - 1;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i == 0 || s[i - 1] != '(' || i == len - 1)
        return -1;
    return strtoll(s + i, NULL, 10);
}

/* The GPU import's names: name id → kind | (copy label id + 1) << 8, and the last memcpy/memset names. */
typedef struct gpu_names {
    gf_hmap cls;
    cuda_name cuda[CUDA_NAMES];
    int ncuda;
} gpu_names;

/* Kind | (copy label id + 1) << 8 of name id (-1: a kernel), classified once per distinct name:
 * "[CUDA memcpy X]" / "[CUDA memset]" / a kernel. NULL on OOM. */
static int64_t *classify(gf_trace *t, gpu_names *g, int32_t name)
{
    int64_t *cls = gf_hmap_get(&g->cls, (uint64_t)name);
    if (cls)
        return cls;
    size_t len;
    const char *s = gf_strtab_get(t->str, name, &len);
    int64_t v = GF_EV_KERNEL;
    if (strncmp(s, "[CUDA ", 6) == 0 && strstr(s, "memcpy")) {
        const char *p = strstr(s, "memcpy") + 6;
        while (*p == ' ')
            p++;
        size_t l = strcspn(p, "]");
        int32_t lab = l ? gf_strtab_intern(t->str, p, l) : -1;
        v = GF_EV_MEMCPY | ((int64_t)(lab + 1) << 8);
    } else if (strncmp(s, "[CUDA ", 6) == 0 && strstr(s, "memset")) {
        v = GF_EV_MEMSET;
    }
    return gf_hmap_put(&g->cls, (uint64_t)name, v, NULL);
}

/* e->name and *cls (as classify) of the row's name column; -1 on OOM. Kernels (no "[CUDA " prefix) are
 * told apart without hashing, and their names interned only when the build may read them; the few
 * memcpy/memset names are matched among the last ones before hashing. */
static int gpu_name(gf_trace *t, const rowv *rv, int col, gpu_names *g, int drop, gf_event *e, int64_t *cls)
{
    size_t nl;
    const char *nm = rv_field(rv, col, &nl);
    if (nl < 6 || memcmp(nm, "[CUDA ", 6) != 0) {
        *cls = GF_EV_KERNEL;
        e->name = -1; /* a kernel the bounded build drops: its name is never read */
        if (!drop && gf_trace_needs_name(t, e) && (e->name = intern_field(t, rv, col)) < 0 &&
            (e->name = gf_strtab_intern_cstr(t->str, "?")) < 0)
            return -1;
        return 0;
    }
    while (nl && (nm[nl - 1] == ' ' || nm[nl - 1] == '\r'))
        nl--;
    for (int i = 0; i < g->ncuda; i++) {
        size_t cl;
        const char *cs = gf_strtab_get(t->str, g->cuda[i].name, &cl);
        if (cl == nl && memcmp(cs, nm, nl) == 0) {
            e->name = g->cuda[i].name;
            *cls = g->cuda[i].cls;
            return 0;
        }
    }
    int64_t *c;
    if ((e->name = intern_field(t, rv, col)) < 0 || !(c = classify(t, g, e->name)))
        return -1;
    *cls = *c;
    if (g->ncuda < CUDA_NAMES)
        g->cuda[g->ncuda++] = (cuda_name){e->name, *c};
    return 0;
}

static int import_gpu(gf_trace *t, const char *path, const gf_trace_csv_cols *k, gf_err *err)
{
    gf_csv *c;
    gf_csv_opts o = {0};
    o.allow_short_rows = 1;
    if (check_cols(path, k, err) != 0)
        return -1;
    if (gf_csv_open(&c, path, &o, err) != 0)
        return err->code == GF_EXIT_NO_DATA ? 0 : -1;
    rowv rv = {c, "", NULL, 0, gf_csv_ncols(c)};
    gf_hmap lanes; /* (device, stream) → lane */
    gf_hmap_init(&lanes);
    int rc;
    gf_detail d;
    int need[17];
    size_t nneed = used_cols(k, need);
    gf_event e;
    int32_t devs[4] = {-1, -1, -1, -1}; /* the last devices seen, newest first: rows alternate among a few */
    dev_raw dr[DEV_SLOTS];
    int dr_next = 0;
    for (int i = 0; i < DEV_SLOTS; i++)
        dr[i].id = -1;
    gpu_names g;
    gf_hmap_init(&g.cls);
    g.ncuda = 0;
    lane_cache lc[LANE_CACHE];
    lane_cache_init(lc);
    raw_slot rs[RAW_SLOTS];
    raw_init(rs);
    pending pend = {{0}, 0};
    int64_t thr = gf_trace_drop_thr(t, 1);
    while ((rc = next_event(&rv, k, need, nneed, thr, &e, err)) > 0) {
        if (rc == ROW_SKIPPED)
            continue;
        e.corr = -1; /* read below only when the build may keep the row: dropped GPU rows only count */
        e.pid = -1;
        e.stack = -1;
        e.kind = GF_EV_KERNEL;
        int drop = e.dur <= thr; /* the build would only count this row (gf_trace_needs_name 0) */
        int64_t cls;
        if (gpu_name(t, &rv, k->name, &g, drop, &e, &cls) != 0)
            goto oom;
        e.kind = (uint8_t)(cls & 0xFF);
        if (!drop && gf_trace_needs_name(t, &e))
            e.corr = opt_i64(&rv, k->corr, -1);
        int32_t copy = (int32_t)(cls >> 8) - 1;
        int32_t dev = dev_raw_find(dr, &rv, k->device);
        if (dev < 0) {
            int di = 0;
            while (di < 4 && !same_field(t, &rv, k->device, devs[di]))
                di++;
            dev = di < 4 ? devs[di] : intern_field(t, &rv, k->device);
            if (di) { /* to the front */
                memmove(devs + 1, devs, (size_t)(di < 4 ? di : 3) * sizeof *devs);
                devs[0] = dev;
            }
            dev_raw_put(dr, &dr_next, &rv, k->device, dev);
        }
        uint64_t sw;
        uint8_t sl;
        int known = 0;
        raw_slot *slot = raw_word(&rv, k->stream, &sw, &sl) ? raw_find(rs, (uint64_t)(uint32_t)dev, 0, sw, sl, &known)
                                                             : NULL;
        if (known) {
            e.lane = slot->lane;
        } else {
            int64_t stream = opt_i64(&rv, k->stream, -1);
            uint64_t key = ((uint64_t)(uint32_t)dev << 32) ^ (uint64_t)(stream & 0xFFFFFFFF);
            lane_cache *hit = &lc[(key ^ (key >> 32)) % LANE_CACHE];
            int64_t *v = hit->lane >= 0 && hit->key == key ? &hit->lane : gf_hmap_get(&lanes, key);
            if (v) {
                e.lane = (int32_t)*v;
            } else {
                size_t dl = 0;
                const char *ds = dev >= 0 ? gf_strtab_get(t->str, dev, &dl) : "";
                if ((e.lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, dev, device_number(ds, dl), stream, err)) < 0) {
                    rc = -1;
                    break;
                }
                if (!gf_hmap_put(&lanes, key, e.lane, NULL))
                    goto oom;
            }
            *hit = (lane_cache){key, e.lane};
            if (slot)
                *slot = (raw_slot){(uint64_t)(uint32_t)dev, sw, 0, e.lane, 0, sl};
        }
        if (drop) {
            pend.n[e.kind]++;
            pend.any = 1;
            continue;
        }
        flush_dropped(t, &pend);
        gf_detail_clear(&d);
        if (!gf_trace_may_keep(t, e.dur)) {
            /* dropped by the bounded build: its detail would never be read */
        } else if (e.kind == GF_EV_KERNEL) {
            for (int i = 0; i < 3; i++) {
                d.grid[i] = (int32_t)opt_i64(&rv, k->grid[i], -1);
                d.block[i] = (int32_t)opt_i64(&rv, k->block[i], -1);
            }
            d.regs = (int32_t)opt_i64(&rv, k->regs, -1);
        } else if (k->bytes >= 0) {
            size_t len;
            const char *s = rv_field(&rv, k->bytes, &len);
            char *end;
            double b = strtod(s, &end);
            if (end != s)
                d.bytes = (int64_t)(b * k->bytes_scale + 0.5);
            d.copy = copy;
        }
        if (gf_trace_add(t, &e, &d, err) != 0) {
            rc = -1;
            break;
        }
        thr = gf_trace_drop_thr(t, 1);
    }
    flush_dropped(t, &pend);
    gf_hmap_free(&lanes);
    gf_hmap_free(&g.cls);
    gf_csv_close(c);
    return rc < 0 ? -1 : 0;
oom:
    gf_hmap_free(&lanes);
    gf_hmap_free(&g.cls);
    gf_csv_close(c);
    return gf_oom(err, path);
}

int gf_trace_import_csv(gf_trace *t, const char *api_path, const gf_trace_csv_cols *api, const char *gpu_path,
                        const gf_trace_csv_cols *gpu, gf_err *err)
{
    /* GPU rows first: CSVs carry no stacks to inherit, and the launch calls of the GPU work kept so far
     * can then be set aside in the same pass (no second read of the API CSV) */
    t->any_pid = 1;
    if (gpu_path && import_gpu(t, gpu_path, gpu, err) != 0)
        return -1;
    if (gf_trace_collect_partners(t, err) != 0)
        return -1;
    if (api_path && import_api(t, api_path, api, 0, err) != 0)
        return -1;
    gf_trace_set_source(t, gpu_path ? gpu_path : api_path ? api_path : "");
    return gf_trace_finish(t, err);
}
