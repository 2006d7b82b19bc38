/* HTML template renderer (see render.h). The template is checked completely (every slot present, every
 * "{{" closed) before anything is written, so a bad template never calls a writer. */
#include "render.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "jsonout.h"

typedef struct ref {
    size_t start, end; /* the whole {{...}} */
    int json;
    const gf_slot *slot;
} ref;

void gf_html_escape(FILE *out, const char *s, size_t len)
{
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        const char *e = NULL;
        switch (s[i]) {
        case '&': e = "&amp;"; break;
        case '<': e = "&lt;"; break;
        case '>': e = "&gt;"; break;
        case '"': e = "&quot;"; break;
        case '\'': e = "&#39;"; break;
        default: continue;
        }
        fwrite(s + run, 1, i - run, out);
        fputs(e, out);
        run = i + 1;
    }
    fwrite(s + run, 1, len - run, out);
}

static size_t line_of(const char *t, size_t pos)
{
    size_t l = 1;
    for (size_t i = 0; i < pos; i++)
        if (t[i] == '\n')
            l++;
    return l;
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
}

/* Finds every slot reference; returns the count or -1. *refs is malloc'd. */
static long scan(const char *name, const char *t, size_t len, const gf_slot *slots, size_t nslots, ref **refs,
                 gf_err *err)
{
    size_t n = 0, cap = 16;
    ref *r = malloc(cap * sizeof *r);
    if (!r)
        return gf_errf(err, GF_EXIT_ERROR, "template %s: out of memory", name);
    size_t i = 0;
    while (i + 1 < len) {
        const char *p = memchr(t + i, '{', len - i - 1);
        if (!p)
            break;
        size_t s = (size_t)(p - t);
        if (t[s + 1] != '{') {
            i = s + 1;
            continue;
        }
        const char *close = NULL;
        for (size_t k = s + 2; k + 1 < len; k++) {
            if (t[k] == '}' && t[k + 1] == '}') {
                close = t + k;
                break;
            }
            if (t[k] == '\n' || (t[k] == '{' && t[k + 1] == '{'))
                break;
        }
        if (!close) {
            free(r);
            return gf_errf(err, GF_EXIT_ERROR, "template %s:%zu: unterminated '{{' (no '}}' on the same line)", name,
                           line_of(t, s));
        }
        size_t a = s + 2, b = (size_t)(close - t);
        int json = 0;
        if (b - a > 5 && memcmp(t + a, "json:", 5) == 0) {
            json = 1;
            a += 5;
        }
        int ok = b > a;
        for (size_t k = a; k < b && ok; k++)
            ok = name_char(t[k]);
        if (!ok) {
            free(r);
            return gf_errf(err, GF_EXIT_ERROR, "template %s:%zu: malformed slot '{{%.*s}}'", name, line_of(t, s),
                           (int)(b - s - 2 > 60 ? 60 : b - s - 2), t + s + 2);
        }
        const gf_slot *slot = NULL;
        for (size_t k = 0; k < nslots; k++)
            if (slots[k].name && strlen(slots[k].name) == b - a && memcmp(slots[k].name, t + a, b - a) == 0) {
                slot = &slots[k];
                break;
            }
        if (!slot) {
            free(r);
            return gf_errf(err, GF_EXIT_ERROR, "template %s:%zu: slot '%.*s' was not given", name, line_of(t, s),
                           (int)(b - a), t + a);
        }
        if (!json && slot->kind != GF_SLOT_TEXT) {
            free(r);
            return gf_errf(err, GF_EXIT_ERROR, "template %s:%zu: slot '%s' holds data; use {{json:%s}}", name,
                           line_of(t, s), slot->name, slot->name);
        }
        if (slot->kind == GF_SLOT_WRITER && !slot->writer) {
            free(r);
            return gf_errf(err, GF_EXIT_ERROR, "template %s: slot '%s' has no writer", name, slot->name);
        }
        if (GF_GROW(r, cap, n + 1, 0) != 0) {
            free(r);
            return gf_errf(err, GF_EXIT_ERROR, "template %s: out of memory", name);
        }
        r[n].start = s;
        r[n].end = b + 2;
        r[n].json = json;
        r[n].slot = slot;
        n++;
        i = b + 2;
    }
    *refs = r;
    return (long)n;
}

static int emit(const char *name, const ref *r, FILE *out, gf_err *err)
{
    const gf_slot *s = r->slot;
    const char *v = s->value ? s->value : "";
    size_t len = s->value ? s->len : 0;
    if (!r->json) {
        gf_html_escape(out, v, len);
        return 0;
    }
    switch (s->kind) {
    case GF_SLOT_TEXT:
        gf_json_file_string(out, v, len);
        return 0;
    case GF_SLOT_JSON: {
        if (len == 0) {
            fputs("null", out);
            return 0;
        }
        size_t n;
        char *safe = gf_json_script_safe(v, len, &n);
        if (!safe)
            return gf_errf(err, GF_EXIT_ERROR, "template %s: slot '%s': out of memory", name, s->name);
        fwrite(safe, 1, n, out);
        free(safe);
        return 0;
    }
    default:
        if (s->writer(out, s->ud, err) != 0) {
            char m[sizeof err->msg];
            snprintf(m, sizeof m, "%s", err->msg);
            return gf_errf(err, err->code ? err->code : GF_EXIT_ERROR, "template %s: slot '%s': %s", name, s->name, m);
        }
        return 0;
    }
}

int gf_render_stream(const char *tmpl_name, const char *tmpl, size_t tmpl_len, const gf_slot *slots, size_t nslots,
                     FILE *out, gf_err *err)
{
    const char *name = tmpl_name ? tmpl_name : "(template)";
    ref *refs = NULL;
    long n = scan(name, tmpl, tmpl_len, slots, nslots, &refs, err);
    if (n < 0)
        return -1;
    size_t pos = 0;
    for (long i = 0; i < n; i++) {
        fwrite(tmpl + pos, 1, refs[i].start - pos, out);
        if (emit(name, &refs[i], out, err) != 0) {
            free(refs);
            return -1;
        }
        pos = refs[i].end;
    }
    fwrite(tmpl + pos, 1, tmpl_len - pos, out);
    free(refs);
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "template %s: write error", name);
    return 0;
}

int gf_render_file(const char *tmpl_name, const char *tmpl, size_t tmpl_len, const gf_slot *slots, size_t nslots,
                   const char *out_path, gf_err *err)
{
    gf_out o;
    if (gf_out_open(&o, out_path, err) != 0)
        return -1;
    if (gf_render_stream(tmpl_name, tmpl, tmpl_len, slots, nslots, o.fp, err) != 0)
        return gf_out_fail(&o, err);
    return gf_out_commit_unless_interrupted(&o, err);
}
