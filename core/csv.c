/* Streaming CSV reader on libcsv (see csv.h).
 *
 * libcsv is push-based (callbacks per field and per row); this file turns it into a pull reader.
 * The file is read in 64 KiB chunks; each chunk is fed to libcsv one line segment at a time so the
 * reader knows the file line where each row starts (a quoted field may span lines). Completed rows
 * queue up in one arena (bytes + field offsets) that is recycled once they are all handed out, so
 * memory stays at about one chunk whatever the file size. A whole line that starts between rows is split
 * here without libcsv when its fields are plain (fast_line: one copy, split in place; the result is the
 * one libcsv gives), which reads nsys stats CSVs several times faster; any other line goes to libcsv. */
#define GF_CSV_LIBCSV
#include <stddef.h>
#include <stdint.h>
#include <csv.h> /* core/csv.h, then libcsv's csv.h through #include_next */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mem.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define CHUNK (64 * 1024)
#define CHUNK_PAD 80 /* inplace_line reads whole 64-byte blocks past the data */
/* libcsv's parser states (struct csv_parser.pstate, public in csv.h; values from libcsv.c) */
#define ROW_NOT_BEGUN 0
#define FIELD_BEGUN 2

typedef gf_csv_span fld;

typedef struct row {
    size_t f0, nf, line;
    int in_chunk; /* fields are offsets into chunk (split in place), not into bytes */
} row;

struct gf_csv {
    FILE *fp;
    char *path;
    char *disp;
    struct csv_parser p;
    int p_init;
    int skip_preamble, allow_short;
    char *hint;

    unsigned char *chunk;
    size_t chunk_len, chunk_pos;
    int at_start;     /* nothing read yet (BOM check) */
    int eof, stopped; /* stopped: blank line ended a stdout table */
    size_t line;      /* line of the next byte fed */
    size_t row_start; /* line where the row being parsed started */

    /* preamble mode: the raw line being collected before the header is found */
    int in_preamble;
    char *pre;
    size_t pre_len, pre_cap;

    /* arena of parsed rows */
    char *bytes;
    size_t blen, bcap;
    fld *flds;
    size_t nf, fcap;
    row *rows;
    size_t nrows, rcap, rpos;
    size_t cur_f0; /* first field of the row in progress */
    int oom;

    char **cols;
    size_t ncols;
    const row *cur;
    size_t cur_line;
    size_t returned;
};

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return 0;
    return 1;
}

/* Field i (< r->nf) of row r. */
static inline const char *row_field(const gf_csv *c, const row *r, size_t i, size_t *len)
{
    const fld *f = &c->flds[r->f0 + i];
    *len = f->len;
    return (r->in_chunk ? (const char *)c->chunk : c->bytes) + f->off;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    return gf_grow(&p, cap, need, elem, 64) == 0 ? p : NULL;
}

/* libcsv grows its field buffer by blk_size bytes at a time (quadratic copying on a 50 MB field); this
 * realloc keeps a capacity header and doubles, so libcsv's small steps mostly cost nothing. */
typedef struct geo_hdr {
    size_t cap;
    max_align_t pad[];
} geo_hdr;

static void *geo_realloc(void *p, size_t n)
{
    geo_hdr *h = p ? (geo_hdr *)p - 1 : NULL;
    if (h && n <= h->cap)
        return p;
    size_t cap = h ? h->cap : 64;
    while (cap < n) {
        if (cap > SIZE_MAX / 2 - sizeof *h)
            return NULL;
        cap *= 2;
    }
    geo_hdr *q = realloc(h, sizeof *h + cap);
    if (!q)
        return NULL;
    q->cap = cap;
    return q + 1;
}

static void geo_free(void *p)
{
    if (p)
        free((geo_hdr *)p - 1);
}

static int csv_init_geo(struct csv_parser *p)
{
    if (csv_init(p, 0) != 0)
        return -1;
    csv_set_realloc_func(p, geo_realloc);
    csv_set_free_func(p, geo_free);
    return 0;
}

static void on_field(void *s, size_t len, void *ud)
{
    gf_csv *c = ud;
    if (c->blen + len + 9 <= c->bcap && c->nf < c->fcap) { /* fast path: room in the arena (+ 8: see csv.h) */
        char *d = c->bytes + c->blen;
        if (len)
            memcpy(d, s, len);
        d[len] = '\0';
        c->flds[c->nf].off = c->blen;
        c->flds[c->nf].len = len;
        c->nf++;
        c->blen += len + 1;
        return;
    }
    if (c->oom)
        return;
    char *b = grow(c->bytes, &c->bcap, c->blen + len + 9, 1);
    fld *f = grow(c->flds, &c->fcap, c->nf + 1, sizeof *f);
    if (b)
        c->bytes = b;
    if (f)
        c->flds = f;
    if (!b || !f) {
        c->oom = 1;
        return;
    }
    if (len)
        memcpy(c->bytes + c->blen, s, len);
    c->bytes[c->blen + len] = '\0';
    c->flds[c->nf].off = c->blen;
    c->flds[c->nf].len = len;
    c->nf++;
    c->blen += len + 1;
}

static void on_row(int term, void *ud)
{
    (void)term;
    gf_csv *c = ud;
    if (c->oom)
        return;
    row *r = grow(c->rows, &c->rcap, c->nrows + 1, sizeof *r);
    if (!r) {
        c->oom = 1;
        return;
    }
    c->rows = r;
    c->rows[c->nrows].f0 = c->cur_f0;
    c->rows[c->nrows].nf = c->nf - c->cur_f0;
    c->rows[c->nrows].line = c->row_start;
    c->rows[c->nrows].in_chunk = 0;
    c->nrows++;
    c->cur_f0 = c->nf;
}

/* Fast path for one whole line (s[n-1] == '\n') met between rows: splits it without libcsv when every
 * field is either unquoted without quotes or CR, or quoted from its first byte to a closing quote that is
 * followed by the delimiter or the line end — what libcsv (options 0, no space trimming) yields too. Any
 * other line (a quote inside an unquoted field, text after a closing quote, a quoted field running onto
 * the next line, a CR before the line end) returns 0 with nothing queued, and libcsv parses it. */

/* The first i in [r, end) with d[i] one of , " CR, or end. Reads up to 8 bytes past end (the arena has
 * room). Eight bytes at a time where words are little-endian: the lowest byte flagged by the zero-byte
 * test is exact (borrows only reach higher bytes). */
static size_t stop_at(const char *d, size_t r, size_t end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    for (size_t i = r; i < end; i += 8) {
        uint64_t x;
        memcpy(&x, d + i, 8);
        uint64_t a = x ^ (ones * ','), q = x ^ (ones * '"'), cr = x ^ (ones * '\r');
        uint64_t m = ((a - ones) & ~a) | ((q - ones) & ~q) | ((cr - ones) & ~cr);
        m &= high;
        if (m) {
            size_t p = i + (size_t)(__builtin_ctzll(m) >> 3);
            return p < end ? p : end;
        }
    }
    return end;
#else
    static const unsigned char fast_stop[256] = {[','] = 1, ['"'] = 1, ['\r'] = 1};
    while (r < end && !fast_stop[(unsigned char)d[r]])
        r++;
    return r;
#endif
}

static int fast_line(gf_csv *c, const char *s, size_t n)
{
    size_t end = n - 1;
    if (end && s[end - 1] == '\r')
        end--;
    if (end == 0)
        return 1; /* an empty line: libcsv reports no row */
    if (c->blen + end + 9 > c->bcap) { /* + 8: stop_at reads whole words */
        char *b = grow(c->bytes, &c->bcap, c->blen + end + 9, 1);
        if (!b)
            return 0;
        c->bytes = b;
    }
    /* The line is copied once and split in place: separators become NULs, quoted fields are unescaped
     * towards the left (w <= r throughout). */
    size_t nf0 = c->nf, base = c->blen, r = 0, w = 0;
    char *d = c->bytes + base;
    memcpy(d, s, end);
    for (;;) {
        size_t f0 = w;
        if (r < end && d[r] == '"') {
            for (r++;;) {
                const char *q = memchr(d + r, '"', end - r);
                if (!q)
                    goto fallback; /* the quoted field goes on past this line */
                size_t k = (size_t)(q - (d + r));
                if (w != r)
                    memmove(d + w, d + r, k);
                w += k;
                r += k + 1;
                if (r < end && d[r] == '"') { /* "" stands for one quote */
                    d[w++] = '"';
                    r++;
                    continue;
                }
                break;
            }
        } else {
            size_t i = stop_at(d, r, end);
            if (w != r)
                memmove(d + w, d + r, i - r);
            w += i - r;
            r = i;
        }
        if (r < end && d[r] != ',')
            goto fallback;
        if (c->nf >= c->fcap) {
            fld *f = grow(c->flds, &c->fcap, c->nf + 1, sizeof *f);
            if (!f)
                goto fallback;
            c->flds = f;
        }
        d[w] = '\0';
        c->flds[c->nf].off = base + f0;
        c->flds[c->nf].len = w - f0;
        c->nf++;
        w++;
        if (r >= end)
            break;
        r++;
    }
    c->blen = base + w;
    on_row(0, c);
    return !c->oom;
fallback:
    c->nf = nf0;
    c->blen = base;
    return 0;
}

/* Bit k set when s[k] (k < 16) is one of a, b, cc, d; s has 16 readable bytes. */
static unsigned mask16(const char *s, char a, char b, char cc, char d)
{
#if defined(__SSE2__)
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(a)), _mm_cmpeq_epi8(x, _mm_set1_epi8(b))),
                             _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(cc)), _mm_cmpeq_epi8(x, _mm_set1_epi8(d))));
    return (unsigned)_mm_movemask_epi8(m);
#else
    unsigned m = 0;
    for (int k = 0; k < 16; k++)
        m |= (unsigned)(s[k] == a || s[k] == b || s[k] == cc || s[k] == d) << k;
    return m;
#endif
}

/* The first i in [p, left) with s[i] one of a, b, cc, d; left when none. */
static size_t find4(const char *s, size_t p, size_t left, char a, char b, char cc, char d)
{
    for (; p < left; p += 16) {
        unsigned m = mask16(s + p, a, b, cc, d);
        if (left - p < 16)
            m &= (1u << (left - p)) - 1;
        if (m)
            return p + (size_t)__builtin_ctz(m);
    }
    return left;
}

/* Bits of the commas (*cm) and of the other bytes that matter (LF, quote, CR: *sm) in s[0..64) below n;
 * s has 64 readable bytes. */
static inline void masks64(const char *s, size_t n, uint64_t *cm, uint64_t *sm)
{
    uint64_t c = 0, o = 0;
#if defined(__SSE2__)
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * k));
        __m128i sp = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(x, _mm_set1_epi8('"'))),
                                  _mm_cmpeq_epi8(x, _mm_set1_epi8('\r')));
        c |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(','))) << (16 * k);
        o |= (uint64_t)(unsigned)_mm_movemask_epi8(sp) << (16 * k);
    }
#else
    for (int k = 0; k < 64; k++) {
        c |= (uint64_t)(s[k] == ',') << k;
        o |= (uint64_t)(s[k] == '\n' || s[k] == '"' || s[k] == '\r') << k;
    }
#endif
    uint64_t keep = n < 64 ? (UINT64_C(1) << n) - 1 : ~UINT64_C(0);
    *cm = c & keep;
    *sm = o & keep;
}

/* The zero-copy path for a whole line at the start of s[0..left) (left > 0), met between rows: the same
 * split as fast_line, but in place in the chunk (fields point into it; separators, closing quotes and the
 * line end become NULs) and in one pass that also finds the line end, from bitmasks 64 bytes at a time:
 * the commas before the first LF, quote or CR are fields without looking at their bytes. Only lines whose
 * quoted fields hold no quote ("") and no line break; returns the bytes consumed, or 0 with nothing
 * changed (the line goes through segment: an empty or blank line, a line the chunk cuts, anything else). */
static size_t inplace_line(gf_csv *c, size_t pos, size_t left)
{
    char *s = (char *)c->chunk + pos;
    size_t nf0 = c->nf, nf = nf0, f0 = 0, used = 0, bp = 0;
    fld *fl = c->flds; /* locals: the stores below would otherwise reload c's fields each time */
    uint64_t cm, sm;
    masks64(s, left, &cm, &sm);
    for (;;) {
        uint64_t cc = sm ? cm & ((sm & (~sm + 1)) - 1) : cm; /* the commas before the first special byte */
        if (cc && nf + 64 > c->fcap) { /* room for all of the block's commas: no test per field */
            if (!(fl = grow(c->flds, &c->fcap, nf + 64, sizeof *fl)))
                goto bail;
            c->flds = fl;
        }
        for (; cc; cc &= cc - 1) {
            size_t q = bp + (unsigned)__builtin_ctzll(cc);
            fl[nf].off = pos + f0;
            fl[nf].len = q - f0;
            nf++;
            s[q] = '\0'; /* put back by undo() if the line bails later */
            f0 = q + 1;
        }
        if (!sm) {
            bp += 64;
            if (bp >= left)
                goto bail; /* the line goes on in the next chunk */
            masks64(s + bp, left - bp, &cm, &sm);
            continue;
        }
        size_t q = bp + (size_t)__builtin_ctzll(sm), end = q, off = f0;
        char ch = s[q];
        if (ch == '"') {
            if (q != f0)
                goto bail; /* a quote inside an unquoted field */
            end = find4(s, q + 1, left, '"', '\n', '"', '\n');
            if (end + 1 >= left || s[end] != '"')
                goto bail; /* a line break inside the quotes, or the chunk ends */
            off = q + 1;
            q = end + 1; /* what follows the closing quote */
            ch = s[q];
            if (ch != ',' && ch != '\n' && ch != '\r')
                goto bail; /* "" inside, or text after the closing quote */
        }
        if (ch == '\r') {
            if (q + 1 >= left || s[q + 1] != '\n')
                goto bail; /* a CR that does not end the line */
            q++;
            ch = '\n';
        }
        if (nf >= c->fcap) {
            if (!(fl = grow(c->flds, &c->fcap, nf + 1, sizeof *fl)))
                goto bail;
            c->flds = fl;
        }
        fl[nf].off = pos + off;
        fl[nf].len = end - off;
        nf++;
        if (ch == '\n') {
            used = q + 1;
            break;
        }
        s[end] = '\0'; /* the closing quote of a field followed by a comma */
        f0 = bp = q + 1;
        masks64(s + bp, left - bp, &cm, &sm);
    }
    if (nf - nf0 == 1 && is_blank(s + fl[nf0].off - pos, fl[nf0].len))
        goto bail; /* an empty line (no row) or one of blanks (the end of a stdout table) */
    if (c->nrows >= c->rcap) {
        row *r = grow(c->rows, &c->rcap, c->nrows + 1, sizeof *r);
        if (!r)
            goto bail;
        c->rows = r;
    }
    c->chunk[fl[nf - 1].off + fl[nf - 1].len] = '\0'; /* the line end, or the last closing quote */
    c->rows[c->nrows] = (row){nf0, nf - nf0, c->line, 1};
    c->nrows++;
    c->nf = c->cur_f0 = nf;
    c->line++;
    return used;
bail:
    /* undo: every field but a line's last ends where a comma or a closing quote was; a quoted field's
     * opening quote is still there just before it (an unquoted one follows a comma or a NUL) */
    for (size_t i = nf0; i < nf && !(used && i == nf - 1); i++) {
        size_t o = fl[i].off - pos;
        s[o + fl[i].len] = o > 0 && s[o - 1] == '"' ? '"' : ',';
    }
    return 0;
}

/* Drops the rows already handed out, keeping the fields of the row in progress. */
static void compact(gf_csv *c)
{
    size_t keep = c->nf - c->cur_f0;
    size_t boff = keep ? c->flds[c->cur_f0].off : c->blen;
    if (c->blen > boff)
        memmove(c->bytes, c->bytes + boff, c->blen - boff);
    c->blen -= boff;
    for (size_t i = 0; i < keep; i++) {
        c->flds[i] = c->flds[c->cur_f0 + i];
        c->flds[i].off -= boff;
    }
    c->nf = keep;
    c->cur_f0 = 0;
    c->nrows = c->rpos = 0;
    c->cur = NULL;
}


static int feed(gf_csv *c, const void *s, size_t n, gf_err *err)
{
    if (csv_parse(&c->p, s, n, on_field, on_row, c) != n || c->oom)
        return gf_errf(err, GF_EXIT_INPUT, "%s:%zu: CSV parse failed: %s", c->disp, c->line,
                       c->oom ? "out of memory" : csv_strerror(csv_error(&c->p)));
    return 0;
}

static void trim(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

/* Preamble mode: is this raw line the header? Parsed on its own with a scratch parser. */
typedef struct probe {
    const char *hint;
    int nfields, hit;
} probe;

static void probe_field(void *s, size_t len, void *ud)
{
    probe *pr = ud;
    const char *f = s;
    pr->nfields++;
    if (len >= 3 && (unsigned char)f[0] == 0xEF && (unsigned char)f[1] == 0xBB && (unsigned char)f[2] == 0xBF) {
        f += 3;
        len -= 3;
    }
    trim(&f, &len);
    if (pr->hint && strlen(pr->hint) == len && strncasecmp(f, pr->hint, len) == 0)
        pr->hit = 1;
}

static int no_space(unsigned char ch)
{
    (void)ch;
    return 0;
}

static int line_is_header(gf_csv *c, const char *s, size_t n)
{
    struct csv_parser p;
    probe pr = {c->hint, 0, 0};
    if (csv_init_geo(&p) != 0)
        return 0;
    csv_parse(&p, s, n, probe_field, NULL, &pr);
    csv_fini(&p, probe_field, NULL, &pr);
    csv_free(&p);
    return c->hint ? pr.hit : pr.nfields >= 2;
}

/* Handles one raw line segment (ending in '\n' or the end of the chunk). */
static int segment(gf_csv *c, const char *s, size_t n, gf_err *err)
{
    int nl = n && s[n - 1] == '\n';
    if (c->in_preamble) {
        char *b = grow(c->pre, &c->pre_cap, c->pre_len + n + 1, 1);
        if (!b)
            return gf_oom(err, c->disp);
        c->pre = b;
        memcpy(c->pre + c->pre_len, s, n);
        c->pre_len += n;
        if (!nl && !c->eof)
            return 0; /* the line continues in the next chunk */
        if (line_is_header(c, c->pre, c->pre_len)) {
            c->in_preamble = 0;
            c->row_start = c->line;
            if (feed(c, c->pre, c->pre_len, err) != 0)
                return -1;
        }
        c->pre_len = 0;
        if (nl)
            c->line++;
        return 0;
    }
    if (c->p.pstate == ROW_NOT_BEGUN) {
        if (c->skip_preamble && nl && is_blank(s, n)) { /* the header was found */
            c->stopped = 1; /* nsys prints a blank line after the table */
            return 0;
        }
        c->row_start = c->line;
        if (nl && fast_line(c, s, n)) {
            c->line++;
            return 0;
        }
    }
    if (feed(c, s, n, err) != 0)
        return -1;
    if (nl)
        c->line++;
    return 0;
}

/* Parses until a row is queued or the input ends. Returns 1 if a row is available, 0 at the end. */
static int fill(gf_csv *c, gf_err *err)
{
    while (c->rpos >= c->nrows) {
        if (c->eof || c->stopped)
            return 0;
        compact(c);
        if (c->chunk_pos >= c->chunk_len) {
            c->chunk_len = fread(c->chunk, 1, CHUNK, c->fp);
            c->chunk_pos = 0;
            if (c->chunk_len == 0) {
                if (ferror(c->fp))
                    return gf_errf(err, GF_EXIT_INPUT, "%s:%zu: read error: %s", c->disp, c->line, strerror(errno));
                c->eof = 1;
                if (c->in_preamble && c->pre_len && segment(c, "", 0, err) != 0)
                    return -1;
                if (c->p.pstate == FIELD_BEGUN && c->p.quoted)
                    return gf_errf(err, GF_EXIT_INPUT,
                                       "%s:%zu: unterminated quoted field (the quote opened in the row starting on "
                                       "this line is still open at the end of the file)",
                                       c->disp, c->row_start);
                if (csv_fini(&c->p, on_field, on_row, c) != 0)
                    return gf_errf(err, GF_EXIT_INPUT, "%s: CSV parse failed at end of file: %s", c->disp,
                                   csv_strerror(csv_error(&c->p)));
                if (c->oom)
                    return gf_oom(err, c->disp);
                continue;
            }
            if (c->at_start) {
                c->at_start = 0;
                if (c->chunk_len >= 3 && c->chunk[0] == 0xEF && c->chunk[1] == 0xBB && c->chunk[2] == 0xBF)
                    c->chunk_pos = 3;
            }
        }
        /* Feed the chunk line by line until a row is queued: one row's fields at a time stay in cache. */
        while (c->chunk_pos < c->chunk_len && !c->stopped && c->rpos >= c->nrows) {
            if (!c->in_preamble && c->p.pstate == ROW_NOT_BEGUN) {
                size_t used = inplace_line(c, c->chunk_pos, c->chunk_len - c->chunk_pos);
                if (used) {
                    c->chunk_pos += used;
                    continue;
                }
            }
            const char *s = (const char *)c->chunk + c->chunk_pos;
            size_t left = c->chunk_len - c->chunk_pos;
            const char *e = memchr(s, '\n', left);
            size_t n = e ? (size_t)(e - s) + 1 : left;
            if (segment(c, s, n, err) != 0)
                return -1;
            c->chunk_pos += n;
        }
    }
    return 1;
}

static const char *disp_of(const gf_csv *c)
{
    return c->disp;
}

int gf_csv_open(gf_csv **out, const char *path, const gf_csv_opts *opts, gf_err *err)
{
    *out = NULL;
    gf_csv *c = calloc(1, sizeof *c);
    if (!c)
        return gf_oom(err, path);
    c->path = strdup(path);
    c->disp = strdup(opts && opts->display_name ? opts->display_name : path);
    c->chunk = calloc(1, CHUNK + CHUNK_PAD);
    c->line = 1;
    c->row_start = 1;
    c->at_start = 1;
    if (opts) {
        c->skip_preamble = opts->skip_preamble;
        c->allow_short = opts->allow_short_rows;
        c->hint = opts->header_hint ? strdup(opts->header_hint) : NULL;
    }
    c->in_preamble = c->skip_preamble;
    if (!c->path || !c->disp || !c->chunk || (opts && opts->header_hint && !c->hint)) {
        gf_csv_close(c);
        return gf_oom(err, path);
    }
    if (csv_init_geo(&c->p) != 0) {
        gf_csv_close(c);
        return gf_errf(err, GF_EXIT_ERROR, "%s: cannot initialise the CSV parser", path);
    }
    /* Fields keep their spaces, as Python's csv module does (an NVTX range may end in a space);
     * header names and numbers are trimmed where they are used. */
    csv_set_space_func(&c->p, no_space);
    c->p_init = 1;
    c->fp = fopen(path, "rb");
    if (!c->fp) {
        int e = errno;
        gf_errf(err, GF_EXIT_INPUT, "%s: cannot open: %s", c->disp, strerror(e));
        gf_csv_close(c);
        return -1;
    }
    int rc = fill(c, err);
    if (rc < 0) {
        gf_csv_close(c);
        return -1;
    }
    if (rc == 0) {
        if (c->skip_preamble)
            gf_errf(err, GF_EXIT_NO_DATA, "%s: no CSV header found%s%s%s", c->disp, c->hint ? " (no line with a '" : "",
                    c->hint ? c->hint : "", c->hint ? "' column)" : "");
        else
            gf_errf(err, GF_EXIT_NO_DATA, "%s: empty file (no CSV header)", c->disp);
        gf_csv_close(c);
        return -1;
    }
    const row *h = &c->rows[c->rpos++];
    c->cur_line = h->line;
    c->cols = calloc(h->nf ? h->nf : 1, sizeof *c->cols);
    if (!c->cols) {
        gf_csv_close(c);
        return gf_oom(err, path);
    }
    c->ncols = h->nf;
    for (size_t i = 0; i < h->nf; i++) {
        size_t n;
        const char *s = row_field(c, h, i, &n);
        if (i == 0 && n >= 3 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
            (unsigned char)s[2] == 0xBF) {
            s += 3;
            n -= 3;
        }
        trim(&s, &n);
        c->cols[i] = strndup(s, n);
        if (!c->cols[i]) {
            gf_csv_close(c);
            return gf_oom(err, path);
        }
    }
    if (c->hint && !c->skip_preamble) {
        const char *a[1] = {c->hint};
        if (gf_csv_find(c, a, 1) < 0) {
            char cols[512];
            gf_errf(err, GF_EXIT_INPUT, "%s:%zu: the header has no '%s' column (columns: %s)", c->disp, c->cur_line,
                    c->hint, gf_csv_columns_str(c, cols, sizeof cols));
            gf_csv_close(c);
            return -1;
        }
    }
    *out = c;
    return 0;
}

void gf_csv_close(gf_csv *c)
{
    if (!c)
        return;
    if (c->fp)
        fclose(c->fp);
    if (c->p_init)
        csv_free(&c->p);
    for (size_t i = 0; i < c->ncols; i++)
        free(c->cols[i]);
    free(c->cols);
    free(c->path);
    free(c->disp);
    free(c->hint);
    free(c->chunk);
    free(c->pre);
    free(c->bytes);
    free(c->flds);
    free(c->rows);
    free(c);
}

const char *gf_csv_path(const gf_csv *c)
{
    return c->path;
}

size_t gf_csv_ncols(const gf_csv *c)
{
    return c->ncols;
}

const char *gf_csv_colname(const gf_csv *c, size_t i)
{
    return i < c->ncols ? c->cols[i] : NULL;
}

int gf_csv_find(const gf_csv *c, const char *const *aliases, size_t n)
{
    for (size_t a = 0; a < n; a++) {
        if (!aliases[a])
            continue;
        const char *s = aliases[a];
        size_t len = strlen(s);
        trim(&s, &len);
        for (size_t i = 0; i < c->ncols; i++)
            if (strlen(c->cols[i]) == len && strncasecmp(c->cols[i], s, len) == 0)
                return (int)i;
    }
    return -1;
}

char *gf_csv_columns_str(const gf_csv *c, char *buf, size_t size)
{
    size_t pos = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < c->ncols && pos + 1 < size; i++) {
        int w = snprintf(buf + pos, size - pos, "%s%s", i ? ", " : "", c->cols[i]);
        if (w < 0)
            break;
        pos += (size_t)w;
    }
    if (pos >= size && size > 4)
        strcpy(buf + size - 4, "...");
    return buf;
}

int gf_csv_next(gf_csv *c, gf_err *err)
{
    for (;;) {
        /* The common case first: between rows, in the middle of a chunk, a plain line split in place
         * (what fill would do, without its loop and compact: no row is in progress, nothing to keep). */
        if (c->rpos >= c->nrows && c->chunk_pos < c->chunk_len && c->p.pstate == ROW_NOT_BEGUN && !c->in_preamble &&
            !c->stopped) {
            c->nf = c->cur_f0 = c->blen = 0;
            c->nrows = c->rpos = 0;
            size_t used = inplace_line(c, c->chunk_pos, c->chunk_len - c->chunk_pos);
            c->chunk_pos += used;
        }
        int rc = c->rpos < c->nrows ? 1 : fill(c, err);
        if (rc <= 0) {
            c->cur = NULL;
            return rc;
        }
        const row *r = &c->rows[c->rpos++];
        c->cur = r;
        c->cur_line = r->line;
        if (r->nf == 1) {
            size_t n0;
            const char *f0 = row_field(c, r, 0, &n0);
            if (is_blank(f0, n0))
                continue; /* a line of spaces */
        }
        if (r->nf != c->ncols && !(c->allow_short && r->nf < c->ncols))
            return gf_errf(err, GF_EXIT_INPUT, "%s:%zu: row has %zu field%s, the header has %zu", disp_of(c), r->line,
                           r->nf, r->nf == 1 ? "" : "s", c->ncols);
        c->returned++;
        return 1;
    }
}

int gf_csv_next_row(gf_csv *c, const char **base, const gf_csv_span **f, size_t *n, gf_err *err)
{
    int rc = gf_csv_next(c, err);
    if (rc == 1) {
        *f = c->flds + c->cur->f0;
        *n = c->cur->nf;
        *base = c->cur->in_chunk ? (const char *)c->chunk : c->bytes;
    }
    return rc;
}

const char *gf_csv_field(const gf_csv *c, size_t i, size_t *len)
{
    if (!c->cur || i >= c->cur->nf) {
        if (len)
            *len = 0;
        return "";
    }
    if (len)
        return row_field(c, c->cur, i, len);
    size_t n;
    return row_field(c, c->cur, i, &n);
}

int gf_csv_require(const gf_csv *c, const int *cols, size_t n, gf_err *err)
{
    size_t nf = gf_csv_nfields(c);
    if (nf >= c->ncols)
        return 0; /* a full row (the common case: runs once per row of multi-million-row CSVs) */
    char missing[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (cols[i] < 0 || (size_t)cols[i] < nf)
            continue;
        int w = snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "",
                         gf_csv_colname(c, (size_t)cols[i]));
        if (w < 0 || (size_t)w >= sizeof missing - used)
            break;
        used += (size_t)w;
    }
    if (!used)
        return 0;
    return gf_errf(err, GF_EXIT_INPUT, "%s:%zu: row ends after %zu of %zu fields; missing %s (a truncated file?)",
                   disp_of(c), gf_csv_line(c), nf, c->ncols, missing);
}

const char *gf_csv_row(const gf_csv *c, const gf_csv_span **f, size_t *n)
{
    static const gf_csv_span none[1];
    if (!c->cur) {
        *f = none;
        *n = 0;
        return "";
    }
    *f = c->flds + c->cur->f0;
    *n = c->cur->nf;
    return c->cur->in_chunk ? (const char *)c->chunk : c->bytes;
}

size_t gf_csv_nfields(const gf_csv *c)
{
    return c->cur ? c->cur->nf : 0;
}

size_t gf_csv_line(const gf_csv *c)
{
    return c->cur_line;
}

size_t gf_csv_rows(const gf_csv *c)
{
    return c->returned;
}

int gf_csv_is_blank(const gf_csv *c, size_t col)
{
    size_t n;
    const char *s = gf_csv_field(c, col, &n);
    return is_blank(s, n);
}

static int bad_value(const gf_csv *c, size_t col, const char *what, const char *s, size_t n, gf_err *err)
{
    const char *name = col < c->ncols ? c->cols[col] : "?";
    return gf_errf(err, GF_EXIT_INPUT, "%s:%zu:%zu (column '%s'): invalid %s '%.*s%s'", c->disp, c->cur_line, col + 1,
                   name, what, (int)(n > 80 ? 80 : n), s, n > 80 ? "..." : "");
}

/* The field trimmed, copied into buf as a C string; NULL when it is empty or does not fit (then *s, *n
 * still describe the field, for the error message). */
static const char *field_cstr(const gf_csv *c, size_t col, char *buf, size_t size, const char **s, size_t *n)
{
    *s = gf_csv_field(c, col, n);
    trim(s, n);
    if (*n == 0 || *n >= size)
        return NULL;
    memcpy(buf, *s, *n);
    buf[*n] = '\0';
    return buf;
}

int gf_csv_int64(const gf_csv *c, size_t col, int64_t *v, gf_err *err)
{
    size_t n;
    const char *s;
    char buf[64];
    if (!field_cstr(c, col, buf, sizeof buf, &s, &n))
        return bad_value(c, col, "integer", s, n, err);
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (*end || errno)
        return bad_value(c, col, "integer", s, n, err);
    *v = (int64_t)x;
    return 0;
}

int gf_csv_double(const gf_csv *c, size_t col, double *v, gf_err *err)
{
    size_t n;
    const char *s;
    char buf[128];
    if (!field_cstr(c, col, buf, sizeof buf, &s, &n))
        return bad_value(c, col, "number", s, n, err);
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (*end || !isfinite(x) || (errno == ERANGE && fabs(x) > 1.0))
        return bad_value(c, col, "number", s, n, err);
    *v = x;
    return 0;
}
