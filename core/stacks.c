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
#include "jsonout.h"
#include "mem.h"

typedef struct stack_rec {
    uint32_t off; /* into ids: at most UINT32_MAX frame ids in all (16 GiB of them) */
    uint32_t depth;
    int64_t weight;
    int64_t inst; /* instances (events) behind the weight; counted only by gf_stacks_add_instances */
} stack_rec;

struct gf_stacks {
    char *bytes; /* frame names, NUL-terminated */
    size_t blen, bcap;
    size_t *foff; /* frame id → offset */
    uint32_t *flen;
    uint64_t *fhv; /* frame id → its hash */
    size_t nframes, fcap;
    uint64_t *fhash; /* (low 32 bits of the hash) << 32 | (id+1); 0 = empty; slot = (hash >> 32) & mask */
    size_t fhcap;

    uint32_t *ids; /* stack frame ids */
    size_t ilen, icap;
    stack_rec *st;
    size_t nstacks, scap;
    uint64_t *shash; /* like fhash, for stacks */
    size_t shcap;

    int64_t total;
    size_t max_depth;
    int has_inst;    /* some stack has instances: the page data carries them */
    uint8_t *fkind;  /* frame id → GF_FRAME_* (NULL: none set) */
    size_t fkcap;
    char *meta;
    gf_stacks_prefold prefold;
    uint32_t *scratch;
    size_t scratch_cap;
};

/* 8 bytes at a time, then a murmur3 finaliser so the low bits (the table index) are well mixed. */
static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}
#define FNV0 1469598103934665603ULL

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    return gf_grow(&p, cap, need, elem, 256) == 0 ? p : NULL;
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
    free(s->fhv);
    free(s->fhash);
    free(s->ids);
    free(s->st);
    free(s->shash);
    free(s->meta);
    free(s->fkind);
    free(s->scratch);
    free(s);
}

/* The stacks' table holds up to LOAD_NUM / LOAD_DEN of its slots: a slot is 8 bytes, 8 to a cache line, so a
 * probe past 2.2M stacks' slots stays in a line or two, and the table is half the size it is at 1/2. */
enum { LOAD_NUM = 5, LOAD_DEN = 8 };

#define SLOT(hv, id) (((uint64_t)(uint32_t)(hv) << 32) | ((uint64_t)(id) + 1))
#define SLOT_ID(e) ((uint32_t)(e) - 1)
#define SLOT_TAG(e) ((uint32_t)((e) >> 32))

/* Frame i's hash (stacks = 0), or stack i's: computed again, not kept (the stacks' table is sized once, mostly). */
static uint64_t hash_of(const gf_stacks *s, int stacks, size_t i)
{
    return stacks ? hash_bytes(s->ids + s->st[i].off, s->st[i].depth * sizeof *s->ids, FNV0) : s->fhv[i];
}

/* The frames' table (stacks = 0) or the stacks' rebuilt with nc slots (0: twice as many). */
static int rehash(gf_stacks *s, int stacks, size_t nc)
{
    uint64_t **table = stacks ? &s->shash : &s->fhash;
    size_t *cap = stacks ? &s->shcap : &s->fhcap, n = stacks ? s->nstacks : s->nframes;
    nc = nc ? nc : *cap ? *cap * 2 : 1024;
    uint64_t *h = calloc(nc, sizeof *h);
    if (!h)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t hv = hash_of(s, stacks, i);
        size_t k = (hv >> 32) & (nc - 1);
        while (h[k])
            k = (k + 1) & (nc - 1);
        h[k] = SLOT(hv, i);
    }
    free(*table);
    *table = h;
    *cap = nc;
    return 0;
}

/* Room for nstacks stack records and nids frame ids in all (0, or -1 on OOM). */
static int room(gf_stacks *s, size_t nstacks, size_t nids)
{
    uint32_t *ni = grow(s->ids, &s->icap, nids, sizeof *ni);
    if (!ni)
        return -1;
    s->ids = ni;
    stack_rec *ns = grow(s->st, &s->scap, nstacks, sizeof *ns);
    if (!ns)
        return -1;
    s->st = ns;
    return 0;
}

int gf_stacks_reserve(gf_stacks *s, size_t more_stacks, size_t more_ids)
{
    size_t nstacks = s->nstacks + more_stacks;
    size_t hc = s->shcap ? s->shcap : 1024;
    while (nstacks * LOAD_DEN > hc * LOAD_NUM)
        hc *= 2;
    if (hc != s->shcap && rehash(s, 1, hc) != 0)
        return -1;
    return room(s, nstacks, s->ilen + more_ids);
}

/* Interns a name that is already clean. */
static uint32_t intern_clean(gf_stacks *s, const char *name, size_t len)
{
    if ((s->nframes + 1) * 2 > s->fhcap && rehash(s, 0, 0) != 0)
        return UINT32_MAX;
    size_t mask = s->fhcap - 1;
    uint64_t hv = hash_bytes(name, len, FNV0);
    size_t k = (hv >> 32) & mask;
    while (s->fhash[k]) {
        uint64_t e = s->fhash[k];
        if (SLOT_TAG(e) == (uint32_t)hv) {
            uint32_t id = SLOT_ID(e);
            if (s->flen[id] == len && memcmp(s->bytes + s->foff[id], name, len) == 0)
                return id;
        }
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
    size_t fc3 = s->fcap;
    uint64_t *fh = grow(s->fhv, &fc3, s->nframes + 1, sizeof *fh);
    if (!fh)
        return UINT32_MAX;
    s->fhv = fh;
    s->fcap = fc;
    memcpy(s->bytes + s->blen, name, len);
    s->bytes[s->blen + len] = '\0';
    s->foff[s->nframes] = s->blen;
    s->flen[s->nframes] = (uint32_t)len;
    s->blen += len + 1;
    s->fhv[s->nframes] = hv;
    s->fhash[k] = SLOT(hv, s->nframes);
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

int gf_stacks_add_ids(gf_stacks *s, const uint32_t *ids, size_t depth, int64_t weight, gf_err *err)
{
    return gf_stacks_add_ids_at(s, ids, depth, weight, NULL, err);
}

uint64_t gf_stacks_prefetch(const gf_stacks *s, const uint32_t *ids, size_t depth)
{
    uint64_t hv = hash_bytes(ids, depth * sizeof *ids, FNV0);
    if (s->shcap)
        __builtin_prefetch(&s->shash[(hv >> 32) & (s->shcap - 1)]);
    return hv;
}

int gf_stacks_add_ids_at(gf_stacks *s, const uint32_t *ids, size_t depth, int64_t weight, size_t *index,
                         gf_err *err)
{
    return gf_stacks_add_hashed(s, ids, depth, hash_bytes(ids, depth * sizeof *ids, FNV0), weight, index, err);
}

int gf_stacks_add_hashed(gf_stacks *s, const uint32_t *ids, size_t depth, uint64_t hv, int64_t weight,
                         size_t *index, gf_err *err)
{
    if (depth == 0)
        return gf_errf(err, GF_EXIT_INPUT, "empty stack");
    if (weight < 0)
        return gf_errf(err, GF_EXIT_INPUT, "negative weight %" PRId64, weight);
    if (s->total > INT64_MAX - weight)
        return gf_errf(err, GF_EXIT_INPUT, "the total weight exceeds 2^63-1");
    if ((s->nstacks + 1) * LOAD_DEN > s->shcap * LOAD_NUM && rehash(s, 1, 0) != 0)
        return gf_oom(err, "stacks");
    size_t mask = s->shcap - 1;
    size_t bytes = depth * sizeof(uint32_t);
    size_t k = (hv >> 32) & mask;
    while (s->shash[k]) {
        uint64_t e = s->shash[k];
        if (SLOT_TAG(e) == (uint32_t)hv) {
            stack_rec *r = &s->st[SLOT_ID(e)];
            if (r->depth == depth && memcmp(s->ids + r->off, ids, bytes) == 0) {
                r->weight += weight;
                s->total += weight;
                if (index)
                    *index = SLOT_ID(e);
                return 0;
            }
        }
        k = (k + 1) & mask;
    }
    if (depth > UINT32_MAX - s->ilen || s->nstacks >= UINT32_MAX - 1)
        return gf_errf(err, GF_EXIT_INPUT, "more than %" PRIu32 " frame ids or stacks in one table", UINT32_MAX);
    if (room(s, s->nstacks + 1, s->ilen + depth) != 0)
        return gf_oom(err, "stacks");
    memcpy(s->ids + s->ilen, ids, bytes);
    s->st[s->nstacks].off = (uint32_t)s->ilen;
    s->st[s->nstacks].depth = (uint32_t)depth;
    s->st[s->nstacks].weight = weight;
    s->st[s->nstacks].inst = 0;
    s->ilen += depth;
    s->shash[k] = SLOT(hv, s->nstacks);
    if (index)
        *index = s->nstacks;
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
            return gf_oom(err, "stacks");
        uint32_t id = intern_clean(s, str + i, fl);
        if (id == UINT32_MAX)
            return gf_oom(err, "stacks");
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
        return gf_oom(err, "stacks");
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

void gf_stacks_add_instances(gf_stacks *s, size_t i, int64_t n)
{
    if (i < s->nstacks) {
        s->st[i].inst += n;
        s->has_inst = 1;
    }
}

int64_t gf_stacks_instances(const gf_stacks *s, size_t i)
{
    return i < s->nstacks ? s->st[i].inst : 0;
}

int gf_stacks_has_instances(const gf_stacks *s)
{
    return s->has_inst;
}

int gf_stacks_set_frame_kind(gf_stacks *s, uint32_t id, int kind)
{
    if (id >= s->nframes)
        return -1;
    if (id >= s->fkcap) {
        size_t old = s->fkcap;
        if (GF_GROW(s->fkind, s->fkcap, (size_t)id + 1, 64) != 0)
            return -1;
        memset(s->fkind + old, 0, s->fkcap - old);
    }
    s->fkind[id] = (uint8_t)kind;
    return 0;
}

int gf_stacks_has_kinds(const gf_stacks *s)
{
    return s->fkind != NULL;
}

int gf_stacks_frame_kind(const gf_stacks *s, uint32_t id)
{
    return id < s->fkcap ? s->fkind[id] : GF_FRAME_NONE;
}

const char *const gf_frame_kind_names[GF_FRAME_NKINDS] = {"",       "process", "rank", "device", "stream", "nvtx",
                                                          "callchain", "api", "kernel", "copy", "nolaunch"};

void gf_stacks_set_prefold(gf_stacks *s, const gf_stacks_prefold *p)
{
    s->prefold = *p;
}

const gf_stacks_prefold *gf_stacks_get_prefold(const gf_stacks *s)
{
    return s->prefold.raw ? &s->prefold : NULL;
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

/* The count after the last space or tab of line[a..*n): parsed into *cnt, *n becomes the length of what
 * precedes it (trailing blanks removed). NULL on success, else why the line is bad. */
static const char *last_count(char *line, size_t a, size_t *n, double *cnt)
{
    char *sp = NULL;
    for (size_t i = *n; i-- > a;)
        if (line[i] == ' ' || line[i] == '\t') {
            sp = line + i;
            break;
        }
    if (!sp)
        return "no count after the last space";
    char *end;
    errno = 0;
    char save = line[*n];
    line[*n] = '\0';
    double v = strtod(sp + 1, &end);
    int bad = end == sp + 1 || *end || errno || !isfinite(v) || v < 0;
    line[*n] = save;
    if (bad)
        return "the count after the last space is not a non-negative number";
    if (v >= 9.2e18)
        return "the count after the last space is out of range";
    size_t slen = (size_t)(sp - line);
    while (slen > a && isspace((unsigned char)line[slen - 1]))
        slen--;
    *n = slen;
    *cnt = v;
    return NULL;
}

int gf_stacks_read_folded(gf_stacks *s, const char *path, gf_folded_stats *st, gf_err *err)
{
    return gf_stacks_read_folded2(s, NULL, path, st, err);
}

int gf_stacks_read_folded2(gf_stacks *s, gf_stacks *s2, const char *path, gf_folded_stats *st, gf_err *err)
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
                rc = gf_oom(err, path);
                break;
            }
            continue;
        }
        while (n > a && isspace((unsigned char)line[n - 1]))
            n--;
        double cnt = 0, cnt1 = 0;
        const char *why = last_count(line, a, &n, &cnt);
        if (!why && s2) {
            /* difffolded.pl's "stack BEFORE AFTER": the count before the last one goes to s */
            why = last_count(line, a, &n, &cnt1);
            if (why)
                why = "expected two counts (stack BEFORE AFTER)";
        }
        if (why) {
            bad_line(st, lineno, why);
            continue;
        }
        size_t slen = n - a;
        if (slen == 0) {
            bad_line(st, lineno, "empty stack");
            continue;
        }
        size_t nf = 0;
        if (split_frames(s, line + a, slen, &nf, err) != 0 ||
            gf_stacks_add_ids(s, s->scratch, nf, (int64_t)llround(s2 ? cnt1 : cnt), err) != 0 ||
            (s2 && (nf = 0, split_frames(s2, line + a, slen, &nf, err) != 0 ||
                            gf_stacks_add_ids(s2, s2->scratch, nf, (int64_t)llround(cnt), err) != 0))) {
            rc = -1;
            if (err->code == GF_EXIT_INPUT) {
                char why[sizeof err->msg];
                snprintf(why, sizeof why, "%s", err->msg);
                gf_errf(err, GF_EXIT_INPUT, "%s:%zu: %s", path, lineno, why);
            }
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
        char buf[32], *e = buf + sizeof buf;
        *--e = '\n';
        char *b = gf_fmt_i64(e, r->weight);
        *--b = ' ';
        fwrite(b, 1, (size_t)(buf + sizeof buf - b), out);
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

/* A weight that does not parse, is negative or is out of range: an error naming file, line and column
 * (strict), or counted as 1 like the reference (bad_weight_one). */
static int bad_weight(gf_csv *c, size_t weight_col, const char *what, const char *v, size_t n, gf_err *err)
{
    const char *col = gf_csv_colname(c, weight_col);
    return gf_errf(err, GF_EXIT_INPUT, "%s:%zu:%zu (column '%s'): %s '%.*s%s'", gf_csv_path(c), gf_csv_line(c),
                   weight_col + 1, col ? col : "?", what, (int)(n > 80 ? 80 : n), v, n > 80 ? "..." : "");
}

/* One summary row: the cleaned name (0 length → skip) and its count (§6.5). -1 on a bad weight when strict. */
static int summary_row(gf_csv *c, size_t name_col, size_t weight_col, int64_t unit_ns, int strict, const char **name,
                       size_t *nl, int64_t *count, gf_summary_stats *st, gf_err *err)
{
    *name = gf_csv_field(c, name_col, nl);
    clean_name(name, nl);
    if (*nl == 0)
        return 0;
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
    const char *why = NULL;
    uint64_t x = 0;
    size_t i = 0;
    while (i < wl && i < 15 && wv[i] >= '0' && wv[i] <= '9') /* plain digits: what strtod gives, exactly */
        x = x * 10 + (uint64_t)(wv[i++] - '0');
    if (i == wl && wl > 0) {
        w = x < 1 ? 1 : (int64_t)x;
    } else if (wl > 0 && wl < sizeof buf) {
        memcpy(buf, wv, wl);
        buf[wl] = '\0';
        char *end;
        double d = strtod(buf, &end);
        if (*end == '\0' && isfinite(d) && strncasecmp(buf, "nan", 3) != 0) {
            if (d < 0)
                why = "negative number";
            else if (d >= 9.2e18)
                why = "number out of range";
            w = d >= 9.2e18 ? INT64_MAX : (d < 1 ? 1 : (int64_t)d);
        } else {
            why = "invalid number";
        }
    } else {
        why = wl ? "invalid number" : "missing number";
    }
    if (why) {
        if (strict)
            return bad_weight(c, weight_col, why, wv, wl, err);
        st->unparsed_weight++;
    }
    int64_t cnt = w / unit_ns;
    *count = cnt < 1 ? 1 : cnt;
    return 0;
}

int gf_stacks_from_summary_csv(gf_stacks *s, gf_csv *c, size_t name_col, size_t weight_col, const char *prefix,
                               int64_t unit_ns, gf_summary_stats *st, gf_err *err)
{
    return gf_stacks_from_summary_csv_ex(s, c, name_col, weight_col, prefix, unit_ns, 0, st, err);
}

int gf_stacks_from_summary_csv_ex(gf_stacks *s, gf_csv *c, size_t name_col, size_t weight_col, const char *prefix,
                                  int64_t unit_ns, int strict, gf_summary_stats *st, gf_err *err)
{
    gf_summary_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    if (unit_ns < 1)
        unit_ns = 1;
    /* the prefix frames are interned once; each row adds its leaf */
    size_t np = 0;
    if (prefix && *prefix && split_frames(s, prefix, strlen(prefix), &np, err) != 0)
        return -1;
    uint32_t *ids = malloc((np + 1) * sizeof *ids);
    if (!ids)
        return gf_oom(err, "stacks");
    if (np)
        memcpy(ids, s->scratch, np * sizeof *ids);
    int rc;
    while ((rc = gf_csv_next(c, err)) == 1) {
        st->rows++;
        const char *name;
        size_t nl;
        int64_t cnt = 1;
        if (summary_row(c, name_col, weight_col, unit_ns, strict, &name, &nl, &cnt, st, err) != 0) {
            free(ids);
            return -1;
        }
        if (nl == 0) {
            st->skipped_empty++;
            continue;
        }
        ids[np] = gf_stacks_intern(s, name, nl);
        if (ids[np] == UINT32_MAX) {
            free(ids);
            return gf_oom(err, "stacks");
        }
        if (gf_stacks_add_ids(s, ids, np + 1, cnt, err) != 0) {
            free(ids);
            return -1;
        }
        st->used++;
    }
    free(ids);
    return rc < 0 ? -1 : 0;
}

int gf_summary_csv_write_folded(gf_csv *c, size_t name_col, size_t weight_col, const char *prefix, int64_t unit_ns,
                                FILE *out, gf_summary_stats *st, gf_err *err)
{
    return gf_summary_csv_write_folded_ex(c, name_col, weight_col, prefix, unit_ns, 0, out, st, err);
}

int gf_summary_csv_write_folded_ex(gf_csv *c, size_t name_col, size_t weight_col, const char *prefix, int64_t unit_ns,
                                   int strict, FILE *out, gf_summary_stats *st, gf_err *err)
{
    gf_summary_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    if (unit_ns < 1)
        unit_ns = 1;
    size_t pl = prefix ? strlen(prefix) : 0, on = 0;
    char ob[64 * 1024];
    int rc;
    while ((rc = gf_csv_next(c, err)) == 1) {
        st->rows++;
        const char *name;
        size_t nl;
        int64_t cnt = 1;
        if (summary_row(c, name_col, weight_col, unit_ns, strict, &name, &nl, &cnt, st, err) != 0)
            return -1;
        if (nl == 0) {
            st->skipped_empty++;
            continue;
        }
        /* the line built in ob: prefix;name count, with ; → , and line breaks → spaces in the name */
        size_t need = pl + 1 + nl + 32;
        if (on + need > sizeof ob) {
            fwrite(ob, 1, on, out);
            on = 0;
        }
        char *d = need > sizeof ob ? malloc(need) : ob + on, *p = d;
        if (!d)
            return gf_oom(err, "folded stacks");
        if (pl) {
            memcpy(p, prefix, pl);
            p[pl] = ';';
            p += pl + 1;
        }
        memcpy(p, name, nl);
        if (memchr(name, ';', nl) || memchr(name, '\n', nl) || memchr(name, '\r', nl))
            for (size_t i = 0; i < nl; i++)
                p[i] = p[i] == ';' ? ',' : (p[i] == '\n' || p[i] == '\r') ? ' ' : p[i];
        p += nl;
        char buf[32], *e = buf + sizeof buf;
        *--e = '\n';
        char *b = gf_fmt_i64(e, cnt);
        *--b = ' ';
        memcpy(p, b, (size_t)(buf + sizeof buf - b));
        p += buf + sizeof buf - b;
        if (d != ob + on) {
            fwrite(d, 1, (size_t)(p - d), out);
            free(d);
        } else {
            on += (size_t)(p - d);
        }
        st->used++;
    }
    fwrite(ob, 1, on, out);
    if (rc == 0 && ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "write error (folded stacks)");
    return rc < 0 ? -1 : 0;
}

int gf_stacks_write_speedscope(const gf_stacks *s, FILE *out, const char *name, const char *unit, gf_err *err)
{
    return gf_stacks_write_speedscope_ex(s, out, name, unit, NULL, NULL, err);
}

int gf_stacks_write_speedscope_ex(const gf_stacks *s, FILE *out, const char *name, const char *unit,
                                  gf_speedscope_more more, void *ctx, gf_err *err)
{
    fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[", out);
    for (size_t i = 0; i < s->nframes; i++) {
        if (i)
            putc(',', out);
        fputs("{\"name\":", out);
        gf_json_file_string(out, s->bytes + s->foff[i], s->flen[i]);
        putc('}', out);
    }
    fputs("]},\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
    const char *nm = name ? name : "gpuflame";
    gf_json_file_string(out, nm, strlen(nm));
    fputs(",\"unit\":", out);
    const char *u = unit ? unit : "none";
    gf_json_file_string(out, u, strlen(u));
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
    fputs("]}", out);
    if (more && more(ctx, out, err) != 0)
        return -1;
    fputs("],\"name\":", out);
    gf_json_file_string(out, nm, strlen(nm));
    fputs(",\"activeProfileIndex\":0,\"exporter\":\"gpuflame\"}\n", out);
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "write error (speedscope)");
    return 0;
}
