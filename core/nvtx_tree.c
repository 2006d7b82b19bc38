/* Range trees of the NVTX analysis: key map, row index, path trie, scope walk (nvtx_tree.h). */
#include "nvtx_tree.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

/* ---- (PID, TID, RangeId) → value ----------------------------------------------------------------- */

static uint64_t key_hash(int64_t pid, int64_t tid, int64_t rid)
{
    uint64_t h = gf_hash_u64((uint64_t)rid ^ gf_hash_u64((uint64_t)tid ^ gf_hash_u64((uint64_t)pid)));
    return h == GF_HMAP_EMPTY ? 0 : h;
}

void gf_nvtx_keymap_init(gf_nvtx_keymap *m)
{
    memset(m, 0, sizeof *m);
    gf_hmap_init(&m->h);
}

void gf_nvtx_keymap_free(gf_nvtx_keymap *m)
{
    gf_hmap_free(&m->h);
    free(m->e);
    memset(m, 0, sizeof *m);
}

static gf_nvtx_kent *keymap_find(const gf_nvtx_keymap *m, int64_t pid, int64_t tid, int64_t rid, uint64_t h)
{
    size_t pos = 0;
    int64_t *v;
    while ((v = gf_hmap_next(&m->h, h, &pos))) {
        gf_nvtx_kent *e = &m->e[*v];
        if (e->rid == rid && e->pid == pid && e->tid == tid)
            return e;
    }
    return NULL;
}

int gf_nvtx_keymap_put(gf_nvtx_keymap *m, int64_t pid, int64_t tid, int64_t rid, int64_t val)
{
    uint64_t h = key_hash(pid, tid, rid);
    gf_nvtx_kent *e = keymap_find(m, pid, tid, rid, h);
    if (e) {
        e->val = val;
        return 0;
    }
    if (GF_GROW(m->e, m->cap, m->n + 1, 16) != 0)
        return -1;
    if (gf_hmap_add(&m->h, h, (int64_t)m->n))
        return -1;
    m->e[m->n++] = (gf_nvtx_kent){pid, tid, rid, val};
    return 0;
}

int gf_nvtx_keymap_get(const gf_nvtx_keymap *m, int64_t pid, int64_t tid, int64_t rid, int64_t *val)
{
    const gf_nvtx_kent *e = keymap_find(m, pid, tid, rid, key_hash(pid, tid, rid));
    if (e)
        *val = e->val;
    return e != NULL;
}

/* ---- rows by key --------------------------------------------------------------------------------- */

#define RI_FIELD(x, i, off) (*(const int64_t *)((x)->rows + (size_t)(i) * (x)->stride + (off)))

void gf_nvtx_rowidx_free(gf_nvtx_rowidx *x)
{
    free(x->slot);
    gf_nvtx_keymap_free(&x->over);
    x->slot = NULL;
}

static int rowidx_over(gf_nvtx_rowidx *x, size_t i)
{
    return gf_nvtx_keymap_put(&x->over, RI_FIELD(x, i, x->opid), RI_FIELD(x, i, x->otid), RI_FIELD(x, i, x->orid),
                              (int64_t)i);
}

int gf_nvtx_rowidx_build(gf_nvtx_rowidx *x, const void *rows, size_t n, size_t stride, size_t opid, size_t otid,
                         size_t orid)
{
    memset(x, 0, sizeof *x);
    gf_nvtx_keymap_init(&x->over);
    x->rows = rows;
    x->stride = stride;
    x->opid = opid;
    x->otid = otid;
    x->orid = orid;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t r = RI_FIELD(x, i, orid);
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    int direct = n > 0 && (uint64_t)hi - (uint64_t)lo < (uint64_t)n * 4 + 1024;
    if (!direct) {
        for (size_t i = 0; i < n; i++)
            if (rowidx_over(x, i))
                return -1;
        return 0;
    }
    x->base = lo;
    x->span = (size_t)((uint64_t)hi - (uint64_t)lo) + 1;
    x->slot = calloc(x->span, sizeof *x->slot);
    if (!x->slot || n >= INT32_MAX)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int32_t *s = &x->slot[RI_FIELD(x, i, orid) - lo];
        if (*s > 0) {
            size_t r0 = (size_t)*s - 1;
            if (RI_FIELD(x, r0, opid) == RI_FIELD(x, i, opid) && RI_FIELD(x, r0, otid) == RI_FIELD(x, i, otid)) {
                *s = (int32_t)i + 1;
                continue;
            }
            if (rowidx_over(x, r0))
                return -1;
            *s = -1;
        }
        if (*s < 0) {
            if (rowidx_over(x, i))
                return -1;
        } else {
            *s = (int32_t)i + 1;
        }
    }
    return 0;
}

int gf_nvtx_rowidx_get(const gf_nvtx_rowidx *x, int64_t pid, int64_t tid, int64_t rid, int64_t *row)
{
    if (!x->slot)
        return gf_nvtx_keymap_get(&x->over, pid, tid, rid, row);
    if (rid < x->base || (uint64_t)rid - (uint64_t)x->base >= x->span)
        return 0;
    int32_t s = x->slot[rid - x->base];
    if (s == 0)
        return 0;
    if (s < 0)
        return gf_nvtx_keymap_get(&x->over, pid, tid, rid, row);
    size_t r = (size_t)s - 1;
    if (RI_FIELD(x, r, x->opid) != pid || RI_FIELD(x, r, x->otid) != tid)
        return 0;
    *row = (int64_t)r;
    return 1;
}

/* ---- the path trie ----------------------------------------------------------------------------- */

int gf_nvtx_trie_init(gf_nvtx_trie *t, const gf_strtab *strs)
{
    memset(t, 0, sizeof *t);
    gf_hmap_init(&t->map);
    t->strs = strs;
    t->cap = 1024;
    t->parent = malloc(t->cap * sizeof *t->parent);
    t->name = malloc(t->cap * sizeof *t->name);
    t->depth = malloc(t->cap * sizeof *t->depth);
    t->bytes = malloc(t->cap * sizeof *t->bytes);
    if (!t->parent || !t->name || !t->depth || !t->bytes)
        return -1;
    t->parent[0] = 0;
    t->name[0] = UINT32_MAX;
    t->depth[0] = 0;
    t->bytes[0] = 0;
    t->n = 1;
    return 0;
}

void gf_nvtx_trie_free(gf_nvtx_trie *t)
{
    free(t->parent);
    free(t->name);
    free(t->depth);
    free(t->bytes);
    gf_hmap_free(&t->map);
    memset(t, 0, sizeof *t);
}

static int trie_grow(gf_nvtx_trie *t)
{
    void **const cols[] = {(void **)&t->parent, (void **)&t->name, (void **)&t->depth, (void **)&t->bytes};
    const size_t elem[] = {sizeof *t->parent, sizeof *t->name, sizeof *t->depth, sizeof *t->bytes};
    size_t cap = t->cap;
    if (t->cap > UINT32_MAX / 2 || gf_grow_cols(cols, elem, 4, &cap, cap + 1, 16) != 0)
        return -1;
    t->cap = (uint32_t)cap;
    return 0;
}

uint32_t gf_nvtx_trie_child(gf_nvtx_trie *t, uint32_t parent, uint32_t name)
{
    uint64_t key = (uint64_t)parent << 32 | name;
    int64_t *v = gf_hmap_get(&t->map, key);
    if (v)
        return (uint32_t)*v;
    if (t->n == t->cap && trie_grow(t))
        return UINT32_MAX;
    uint32_t id = t->n;
    if (!gf_hmap_put(&t->map, key, id, NULL))
        return UINT32_MAX;
    size_t len;
    gf_strtab_get(t->strs, (int32_t)name, &len);
    t->n++;
    t->parent[id] = parent;
    t->name[id] = name;
    t->depth[id] = t->depth[parent] + 1;
    t->bytes[id] = (parent ? t->bytes[parent] + 1 : 0) + len;
    return id;
}

static int cmp_sibling(const void *a, const void *b, void *trie)
{
    const gf_nvtx_trie *t = trie;
    return gf_strtab_cmp(t->strs, (int32_t)t->name[*(const uint32_t *)a], (int32_t)t->name[*(const uint32_t *)b]);
}

/* §9 order is the trie's pre-order with siblings sorted by name: a path comes before its extensions,
 * and a path before another when its first differing name is smaller. */
uint32_t *gf_nvtx_trie_ranks(const gf_nvtx_trie *t)
{
    uint32_t n = t->n;
    uint32_t *first = calloc((size_t)n + 1, sizeof *first); /* children of p: kids[first[p] .. first[p + 1]) */
    uint32_t *kids = malloc((size_t)n * sizeof *kids);
    uint32_t *stack = malloc((size_t)n * sizeof *stack);
    uint32_t *rank = malloc((size_t)n * sizeof *rank);
    if (!first || !kids || !stack || !rank) {
        free(rank);
        rank = NULL;
        goto out;
    }
    for (uint32_t id = 1; id < n; id++)
        first[t->parent[id] + 1]++;
    for (uint32_t p = 0; p < n; p++)
        first[p + 1] += first[p];
    for (uint32_t p = 0; p < n; p++)
        rank[p] = first[p]; /* fill cursor */
    for (uint32_t id = 1; id < n; id++)
        kids[rank[t->parent[id]]++] = id;
    for (uint32_t p = 0; p < n; p++)
        if (first[p + 1] - first[p] > 1)
            qsort_r(kids + first[p], first[p + 1] - first[p], sizeof *kids, cmp_sibling, (void *)t);
    uint32_t sp = 0, next = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t p = stack[--sp];
        rank[p] = next++;
        for (uint32_t k = first[p + 1]; k > first[p]; k--)
            stack[sp++] = kids[k - 1];
    }
out:
    free(first);
    free(kids);
    free(stack);
    return rank;
}

void gf_nvtx_trie_join(const gf_nvtx_trie *t, uint32_t p, char *buf)
{
    uint64_t o = t->bytes[p];
    while (p) {
        size_t len;
        const char *s = gf_strtab_get(t->strs, (int32_t)t->name[p], &len);
        o -= len;
        memcpy(buf + o, s, len);
        p = t->parent[p];
        if (p)
            buf[--o] = '.';
    }
}

int gf_nvtx_trie_equals(const gf_nvtx_trie *t, uint32_t p, const char *s, size_t len)
{
    if (t->bytes[p] != len)
        return 0;
    uint64_t o = len;
    while (p) {
        size_t l;
        const char *name = gf_strtab_get(t->strs, (int32_t)t->name[p], &l);
        o -= l;
        if (memcmp(s + o, name, l) != 0)
            return 0;
        p = t->parent[p];
        if (p && s[--o] != '.')
            return 0;
    }
    return 1;
}

/* ---- the scope walk (§7) ----------------------------------------------------------------------- */

enum { W_NEW = 0, W_BUSY = 1, W_DONE = 2 };

#define W_I64(w, f, i) (*(const int64_t *)((const char *)(w)->f + (i) * (w)->stride))
#define W_NAME(w, i) (*(const uint32_t *)((const char *)(w)->name + (i) * (w)->stride))
#define W_HASP(w, i) (*(const uint8_t *)((const char *)(w)->has_parent + (i) * (w)->stride))

/* The walk from row r, memoized: the names up to (not including) the first harness range, a root, or a
 * parent absent from the table. Iterative: the rows on the way are kept in w->stack (heap). */
static int walk_from(gf_nvtx_walk *w, gf_nvtx_trie *t, size_t r, uint32_t *out, gf_err *err)
{
    size_t sp = 0, cur = r;
    uint32_t base = 0;
    for (;;) {
        if (w->state[cur] == W_DONE) {
            base = w->wpath[cur];
            break;
        }
        if (w->state[cur] == W_BUSY)
            return gf_errf(err, GF_EXIT_INPUT, "Cycle in NVTX range hierarchy at (%lld, %lld, %lld).",
                           (long long)W_I64(w, pid, cur), (long long)W_I64(w, tid, cur), (long long)W_I64(w, rid, cur));
        if (w->harness[cur]) {
            w->state[cur] = W_DONE;
            w->wpath[cur] = 0;
            base = 0;
            break;
        }
        w->state[cur] = W_BUSY;
        w->stack[sp++] = cur;
        if (!W_HASP(w, cur))
            break;
        int64_t p;
        if (!gf_nvtx_rowidx_get(w->keys, W_I64(w, pid, cur), W_I64(w, tid, cur), W_I64(w, parent, cur), &p))
            break;
        cur = (size_t)p;
    }
    while (sp > 0) {
        size_t node = w->stack[--sp];
        base = gf_nvtx_trie_child(t, base, W_NAME(w, node));
        if (base == UINT32_MAX)
            return gf_oom(err, NULL);
        w->wpath[node] = base;
        w->state[node] = W_DONE;
    }
    *out = base;
    return 0;
}

int gf_nvtx_scoped(gf_nvtx_walk *w, gf_nvtx_trie *t, size_t r, uint32_t *out, gf_err *err)
{
    uint32_t p = 0;
    if (walk_from(w, t, r, &p, err))
        return -1;
    if (p == 0)
        p = gf_nvtx_trie_child(t, 0, W_NAME(w, r));
    if (p == UINT32_MAX)
        return gf_oom(err, NULL);
    *out = p;
    return 0;
}
