/* Escaping of external text for terminals and logs (see textsafe.h). */
#include "textsafe.h"

#include <stdlib.h>

/* Length of the well-formed UTF-8 sequence of a printable character at p (n bytes left), 0 if none. */
static size_t printable_utf8(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0; /* overlong or beyond Unicode */
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0; /* surrogate */
    if (cp >= 0x80 && cp <= 0x9F)
        return 0; /* C1 control */
    return len;
}

char *gf_text_escape(const char *s, size_t n, int keep_lines)
{
    static const char hx[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)s;
    char *out = malloc(4 * n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if ((c >= 0x20 && c < 0x7F) || (keep_lines && (c == '\n' || c == '\t'))) {
            out[o++] = (char)c;
            i++;
            continue;
        }
        size_t len = c >= 0x80 ? printable_utf8(p + i, n - i) : 0;
        if (len) {
            for (size_t k = 0; k < len; k++)
                out[o++] = (char)p[i + k];
            i += len;
            continue;
        }
        out[o++] = '\\';
        out[o++] = 'x';
        out[o++] = hx[c >> 4];
        out[o++] = hx[c & 15];
        i++;
    }
    out[o] = '\0';
    return out;
}
