#include "yamltree.h"
#include "mem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "fs.h"
#include "jsonout.h"

#define MAX_NODES 1000000 /* alias expansion bound ("billion laughs") */
#define MAX_DEPTH 256

typedef struct anchor {
    char *name;
    gf_yv *node;
} anchor;

typedef struct frame {
    gf_yv *node;
    char *key;        /* MAP: pending key (NULL while waiting for a key) */
    size_t klen;
    int have_key;
    int merge_pending; /* the pending key is `<<` */
    gf_yv **merges;   /* values of `<<` keys, applied at the end of the mapping */
    size_t nmerges;
    char *anchor;     /* anchor of this container, registered when it ends */
} frame;

typedef struct ctx {
    const char *name;
    gf_err *err;
    anchor *anchors;
    size_t nanchors, capanchors;
    size_t nodes;
    frame stack[MAX_DEPTH];
    int depth;
    gf_yv *root;
    int docs;
} ctx;

static gf_yv *yv_new(enum gf_yv_kind k)
{
    gf_yv *v = calloc(1, sizeof *v);
    if (v)
        v->kind = k;
    return v;
}

void gf_yv_free(gf_yv *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        gf_yv_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->klens);
    free(v->s);
    free(v);
}

const gf_yv *gf_yv_get(const gf_yv *m, const char *key)
{
    if (!m || m->kind != GF_YV_MAP)
        return NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i < m->n; i++)
        if (m->klens[i] == kl && memcmp(m->keys[i], key, kl) == 0)
            return m->items[i];
    return NULL;
}

static int fail(ctx *c, size_t line, size_t col, const char *what)
{
    return gf_errf(c->err, GF_EXIT_INPUT, "%s:%zu:%zu: %s", c->name, line, col, what);
}

static gf_yv *yv_copy(ctx *c, const gf_yv *v)
{
    if (++c->nodes > MAX_NODES)
        return NULL;
    gf_yv *r = yv_new(v->kind);
    if (!r)
        return NULL;
    r->b = v->b;
    r->i = v->i;
    r->f = v->f;
    r->len = v->len;
    if (v->s) {
        r->s = malloc(v->len + 1);
        if (!r->s)
            goto oom;
        memcpy(r->s, v->s, v->len + 1);
    }
    if (v->n) {
        r->items = calloc(v->n, sizeof *r->items);
        if (!r->items)
            goto oom;
        if (v->keys) {
            r->keys = calloc(v->n, sizeof *r->keys);
            r->klens = calloc(v->n, sizeof *r->klens);
            if (!r->keys || !r->klens)
                goto oom;
        }
        for (size_t i = 0; i < v->n; i++) {
            r->n = i + 1;
            if (v->keys) {
                r->keys[i] = malloc(v->klens[i] + 1);
                if (!r->keys[i])
                    goto oom;
                memcpy(r->keys[i], v->keys[i], v->klens[i] + 1);
                r->klens[i] = v->klens[i];
            }
            r->items[i] = yv_copy(c, v->items[i]);
            if (!r->items[i])
                goto oom;
        }
    }
    return r;
oom:
    gf_yv_free(r);
    return NULL;
}

/* ---- PyYAML's implicit resolver (YAML 1.1) --------------------------------------------------- */

static int all_in(const char *s, size_t n, const char *set)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr(set, s[i]))
            return 0;
    return 1;
}

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* `(?::[0-5]?[0-9])+` at s[0..n) */
static int sexa_tail(const char *s, size_t n)
{
    size_t i = 0;
    int groups = 0;
    while (i < n) {
        if (s[i] != ':')
            return 0;
        i++;
        size_t st = i;
        while (i < n && is_digit(s[i]) && i - st < 2)
            i++;
        size_t d = i - st;
        if (d == 0 || (d == 2 && s[st] > '5'))
            return 0;
        groups++;
    }
    return groups > 0;
}

static int match_int(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    const char *p = s + i;
    size_t m = n - i;
    if (m == 0)
        return 0;
    if (m > 2 && p[0] == '0' && p[1] == 'b')
        return all_in(p + 2, m - 2, "01_");
    if (m > 2 && p[0] == '0' && p[1] == 'x')
        return all_in(p + 2, m - 2, "0123456789abcdefABCDEF_");
    if (m == 1 && p[0] == '0')
        return 1;
    if (p[0] == '0')
        return all_in(p + 1, m - 1, "01234567_");
    if (p[0] < '1' || p[0] > '9')
        return 0;
    size_t j = 1;
    while (j < m && (is_digit(p[j]) || p[j] == '_'))
        j++;
    if (j == m)
        return 1;
    return sexa_tail(p + j, m - j);
}

static size_t digits_us(const char *s, size_t n, size_t i) /* [0-9_]* */
{
    while (i < n && (is_digit(s[i]) || s[i] == '_'))
        i++;
    return i;
}

static int exp_tail(const char *s, size_t n, size_t i) /* (?:[eE][-+][0-9]+)?$ */
{
    if (i == n)
        return 1;
    if (s[i] != 'e' && s[i] != 'E')
        return 0;
    i++;
    if (i >= n || (s[i] != '-' && s[i] != '+'))
        return 0;
    i++;
    if (i >= n)
        return 0;
    while (i < n && is_digit(s[i]))
        i++;
    return i == n;
}

static int match_float(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    /* \.[0-9][0-9_]*(exp)?  and  \.(nan|NaN|NAN) */
    if (s[0] == '.') {
        if (n == 4 && (!memcmp(s, ".nan", 4) || !memcmp(s, ".NaN", 4) || !memcmp(s, ".NAN", 4)))
            return 1;
        if (n >= 2 && is_digit(s[1]))
            return exp_tail(s, n, digits_us(s, n, 2));
    }
    size_t i = 0;
    if (s[i] == '-' || s[i] == '+')
        i++;
    if (n - i == 4 && (!memcmp(s + i, ".inf", 4) || !memcmp(s + i, ".Inf", 4) || !memcmp(s + i, ".INF", 4)))
        return 1;
    if (i >= n || !is_digit(s[i]))
        return 0;
    size_t j = digits_us(s, n, i + 1);
    if (j < n && s[j] == '.') /* [-+]?[0-9][0-9_]*\.[0-9_]*(exp)? */
        return exp_tail(s, n, digits_us(s, n, j + 1));
    if (j < n && s[j] == ':') { /* [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]* */
        size_t k = j;
        /* find the '.' that ends the sexagesimal groups */
        size_t dot = k;
        while (dot < n && s[dot] != '.')
            dot++;
        if (dot == n || !sexa_tail(s + j, dot - j))
            return 0;
        return digits_us(s, n, dot + 1) == n;
    }
    return 0;
}

static int is_null(const char *s, size_t n)
{
    return n == 0 || (n == 1 && s[0] == '~') || (n == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) ||
                                                            !memcmp(s, "NULL", 4)));
}

static int bool_of(const char *s, size_t n, int *b)
{
    static const char *const t[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL};
    static const char *const f[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL};
    for (int i = 0; t[i]; i++)
        if (strlen(t[i]) == n && !memcmp(s, t[i], n)) {
            *b = 1;
            return 1;
        }
    for (int i = 0; f[i]; i++)
        if (strlen(f[i]) == n && !memcmp(s, f[i], n)) {
            *b = 0;
            return 1;
        }
    return 0;
}

/* Removes '_' into a malloc'd copy. */
static char *strip_us(const char *s, size_t n, size_t *outn)
{
    char *r = malloc(n + 1);
    if (!r)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            r[o++] = s[i];
    r[o] = '\0';
    *outn = o;
    return r;
}

/* Integer construction (PyYAML construct_yaml_int); overflowing values become BIGINT text. */
static int build_int(gf_yv *v, const char *s0, size_t n0)
{
    size_t n;
    char *s = strip_us(s0, n0, &n);
    if (!s)
        return -1;
    int neg = 0;
    char *p = s;
    if (*p == '-' || *p == '+') {
        neg = *p == '-';
        p++;
    }
    int base = 10;
    if (!strcmp(p, "0")) {
        v->kind = GF_YV_INT;
        v->i = 0;
        free(s);
        return 0;
    }
    unsigned __int128 acc = 0;
    int overflow = 0;
    if (p[0] == '0' && p[1] == 'b') {
        base = 2;
        p += 2;
    } else if (p[0] == '0' && p[1] == 'x') {
        base = 16;
        p += 2;
    } else if (p[0] == '0') {
        base = 8;
        p += 1;
    }
    if (*p == '\0') {
        free(s);
        return 1; /* "0b_" and friends: PyYAML fails to construct */
    }
    if (strchr(p, ':')) {
        /* sexagesimal: a:b:c = ((a*60)+b)*60+c */
        unsigned __int128 part = 0;
        for (char *q = p;; q++) {
            if (*q == ':' || *q == '\0') {
                acc = acc * 60 + part;
                part = 0;
                if (*q == '\0')
                    break;
            } else {
                part = part * 10 + (unsigned)(*q - '0');
            }
            if (acc > ((unsigned __int128)1 << 100))
                overflow = 1;
        }
    } else {
        for (char *q = p; *q; q++) {
            int d = is_digit(*q) ? *q - '0' : (*q >= 'a' && *q <= 'f') ? *q - 'a' + 10 : *q - 'A' + 10;
            acc = acc * (unsigned)base + (unsigned)d;
            if (acc > ((unsigned __int128)1 << 100))
                overflow = 1;
        }
    }
    if (!overflow && (neg ? acc <= (unsigned __int128)INT64_MAX + 1 : acc <= (unsigned __int128)INT64_MAX)) {
        v->kind = GF_YV_INT;
        v->i = neg ? (int64_t)(0 - (uint64_t)acc) : (int64_t)acc;
        free(s);
        return 0;
    }
    if (overflow || base != 10 || strchr(p, ':')) {
        free(s);
        return 1; /* not representable; refuse rather than guess */
    }
    /* decimal beyond int64: keep the digits (Python ints are unbounded) */
    while (p[0] == '0' && p[1])
        p++;
    v->kind = GF_YV_BIGINT;
    v->len = strlen(p) + (size_t)neg;
    v->s = malloc(v->len + 1);
    if (!v->s) {
        free(s);
        return -1;
    }
    snprintf(v->s, v->len + 1, "%s%s", neg ? "-" : "", p);
    free(s);
    return 0;
}

static int build_float(gf_yv *v, const char *s0, size_t n0)
{
    size_t n;
    char *s = strip_us(s0, n0, &n);
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (s[i] >= 'A' && s[i] <= 'Z')
            s[i] = (char)(s[i] - 'A' + 'a');
    double sign = 1;
    char *p = s;
    if (*p == '-' || *p == '+') {
        if (*p == '-')
            sign = -1;
        p++;
    }
    v->kind = GF_YV_FLOAT;
    if (!strcmp(p, ".inf")) {
        v->f = sign * INFINITY;
    } else if (!strcmp(p, ".nan")) {
        v->f = NAN;
    } else if (strchr(p, ':')) {
        double acc = 0;
        char *q = p;
        for (;;) {
            char *e = strchr(q, ':');
            if (!e) {
                acc = acc * 60 + strtod(q, NULL);
                break;
            }
            *e = '\0';
            acc = acc * 60 + strtod(q, NULL);
            q = e + 1;
        }
        v->f = sign * acc;
    } else {
        v->f = sign * strtod(p, NULL);
    }
    free(s);
    return 0;
}

static int set_str(gf_yv *v, const char *s, size_t n)
{
    v->kind = GF_YV_STR;
    v->s = malloc(n + 1);
    if (!v->s)
        return -1;
    memcpy(v->s, s, n);
    v->s[n] = '\0';
    v->len = n;
    return 0;
}

#define TAGP "tag:yaml.org,2002:"

/* Builds a scalar node; returns 1 when PyYAML's safe_load would refuse it. */
static int build_scalar(gf_yv *v, const char *s, size_t n, const char *tag, int plain)
{
    int b;
    if (tag && strcmp(tag, "!") != 0) {
        if (strncmp(tag, TAGP, strlen(TAGP)) != 0)
            return 1;
        const char *t = tag + strlen(TAGP);
        if (!strcmp(t, "str"))
            return set_str(v, s, n);
        if (!strcmp(t, "null")) {
            v->kind = GF_YV_NULL;
            return 0;
        }
        if (!strcmp(t, "bool")) {
            /* PyYAML: bool_values[value.lower()] */
            char low[8];
            if (n >= sizeof low)
                return 1;
            for (size_t i = 0; i < n; i++)
                low[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] - 'A' + 'a' : s[i]);
            if (!bool_of(low, n, &b))
                return 1;
            v->kind = GF_YV_BOOL;
            v->b = b;
            return 0;
        }
        if (!strcmp(t, "int"))
            return match_int(s, n) ? build_int(v, s, n) : 1;
        if (!strcmp(t, "float"))
            return match_float(s, n) || match_int(s, n) ? build_float(v, s, n) : 1;
        return 1;
    }
    if (!plain || tag)
        return set_str(v, s, n);
    if (bool_of(s, n, &b)) {
        v->kind = GF_YV_BOOL;
        v->b = b;
        return 0;
    }
    if (match_float(s, n))
        return build_float(v, s, n);
    if (match_int(s, n))
        return build_int(v, s, n);
    if (is_null(s, n)) {
        v->kind = GF_YV_NULL;
        return 0;
    }
    if (n == 1 && s[0] == '=')
        return 1; /* tag:yaml.org,2002:value has no safe constructor */
    return set_str(v, s, n);
}

/* The string a mapping key becomes in JSON (Python's json.dumps rules); -1 for unhashable keys. */
static int key_string(const gf_yv *k, char **out, size_t *outn)
{
    char buf[64];
    const char *s = buf;
    size_t n;
    switch (k->kind) {
    case GF_YV_STR:
    case GF_YV_BIGINT:
        s = k->s;
        n = k->len;
        break;
    case GF_YV_INT: n = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)k->i); break;
    case GF_YV_BOOL: n = (size_t)snprintf(buf, sizeof buf, "%s", k->b ? "true" : "false"); break;
    case GF_YV_NULL: n = (size_t)snprintf(buf, sizeof buf, "null"); break;
    case GF_YV_FLOAT: gf_pyjson_float_text(k->f, buf, sizeof buf); n = strlen(buf); break;
    default: return -1;
    }
    *out = malloc(n + 1);
    if (!*out)
        return -1;
    memcpy(*out, s, n);
    (*out)[n] = '\0';
    *outn = n;
    return 0;
}

static int push_item(gf_yv *c, gf_yv *item, char *key, size_t klen)
{
    if (c->kind == GF_YV_MAP) {
        for (size_t i = 0; i < c->n; i++) {
            if (c->klens[i] == klen && !memcmp(c->keys[i], key, klen)) { /* later duplicate wins */
                gf_yv_free(c->items[i]);
                c->items[i] = item;
                free(key);
                return 0;
            }
        }
    }
    if (GF_RESIZE(c->items, c->n + 1) != 0)
        return -1;
    if (c->kind == GF_YV_MAP) {
        if (GF_RESIZE(c->keys, c->n + 1) != 0 || GF_RESIZE(c->klens, c->n + 1) != 0)
            return -1;
        c->keys[c->n] = key;
        c->klens[c->n] = klen;
    }
    c->items[c->n++] = item;
    return 0;
}

static int add_anchor(ctx *c, const char *name, gf_yv *node)
{
    if (!name)
        return 0;
    if (GF_GROW(c->anchors, c->capanchors, c->nanchors + 1, 8) != 0)
        return -1;
    c->anchors[c->nanchors].name = strdup(name);
    c->anchors[c->nanchors].node = node;
    if (!c->anchors[c->nanchors].name)
        return -1;
    c->nanchors++;
    return 0;
}

static gf_yv *find_anchor(ctx *c, const char *name)
{
    for (size_t i = c->nanchors; i-- > 0;)
        if (!strcmp(c->anchors[i].name, name))
            return c->anchors[i].node;
    return NULL;
}

/* Adds a finished node to the enclosing container (or makes it the root). 1 = refused by safe_load. */
static int attach(ctx *c, gf_yv *node, int plain_merge_key)
{
    if (c->depth == 0) {
        c->root = node;
        return 0;
    }
    frame *f = &c->stack[c->depth - 1];
    if (f->node->kind == GF_YV_SEQ)
        return push_item(f->node, node, NULL, 0) ? -1 : 0;
    if (!f->have_key) {
        if (plain_merge_key) {
            f->merge_pending = 1;
            f->have_key = 1;
            gf_yv_free(node);
            return 0;
        }
        int r = key_string(node, &f->key, &f->klen);
        gf_yv_free(node);
        if (r != 0)
            return 1; /* unhashable key */
        f->have_key = 1;
        return 0;
    }
    f->have_key = 0;
    if (f->merge_pending) {
        f->merge_pending = 0;
        if (node->kind != GF_YV_MAP && !(node->kind == GF_YV_SEQ)) {
            gf_yv_free(node);
            return 1;
        }
        if (node->kind == GF_YV_SEQ)
            for (size_t i = 0; i < node->n; i++)
                if (node->items[i]->kind != GF_YV_MAP) {
                    gf_yv_free(node);
                    return 1;
                }
        if (GF_RESIZE(f->merges, f->nmerges + 1) != 0) {
            gf_yv_free(node);
            return -1;
        }
        f->merges[f->nmerges++] = node;
        return 0;
    }
    char *key = f->key;
    f->key = NULL;
    return push_item(f->node, node, key, f->klen) ? -1 : 0;
}

static int merge_from(ctx *c, gf_yv *dst, const gf_yv *src)
{
    for (size_t i = 0; i < src->n; i++) {
        int present = 0;
        for (size_t j = 0; j < dst->n; j++)
            if (dst->klens[j] == src->klens[i] && !memcmp(dst->keys[j], src->keys[i], src->klens[i])) {
                present = 1;
                break;
            }
        if (present)
            continue;
        char *k = malloc(src->klens[i] + 1);
        gf_yv *v = yv_copy(c, src->items[i]);
        if (!k || !v) {
            free(k);
            gf_yv_free(v);
            return -1;
        }
        memcpy(k, src->keys[i], src->klens[i] + 1);
        if (push_item(dst, v, k, src->klens[i]))
            return -1;
    }
    return 0;
}

static int finish_frame(ctx *c, frame *f)
{
    int rc = 0;
    for (size_t m = 0; m < f->nmerges && rc == 0; m++) {
        gf_yv *mv = f->merges[m];
        if (mv->kind == GF_YV_MAP)
            rc = merge_from(c, f->node, mv);
        else
            for (size_t i = 0; i < mv->n && rc == 0; i++)
                rc = merge_from(c, f->node, mv->items[i]);
    }
    for (size_t m = 0; m < f->nmerges; m++)
        gf_yv_free(f->merges[m]);
    free(f->merges);
    free(f->key);
    f->merges = NULL;
    f->key = NULL;
    return rc;
}

static void ctx_free(ctx *c)
{
    for (size_t i = 0; i < c->nanchors; i++) {
        free(c->anchors[i].name);
        /* anchored nodes are owned by the tree or by the anchor table when detached */
    }
    free(c->anchors);
    while (c->depth > 0) {
        frame *f = &c->stack[--c->depth];
        for (size_t m = 0; m < f->nmerges; m++)
            gf_yv_free(f->merges[m]);
        free(f->merges);
        free(f->key);
        free(f->anchor);
        if (c->depth == 0 || 1)
            gf_yv_free(f->node);
    }
}

/* Anchored nodes are copied into the anchor table so aliases stay valid after the original is
 * attached (and possibly replaced by a later duplicate key). */
static gf_yv *snapshot(ctx *c, const gf_yv *v)
{
    return yv_copy(c, v);
}

/* A scalar event: built, remembered under its anchor, attached to the open collection. Returns attach's
 * status (< 0 OOM); *bad set when the document is invalid (the message is in c->err). */
static int on_scalar(ctx *c, const yaml_event_t *ev, gf_yv *anchor_copies, size_t line, size_t col, int *bad)
{
    gf_yv *v = yv_new(GF_YV_NULL);
    if (!v)
        return -1;
    c->nodes++;
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    const char *tag = (const char *)ev->data.scalar.tag;
    int r = build_scalar(v, s, n, tag, plain);
    if (r != 0) {
        gf_yv_free(v);
        if (r > 0)
            fail(c, line, col, "scalar cannot be constructed");
        *bad = 1;
        return r;
    }
    int mk = plain && !tag && n == 2 && s[0] == '<' && s[1] == '<' && c->depth > 0 &&
             c->stack[c->depth - 1].node->kind == GF_YV_MAP && !c->stack[c->depth - 1].have_key;
    if (ev->data.scalar.anchor) {
        gf_yv *snap = snapshot(c, v);
        if (!snap || push_item(anchor_copies, snap, NULL, 0) ||
            add_anchor(c, (const char *)ev->data.scalar.anchor, snap)) {
            gf_yv_free(v);
            return -1;
        }
    }
    r = attach(c, v, mk);
    if (r > 0) {
        fail(c, line, col, "found unhashable key or invalid merge");
        *bad = 1;
    }
    return r;
}

gf_yv *gf_yaml_load_string(const char *text, size_t len, const char *name, int *status, gf_err *err)
{
    yaml_parser_t p;
    yaml_event_t ev;
    ctx c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.err = err;
    *status = GF_YAML_OK;
    if (!yaml_parser_initialize(&p)) {
        gf_oom(err, name);
        *status = GF_YAML_INVALID;
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int done = 0, bad = 0;
    gf_yv *anchor_copies = yv_new(GF_YV_SEQ); /* owns the snapshots */
    while (!done && !bad) {
        if (!yaml_parser_parse(&p, &ev)) {
            char what[600];
            snprintf(what, sizeof what, "%s%s%s", p.problem ? p.problem : "invalid YAML",
                     p.context ? " " : "", p.context ? p.context : "");
            fail(&c, p.problem_mark.line + 1, p.problem_mark.column + 1, what);
            bad = 1;
            break;
        }
        size_t line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
        int r = 0;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = 1; break;
        case YAML_DOCUMENT_START_EVENT:
            if (++c.docs > 1) {
                fail(&c, line, col, "expected a single document in the stream");
                bad = 1;
            }
            break;
        case YAML_ALIAS_EVENT: {
            gf_yv *a = find_anchor(&c, (const char *)ev.data.alias.anchor);
            if (!a) {
                fail(&c, line, col, "found undefined alias");
                bad = 1;
                break;
            }
            gf_yv *cp = yv_copy(&c, a);
            if (!cp) {
                fail(&c, line, col, "alias expansion too large");
                bad = 1;
                break;
            }
            r = attach(&c, cp, 0);
            break;
        }
        case YAML_SCALAR_EVENT: r = on_scalar(&c, &ev, anchor_copies, line, col, &bad); break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            if (c.depth >= MAX_DEPTH) {
                fail(&c, line, col, "nesting too deep");
                bad = 1;
                break;
            }
            const char *tag = (const char *)(ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.tag
                                                                                   : ev.data.mapping_start.tag);
            int is_seq = ev.type == YAML_SEQUENCE_START_EVENT;
            if (tag && strcmp(tag, "!") && strcmp(tag, is_seq ? TAGP "seq" : TAGP "map")) {
                fail(&c, line, col, "unsupported tag");
                bad = 1;
                break;
            }
            gf_yv *v = yv_new(is_seq ? GF_YV_SEQ : GF_YV_MAP);
            if (!v) {
                r = -1;
                break;
            }
            c.nodes++;
            frame *f = &c.stack[c.depth++];
            memset(f, 0, sizeof *f);
            f->node = v;
            const char *an = (const char *)(is_seq ? ev.data.sequence_start.anchor : ev.data.mapping_start.anchor);
            if (an)
                f->anchor = strdup(an);
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
            frame *f = &c.stack[--c.depth];
            gf_yv *v = f->node;
            char *an = f->anchor;
            r = finish_frame(&c, f);
            if (r == 0 && an) {
                gf_yv *snap = snapshot(&c, v);
                if (!snap || push_item(anchor_copies, snap, NULL, 0) || add_anchor(&c, an, snap))
                    r = -1;
            }
            free(an);
            if (r != 0) {
                gf_yv_free(v);
                break;
            }
            r = attach(&c, v, 0);
            if (r > 0) {
                fail(&c, line, col, "found unhashable key or invalid merge");
                bad = 1;
            }
            break;
        }
        default: break;
        }
        if (r < 0 && !bad) {
            gf_errf(err, GF_EXIT_ERROR, "%s: out of memory (or alias expansion too large)", name);
            bad = 1;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    ctx_free(&c);
    gf_yv_free(anchor_copies);
    if (bad) {
        gf_yv_free(c.root);
        *status = GF_YAML_INVALID;
        return NULL;
    }
    if (!c.root)
        c.root = yv_new(GF_YV_NULL);
    return c.root;
}

gf_yv *gf_yaml_load_file(const char *path, int *status, gf_err *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        int e = errno;
        *status = (e == ENOENT || e == ENOTDIR) ? GF_YAML_MISSING : GF_YAML_UNREADABLE;
        gf_errf(err, GF_EXIT_INPUT, "%s: %s", path, strerror(e));
        return NULL;
    }
    fclose(fp);
    char *data;
    size_t len;
    if (gf_read_file(path, &data, &len, err) != 0) {
        *status = GF_YAML_UNREADABLE;
        return NULL;
    }
    gf_yv *v = gf_yaml_load_string(data, len, path, status, err);
    free(data);
    return v;
}
