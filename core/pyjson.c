#include "pyjson.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "yamltree.h"

void gf_pyj_init(gf_pyj *j)
{
    memset(j, 0, sizeof *j);
}

void gf_pyj_free(gf_pyj *j)
{
    free(j->buf);
    gf_pyj_init(j);
}

static void put(gf_pyj *j, const char *s, size_t n)
{
    if (j->oom)
        return;
    if (j->len + n + 1 > j->cap) {
        size_t nc = j->cap ? j->cap : 4096;
        while (j->len + n + 1 > nc)
            nc *= 2;
        char *nb = realloc(j->buf, nc);
        if (!nb) {
            j->oom = 1;
            return;
        }
        j->buf = nb;
        j->cap = nc;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(gf_pyj *j, const char *s)
{
    put(j, s, strlen(s));
}

static void indent(gf_pyj *j, int depth)
{
    static const char sp[] = "                                                                ";
    put(j, "\n", 1);
    size_t n = (size_t)depth * 2;
    while (n > 0) {
        size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
        put(j, sp, k);
        n -= k;
    }
}

/* Separator and indentation before a value (or a key) inside the current container. */
static void before_item(gf_pyj *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth == 0)
        return;
    if (j->count[j->depth]++ > 0)
        put(j, ",", 1);
    indent(j, j->depth);
}

char *gf_pyj_finish(gf_pyj *j, size_t *len)
{
    put(j, "\n", 1);
    if (j->oom) {
        gf_pyj_free(j);
        return NULL;
    }
    char *b = j->buf;
    if (len)
        *len = j->len;
    j->buf = NULL;
    gf_pyj_free(j);
    return b;
}

static void open_(gf_pyj *j, const char *c)
{
    before_item(j);
    puts_(j, c);
    if (j->depth < 255)
        j->depth++;
    j->count[j->depth] = 0;
}

static void close_(gf_pyj *j, const char *c)
{
    if (j->count[j->depth] > 0)
        indent(j, j->depth - 1);
    j->depth--;
    puts_(j, c);
}

void gf_pyj_begin_object(gf_pyj *j) { open_(j, "{"); }
void gf_pyj_end_object(gf_pyj *j) { close_(j, "}"); }
void gf_pyj_begin_array(gf_pyj *j) { open_(j, "["); }
void gf_pyj_end_array(gf_pyj *j) { close_(j, "]"); }

static void write_string(gf_pyj *j, const char *s, size_t len);

void gf_pyj_key(gf_pyj *j, const char *key)
{
    before_item(j);
    write_string(j, key, strlen(key));
    put(j, ": ", 2);
    j->after_key = 1;
}

void gf_pyj_int(gf_pyj *j, int64_t v)
{
    char b[32];
    before_item(j);
    snprintf(b, sizeof b, "%" PRId64, v);
    puts_(j, b);
}

void gf_int128_text(__int128 v, char *buf)
{
    char tmp[48];
    int n = 0, neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    int o = 0;
    if (neg)
        buf[o++] = '-';
    while (n > 0)
        buf[o++] = tmp[--n];
    buf[o] = '\0';
}

void gf_pyj_int128(gf_pyj *j, __int128 v)
{
    char b[48];
    before_item(j);
    gf_int128_text(v, b);
    puts_(j, b);
}

void gf_py_float_repr(double v, char *out, size_t n)
{
    if (isnan(v)) {
        snprintf(out, n, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(out, n, v < 0 ? "-inf" : "inf");
        return;
    }
    if (v == 0) {
        snprintf(out, n, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char buf[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    /* buf = [-]d[.ddd]e[+-]XX */
    char digits[24];
    int nd = 0, neg = 0;
    const char *q = buf;
    if (*q == '-') {
        neg = 1;
        q++;
    }
    for (; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9')
            digits[nd++] = *q;
    int e = atoi(q + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int decpt = e + 1;
    char res[64];
    int o = 0;
    if (neg)
        res[o++] = '-';
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            res[o++] = '0';
            res[o++] = '.';
            for (int i = 0; i < -decpt; i++)
                res[o++] = '0';
            for (int i = 0; i < nd; i++)
                res[o++] = digits[i];
        } else if (decpt >= nd) {
            for (int i = 0; i < nd; i++)
                res[o++] = digits[i];
            for (int i = nd; i < decpt; i++)
                res[o++] = '0';
            res[o++] = '.';
            res[o++] = '0';
        } else {
            for (int i = 0; i < decpt; i++)
                res[o++] = digits[i];
            res[o++] = '.';
            for (int i = decpt; i < nd; i++)
                res[o++] = digits[i];
        }
        res[o] = '\0';
    } else {
        res[o++] = digits[0];
        if (nd > 1) {
            res[o++] = '.';
            for (int i = 1; i < nd; i++)
                res[o++] = digits[i];
        }
        int x = decpt - 1;
        o += snprintf(res + o, sizeof res - (size_t)o, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
    }
    snprintf(out, n, "%s", res);
}

void gf_pyjson_float_text(double v, char *buf, size_t n)
{
    if (isnan(v))
        snprintf(buf, n, "NaN");
    else if (isinf(v))
        snprintf(buf, n, v < 0 ? "-Infinity" : "Infinity");
    else
        gf_py_float_repr(v, buf, n);
}

void gf_pyj_float(gf_pyj *j, double v)
{
    char b[48];
    before_item(j);
    gf_pyjson_float_text(v, b, sizeof b);
    puts_(j, b);
}

void gf_pyj_null(gf_pyj *j)
{
    before_item(j);
    puts_(j, "null");
}

void gf_pyj_bool(gf_pyj *j, int b)
{
    before_item(j);
    puts_(j, b ? "true" : "false");
}

/* Decodes one UTF-8 sequence; invalid bytes decode as U+FFFD (one byte consumed). */
static size_t utf8_next(const unsigned char *s, size_t left, uint32_t *cp)
{
    size_t n = gf_utf8_decode(s, left, cp);
    if (n == 0) {
        *cp = 0xFFFD;
        return 1;
    }
    return n;
}

static void write_string(gf_pyj *j, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    char b[16];
    put(j, "\"", 1);
    size_t i = 0;
    while (i < len) {
        size_t k = i;
        while (k < len && s[k] >= 0x20 && s[k] < 0x80 && s[k] != '"' && s[k] != '\\')
            k++;
        if (k > i) {
            put(j, str + i, k - i);
            i = k;
            continue;
        }
        unsigned char c = s[i];
        if (c < 0x80) {
            switch (c) {
            case '"': put(j, "\\\"", 2); break;
            case '\\': put(j, "\\\\", 2); break;
            case '\n': put(j, "\\n", 2); break;
            case '\r': put(j, "\\r", 2); break;
            case '\t': put(j, "\\t", 2); break;
            case '\b': put(j, "\\b", 2); break;
            case '\f': put(j, "\\f", 2); break;
            default: snprintf(b, sizeof b, "\\u%04x", c); puts_(j, b);
            }
            i++;
            continue;
        }
        uint32_t cp;
        i += utf8_next(s + i, len - i, &cp);
        if (cp >= 0x10000) {
            uint32_t v = cp - 0x10000;
            snprintf(b, sizeof b, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
        } else {
            snprintf(b, sizeof b, "\\u%04x", cp);
        }
        puts_(j, b);
    }
    put(j, "\"", 1);
}

void gf_pyj_string(gf_pyj *j, const char *s, size_t len)
{
    before_item(j);
    write_string(j, s, len);
}

typedef struct kv {
    const char *k;
    size_t kl;
    const gf_yv *v;
} kv;

static int kv_cmp(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    size_t n = x->kl < y->kl ? x->kl : y->kl;
    int c = memcmp(x->k, y->k, n);
    if (c)
        return c;
    return x->kl < y->kl ? -1 : x->kl > y->kl;
}

void gf_pyj_yv(gf_pyj *j, const gf_yv *v)
{
    if (!v) {
        gf_pyj_null(j);
        return;
    }
    switch (v->kind) {
    case GF_YV_NULL: gf_pyj_null(j); break;
    case GF_YV_BOOL: gf_pyj_bool(j, v->b); break;
    case GF_YV_INT: gf_pyj_int(j, v->i); break;
    case GF_YV_BIGINT:
        before_item(j);
        put(j, v->s, v->len);
        break;
    case GF_YV_FLOAT: gf_pyj_float(j, v->f); break;
    case GF_YV_STR: gf_pyj_string(j, v->s, v->len); break;
    case GF_YV_SEQ:
        gf_pyj_begin_array(j);
        for (size_t i = 0; i < v->n; i++)
            gf_pyj_yv(j, v->items[i]);
        gf_pyj_end_array(j);
        break;
    case GF_YV_MAP: {
        kv *a = malloc((v->n ? v->n : 1) * sizeof *a);
        if (!a) {
            j->oom = 1;
            return;
        }
        for (size_t i = 0; i < v->n; i++)
            a[i] = (kv){v->keys[i], v->klens[i], v->items[i]};
        qsort(a, v->n, sizeof *a, kv_cmp);
        gf_pyj_begin_object(j);
        for (size_t i = 0; i < v->n; i++) {
            before_item(j);
            write_string(j, a[i].k, a[i].kl);
            put(j, ": ", 2);
            j->after_key = 1;
            gf_pyj_yv(j, a[i].v);
        }
        gf_pyj_end_object(j);
        free(a);
        break;
    }
    }
}

/* Python's str.isprintable() approximated for the characters that occur in practice: ASCII controls,
 * C1 controls, and the common Unicode separators / format characters are not printable. */
static int py_printable(uint32_t cp)
{
    if (cp < 0x20 || cp == 0x7F)
        return 0;
    if (cp >= 0x80 && cp <= 0xA0)
        return 0;
    if (cp == 0xAD || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
        (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
        (cp >= 0xE000 && cp <= 0xF8FF))
        return 0;
    return 1;
}

char *gf_py_str_repr(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    int has_sq = memchr(str, '\'', len) != NULL, has_dq = memchr(str, '"', len) != NULL;
    char quote = (has_sq && !has_dq) ? '"' : '\'';
    char *out = malloc(len * 10 + 3);
    if (!out)
        return NULL;
    size_t o = 0;
    out[o++] = quote;
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        size_t n = utf8_next(s + i, len - i, &cp);
        if (cp == (uint32_t)quote || cp == '\\') {
            out[o++] = '\\';
            out[o++] = (char)cp;
        } else if (cp == '\n') {
            memcpy(out + o, "\\n", 2), o += 2;
        } else if (cp == '\r') {
            memcpy(out + o, "\\r", 2), o += 2;
        } else if (cp == '\t') {
            memcpy(out + o, "\\t", 2), o += 2;
        } else if (!py_printable(cp) || (cp == 0xFFFD && n == 1 && s[i] != 0xEF)) {
            if (cp == 0xFFFD && n == 1)
                cp = s[i]; /* an undecodable byte: show it like a surrogateescape'd byte */
            if (cp < 0x100)
                o += (size_t)sprintf(out + o, "\\x%02x", cp);
            else if (cp < 0x10000)
                o += (size_t)sprintf(out + o, "\\u%04x", cp);
            else
                o += (size_t)sprintf(out + o, "\\U%08x", cp);
        } else {
            memcpy(out + o, s + i, n);
            o += n;
        }
        i += n;
    }
    out[o++] = quote;
    out[o] = '\0';
    return out;
}
