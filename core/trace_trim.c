/* Trimming a finished trace (trace.h): the longest-N selection (gf_topn_select), launch partners by
 * correlation id (gf_trace_partners), and gf_trace_trim. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "mem.h"
#include "trace.h"

typedef struct topn_heap {
    const int64_t *dur;
    uint32_t *h;
    size_t n;
} topn_heap;

/* root = smallest dur, and among equals the highest index (dropped first) */
static int tworse(const topn_heap *h, uint32_t a, uint32_t b)
{
    if (h->dur[a] != h->dur[b])
        return h->dur[a] < h->dur[b];
    return a > b;
}

static void tsift_down(topn_heap *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && tworse(h, h->h[l], h->h[m]))
            m = l;
        if (r < h->n && tworse(h, h->h[r], h->h[m]))
            m = r;
        if (m == i)
            return;
        uint32_t x = h->h[i];
        h->h[i] = h->h[m];
        h->h[m] = x;
        i = m;
    }
}

long gf_topn_select(const int64_t *dur, size_t n, size_t k, uint8_t *keep)
{
    memset(keep, 0, n);
    if (k >= n) {
        memset(keep, 1, n);
        return (long)n;
    }
    if (k == 0)
        return 0;
    topn_heap h = {dur, malloc(k * sizeof(uint32_t)), 0};
    if (!h.h)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (h.n < k) {
            size_t j = h.n++;
            h.h[j] = (uint32_t)i;
            while (j > 0) {
                size_t p = (j - 1) / 2;
                if (!tworse(&h, h.h[j], h.h[p]))
                    break;
                uint32_t x = h.h[j];
                h.h[j] = h.h[p];
                h.h[p] = x;
                j = p;
            }
        } else if (dur[i] > dur[h.h[0]]) {
            h.h[0] = (uint32_t)i;
            tsift_down(&h, 0);
        }
    }
    for (size_t i = 0; i < h.n; i++)
        keep[h.h[i]] = 1;
    free(h.h);
    return (long)k;
}

/* Launches ordered by (pid, corr, index) — or by (corr, index) when pids are ignored — so that GPU work
 * finds its launch by binary search: 4 bytes per launch where a hash map of both keys took 40. */
typedef struct launch_order {
    const gf_trace *t;
    int by_corr;
} launch_order;

static int cmp_launch(const void *a, const void *b, void *ctx)
{
    const launch_order *o = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (!o->by_corr && o->t->pid[i] != o->t->pid[j])
        return o->t->pid[i] < o->t->pid[j] ? -1 : 1;
    if (o->t->corr[i] != o->t->corr[j])
        return o->t->corr[i] < o->t->corr[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* The first launch (lowest index) with GPU work g's correlation id (and process, unless by_corr), or -1. */
static int64_t find_launch(const gf_trace *t, const uint32_t *ids, size_t n, int by_corr, size_t g)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2, i = ids[mid];
        int less = !by_corr && t->pid[i] != t->pid[g] ? t->pid[i] < t->pid[g] : t->corr[i] < t->corr[g];
        if (less)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n)
        return -1;
    size_t i = ids[lo];
    return t->corr[i] == t->corr[g] && (by_corr || t->pid[i] == t->pid[g]) ? (int64_t)i : -1;
}

/* CUPTI numbers each process's correlation ids 1, 2, 3, ...: when the launches' ids are that dense, GPU work
 * finds its launch in a table indexed by (process, id) instead of by binary search in a sorted copy of the
 * launches (a sort of every launch through an indirect comparison, then a random walk per GPU operation). */
typedef struct corr_span {
    int64_t pid, lo, hi;
    uint64_t base;
} corr_span;

typedef struct span_set {
    gf_hmap slot; /* pid → index in sp */
    corr_span *sp;
    size_t n, cap;
    int64_t memo_pid; /* the last pid looked up, and its span's index (-1: no launch has that pid) */
    int64_t memo;
} span_set;

static int64_t span_of(span_set *s, int64_t pid)
{
    if (pid != s->memo_pid) {
        int64_t *v = gf_hmap_get(&s->slot, (uint64_t)(uint32_t)pid);
        s->memo_pid = pid;
        s->memo = v ? *v : -1;
    }
    return s->memo;
}

/* The spans of the launches' ids per process: 1, or 0 when they are too sparse for a table of at most
 * 2 entries a launch (plus 64K), -1 on OOM. */
static int launch_spans(const gf_trace *t, size_t nl, span_set *s, uint64_t *total)
{
    for (size_t i = 0; i < t->n; i++) {
        if (t->kind[i] != GF_EV_API || t->corr[i] < 0)
            continue;
        int ins;
        int64_t *v = gf_hmap_put(&s->slot, (uint64_t)(uint32_t)t->pid[i], (int64_t)s->n, &ins);
        if (!v)
            return -1;
        if (ins) {
            if (GF_GROW(s->sp, s->cap, s->n + 1, 16) != 0)
                return -1;
            s->sp[s->n++] = (corr_span){t->pid[i], t->corr[i], t->corr[i], 0};
        }
        corr_span *c = &s->sp[*v];
        if (t->corr[i] < c->lo)
            c->lo = t->corr[i];
        if (t->corr[i] > c->hi)
            c->hi = t->corr[i];
    }
    uint64_t limit = 2 * (uint64_t)nl + 65536;
    *total = 0;
    for (size_t k = 0; k < s->n; k++) {
        uint64_t w = (uint64_t)s->sp[k].hi - (uint64_t)s->sp[k].lo + 1;
        if (w > limit || *total + w > limit)
            return 0;
        s->sp[k].base = *total;
        *total += w;
    }
    return 1;
}

/* p[g] = the first launch (lowest index) of each GPU operation g with the same process and correlation id,
 * as find_launch finds it: 1 done, 0 not dense (nothing written), -1 OOM. */
static int dense_partners(const gf_trace *t, size_t nl, int32_t *p)
{
    span_set s = {.memo_pid = INT64_MIN, .memo = -1}; /* no pid is INT64_MIN: the first lookup misses */
    gf_hmap_init(&s.slot);
    uint64_t total = 0;
    int32_t *tab = NULL;
    int rc = launch_spans(t, nl, &s, &total);
    if (rc == 1 && !(tab = malloc((total ? total : 1) * sizeof *tab)))
        rc = -1;
    if (rc == 1) {
        memset(tab, 0xff, (total ? total : 1) * sizeof *tab);
        for (size_t i = 0; i < t->n; i++) {
            if (t->kind[i] != GF_EV_API || t->corr[i] < 0)
                continue;
            const corr_span *c = &s.sp[span_of(&s, t->pid[i])];
            int32_t *slot = &tab[c->base + (uint64_t)(t->corr[i] - c->lo)];
            if (*slot < 0)
                *slot = (int32_t)i;
        }
        for (size_t i = 0; i < t->n; i++) {
            if (!gf_ev_is_gpu_work(t->kind[i]) || t->corr[i] < 0)
                continue;
            int64_t k = span_of(&s, t->pid[i]);
            const corr_span *c = k >= 0 ? &s.sp[k] : NULL;
            if (c && t->corr[i] >= c->lo && t->corr[i] <= c->hi)
                p[i] = tab[c->base + (uint64_t)(t->corr[i] - c->lo)];
        }
    }
    free(tab);
    free(s.sp);
    gf_hmap_free(&s.slot);
    return rc;
}

/* The launches sorted by (pid, corr, index), then by (corr, index) for GPU work without a process (CSV input),
 * each GPU operation's launch found by binary search. 0, or -1 on OOM. */
static int sorted_partners(const gf_trace *t, size_t nl, int any_pidless, int32_t *p)
{
    uint32_t *ids = malloc((nl ? nl : 1) * sizeof *ids);
    if (!ids)
        return -1;
    nl = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->kind[i] == GF_EV_API && t->corr[i] >= 0)
            ids[nl++] = (uint32_t)i;
    launch_order by_pid = {t, 0}, by_corr = {t, 1};
    for (int pass = 0; pass < 1 + any_pidless; pass++) {
        qsort_r(ids, nl, sizeof *ids, cmp_launch, pass ? &by_corr : &by_pid);
        for (size_t i = 0; i < t->n; i++) {
            if (!gf_ev_is_gpu_work(t->kind[i]) || t->corr[i] < 0 || (pass && t->pid[i] >= 0) || p[i] >= 0)
                continue;
            int64_t v = find_launch(t, ids, nl, pass, i);
            if (v >= 0)
                p[i] = (int32_t)v;
        }
    }
    free(ids);
    return 0;
}

int gf_trace_partners(const gf_trace *t, int32_t **partner, gf_err *err)
{
    if (t->n > INT32_MAX)
        return gf_errf(err, GF_EXIT_ERROR, "trace: %zu events: launch partners are indexed by 32 bits", t->n);
    int32_t *p = malloc((t->n ? t->n : 1) * sizeof *p);
    if (!p)
        return gf_oom(err, "trace");
    size_t nl = 0;
    int any_pidless = 0; /* GPU rows without a process (CSV input) find their launch by correlation id alone */
    for (size_t i = 0; i < t->n; i++) {
        p[i] = -1;
        nl += t->kind[i] == GF_EV_API && t->corr[i] >= 0;
        any_pidless |= gf_ev_is_gpu_work(t->kind[i]) && t->corr[i] >= 0 && t->pid[i] < 0;
    }
    int rc = any_pidless ? 0 : dense_partners(t, nl, p);
    if (rc == 0)
        rc = sorted_partners(t, nl, any_pidless, p);
    if (rc < 0) {
        free(p);
        return gf_oom(err, "trace");
    }
    /* an API call links to the first GPU work it launched */
    for (size_t i = 0; i < t->n; i++)
        if (gf_ev_is_gpu_work(t->kind[i]) && p[i] >= 0 && p[p[i]] < 0)
            p[p[i]] = (int32_t)i;
    *partner = p;
    return 0;
}

int gf_trace_trim(gf_trace *t, size_t max_events, int keep_partners, gf_err *err)
{
    if (!t->finished)
        return gf_errf(err, GF_EXIT_ERROR, "trace: trim before finish");
    int all = max_events == 0 || t->n <= max_events;
    if (all) /* details may be shared between events (keep-all builds): nothing to renumber either */
        return 0;
    uint8_t *keep = malloc(t->n ? t->n : 1);
    if (!keep)
        return gf_oom(err, "trace");
    if (all)
        memset(keep, 1, t->n);
    else if (gf_topn_select(t->dur, t->n, max_events, keep) < 0) {
        free(keep);
        return gf_oom(err, "trace");
    }
    if (keep_partners && !all) {
        int32_t *p;
        if (gf_trace_partners(t, &p, err) != 0) {
            free(keep);
            return -1;
        }
        for (size_t i = 0; i < t->n; i++)
            if (keep[i] && gf_ev_is_gpu_work(t->kind[i]) && p[i] >= 0)
                keep[p[i]] = 1;
        free(p);
    }
    /* details may be shared and in any order (keep-all builds): the kept ones go to a new array, each once */
    gf_detail *nd = malloc((t->ndetails ? t->ndetails : 1) * sizeof *nd);
    int32_t *renum = malloc((t->ndetails ? t->ndetails : 1) * sizeof *renum);
    if (!nd || !renum) {
        free(keep);
        free(nd);
        free(renum);
        return gf_oom(err, "trace");
    }
    for (size_t d = 0; d < t->ndetails; d++)
        renum[d] = -1;
    size_t k = 0, kd = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (!keep[i])
            continue;
        t->start[k] = t->start[i];
        t->dur[k] = t->dur[i];
        t->corr[k] = t->corr[i];
        t->lane[k] = t->lane[i];
        t->name[k] = t->name[i];
        t->stack[k] = t->stack[i];
        t->pid[k] = t->pid[i];
        t->kind[k] = t->kind[i];
        t->seq[k] = t->seq[i];
        int32_t d = t->detail[i];
        if (d >= 0 && renum[d] < 0) {
            nd[kd] = t->details[d];
            renum[d] = (int32_t)kd++;
        }
        t->detail[k] = d >= 0 ? renum[d] : -1;
        k++;
    }
    free(renum);
    free(t->details);
    t->details = nd;
    t->n = k;
    t->ndetails = kd;
    free(keep);
    return 0;
}
