#include "jsonout.h"
#include "mem.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---- */

size_t gf_utf8_decode(const unsigned char *s, size_t left, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2;
        v = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        v = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if ((n == 2 && v < 0x80) || (n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10FFFF ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

char *gf_json_script_safe(const char *json, size_t len, size_t *out_len)
{
    char *buf = malloc(len * 6 + 1);
    if (!buf)
        return NULL;
    size_t o = 0;
    const unsigned char *s = (const unsigned char *)json;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = s[i];
        if (c == '<' || c == '>' || c == '&') {
            o += (size_t)sprintf(buf + o, "\\u%04x", c);
        } else if (c == 0xE2 && i + 2 < len && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)) {
            o += (size_t)sprintf(buf + o, "\\u%04x", s[i + 2] == 0xA8 ? 0x2028 : 0x2029);
            i += 2;
        } else {
            buf[o++] = (char)c;
        }
    }
    buf[o] = '\0';
    if (out_len)
        *out_len = o;
    return buf;
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

/* Shortest text that reads back as v (15 to 17 significant digits). */
static void shortest_double(double v, char *buf, size_t n)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

/* ---- the writer ---- */

void gf_jout_init_buffer(gf_jout *w, unsigned flags, int indent)
{
    memset(w, 0, sizeof *w);
    w->flags = flags;
    w->indent = indent > 0 ? indent : 0;
}

void gf_jout_init_file(gf_jout *w, FILE *f, unsigned flags, int indent)
{
    gf_jout_init_buffer(w, flags, indent);
    w->file = f;
}

void gf_jout_init_python(gf_jout *w)
{
    gf_jout_init_buffer(w, GF_JOUT_ASCII | GF_JOUT_PY_FLOAT | GF_JOUT_NEWLINE, 2);
}

void gf_jout_free(gf_jout *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

static void put(gf_jout *w, const char *s, size_t n)
{
    if (w->failed)
        return;
    if (w->file) {
        fwrite(s, 1, n, w->file);
        return;
    }
    if (GF_GROW(w->buf, w->cap, w->len + n + 1, 4096) != 0) {
        w->failed = 1;
        return;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void put_cstr(gf_jout *w, const char *s)
{
    put(w, s, strlen(s));
}

char *gf_jout_finish(gf_jout *w, size_t *len)
{
    if (w->flags & GF_JOUT_NEWLINE)
        put(w, "\n", 1);
    if (w->file || w->failed) {
        gf_jout_free(w);
        return NULL;
    }
    if (!w->buf)
        put(w, "", 0);
    char *b = w->buf;
    if (b && len)
        *len = w->len;
    w->buf = NULL;
    gf_jout_free(w);
    return b;
}

static void newline(gf_jout *w, int depth)
{
    static const char sp[] = "                                                                ";
    put(w, "\n", 1);
    size_t n = (size_t)depth * (size_t)w->indent;
    while (n > 0) {
        size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
        put(w, sp, k);
        n -= k;
    }
}

/* Separator and indentation before a value (or a key) inside the current container. */
static void before_item(gf_jout *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0)
        return;
    if (w->count[w->depth]++ > 0)
        put(w, ",", 1);
    if (w->indent)
        newline(w, w->depth);
}

static void open_container(gf_jout *w, const char *c)
{
    before_item(w);
    put_cstr(w, c);
    if (w->depth < GF_JOUT_MAX_DEPTH)
        w->depth++;
    w->count[w->depth] = 0;
}

static void close_container(gf_jout *w, const char *c)
{
    if (w->count[w->depth] > 0 && w->indent)
        newline(w, w->depth - 1);
    if (w->depth > 0)
        w->depth--;
    put_cstr(w, c);
}

void gf_jout_begin_object(gf_jout *w) { open_container(w, "{"); }
void gf_jout_end_object(gf_jout *w) { close_container(w, "}"); }
void gf_jout_begin_array(gf_jout *w) { open_container(w, "["); }
void gf_jout_end_array(gf_jout *w) { close_container(w, "]"); }

static int plain_byte(unsigned char c, int html)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && !(html && (c == '<' || c == '>' || c == '&'));
}

static void put_string(gf_jout *w, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    int html = (w->flags & GF_JOUT_HTML_SAFE) != 0, ascii = (w->flags & GF_JOUT_ASCII) != 0;
    char b[16];
    put(w, "\"", 1);
    size_t i = 0;
    while (i < len && !w->failed) {
        size_t k = i;
        while (k < len && plain_byte(s[k], html))
            k++;
        if (k > i) {
            put(w, str + i, k - i);
            i = k;
            continue;
        }
        unsigned char c = s[i];
        if (c < 0x80) {
            switch (c) {
            case '"': put(w, "\\\"", 2); break;
            case '\\': put(w, "\\\\", 2); break;
            case '\n': put(w, "\\n", 2); break;
            case '\r': put(w, "\\r", 2); break;
            case '\t': put(w, "\\t", 2); break;
            case '\b': put(w, "\\b", 2); break;
            case '\f': put(w, "\\f", 2); break;
            default: snprintf(b, sizeof b, "\\u%04x", c); put_cstr(w, b); /* controls; <, >, & when HTML-safe */
            }
            i++;
            continue;
        }
        uint32_t cp;
        size_t n = gf_utf8_decode(s + i, len - i, &cp);
        if (n == 0) {
            if (w->flags & GF_JOUT_STRICT_UTF8) {
                w->failed = w->bad_utf8 = 1;
                w->bad_utf8_at = i;
                return;
            }
            put(w, "\\ufffd", 6);
            i++;
            continue;
        }
        if (ascii && cp >= 0x10000) {
            uint32_t v = cp - 0x10000;
            snprintf(b, sizeof b, "\\u%04x\\u%04x", (unsigned)(0xD800 + (v >> 10)), (unsigned)(0xDC00 + (v & 0x3FF)));
            put_cstr(w, b);
        } else if (ascii || (html && (cp == 0x2028 || cp == 0x2029))) {
            snprintf(b, sizeof b, "\\u%04" PRIx32, cp);
            put_cstr(w, b);
        } else {
            put(w, str + i, n);
        }
        i += n;
    }
    put(w, "\"", 1);
}

void gf_jout_key_len(gf_jout *w, const char *key, size_t len)
{
    before_item(w);
    put_string(w, key, len);
    put(w, w->indent ? ": " : ":", w->indent ? 2 : 1);
    w->after_key = 1;
}

void gf_jout_key(gf_jout *w, const char *key)
{
    gf_jout_key_len(w, key, strlen(key));
}

void gf_jout_literal(gf_jout *w, const char *text, size_t len)
{
    before_item(w);
    put(w, text, len);
}

void gf_jout_int(gf_jout *w, int64_t v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%" PRId64, v);
    gf_jout_literal(w, b, (size_t)n);
}

void gf_jout_int128(gf_jout *w, __int128 v)
{
    char b[48];
    gf_int128_text(v, b);
    gf_jout_literal(w, b, strlen(b));
}

void gf_jout_double(gf_jout *w, double v)
{
    char b[48];
    if (w->flags & GF_JOUT_PY_FLOAT)
        gf_pyjson_float_text(v, b, sizeof b);
    else if (!isfinite(v))
        snprintf(b, sizeof b, "null");
    else
        shortest_double(v, b, sizeof b);
    gf_jout_literal(w, b, strlen(b));
}

void gf_jout_string(gf_jout *w, const char *s, size_t len)
{
    before_item(w);
    put_string(w, s, len);
}

void gf_jout_null(gf_jout *w)
{
    gf_jout_literal(w, "null", 4);
}

void gf_jout_bool(gf_jout *w, int b)
{
    gf_jout_literal(w, b ? "true" : "false", b ? 4 : 5);
}

/* ---- streams with their own punctuation ---- */

void gf_json_file_string(FILE *out, const char *s, size_t len)
{
    gf_jout w; /* only what put_string reads: no per-string clearing of the depth counters */
    w.file = out;
    w.flags = GF_JOUT_HTML_SAFE;
    w.failed = 0;
    put_string(&w, s, len);
}

void gf_json_file_int(FILE *out, int64_t v)
{
    fprintf(out, "%" PRId64, v);
}

void gf_json_file_double(FILE *out, double v)
{
    char b[48];
    if (!isfinite(v))
        snprintf(b, sizeof b, "null");
    else
        shortest_double(v, b, sizeof b);
    fputs(b, out);
}
