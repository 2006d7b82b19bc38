/* The timeline page's packed event columns (trace_pack.c): the columns compressed on worker threads
 * (limits.threads) give the page that one thread writes, byte for byte, compressed or not; the columns are
 * written in their order even when a later one is ready first (planted: the first column is the slowest);
 * each column decodes to the model's values; a compressed column is its varints cut every 1 MiB, each
 * chunk the raw DEFLATE stream that compressing it at once gives (zlib inflates what libdeflate wrote). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <zlib.h>

#include "tap.h"
#include "trace.h"
#include "trace_pack.h"
#include "trace_build.h"
#include "trace_json.h"

static unsigned long long rng = 0x2545f4914f6cdd1dull;
static uint64_t xr(void)
{
    return tap_xorshift(&rng);
}

/* What a writer put into the memory stream f over *buf (set when f is closed): *buf, or NULL (freed) when rc
 * says it failed. */
static char *captured(FILE *f, char **buf, int rc)
{
    if (f)
        fclose(f);
    if (rc != 0) {
        free(*buf);
        return NULL;
    }
    return *buf;
}

/* The timeline JSON of t at this thread count (malloc'd), NULL on failure. */
static char *page(const gf_trace *t, int compress, int threads, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    gf_err err;
    gf_timeline_opts o = {"t", 0, "busiest", compress, 8, 0, threads};
    return captured(f, &buf, f ? gf_trace_write_timeline_json(t, f, &o, &err) : -1);
}

/* The preview JSON of t, standalone (page NULL) or from a begun page whose data is then written too. */
static char *preview(const gf_trace *t, int begun, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    gf_err err;
    gf_timeline_opts o = {"t", 0, "busiest", 1, 8, 1, 2};
    gf_timeline_page *pg = NULL;
    int rc = !f ? -1 : begun ? gf_trace_timeline_begin(t, &o, &pg, &err) : 0;
    if (rc == 0)
        rc = gf_trace_timeline_write_preview(t, pg, f, &o, &err);
    if (rc == 0 && pg) { /* the data after the preview, once: a second time is an error */
        FILE *null = fopen("/dev/null", "w");
        rc = null && gf_trace_timeline_write(t, pg, null, &o, &err) == 0 &&
                     gf_trace_timeline_write(t, pg, null, &o, &err) != 0 ? 0 : -1;
        if (null)
            fclose(null);
    }
    gf_trace_timeline_free(pg);
    return captured(f, &buf, rc);
}

/* Base64 text s[0..n) decoded into a malloc'd buffer. */
static unsigned char *unbase64(const char *s, size_t n, size_t *out)
{
    unsigned char *b = malloc(n / 4 * 3 + 3);
    size_t k = 0;
    uint32_t v = 0;
    int bits = 0;
    for (size_t i = 0; b && i < n && s[i] != '='; i++) {
        const char *p = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", s[i]);
        if (!p || !*p) {
            free(b);
            return NULL;
        }
        v = v << 6 | (uint32_t)(p - "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            b[k++] = (unsigned char)(v >> bits);
        }
    }
    *out = k;
    return b;
}

static unsigned char *inflate_raw(const unsigned char *in, size_t len, size_t *out)
{
    size_t cap = len * 8 + 1024, n = 0;
    unsigned char *b = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!b || inflateInit2(&z, -15) != Z_OK) {
        free(b);
        return NULL;
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)len;
    int rc;
    do {
        if (n == cap) {
            cap *= 2;
            unsigned char *q = realloc(b, cap);
            if (!q)
                break;
            b = q;
        }
        z.next_out = b + n;
        z.avail_out = (uInt)(cap - n);
        rc = inflate(&z, Z_NO_FLUSH);
        n = cap - z.avail_out;
    } while (rc == Z_OK);
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(b);
        return NULL;
    }
    *out = n;
    return b;
}

/* The varints of column `name` (the first after `from` in the page's events): its text starts at *at (for a
 * compressed column, its array's first chunk), *n bytes up to its closing quote or bracket; compressed, the
 * chunks are inflated and joined (*chunks of them; *first: the first one's inflated length). malloc'd. */
static unsigned char *column_bytes(const char *from, const char *name, int compressed, const char **at, size_t *n,
                                   size_t *len, size_t *chunks, size_t *first)
{
    char key[32];
    snprintf(key, sizeof key, compressed ? "\"%s\":[" : "\"%s\":\"", name);
    const char *ev = strstr(from, "\"events\":{");
    const char *s = strstr(ev ? ev : from, key);
    if (!s)
        return NULL;
    s += strlen(key);
    *at = s;
    *n = (size_t)(strchr(s, compressed ? ']' : '"') - s);
    *chunks = *first = 0;
    if (!compressed)
        return unbase64(s, *n, len);
    unsigned char *all = NULL;
    size_t have = 0;
    for (const char *q = s; q < s + *n && *q == '"';) {
        const char *e = strchr(q + 1, '"');
        size_t blen, vlen;
        unsigned char *b = unbase64(q + 1, (size_t)(e - q - 1), &blen), *v = b ? inflate_raw(b, blen, &vlen) : NULL;
        free(b);
        unsigned char *grown = v ? realloc(all, have + vlen + 1) : NULL;
        if (!grown) {
            free(v);
            free(all);
            return NULL;
        }
        all = grown;
        memcpy(all + have, v, vlen);
        have += vlen;
        free(v);
        if ((*chunks)++ == 0)
            *first = vlen;
        q = e + 1 + (e[1] == ',');
    }
    *len = have;
    return all;
}

/* Column `name`'s numbers (malloc'd, *count of them); as column_bytes. */
static uint64_t *column(const char *from, const char *name, int compressed, const char **at, size_t *n, size_t *count)
{
    size_t vlen, chunks, first;
    unsigned char *v = column_bytes(from, name, compressed, at, n, &vlen, &chunks, &first);
    if (!v)
        return NULL;
    uint64_t *x = malloc((vlen + 1) * sizeof *x);
    size_t k = 0;
    for (size_t i = 0; x && i < vlen;) {
        uint64_t w = 0;
        int sh = 0;
        while (i < vlen && (v[i] & 0x80)) {
            w |= (uint64_t)(v[i++] & 0x7f) << sh;
            sh += 7;
        }
        if (i < vlen)
            w |= (uint64_t)v[i++] << sh;
        x[k++] = w;
    }
    free(v);
    *count = k;
    return x;
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* The column's array text as the writer should give it for these varints: cut every 1 MiB, each chunk
 * compressed at once by libdeflate at level 1, base64, quoted, comma-separated. malloc'd. */
static char *chunked(const unsigned char *buf, size_t len, size_t *n)
{
    enum { CHUNK = 1 << 20 };
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(1);
    size_t cap = z ? libdeflate_deflate_compress_bound(z, CHUNK) : 0;
    unsigned char *zb = malloc(cap ? cap : 1);
    char *s = NULL;
    FILE *f = z && zb ? open_memstream(&s, n) : NULL;
    for (size_t off = 0; f && (off < len || off == 0); off += CHUNK) {
        size_t part = len - off < CHUNK ? len - off : CHUNK;
        size_t zl = libdeflate_deflate_compress(z, buf + off, part, zb, cap);
        fputs(off ? ",\"" : "\"", f);
        gf_base64_write(f, zb, zl);
        putc('"', f);
        if (len == 0)
            break;
    }
    if (f)
        fclose(f);
    if (z)
        libdeflate_free_compressor(z);
    free(zb);
    return s;
}

int main(void)
{
    /* 200,000 events: the start column (random gaps up to 2^40 ns: ~6 incompressible bytes each) is the
     * largest and slowest, the kind and lane columns are tiny: with 8 threads the later columns are ready
     * long before the first one */
    enum { N = 200000, NLANES = 5, NNAMES = 40 };
    gf_trace *t = gf_trace_new();
    gf_err err;
    gf_trace_begin(t, 0, 0, &err);
    int32_t lanes[NLANES], names[NNAMES];
    for (int l = 0; l < NLANES; l++)
        lanes[l] = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, gf_strtab_intern_cstr(t->str, "GPU (0)"), 0, l, &err);
    for (int k = 0; k < NNAMES; k++) {
        char nm[16];
        snprintf(nm, sizeof nm, "k%d", k);
        names[k] = gf_strtab_intern_cstr(t->str, nm);
    }
    int64_t at = 1000;
    for (int i = 0; i < N; i++) {
        at += (int64_t)(xr() % (1ull << 40));
        int has = (int)(xr() % 4 == 0);
        gf_event e = {.start = at, .dur = (int64_t)(xr() % 100000), .corr = xr() % 3 ? (int64_t)(i * 2 + 7) : -1,
                      .lane = lanes[xr() % NLANES], .name = names[xr() % NNAMES], .stack = -1, .pid = 1,
                      .kind = GF_EV_KERNEL, .has_detail = (uint8_t)has};
        gf_detail d;
        gf_detail_clear(&d);
        d.grid[0] = (int32_t)(xr() % 7), d.grid[1] = 1, d.grid[2] = 1;
        d.block[0] = 128, d.block[1] = 1, d.block[2] = 1;
        d.regs = 32;
        gf_trace_add(t, &e, has ? &d : NULL, &err);
    }
    CHECK("a 200,000-event model", gf_trace_finish(t, &err) == 0 && t->n == N);

    size_t l1, ln;
    for (int compress = 1; compress >= 0; compress--) {
        char *p1 = page(t, compress, 1, &l1);
        int same = p1 != NULL;
        for (int th = 2; th <= 8 && same; th += 3) { /* 2, 5, 8 */
            char *pn = page(t, compress, th, &ln);
            same = pn && ln == l1 && memcmp(p1, pn, l1) == 0;
            free(pn);
        }
        char *pz = page(t, compress, 0, &ln); /* 0: one per CPU */
        same = same && pz && ln == l1 && memcmp(p1, pz, l1) == 0;
        free(pz);
        CHECK(compress ? "compressed: the page at threads 2, 5, 8 and 0 is the page at threads 1, byte for byte"
                       : "uncompressed: the page at threads 2, 5, 8 and 0 is the page at threads 1, byte for byte",
              same);
        free(p1);
    }

    /* the preview of a begun page (its rows and opening view found once, for the data too) is the preview
     * found on its own, byte for byte, and not "null" (the busiest view of 8 events is a small part) */
    size_t lp, lb;
    char *pv = preview(t, 0, &lp), *pb = preview(t, 1, &lb);
    CHECK("the preview of a begun page is the standalone preview, byte for byte; its data is written once only",
          pv && pb && lp == lb && lp > 100 && memcmp(pv, pb, lp) == 0 && strstr(pv, "\"preview\":true"));
    free(pv);
    free(pb);

    /* planted order: at 8 threads the columns come in the page's order, each holding its own values */
    char *pg = page(t, 1, 8, &ln);
    static const char *const cols[] = {"start", "dur", "lane", "corr", "name", "stack", "kind", "detail"};
    const char *prev = pg, *s;
    size_t n, cnt;
    int ordered = pg != NULL;
    for (int c = 0; c < 8 && ordered; c++) {
        uint64_t *v = column(prev, cols[c], 1, &s, &n, &cnt);
        ordered = v && cnt == N && s > prev;
        prev = s;
        free(v);
    }
    CHECK("planted: the 8 columns in their order (start ... detail), each with 200,000 numbers", ordered);
    uint64_t *st = pg ? column(pg, "start", 1, &s, &n, &cnt) : NULL;
    int ok = st && cnt == N;
    int64_t sum = 0, first = 0;
    for (size_t i = 0; ok && i < N; i++) {
        sum += unzigzag(st[i]);
        if (i == 0)
            first = sum;
        ok = sum - first == t->start[i] - t->start[0];
    }
    free(st);
    CHECK("planted: the first (slowest) column holds the starts", ok);
    uint64_t *du = pg ? column(pg, "dur", 1, &s, &n, &cnt) : NULL, *co = pg ? column(pg, "corr", 1, &s, &n, &cnt) : NULL;
    ok = du && co && cnt == N;
    int64_t last = 0;
    for (size_t i = 0; ok && i < N; i++) {
        ok = du[i] == (uint64_t)t->dur[i] && (t->corr[i] < 0 ? co[i] == 0 : unzigzag(co[i] - 1) == t->corr[i] - last);
        if (t->corr[i] >= 0)
            last = t->corr[i];
    }
    CHECK("the dur and corr columns hold the model's durations and correlation deltas", ok);

    /* the start column (~6 bytes an event: over 1 MiB) is two chunks, the first of exactly 1 MiB; each chunk is
     * its part of the column compressed at once, however the writer cut the column into pieces */
    size_t vlen, chunks, first_len, on;
    unsigned char *sv = pg ? column_bytes(pg, "start", 1, &s, &n, &vlen, &chunks, &first_len) : NULL;
    char *want = sv ? chunked(sv, vlen, &on) : NULL;
    CHECK("the start column: 2 chunks, the first 1 MiB of varints, each the DEFLATE stream of its part at once",
          sv && chunks == 2 && first_len == 1u << 20 && vlen > first_len && want && n == on && memcmp(s, want, n) == 0);
    free(want);
    free(sv);
    free(du);
    free(co);
    free(pg);

    /* two steps, freed before writing (an error between start and write) while the workers wait for the
     * detail column's rows, which never come: they are woken and joined */
    gf_pack_job *job = NULL;
    int32_t *ident = malloc((t->nlanes + NNAMES + 64 + gf_strtab_count(t->str)) * sizeof *ident);
    for (size_t i = 0; ident && i < t->nlanes + NNAMES + 64 + gf_strtab_count(t->str); i++)
        ident[i] = (int32_t)i;
    gf_pack_maps m = {t->start[0], ident, ident, ident, NULL, 1, NULL, 0, 1};
    CHECK("a started job freed unwritten (its rows never handed over) wakes, stops and joins its workers",
          ident && gf_trace_pack_start(t, &m, 8, &job, &err) == 0 && (gf_trace_pack_free(job), 1));
    free(ident);
    gf_trace_free(t);
    return tap_done();
}
