/* `perf script` text → collapse table (see perf_fold.h for the rules). A line-at-a-time state machine
 * fed by a buffered reader (files, pipes) or a memory splitter; frames are interned as they are read
 * and the sample's id list is reversed into one gf_stacks_add_ids call when the sample ends. */
#include "stacks_perf.h"
#include "mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"

/* Lua's %s, %x, %d in the C locale (the former Lua loop's patterns) */
static int is_ws(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

typedef struct fold {
    gf_stacks *s;
    gf_perf_fold_stats *st;
    uint32_t *ids; /* ids[0] = comm, then the frames leaf first */
    size_t n, cap;
    int have_comm;
    char *nb; /* scratch for composed frame names */
    size_t nbcap;
} fold;

static int push_id(fold *f, uint32_t id, gf_err *err)
{
    if (id == UINT32_MAX)
        return gf_oom(err, "perf fold");
    if (GF_GROW(f->ids, f->cap, f->n + 1, 128) != 0)
        return gf_oom(err, "perf fold");
    f->ids[f->n++] = id;
    return 0;
}

/* Ends the current sample: comm;root;...;leaf with weight 1. */
static int flush(fold *f, gf_err *err)
{
    int rc = 0;
    if (f->have_comm) {
        for (size_t i = 1, j = f->n - 1; i < j; i++, j--) {
            uint32_t t = f->ids[i];
            f->ids[i] = f->ids[j];
            f->ids[j] = t;
        }
        rc = gf_stacks_add_ids(f->s, f->ids, f->n, 1, err);
        if (rc == 0)
            f->st->samples++;
    }
    f->n = 0;
    f->have_comm = 0;
    return rc;
}

/* Header: comm = text before the first "<ws>+<digits>+[/<digits>*]<ws>", else the first word. */
static int header(fold *f, const char *l, size_t n, gf_err *err)
{
    if (flush(f, err) != 0)
        return -1;
    size_t comm = 0;
    for (size_t i = 1; i < n && !comm; i++) {
        if (!is_ws((unsigned char)l[i]) || is_ws((unsigned char)l[i - 1]))
            continue;
        size_t j = i;
        while (j < n && is_ws((unsigned char)l[j]))
            j++;
        size_t k = j;
        while (k < n && is_digit((unsigned char)l[k]))
            k++;
        if (k == j || k >= n)
            continue;
        if (is_ws((unsigned char)l[k])) {
            comm = i;
        } else if (l[k] == '/') {
            size_t m = k + 1;
            while (m < n && is_digit((unsigned char)l[m]))
                m++;
            if (m < n && is_ws((unsigned char)l[m]))
                comm = i;
        }
    }
    if (!comm) {
        comm = 1;
        while (comm < n && !is_ws((unsigned char)l[comm]))
            comm++;
    }
    if (push_id(f, gf_stacks_intern(f->s, l, comm), err) != 0)
        return -1;
    f->have_comm = 1;
    return 0;
}

static int scratch(fold *f, size_t need, gf_err *err)
{
    return GF_GROW(f->nb, f->nbcap, need, 256) != 0 ? gf_oom(err, "perf fold") : 0;
}

/* dso contains "kernel.kallsyms" (glibc's memmem is slow on short haystacks) */
static int has_kallsyms(const char *d, size_t n)
{
    for (const char *p = d, *end = d + n; end - p >= 15; p++) {
        p = memchr(p, 'k', (size_t)(end - p) - 14);
        if (!p)
            return 0;
        if (memcmp(p, "kernel.kallsyms", 15) == 0)
            return 1;
    }
    return 0;
}

/* Frame: "<ws>+<hex>+<ws>+SYM<ws>+(DSO)<ws>*" (the first SYM end followed by whitespace and a '(' before
 * the line's last ')'), else "<ws>+<hex>+<ws>+SYM<ws>*". These are the Lua patterns
 * "^%s+%x+%s+(.-)%s+%((.*)%)%s*$" and "^%s+%x+%s+(.-)%s*$" including their backtracking. */
static int frame(fold *f, const char *l, size_t n, gf_err *err)
{
    size_t a = 0;
    while (a < n && is_ws((unsigned char)l[a]))
        a++;
    size_t b = a;
    while (b < n && is_hex((unsigned char)l[b]))
        b++;
    if (b == a || b >= n || !is_ws((unsigned char)l[b])) {
        f->st->skipped_frames++;
        return 0;
    }
    if (!f->have_comm) { /* dropped at the next header or blank line anyway */
        f->st->orphan_frames++;
        return 0;
    }
    size_t c = b;
    while (c < n && is_ws((unsigned char)l[c]))
        c++;
    size_t e = n; /* one past the last non-whitespace byte (> b: l[b-1] is a hex digit) */
    while (e > 0 && is_ws((unsigned char)l[e - 1]))
        e--;
    const char *sym = NULL, *dso = NULL;
    size_t sl = 0, dl = 0;
    if (l[e - 1] == ')') {
        /* SYM ends at the whitespace before the first '(' that follows whitespace (l[c] is not
         * whitespace, so that run starts after c) */
        size_t close = e - 1;
        for (size_t j = c + 1; j < close; j++) {
            const char *q = memchr(l + j, '(', close - j);
            if (!q)
                break;
            j = (size_t)(q - l);
            if (!is_ws((unsigned char)l[j - 1]))
                continue;
            size_t i = j - 1;
            while (is_ws((unsigned char)l[i - 1]))
                i--;
            sym = l + c, sl = i - c;
            dso = l + j + 1, dl = close - (j + 1);
            break;
        }
        /* backtracking: the address's whitespace gives one byte to an empty SYM before "(dso)" */
        if (!dso && c - b >= 2 && c < close && l[c] == '(') {
            sym = l + c, sl = 0;
            dso = l + c + 1, dl = close - (c + 1);
        }
    }
    if (!dso) {
        sym = l + c;
        sl = e > c ? e - c : 0;
    }
    /* strip a trailing "+0x<hex>" */
    size_t h = sl;
    while (h > 0 && is_hex((unsigned char)sym[h - 1]))
        h--;
    if (h < sl && h >= 3 && sym[h - 1] == 'x' && sym[h - 2] == '0' && sym[h - 3] == '+')
        sl = h - 3;
    int kernel = dso && ((dl >= 7 && memcmp(dso, "[kernel", 7) == 0) || has_kallsyms(dso, dl));
    size_t len = 0;
    const char *name = sym;
    if (dso && sl == 9 && memcmp(sym, "[unknown]", 9) == 0 && !(dl == 9 && memcmp(dso, "[unknown]", 9) == 0)) {
        const char *base = dso;
        size_t bl = dl;
        const char *slash = dl ? memrchr(dso, '/', dl) : NULL;
        if (slash && (size_t)(slash - dso) + 1 < dl) {
            base = slash + 1;
            bl = dl - (size_t)(base - dso);
        }
        if (scratch(f, bl + 6, err) != 0)
            return -1;
        f->nb[0] = '[';
        memcpy(f->nb + 1, base, bl);
        f->nb[bl + 1] = ']';
        len = bl + 2;
        name = f->nb;
    } else if (kernel) {
        if (scratch(f, sl + 4, err) != 0)
            return -1;
        memcpy(f->nb, sym, sl);
        len = sl;
        name = f->nb;
    } else {
        len = sl;
    }
    if (kernel) {
        memcpy(f->nb + len, "_[k]", 4);
        len += 4;
    }
    f->st->frames++;
    return push_id(f, gf_stacks_intern(f->s, name, len), err);
}

static int line(fold *f, const char *l, size_t n, gf_err *err)
{
    f->st->lines++;
    size_t a = 0;
    while (a < n && is_ws((unsigned char)l[a]))
        a++;
    if (a == n)
        return flush(f, err);
    if (a > 0)
        return frame(f, l, n, err);
    if (l[0] == '#')
        return 0;
    return header(f, l, n, err);
}

static void fold_free(fold *f)
{
    free(f->ids);
    free(f->nb);
}

/* ---- drivers ---- */

#define CHUNK ((size_t)1 << 18)

typedef struct reader {
    FILE *in;
    char *buf;
    size_t cap, pos, end, max_line;
    int eof;
} reader;

/* 1 = a line in (*l, *n), 0 = end of input, -1 = error (code in err; the caller adds the position) */
static int next_line(reader *r, const char **l, size_t *n, gf_err *err)
{
    for (;;) {
        size_t have = r->end - r->pos;
        char *nl = have ? memchr(r->buf + r->pos, '\n', have) : NULL;
        if (nl || (r->eof && have)) {
            *l = r->buf + r->pos;
            *n = nl ? (size_t)(nl - *l) : have;
            r->pos += nl ? *n + 1 : have;
            if (*n > r->max_line)
                return gf_errf(err, GF_EXIT_INPUT, "line longer than %zu bytes (is this `perf script` output?)",
                               r->max_line);
            return 1;
        }
        if (r->eof)
            return 0;
        if (have > r->max_line)
            return gf_errf(err, GF_EXIT_INPUT, "line longer than %zu bytes (is this `perf script` output?)",
                           r->max_line);
        if (r->pos) {
            memmove(r->buf, r->buf + r->pos, have);
            r->pos = 0;
            r->end = have;
        }
        if (r->cap - r->end < CHUNK / 2) {
            if (GF_GROW(r->buf, r->cap, r->cap + 1, CHUNK) != 0)
                return gf_oom(err, "perf fold");
        }
        size_t got = fread(r->buf + r->end, 1, r->cap - r->end, r->in);
        r->end += got;
        if (got == 0) {
            if (ferror(r->in))
                return gf_errf(err, GF_EXIT_INPUT, "read error: %s", strerror(errno));
            r->eof = 1;
        }
    }
}

int gf_perf_fold(gf_stacks *s, FILE *in, const char *name, size_t max_line, gf_perf_fold_stats *st, gf_err *err)
{
    gf_perf_fold_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    fold f = {.s = s, .st = st};
    reader r = {.in = in, .max_line = max_line ? max_line : GF_PERF_MAX_LINE};
    int rc = 0, got;
    const char *l = NULL;
    size_t n = 0;
    while ((got = next_line(&r, &l, &n, err)) == 1) {
        if ((st->lines & 0xffff) == 0xffff && gf_interrupted) {
            rc = gf_errf(err, GF_EXIT_INTERRUPTED, "%s: interrupted", name);
            break;
        }
        if (line(&f, l, n, err) != 0) {
            rc = -1;
            break;
        }
    }
    if (got < 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        rc = gf_errf(err, err->code, "%s:%zu: %s", name, st->lines + 1, why);
    }
    if (rc == 0)
        rc = flush(&f, err);
    free(r.buf);
    fold_free(&f);
    return rc;
}

int gf_perf_fold_file(gf_stacks *s, const char *path, size_t max_line, gf_perf_fold_stats *st, gf_err *err)
{
    if (strcmp(path, "-") == 0)
        return gf_perf_fold(s, stdin, "standard input", max_line, st, err);
    FILE *in = fopen(path, "rb");
    if (!in) {
        if (st)
            memset(st, 0, sizeof *st);
        return gf_errf(err, GF_EXIT_INPUT, "%s: cannot open: %s", path, strerror(errno));
    }
    int rc = gf_perf_fold(s, in, path, max_line, st, err);
    fclose(in);
    return rc;
}

int gf_perf_fold_mem(gf_stacks *s, const char *data, size_t len, gf_perf_fold_stats *st, gf_err *err)
{
    gf_perf_fold_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    fold f = {.s = s, .st = st};
    int rc = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos;
        if (line(&f, data + pos, n, err) != 0) {
            rc = -1;
            break;
        }
        pos += n + 1;
    }
    if (rc == 0)
        rc = flush(&f, err);
    fold_free(&f);
    return rc;
}
