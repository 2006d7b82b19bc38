/* The collapse table (see stacks.h). Frames are interned in one byte arena; stacks are frame-id
 * sequences in one id arena; both are found again through open-addressing hash tables. */
#include "stacks.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "jsonw.h"

typedef struct stack_rec {
    size_t off;
    uint32_t depth;
    int64_t weight;
} stack_rec;

struct gf_stacks {
    char *bytes; /* frame names, NUL-terminated */
    size_t blen, bcap;
    size_t *foff; /* frame id → offset */
    uint32_t *flen;
    size_t nframes, fcap;
    uint32_t *fhash; /* id+1, 0 = empty */
    size_t fhcap;

    uint32_t *ids; /* stack frame ids */
    size_t ilen, icap;
    stack_rec *st;
    size_t nstacks, scap;
    uint32_t *shash; /* index+1 */
    size_t shcap;

    int64_t total;
    size_t max_depth;
    char *meta;
    uint32_t *scratch;
    size_t scratch_cap;
};

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}
#define FNV0 1469598103934665603ULL

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    void *q = realloc(p, n * elem);
    if (q)
        *cap = n;
    return q;
}

gf_stacks *gf_stacks_new(void)
{
    return calloc(1, sizeof(gf_stacks));
}

void gf_stacks_free(gf_stacks *s)
{
    if (!s)
        return;
    free(s->bytes);
    free(s->foff);
    free(s->flen);
    free(s->fhash);
    free(s->ids);
    free(s->st);
    free(s->shash);
    free(s->meta);
    free(s->scratch);
    free(s);
}

static int rehash_frames(gf_stacks *s)
{
    size_t cap = s->fhcap ? s->fhcap * 2 : 1024;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (size_t i = 0; i < s->nframes; i++) {
        size_t k = hash_bytes(s->bytes + s->foff[i], s->flen[i], FNV0) & (cap - 1);
        while (h[k])
            k = (k + 1) & (cap - 1);
        h[k] = (uint32_t)i + 1;
    }
    free(s->fhash);
    s->fhash = h;
    s->fhcap = cap;
    return 0;
}

/* Interns a name that is already clean. */
static uint32_t intern_clean(gf_stacks *s, const char *name, size_t len)
{
    if ((s->nframes + 1) * 2 > s->fhcap && rehash_frames(s) != 0)
        return UINT32_MAX;
    size_t mask = s->fhcap - 1;
    size_t k = hash_bytes(name, len, FNV0) & mask;
    while (s->fhash[k]) {
        uint32_t id = s->fhash[k] - 1;
        if (s->flen[id] == len && memcmp(s->bytes + s->foff[id], name, len) == 0)
            return id;
        k = (k + 1) & mask;
    }
    if (s->nframes >= UINT32_MAX - 1)
        return UINT32_MAX;
    char *b = grow(s->bytes, &s->bcap, s->blen + len + 1, 1);
    if (!b)
        return UINT32_MAX;
    s->bytes = b;
    size_t fc = s->fcap;
    size_t *fo = grow(s->foff, &fc, s->nframes + 1, sizeof *fo);
    if (!fo)
        return UINT32_MAX;
    s->foff = fo;
    size_t fc2 = s->fcap;
    uint32_t *fl = grow(s->flen, &fc2, s->nframes + 1, sizeof *fl);
    if (!fl)
        return UINT32_MAX;
    s->flen = fl;
    s->fcap = fc;
    memcpy(s->bytes + s->blen, name, len);
    s->bytes[s->blen + len] = '\0';
    s->foff[s->nframes] = s->blen;
    s->flen[s->nframes] = (uint32_t)len;
    s->blen += len + 1;
    s->fhash[k] = (uint32_t)s->nframes + 1;
    return (uint32_t)s->nframes++;
}

uint32_t gf_stacks_intern(gf_stacks *s, const char *name, size_t len)
{
    if (len > UINT32_MAX / 2)
        return UINT32_MAX;
    if (!memchr(name, ';', len) && !memchr(name, '\n', len) && !memchr(name, '\r', len))
        return intern_clean(s, name, len);
    char *tmp = malloc(len ? len : 1);
    if (!tmp)
        return UINT32_MAX;
    for (size_t i = 0; i < len; i++)
        tmp[i] = name[i] == ';' ? ',' : (name[i] == '\n' || name[i] == '\r') ? ' ' : name[i];
    uint32_t id = intern_clean(s, tmp, len);
    free(tmp);
    return id;
}

const char *gf_stacks_frame(const gf_stacks *s, uint32_t id, size_t *len)
{
    if (id >= s->nframes) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = s->flen[id];
    return s->bytes + s->foff[id];
}

static int rehash_stacks(gf_stacks *s)
{
    size_t cap = s->shcap ? s->shcap * 2 : 1024;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (size_t i = 0; i < s->nstacks; i++) {
        size_t k = hash_bytes(s->ids + s->st[i].off, s->st[i].depth * sizeof(uint32_t), FNV0) & (cap - 1);
        while (h[k])
            k = (k + 1) & (cap - 1);
        h[k] = (uint32_t)i + 1;
    }
    free(s->shash);
    s->shash = h;
    s->shcap = cap;
    return 0;
}

int gf_stacks_add_ids(gf_stacks *s, const uint32_t *ids, size_t depth, int64_t weight, gf_err *err)
{
    if (depth == 0)
        return gf_errf(err, GF_EXIT_INPUT, "empty stack");
    if ((s->nstacks + 1) * 2 > s->shcap && rehash_stacks(s) != 0)
        return gf_errf(err, GF_EXIT_ERROR, "stacks: out of memory");
    size_t mask = s->shcap - 1;
    size_t bytes = depth * sizeof(uint32_t);
    size_t k = hash_bytes(ids, bytes, FNV0) & mask;
    while (s->shash[k]) {
        stack_rec *r = &s->st[s->shash[k] - 1];
        if (r->depth == depth && memcmp(s->ids + r->off, ids, bytes) == 0) {
            r->weight += weight;
            s->total += weight;
            return 0;
        }
        k = (k + 1) & mask;
    }
    uint32_t *ni = grow(s->ids, &s->icap, s->ilen + depth, sizeof *ni);
    if (!ni)
        return gf_errf(err, GF_EXIT_ERROR, "stacks: out of memory");
    s->ids = ni;
    stack_rec *ns = grow(s->st, &s->scap, s->nstacks + 1, sizeof *ns);
    if (!ns)
        return gf_errf(err, GF_EXIT_ERROR, "stacks: out of memory");
    s->st = ns;
    memcpy(s->ids + s->ilen, ids, bytes);
    s->st[s->nstacks].off = s->ilen;
    s->st[s->nstacks].depth = (uint32_t)depth;
    s->st[s->nstacks].weight = weight;
    s->ilen += depth;
    s->shash[k] = (uint32_t)s->nstacks + 1;
    s->nstacks++;
    s->total += weight;
    if (depth > s->max_depth)
        s->max_depth = depth;
    return 0;
}

static uint32_t *scratch(gf_stacks *s, size_t n)
{
    uint32_t *p = grow(s->scratch, &s->scratch_cap, n, sizeof *p);
    if (p)
        s->scratch = p;
    return p;
}

/* Splits a ';'-separated frame list into ids appended at buf[*n]. */
static int split_frames(gf_stacks *s, const char *str, size_t len, size_t *n, gf_err *err)
{
    size_t i = 0;
    while (i <= len) {
        const char *e = memchr(str + i, ';', len - i);
        size_t fl = e ? (size_t)(e - (str + i)) : len - i;
        uint32_t *b = scratch(s, *n + 1);
        if (!b)
            return gf_errf(err, GF_EXIT_ERROR, "stacks: out of memory");
        uint32_t id = intern_clean(s, str + i, fl);
        if (id == UINT32_MAX)
            return gf_errf(err, GF_EXIT_ERROR, "stacks: out of memory");
        s->scratch[(*n)++] = id;
        i += fl + 1;
        if (!e)
            break;
    }
    return 0;
}

int gf_stacks_add_prefixed(gf_stacks *s, const char *prefix, const char *leaf, size_t leaf_len, int64_t weight,
                           gf_err *err)
{
    size_t n = 0;
    if (prefix && *prefix && split_frames(s, prefix, strlen(prefix), &n, err) != 0)
        return -1;
    uint32_t id = gf_stacks_intern(s, leaf, leaf_len);
    if (id == UINT32_MAX || !scratch(s, n + 1))
        return gf_errf(err, GF_EXIT_ERROR, "stacks: out of memory");
    s->scratch[n++] = id;
    return gf_stacks_add_ids(s, s->scratch, n, weight, err);
}

size_t gf_stacks_count(const gf_stacks *s)
{
    return s->nstacks;
}

size_t gf_stacks_nframes(const gf_stacks *s)
{
    return s->nframes;
}

int64_t gf_stacks_total(const gf_stacks *s)
{
    return s->total;
}

size_t gf_stacks_max_depth(const gf_stacks *s)
{
    return s->max_depth;
}

const uint32_t *gf_stacks_get(const gf_stacks *s, size_t i, size_t *depth, int64_t *weight)
{
    if (i >= s->nstacks)
        return NULL;
    if (depth)
        *depth = s->st[i].depth;
    if (weight)
        *weight = s->st[i].weight;
    return s->ids + s->st[i].off;
}

const char *gf_stacks_meta(const gf_stacks *s)
{
    return s->meta;
}

int gf_stacks_set_meta(gf_stacks *s, const char *json)
{
    char *m = NULL;
    if (json) {
        m = strdup(json);
        if (!m)
            return -1;
        for (char *p = m; *p; p++) /* the metadata must stay on one line */
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    free(s->meta);
    s->meta = m;
    return 0;
}

/* ---- folded format ---- */

static void bad_line(gf_folded_stats *st, size_t line, const char *why)
{
    st->bad++;
    if (!st->first_bad) {
        st->first_bad = line;
        snprintf(st->first_bad_why, sizeof st->first_bad_why, "%s", why);
    }
}

int gf_stacks_read_folded(gf_stacks *s, const char *path, gf_folded_stats *st, gf_err *err)
{
    gf_folded_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_errf(err, GF_EXIT_INPUT, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    size_t lineno = 0;
    int rc = 0;
    while ((got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        size_t n = (size_t)got;
        if (lineno == 1 && n >= 3 && (unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
            (unsigned char)line[2] == 0xBF) {
            memmove(line, line + 3, n - 3);
            n -= 3;
        }
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            n--;
        line[n] = '\0';
        st->lines++;
        size_t a = 0;
        while (a < n && isspace((unsigned char)line[a]))
            a++;
        if (a == n)
            continue;
        if (line[a] == '#') {
            if (lineno == 1 && line[a + 1] == ' ' && line[a + 2] == '{' && gf_stacks_set_meta(s, line + a + 2) != 0) {
                rc = gf_errf(err, GF_EXIT_ERROR, "%s: out of memory", path);
                break;
            }
            continue;
        }
        while (n > a && isspace((unsigned char)line[n - 1]))
            n--;
        char *sp = NULL;
        for (size_t i = n; i-- > a;)
            if (line[i] == ' ' || line[i] == '\t') {
                sp = line + i;
                break;
            }
        if (!sp) {
            bad_line(st, lineno, "no count after the last space");
            continue;
        }
        char *end;
        errno = 0;
        double cnt = strtod(sp + 1, &end);
        if (end == sp + 1 || *end || errno || !isfinite(cnt) || cnt < 0) {
            bad_line(st, lineno, "the count after the last space is not a non-negative number");
            continue;
        }
        size_t slen = (size_t)(sp - (line + a));
        while (slen && isspace((unsigned char)line[a + slen - 1]))
            slen--;
        if (slen == 0) {
            bad_line(st, lineno, "empty stack");
            continue;
        }
        size_t nf = 0;
        if (split_frames(s, line + a, slen, &nf, err) != 0 ||
            gf_stacks_add_ids(s, s->scratch, nf, (int64_t)llround(cnt), err) != 0) {
            rc = -1;
            break;
        }
        st->stacks++;
    }
    if (rc == 0 && ferror(f))
        rc = gf_errf(err, GF_EXIT_INPUT, "%s: read error", path);
    free(line);
    fclose(f);
    return rc;
}

int gf_stacks_write_folded(const gf_stacks *s, FILE *out, int with_meta, gf_err *err)
{
    if (with_meta && s->meta)
        fprintf(out, "# %s\n", s->meta);
    for (size_t i = 0; i < s->nstacks; i++) {
        const stack_rec *r = &s->st[i];
        for (uint32_t d = 0; d < r->depth; d++) {
            uint32_t id = s->ids[r->off + d];
            if (d)
                putc(';', out);
            fwrite(s->bytes + s->foff[id], 1, s->flen[id], out);
        }
        fprintf(out, " %" PRId64 "\n", r->weight);
    }
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "write error (folded stacks)");
    return 0;
}

/* ---- summary CSV ---- */

static void clean_name(const char **p, size_t *n)
{
    const char *s = *p;
    size_t len = *n;
    while (len && (isspace((unsigned char)*s) || *s == '"')) {
        s++;
        len--;
    }
    while (len && (isspace((unsigned char)s[len - 1]) || s[len - 1] == '"'))
        len--;
    *p = s;
    *n = len;
}

int gf_stacks_add_total(gf_stacks *s, const char *prefix, const char *name, size_t len, int64_t total_ns,
                        int64_t unit_ns, gf_err *err)
{
    clean_name(&name, &len);
    if (len == 0)
        return 0;
    if (unit_ns < 1)
        unit_ns = 1;
    int64_t w = total_ns < 1 ? 1 : total_ns;
    int64_t cnt = w / unit_ns;
    return gf_stacks_add_prefixed(s, prefix, name, len, cnt < 1 ? 1 : cnt, err);
}

int gf_stacks_from_summary_csv(gf_stacks *s, gf_csv *c, size_t name_col, size_t weight_col, const char *prefix,
                               int64_t unit_ns, gf_summary_stats *st, gf_err *err)
{
    gf_summary_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    int rc;
    while ((rc = gf_csv_next(c, err)) == 1) {
        st->rows++;
        size_t nl;
        const char *name = gf_csv_field(c, name_col, &nl);
        clean_name(&name, &nl);
        if (nl == 0) {
            st->skipped_empty++;
            continue;
        }
        size_t wl;
        const char *wv = gf_csv_field(c, weight_col, &wl);
        char buf[128];
        int64_t w = 1;
        while (wl && isspace((unsigned char)*wv)) {
            wv++;
            wl--;
        }
        while (wl && isspace((unsigned char)wv[wl - 1]))
            wl--;
        if (wl > 0 && wl < sizeof buf) {
            memcpy(buf, wv, wl);
            buf[wl] = '\0';
            char *end;
            double d = strtod(buf, &end);
            if (*end == '\0' && isfinite(d) && strncasecmp(buf, "nan", 3) != 0)
                w = d >= 9.2e18 ? INT64_MAX : (d < 1 ? 1 : (int64_t)d);
            else
                st->unparsed_weight++;
        } else {
            st->unparsed_weight++;
        }
        if (w < 1)
            w = 1;
        if (gf_stacks_add_total(s, prefix, name, nl, w, unit_ns, err) != 0)
            return -1;
        st->used++;
    }
    return rc < 0 ? -1 : 0;
}

/* ---- merged tree (flamegraph data) ---- */

typedef struct tnode {
    uint32_t frame, first_child, next_sibling;
    uint32_t nchild;
    int64_t value;
} tnode;

typedef struct tree {
    tnode *n;
    size_t len, cap;
    uint64_t *hash; /* (node index+1) keyed by (parent, frame) */
    size_t hcap;
} tree;

static uint64_t pf_hash(uint32_t parent, uint32_t frame)
{
    uint64_t k = ((uint64_t)parent << 32) | frame;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static int tree_build(const gf_stacks *s, tree *t, uint32_t **parents)
{
    size_t est = s->ilen + 1;
    t->cap = est;
    t->n = calloc(est, sizeof *t->n);
    uint32_t *par = calloc(est, sizeof *par);
    t->hcap = 1024;
    while (t->hcap < est * 2)
        t->hcap *= 2;
    t->hash = calloc(t->hcap, sizeof *t->hash);
    if (!t->n || !par || !t->hash) {
        free(par);
        return -1;
    }
    t->len = 1; /* root */
    t->n[0].frame = UINT32_MAX;
    t->n[0].first_child = t->n[0].next_sibling = UINT32_MAX;
    size_t mask = t->hcap - 1;
    for (size_t i = 0; i < s->nstacks; i++) {
        const stack_rec *r = &s->st[i];
        uint32_t cur = 0;
        t->n[0].value += r->weight;
        for (uint32_t d = 0; d < r->depth; d++) {
            uint32_t f = s->ids[r->off + d];
            size_t k = pf_hash(cur, f) & mask;
            uint32_t found = UINT32_MAX;
            while (t->hash[k]) {
                uint32_t ni = (uint32_t)(t->hash[k] - 1);
                if (par[ni] == cur && t->n[ni].frame == f) {
                    found = ni;
                    break;
                }
                k = (k + 1) & mask;
            }
            if (found == UINT32_MAX) {
                found = (uint32_t)t->len++;
                tnode *nn = &t->n[found];
                nn->frame = f;
                nn->value = 0;
                nn->first_child = UINT32_MAX;
                nn->next_sibling = t->n[cur].first_child;
                t->n[cur].first_child = found;
                t->n[cur].nchild++;
                par[found] = cur;
                t->hash[k] = (uint64_t)found + 1;
            }
            t->n[found].value += r->weight;
            cur = found;
        }
    }
    *parents = par;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static const gf_stacks *g_s; /* qsort context (the program is single-threaded) */
static int by_name(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return strcmp(g_s->bytes + g_s->foff[x], g_s->bytes + g_s->foff[y]);
}

int gf_stacks_write_tree_json(const gf_stacks *s, FILE *out, gf_err *err)
{
    tree t = {0};
    uint32_t *par = NULL;
    if (tree_build(s, &t, &par) != 0) {
        free(t.n);
        free(t.hash);
        return gf_errf(err, GF_EXIT_ERROR, "flamegraph: out of memory building the tree");
    }
    free(t.hash);
    free(par);
    size_t nf = s->nframes ? s->nframes : 1;
    uint32_t *order = malloc(nf * sizeof *order);
    uint32_t *rank = malloc(nf * sizeof *rank);
    uint64_t *kids = malloc(t.len * sizeof *kids); /* children of each node, contiguous, name order */
    uint32_t *cfirst = malloc(t.len * sizeof *cfirst);
    uint32_t *stn = malloc((s->max_depth + 2) * sizeof *stn);
    uint32_t *stc = malloc((s->max_depth + 2) * sizeof *stc);
    int rc = 0;
    if (!order || !rank || !kids || !cfirst || !stn || !stc) {
        rc = gf_errf(err, GF_EXIT_ERROR, "flamegraph: out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < s->nframes; i++)
        order[i] = i;
    g_s = s;
    qsort(order, s->nframes, sizeof *order, by_name);
    for (uint32_t i = 0; i < s->nframes; i++)
        rank[order[i]] = i;
    size_t pos = 0;
    for (size_t i = 0; i < t.len; i++) {
        cfirst[i] = (uint32_t)pos;
        for (uint32_t c = t.n[i].first_child; c != UINT32_MAX; c = t.n[c].next_sibling)
            kids[pos++] = ((uint64_t)rank[t.n[c].frame] << 32) | c;
        if (t.n[i].nchild > 1)
            qsort(kids + cfirst[i], t.n[i].nchild, sizeof *kids, cmp_u64);
    }
    fprintf(out, "{\"total\":%" PRId64 ",\"names\":[", s->total);
    for (size_t i = 0; i < s->nframes; i++) {
        if (i)
            putc(',', out);
        gf_jsonw_string(out, s->bytes + s->foff[i], s->flen[i]);
    }
    fputs("],\"nodes\":[", out);
    /* pre-order walk: stn = node per level, stc = next child index per level */
    int first = 1;
    size_t sp = 0;
    stn[0] = 0;
    stc[0] = 0;
    while (1) {
        uint32_t nd = stn[sp];
        if (stc[sp] >= t.n[nd].nchild) {
            if (sp == 0)
                break;
            sp--;
            continue;
        }
        uint32_t c = (uint32_t)(kids[cfirst[nd] + stc[sp]++] & 0xffffffffu);
        fprintf(out, first ? "%" PRIu32 ",%" PRId64 ",%zu" : ",%" PRIu32 ",%" PRId64 ",%zu", t.n[c].frame,
                t.n[c].value, sp);
        first = 0;
        sp++;
        stn[sp] = c;
        stc[sp] = 0;
    }
    fputs("]}", out);
    if (ferror(out))
        rc = gf_errf(err, GF_EXIT_ERROR, "write error (flamegraph data)");
done:
    free(order);
    free(rank);
    free(kids);
    free(cfirst);
    free(stn);
    free(stc);
    free(t.n);
    return rc;
}

int gf_stacks_write_speedscope(const gf_stacks *s, FILE *out, const char *name, const char *unit, gf_err *err)
{
    fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[", out);
    for (size_t i = 0; i < s->nframes; i++) {
        if (i)
            putc(',', out);
        fputs("{\"name\":", out);
        gf_jsonw_string(out, s->bytes + s->foff[i], s->flen[i]);
        putc('}', out);
    }
    fputs("]},\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
    const char *nm = name ? name : "gpuflame";
    gf_jsonw_string(out, nm, strlen(nm));
    fputs(",\"unit\":", out);
    const char *u = unit ? unit : "none";
    gf_jsonw_string(out, u, strlen(u));
    fprintf(out, ",\"startValue\":0,\"endValue\":%" PRId64 ",\"samples\":[", s->total);
    for (size_t i = 0; i < s->nstacks; i++) {
        const stack_rec *r = &s->st[i];
        putc(i ? ',' : '[', out);
        if (i)
            putc('[', out);
        for (uint32_t d = 0; d < r->depth; d++)
            fprintf(out, d ? ",%" PRIu32 : "%" PRIu32, s->ids[r->off + d]);
        putc(']', out);
    }
    fputs("],\"weights\":[", out);
    for (size_t i = 0; i < s->nstacks; i++)
        fprintf(out, i ? ",%" PRId64 : "%" PRId64, s->st[i].weight);
    fputs("]}],\"name\":", out);
    gf_jsonw_string(out, nm, strlen(nm));
    fputs(",\"activeProfileIndex\":0,\"exporter\":\"gpuflame\"}\n", out);
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "write error (speedscope)");
    return 0;
}
