#include "pyjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "yamltree.h"

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

void gf_jout_yv(gf_jout *j, const gf_yv *v)
{
    if (!v) {
        gf_jout_null(j);
        return;
    }
    switch (v->kind) {
    case GF_YV_NULL: gf_jout_null(j); break;
    case GF_YV_BOOL: gf_jout_bool(j, v->b); break;
    case GF_YV_INT: gf_jout_int(j, v->i); break;
    case GF_YV_BIGINT: gf_jout_literal(j, v->s, v->len); break;
    case GF_YV_FLOAT: gf_jout_double(j, v->f); break;
    case GF_YV_STR: gf_jout_string(j, v->s, v->len); break;
    case GF_YV_SEQ:
        gf_jout_begin_array(j);
        for (size_t i = 0; i < v->n; i++)
            gf_jout_yv(j, v->items[i]);
        gf_jout_end_array(j);
        break;
    case GF_YV_MAP: {
        kv *a = malloc((v->n ? v->n : 1) * sizeof *a);
        if (!a) {
            j->failed = 1;
            return;
        }
        for (size_t i = 0; i < v->n; i++)
            a[i] = (kv){v->keys[i], v->klens[i], v->items[i]};
        qsort(a, v->n, sizeof *a, kv_cmp);
        gf_jout_begin_object(j);
        for (size_t i = 0; i < v->n; i++) {
            gf_jout_key_len(j, a[i].k, a[i].kl);
            gf_jout_yv(j, a[i].v);
        }
        gf_jout_end_object(j);
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
