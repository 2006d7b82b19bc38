#include "jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void gf_jsonw_string(FILE *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    putc('"', out);
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
            /* fast path for runs of plain ASCII */
            size_t j = i + 1;
            while (j < len && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' && s[j] != '\\' && s[j] != '<' &&
                   s[j] != '>' && s[j] != '&')
                j++;
            fwrite(s + i, 1, j - i, out);
            i = j;
            continue;
        }
        switch (c) {
        case '"': fputs("\\\"", out); i++; continue;
        case '\\': fputs("\\\\", out); i++; continue;
        case '\n': fputs("\\n", out); i++; continue;
        case '\r': fputs("\\r", out); i++; continue;
        case '\t': fputs("\\t", out); i++; continue;
        case '<': fputs("\\u003c", out); i++; continue;
        case '>': fputs("\\u003e", out); i++; continue;
        case '&': fputs("\\u0026", out); i++; continue;
        default: break;
        }
        if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
            i++;
            continue;
        }
        uint32_t cp;
        size_t n = gf_utf8_decode(s + i, len - i, &cp);
        if (n == 0) {
            fputs("\\ufffd", out);
            i++;
        } else if (cp == 0x2028 || cp == 0x2029) {
            fprintf(out, "\\u%04" PRIx32, cp);
            i += n;
        } else {
            fwrite(s + i, 1, n, out);
            i += n;
        }
    }
    putc('"', out);
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

void gf_jsonw_int(FILE *out, int64_t v)
{
    fprintf(out, "%" PRId64, v);
}

void gf_jsonw_double(FILE *out, double v)
{
    if (!isfinite(v)) {
        fputs("null", out);
        return;
    }
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, out);
}
