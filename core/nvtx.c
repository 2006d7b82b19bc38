/* The NVTX run analysis (docs/spec/NVTX_ANALYSIS.md §6–§11): gf_nvtx_analyze runs one function per phase over
 * a context that holds every buffer (freed in one place, ctx_free), then hands what it found to the
 * analysis.json writer (nvtx_json.c). The rows come from nvtx_reports.c, the trees from nvtx_tree.c,
 * the groups and summaries from nvtx_stats.c. */
#include "nvtx.h"
#include "mem.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "nvtx_json.h"
#include "nvtx_manifest.h"
#include "nvtx_reports.h"
#include "nvtx_stats.h"
#include "nvtx_tree.h"
#include "pyjson.h"
#include "yamltree.h"

/* Scoped names in analysis.json are refused beyond this many bytes in all (docs/LIMITS.md): ranges nested
 * N deep have N names of up to N elements, so the output grows with the square of the depth. */
#define MAX_NAME_BYTES ((uint64_t)256 << 20)

typedef struct actx {
    gf_nvtx *nv;
    const gf_nvtx_input *in;
    gf_nvtx_result *res;
    gf_err *err;
    const gf_yv *cr; /* the manifest's capture_range (a string) */
    int64_t nrec;
    const gf_nvtx_host_row *H;
    const gf_nvtx_gpu_row *G;
    size_t nh, ng;
    uint32_t cap_name; /* string id of the capture range's name */
    size_t cap;        /* its host row */
    gf_nvtx_rowidx hkeys, gkeys;
    gf_nvtx_keymap harness; /* the capture range's key → -1, the iterations' keys → index */
    gf_nvtx_trie trie;
    uint8_t *hharn, *gharn;   /* the row's key is a harness key */
    uint8_t *hskip, *gskip;   /* iteration rows: not in the range groups */
    uint8_t *hstate, *gstate; /* scope walks */
    uint32_t *hw, *gw;
    size_t *stack;
    uint32_t *hpath, *gpath, *gstyle; /* per row: scoped path, style */
    uint32_t *rank;                   /* per path: its §9 position */
    gf_nvtx_iter *hit, *git;
    size_t nhit, ngit;
    gf_nvtx_group *hg, *gg;
    size_t nhg, ngg;
    size_t *horder, *gorder;
    int64_t *idx; /* iterations[]: sorted union of the host and GPU indexes */
    size_t nit;
} actx;

static void ctx_free(actx *c)
{
    gf_nvtx_rowidx_free(&c->hkeys);
    gf_nvtx_rowidx_free(&c->gkeys);
    gf_nvtx_keymap_free(&c->harness);
    gf_nvtx_trie_free(&c->trie);
    void *bufs[] = {c->hharn, c->gharn, c->hskip, c->gskip, c->hstate, c->gstate, c->hw, c->gw, c->stack, c->hpath,
                    c->gpath, c->gstyle, c->rank, c->hit, c->git, c->hg, c->gg, c->horder, c->gorder, c->idx};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        free(bufs[i]);
}

/* calloc of at least one element, so that empty tables still get a pointer */
static void *zalloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

static int same_key_hg(const gf_nvtx_host_row *h, const gf_nvtx_gpu_row *g)
{
    return h->pid == g->pid && h->tid == g->tid && h->rid == g->rid;
}

/* ---- §6: the capture range and the iterations -------------------------------------------------- */

/* §6.1: exactly one root host range named capture_range. */
static int find_capture(actx *c)
{
    int32_t id = gf_strtab_intern(c->nv->strs, c->cr->s, c->cr->len);
    if (id < 0)
        return gf_oom(c->err, "NVTX analysis");
    c->cap_name = (uint32_t)id;
    size_t ncap = 0;
    for (size_t i = 0; i < c->nh; i++)
        if (c->H[i].name == c->cap_name && !c->H[i].has_parent && ncap++ == 0)
            c->cap = i;
    if (ncap == 1)
        return 0;
    char *r = gf_py_str_repr(c->cr->s, c->cr->len);
    gf_errf(c->err, GF_EXIT_INPUT, "Expected exactly one top-level host capture range named %s, but found %zu.",
            r ? r : "?", ncap);
    free(r);
    return -1;
}

/* `^iteration (\d+)$` fully matched (ASCII digits); an index beyond int64 does not match. */
static int iteration_index(const char *s, size_t n, int64_t *idx)
{
    static const char pre[] = "iteration ";
    size_t pl = sizeof pre - 1;
    if (n <= pl || memcmp(s, pre, pl) != 0)
        return 0;
    uint64_t acc = 0;
    for (size_t i = pl; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        if (acc > ((uint64_t)INT64_MAX - 9) / 10)
            return 0;
        acc = acc * 10 + (uint64_t)(s[i] - '0');
    }
    *idx = (int64_t)acc;
    return 1;
}

static int cmp_iter(const void *a, const void *b)
{
    const gf_nvtx_iter *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The first row, in file order, that repeats an index of hit[] (sorted by index, then row). */
static int duplicate_iteration(const gf_nvtx_iter *hit, size_t n, int64_t *dup_idx)
{
    size_t dup_row = (size_t)-1;
    for (size_t k = 1; k < n; k++)
        if (hit[k].index == hit[k - 1].index && (k < 2 || hit[k - 2].index != hit[k].index) && hit[k].row < dup_row) {
            dup_row = hit[k].row;
            *dup_idx = hit[k].index;
        }
    return dup_row != (size_t)-1;
}

/* §6.2: children `iteration N` of the capture range on its thread; marks the harness keys. */
static int host_iterations(actx *c)
{
    const gf_nvtx_host_row *H = c->H, *C = &c->H[c->cap];
    if (!(c->hit = zalloc(c->nh, sizeof *c->hit)) || !(c->hharn = zalloc(c->nh, 1)) || !(c->hskip = zalloc(c->nh, 1)))
        return gf_oom(c->err, "NVTX analysis");
    for (size_t i = 0; i < c->nh; i++) {
        int64_t idx;
        size_t len;
        const char *name = gf_strtab_get(c->nv->strs, (int32_t)H[i].name, &len);
        if (H[i].has_parent && H[i].parent == C->rid && H[i].pid == C->pid && H[i].tid == C->tid &&
            iteration_index(name, len, &idx))
            c->hit[c->nhit++] = (gf_nvtx_iter){idx, i};
    }
    qsort(c->hit, c->nhit, sizeof *c->hit, cmp_iter);
    int64_t dup;
    if (duplicate_iteration(c->hit, c->nhit, &dup))
        return gf_errf(c->err, GF_EXIT_INPUT, "Duplicate host range for iteration %lld.", (long long)dup);
    if (gf_nvtx_keymap_put(&c->harness, C->pid, C->tid, C->rid, -1))
        return gf_oom(c->err, "NVTX analysis");
    for (size_t k = 0; k < c->nhit; k++) {
        const gf_nvtx_host_row *h = &H[c->hit[k].row];
        if (gf_nvtx_keymap_put(&c->harness, h->pid, h->tid, h->rid, c->hit[k].index))
            return gf_oom(c->err, "NVTX analysis");
    }
    for (size_t i = 0; i < c->nh; i++) {
        int64_t v;
        c->hharn[i] = (uint8_t)gf_nvtx_keymap_get(&c->harness, H[i].pid, H[i].tid, H[i].rid, &v);
    }
    for (size_t k = 0; k < c->nhit; k++)
        c->hskip[c->hit[k].row] = 1;
    return 0;
}

/* §6.3: GPU rows with a harness iteration's key (the capture range's key is no iteration). */
static int gpu_iterations(actx *c)
{
    const gf_nvtx_gpu_row *G = c->G;
    if (!(c->git = zalloc(c->ng, sizeof *c->git)) || !(c->gharn = zalloc(c->ng, 1)) || !(c->gskip = zalloc(c->ng, 1)))
        return gf_oom(c->err, "NVTX analysis");
    gf_hmap seen; /* iteration indexes taken */
    gf_hmap_init(&seen);
    int rc = 0;
    for (size_t i = 0; i < c->ng && rc == 0; i++) {
        int64_t v;
        if (!gf_nvtx_keymap_get(&c->harness, G[i].pid, G[i].tid, G[i].rid, &v))
            continue;
        c->gharn[i] = 1;
        if (same_key_hg(&c->H[c->cap], &G[i]))
            continue;
        int ins;
        if (!gf_hmap_put(&seen, (uint64_t)v, 0, &ins))
            rc = gf_oom(c->err, "NVTX analysis");
        else if (!ins)
            rc = gf_errf(c->err, GF_EXIT_INPUT, "Duplicate GPU projection for iteration %lld.", (long long)v);
        c->git[c->ngit++] = (gf_nvtx_iter){v, i};
        c->gskip[i] = 1;
    }
    gf_hmap_free(&seen);
    if (rc == 0)
        qsort(c->git, c->ngit, sizeof *c->git, cmp_iter);
    return rc;
}

/* iterations[]: the sorted union of host and GPU indexes (GPU ⊆ host by construction). */
static int iteration_union(actx *c)
{
    if (!(c->idx = zalloc(c->nhit + c->ngit, sizeof *c->idx)))
        return gf_oom(c->err, "NVTX analysis");
    size_t a = 0, b = 0;
    while (a < c->nhit || b < c->ngit) {
        int64_t x;
        if (b >= c->ngit || (a < c->nhit && c->hit[a].index <= c->git[b].index)) {
            x = c->hit[a++].index;
            if (b < c->ngit && c->git[b].index == x)
                b++;
        } else {
            x = c->git[b++].index;
        }
        c->idx[c->nit++] = x;
    }
    return 0;
}

/* ---- §7: scoped names, §9: groups ------------------------------------------------------------- */

static int scope_paths(actx *c)
{
    const gf_nvtx_host_row *H = c->H;
    const gf_nvtx_gpu_row *G = c->G;
    size_t nh = c->nh, ng = c->ng;
    c->hstate = zalloc(nh, 1);
    c->gstate = zalloc(ng, 1);
    c->hw = zalloc(nh, sizeof *c->hw);
    c->gw = zalloc(ng, sizeof *c->gw);
    c->hpath = zalloc(nh, sizeof *c->hpath);
    c->gpath = zalloc(ng, sizeof *c->gpath);
    c->gstyle = zalloc(ng, sizeof *c->gstyle);
    c->stack = zalloc((nh > ng ? nh : ng) + 1, sizeof *c->stack);
    if (!c->hstate || !c->gstate || !c->hw || !c->gw || !c->hpath || !c->gpath || !c->gstyle || !c->stack)
        return gf_oom(c->err, "NVTX analysis");
    gf_nvtx_walk hwk = {nh, &H[0].pid, &H[0].tid, &H[0].rid, &H[0].parent, &H[0].has_parent, &H[0].name, sizeof *H,
                        &c->hkeys, c->hharn, c->hstate, c->hw, c->stack};
    for (size_t i = 0; i < nh; i++)
        if (!c->hskip[i] && gf_nvtx_scoped(&hwk, &c->trie, i, &c->hpath[i], c->err))
            return -1;
    gf_nvtx_walk gwk = {0};
    if (ng)
        gwk = (gf_nvtx_walk){ng, &G[0].pid, &G[0].tid, &G[0].rid, &G[0].parent, &G[0].has_parent, &G[0].name,
                             sizeof *G, &c->gkeys, c->gharn, c->gstate, c->gw, c->stack};
    /* A GPU row takes the host path of its key; only keys absent from the host report walk the GPU rows. */
    for (size_t i = 0; i < ng; i++) {
        c->gstyle[i] = G[i].style;
        if (c->gskip[i])
            continue;
        int64_t h;
        if (!gf_nvtx_rowidx_get(&c->hkeys, G[i].pid, G[i].tid, G[i].rid, &h)) {
            if (gf_nvtx_scoped(&gwk, &c->trie, i, &c->gpath[i], c->err))
                return -1;
        } else if (!c->hskip[h]) {
            c->gpath[i] = c->hpath[h];
        } else if (gf_nvtx_scoped(&hwk, &c->trie, (size_t)h, &c->gpath[i], c->err)) {
            return -1; /* (cannot happen: iteration keys were taken above) */
        }
    }
    return 0;
}

/* The scoped names analysis.json would hold must stay under MAX_NAME_BYTES. */
static int check_name_bytes(actx *c)
{
    uint64_t total = 0;
    const gf_nvtx_group *deepest = NULL;
    int deepest_gpu = 0;
    for (int side = 0; side < 2; side++) {
        const gf_nvtx_group *g = side ? c->gg : c->hg;
        size_t n = side ? c->ngg : c->nhg;
        for (size_t k = 0; k < n; k++) {
            total += c->trie.bytes[g[k].path];
            if (!deepest || c->trie.depth[g[k].path] > c->trie.depth[deepest->path]) {
                deepest = &g[k];
                deepest_gpu = side;
            }
        }
    }
    if (total <= MAX_NAME_BYTES)
        return 0;
    int64_t key[3];
    if (deepest_gpu) {
        const gf_nvtx_gpu_row *r = &c->G[c->gorder[deepest->first]];
        memcpy(key, (int64_t[3]){r->pid, r->tid, r->rid}, sizeof key);
    } else {
        const gf_nvtx_host_row *r = &c->H[c->horder[deepest->first]];
        memcpy(key, (int64_t[3]){r->pid, r->tid, r->rid}, sizeof key);
    }
    return gf_errf(c->err, GF_EXIT_INPUT,
                   "Scoped NVTX range names would take %llu bytes in analysis.json, more than the limit of %llu: "
                   "ranges are nested %u deep at (%lld, %lld, %lld).",
                   (unsigned long long)total, (unsigned long long)MAX_NAME_BYTES,
                   (unsigned)c->trie.depth[deepest->path], (long long)key[0], (long long)key[1], (long long)key[2]);
}

static int group_ranges(actx *c)
{
    if ((c->nhg = gf_nvtx_make_groups(c->hpath, NULL, c->hskip, c->nh, &c->hg, &c->horder)) == (size_t)-1 ||
        (c->ngg = gf_nvtx_make_groups(c->gpath, c->gstyle, c->gskip, c->ng, &c->gg, &c->gorder)) == (size_t)-1) {
        c->nhg = c->ngg = 0;
        return gf_oom(c->err, "NVTX analysis");
    }
    if (!(c->rank = gf_nvtx_trie_ranks(&c->trie)))
        return gf_oom(c->err, "NVTX analysis");
    gf_nvtx_sort_groups(c->hg, c->nhg, c->rank, c->nv->strs);
    gf_nvtx_sort_groups(c->gg, c->ngg, c->rank, c->nv->strs);
    return check_name_bytes(c);
}

/* ---- §11: warnings --------------------------------------------------------------------------------- */

static int word_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

int gf_nvtx_version_family(const char *s, int64_t *year, int *release_is_1)
{
    int64_t rel;
    if (!gf_nvtx_version_release(s, year, &rel))
        return 0;
    *release_is_1 = rel == 1;
    return 1;
}

int gf_nvtx_version_release(const char *s, int64_t *year, int64_t *release)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + 6 <= n; i++) {
        if (i > 0 && word_char((unsigned char)s[i - 1]))
            continue;
        size_t k = i;
        while (k < n && k - i < 4 && s[k] >= '0' && s[k] <= '9')
            k++;
        if (k - i != 4 || k >= n || s[k] != '.')
            continue;
        size_t d = k + 1, e = d;
        while (e < n && s[e] >= '0' && s[e] <= '9')
            e++;
        if (e == d)
            continue;
        if (e < n && word_char((unsigned char)s[e]))
            continue; /* \d+ is greedy and backtracking only leaves a digit next: no boundary */
        *year = (s[i] - '0') * 1000 + (s[i + 1] - '0') * 100 + (s[i + 2] - '0') * 10 + (s[i + 3] - '0');
        size_t z = d;
        while (z < e - 1 && s[z] == '0')
            z++;
        if (e - z > 18) {
            *release = -1;
        } else {
            int64_t r = 0;
            for (size_t q = z; q < e; q++)
                r = r * 10 + (s[q] - '0');
            *release = r;
        }
        return 1;
    }
    return 0;
}

/* Adds fmt with the text a (may be NULL: ""); 0, or -1 on OOM. */
static int add_warning(gf_nvtx_result *res, const char *fmt, const char *a)
{
    size_t n = strlen(fmt) + (a ? strlen(a) : 0) + 1;
    char *w = malloc(n);
    int bad = GF_RESIZE(res->warnings, res->nwarnings + 1);
    if (!w || bad) {
        free(w);
        return -1;
    }
    snprintf(w, n, fmt, a ? a : "");
    res->warnings[res->nwarnings++] = w;
    return 0;
}

/* Adds fmt with the list `[v0, v1, ...]` of v[0..n) when n > 0; 0, or -1 on OOM. */
static int add_list_warning(gf_nvtx_result *res, const char *fmt, const int64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    size_t cap = n * 24 + 64;
    char *buf = malloc(cap);
    if (!buf)
        return -1;
    size_t o = (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < n && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (o < cap)
        snprintf(buf + o, cap - o, "]");
    int rc = add_warning(res, fmt, buf);
    free(buf);
    return rc;
}

/* 1a/1b: the Nsight Systems version against the validated release (policy analyze.validated_version). */
static int version_warning(actx *c)
{
    const char *ver = c->in->nsys_version ? c->in->nsys_version : "unknown";
    const char *valid = c->in->validated_version;
    int64_t year, rel, vyear, vrel;
    char msg[512];
    if (!valid || !gf_nvtx_version_release(valid, &vyear, &vrel))
        return 0; /* no validated release given: nothing to compare with */
    if (!gf_nvtx_version_release(ver, &year, &rel)) {
        snprintf(msg, sizeof msg, "Could not determine the Nsight Systems version; report parsing is validated "
                                  "against Nsight Systems %s.", valid);
        return add_warning(c->res, "%s", msg);
    }
    if (year != vyear || rel != vrel || rel < 0) {
        snprintf(msg, sizeof msg, "has not been validated; report parsing is validated against Nsight Systems %s.",
                 valid);
        size_t n = strlen(ver) + strlen(msg) + 2;
        char *w = malloc(n);
        if (!w)
            return -1;
        snprintf(w, n, "%s %s", ver, msg);
        int rc = add_warning(c->res, "%s", w);
        free(w);
        return rc;
    }
    return 0;
}

/* 2a/2b: iterations against workload.iterations = N (an int): 0..N-1 missing, indexes outside it. */
static int index_set_warnings(actx *c, int64_t *tmp)
{
    const gf_yv *itv = gf_yv_get(gf_yv_get(c->in->manifest, "workload"), "iterations");
    if (!itv || itv->kind != GF_YV_INT)
        return 0;
    int64_t N = itv->i;
    /* missing: listed in full like Python's sorted(set) */
    size_t nm = 0, p = 0, capm = 0;
    int64_t *miss = NULL;
    int rc = 0;
    for (int64_t k = 0; k < N && rc == 0; k++) {
        while (p < c->nit && c->idx[p] < k)
            p++;
        if (p < c->nit && c->idx[p] == k)
            continue;
        if (GF_GROW(miss, capm, nm + 1, 64) != 0) {
            rc = -1;
            break;
        }
        miss[nm++] = k;
    }
    if (rc == 0)
        rc = add_list_warning(c->res, "Missing expected iteration indexes: %s.", miss, nm);
    free(miss);
    size_t nu = 0;
    for (size_t k = 0; k < c->nit; k++)
        if (c->idx[k] >= N || c->idx[k] < 0)
            tmp[nu++] = c->idx[k];
    return rc ? rc : add_list_warning(c->res, "Unexpected iteration indexes: %s.", tmp, nu);
}

/* The indexes of iterations[] without an entry in it[0..n) (sorted by index), into tmp. */
static size_t indexes_without(const actx *c, const gf_nvtx_iter *it, size_t n, int64_t *tmp)
{
    size_t m = 0, a = 0;
    for (size_t k = 0; k < c->nit; k++) {
        while (a < n && it[a].index < c->idx[k])
            a++;
        if (!(a < n && it[a].index == c->idx[k]))
            tmp[m++] = c->idx[k];
    }
    return m;
}

static int names_capture(const actx *c, const gf_nvtx_group *g, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (gf_nvtx_trie_equals(&c->trie, g[k].path, c->cr->s, c->cr->len))
            return 1;
    return 0;
}

/* §11 in order; 0, or -1 on OOM. Warnings 3 and 5 cannot fire (§6, §7) and guard the invariants. */
static int add_warnings(actx *c)
{
    int64_t *tmp = zalloc(c->nit, sizeof *tmp);
    char *crr = gf_py_str_repr(c->cr->s, c->cr->len);
    int rc = !tmp || !crr || version_warning(c) || index_set_warnings(c, tmp) ||
             add_list_warning(c->res, "Missing host ranges for iterations: %s.", tmp,
                              indexes_without(c, c->hit, c->nhit, tmp)) ||
             add_list_warning(c->res, "Missing GPU projections for iterations: %s.", tmp,
                              indexes_without(c, c->git, c->ngit, tmp)) ||
             (!names_capture(c, c->hg, c->nhg) &&
              add_warning(c->res, "Host report does not contain capture range %s.", crr)) ||
             (!names_capture(c, c->gg, c->ngg) &&
              add_warning(c->res, "GPU projection report does not contain capture range %s.", crr));
    free(tmp);
    free(crr);
    return rc ? gf_oom(c->err, "NVTX analysis") : 0;
}

/* ---- the analysis -------------------------------------------------------------------------------- */

static int write_json(actx *c)
{
    gf_nvtx_doc d = {.nv = c->nv, .in = c->in, .trie = &c->trie,
                     .hg = c->hg, .gg = c->gg, .nhg = c->nhg, .ngg = c->ngg, .horder = c->horder, .gorder = c->gorder,
                     .hit = c->hit, .git = c->git, .nhit = c->nhit, .ngit = c->ngit, .idx = c->idx, .nit = c->nit,
                     .record_count = c->nrec, .warnings = c->res->warnings, .nwarnings = c->res->nwarnings};
    if (!(c->res->json = gf_nvtx_json(&d, &c->res->json_len)))
        return gf_oom(c->err, "NVTX analysis");
    c->res->iterations = c->nit;
    c->res->host_iterations = c->nhit;
    c->res->gpu_iterations = c->ngit;
    c->res->host_groups = c->nhg;
    c->res->gpu_groups = c->ngg;
    return 0;
}

static int build_indexes(actx *c)
{
    if (gf_nvtx_rowidx_build(&c->hkeys, c->H, c->nh, sizeof *c->H, offsetof(gf_nvtx_host_row, pid),
                             offsetof(gf_nvtx_host_row, tid), offsetof(gf_nvtx_host_row, rid)) ||
        gf_nvtx_rowidx_build(&c->gkeys, c->G, c->ng, sizeof *c->G, offsetof(gf_nvtx_gpu_row, pid),
                             offsetof(gf_nvtx_gpu_row, tid), offsetof(gf_nvtx_gpu_row, rid)) ||
        gf_nvtx_trie_init(&c->trie, c->nv->strs))
        return gf_oom(c->err, "NVTX analysis");
    return 0;
}

int gf_nvtx_analyze(gf_nvtx *nv, const gf_nvtx_input *in, gf_nvtx_result *res, gf_err *err)
{
    memset(res, 0, sizeof *res);
    actx c;
    memset(&c, 0, sizeof c);
    gf_nvtx_keymap_init(&c.harness);
    c.nv = nv;
    c.in = in;
    c.res = res;
    c.err = err;
    c.H = nv->host;
    c.G = nv->gpu;
    c.nh = nv->nhost;
    c.ng = nv->ngpu;
    c.cr = gf_yv_get(in->manifest, "capture_range");
    if (!c.cr || c.cr->kind != GF_YV_STR)
        return gf_errf(err, GF_EXIT_INPUT, "Manifest must define a string capture_range.");
    if (gf_nvtx_record_count(gf_yv_get(in->manifest, "record_ids"), &c.nrec))
        return gf_errf(err, GF_EXIT_INPUT, "Manifest record_ids must be a list.");
    int rc = find_capture(&c) || build_indexes(&c) || host_iterations(&c) || gpu_iterations(&c) ||
             scope_paths(&c) || group_ranges(&c) || iteration_union(&c) || add_warnings(&c) || write_json(&c);
    ctx_free(&c);
    if (rc) {
        gf_nvtx_result_free(res);
        return -1;
    }
    return 0;
}

void gf_nvtx_result_free(gf_nvtx_result *res)
{
    if (!res)
        return;
    free(res->json);
    for (size_t i = 0; i < res->nwarnings; i++)
        free(res->warnings[i]);
    free(res->warnings);
    memset(res, 0, sizeof *res);
}
