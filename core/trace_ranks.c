#include "trace_ranks.h"
#include "mem.h"
#include "trace_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct msrc {
    const gf_trace *s;
    size_t idx;
    int64_t offset;
    int32_t *str;   /* src strtab id → dst id (-2 = not yet) */
    size_t nstr;
    int32_t *stk;   /* src stack → dst stack (-2 = not yet) */
    gf_hmap ranks;  /* pid + 1 → rank */
    int32_t def_rank;
} msrc;

static int32_t map_str(gf_trace *d, msrc *m, int32_t id)
{
    if (id < 0 || (size_t)id >= m->nstr)
        return -1;
    if (m->str[id] != -2)
        return m->str[id];
    size_t len;
    const char *v = gf_strtab_get(m->s->str, id, &len);
    return m->str[id] = gf_strtab_intern(d->str, v, len);
}

static int32_t map_stack(gf_trace *d, msrc *m, int32_t s)
{
    if (s < 0 || (size_t)s >= m->s->nstacks)
        return -1;
    if (m->stk[s] != -2)
        return m->stk[s];
    size_t a = m->s->stack_off[s], b = m->s->stack_off[s + 1];
    int32_t *fr = malloc((b - a ? b - a : 1) * sizeof *fr);
    if (!fr)
        return -3;
    for (size_t k = a; k < b; k++)
        if ((fr[k - a] = map_str(d, m, m->s->frames[k])) < 0) {
            free(fr);
            return -3;
        }
    int32_t r = gf_trace_stack(d, fr, b - a);
    free(fr);
    return m->stk[s] = r < 0 ? -3 : r;
}

static int32_t rank_of(const msrc *m, int64_t pid)
{
    int64_t *v = pid >= 0 ? gf_hmap_get(&m->ranks, (uint64_t)(pid + 1)) : NULL;
    return v ? (int32_t)*v : m->def_rank;
}

/* The dst lane of source lane l for an event of process pid (the source's; -1 unknown): lanes of different
 * ranks never merge. -1 with err on failure. */
static int32_t dst_lane(gf_trace *d, msrc *m, gf_hmap *lanes, int32_t l, int64_t pid, gf_err *err)
{
    const gf_lane *sl = &m->s->lanes[l];
    int32_t rank = rank_of(m, pid);
    uint64_t key = ((uint64_t)(uint32_t)l << 32) | (uint32_t)(rank + 1);
    int64_t *v = gf_hmap_get(lanes, key);
    if (v)
        return (int32_t)*v;
    int32_t dev = sl->device >= 0 ? map_str(d, m, sl->device) : -1;
    int32_t nl = gf_trace_lane_ranked(d, rank, sl->kind, gf_lane_variant(sl), sl->pid, sl->tid, dev, sl->devnum,
                                      sl->stream, err);
    if (nl < 0)
        return -1;
    if (sl->tname >= 0)
        gf_trace_lane_set_thread_name(d, nl, map_str(d, m, sl->tname));
    if (!gf_hmap_put(lanes, key, nl, NULL))
        return gf_oom(err, "merge"), -1;
    return nl;
}

/* The dst event (and detail) for event i of source m; returns 1 when it has a detail, -1 on error. */
static int make_event(gf_trace *d, msrc *m, gf_hmap *lanes, size_t i, gf_event *e, gf_detail *dt, gf_err *err)
{
    const gf_trace *s = m->s;
    int32_t l = s->lane[i];
    const gf_lane *sl = l >= 0 ? &s->lanes[l] : NULL;
    int64_t pid = s->pid[i];
    if (pid < 0 && sl && sl->kind != GF_LANE_GPU)
        pid = sl->pid;
    int32_t rank = rank_of(m, pid);
    memset(e, 0, sizeof *e);
    e->start = s->start[i] + m->offset;
    e->dur = s->dur[i];
    e->corr = s->corr[i];
    e->kind = s->kind[i];
    e->pid = rank >= 0 ? rank : pid < 0 ? -1 : (int32_t)((pid & 0xFFFFFF) + ((int64_t)(m->idx % 120 + 1) << 24));
    e->lane = sl ? dst_lane(d, m, lanes, l, pid, err) : -1;
    if (sl && e->lane < 0)
        return -1;
    if ((e->name = map_str(d, m, s->name[i])) < 0)
        return gf_oom(err, "merge");
    e->stack = s->stack[i] >= 0 ? map_stack(d, m, s->stack[i]) : -1;
    if (e->stack == -3)
        return gf_oom(err, "merge");
    if (s->detail[i] < 0)
        return 0;
    *dt = s->details[s->detail[i]];
    dt->copy = map_str(d, m, dt->copy);
    dt->domain = map_str(d, m, dt->domain);
    return 1;
}

/* A digest's part before its events: its strings and stacks in their order (the order the whole report's
 * events would have put them in), and its lanes. */
static int digest_prelude(gf_trace *d, msrc *m, gf_hmap *lanes, const int64_t *touch, size_t ntouch, gf_err *err)
{
    for (size_t k = 0; k < m->nstr; k++)
        if (map_str(d, m, (int32_t)k) < 0)
            return gf_oom(err, "merge");
    for (size_t k = 0; k < m->s->nstacks; k++)
        if (map_stack(d, m, (int32_t)k) < 0)
            return gf_oom(err, "merge");
    for (size_t k = 0; k < ntouch; k++) {
        int64_t l = touch[2 * k];
        if (l < 0 || (size_t)l >= m->s->nlanes)
            return gf_errf(err, GF_EXIT_INPUT, "merge: %s: a digest names lane %lld of %zu",
                           m->s->source ? m->s->source : "?", (long long)l, m->s->nlanes);
        if (dst_lane(d, m, lanes, (int32_t)l, touch[2 * k + 1], err) < 0)
            return -1;
    }
    return 0;
}

/* After the digests' events: what they counted over every event of their reports, and their flames. */
static int digest_aggregates(gf_trace *d, msrc *ms, size_t nsrc, gf_err *err)
{
    for (size_t i = 0; i < nsrc; i++) {
        const gf_trace *s = ms[i].s;
        d->total += s->total;
        for (int k = 0; k < GF_EV_NKINDS; k++)
            d->total_kind[k] += s->total_kind[k];
        d->launches_with_stack += s->launches_with_stack;
        for (size_t e = 0; e < s->nflame; e++) {
            const gf_flame_entry *fe = &s->flame[e];
            int32_t st = map_stack(d, &ms[i], fe->stack), leaf = map_str(d, &ms[i], fe->leaf);
            if (st < 0 || leaf < 0 || gf_trace_add_flame(d, st, leaf, fe->gpu, fe->weight) != 0)
                return gf_oom(err, "merge");
        }
    }
    return 0;
}

static int merge_impl(gf_trace *dst, gf_trace *const *src, size_t nsrc, const int64_t *offset,
                      const char *const *rank_labels, size_t nranks, const gf_rank_spec *spec, size_t nspec,
                      size_t max_events, int keep_partners, const int64_t *const *touch, const size_t *ntouch,
                      gf_err *err)
{
    for (size_t i = 0; i < nsrc; i++)
        if (!src[i]->finished)
            return gf_errf(err, GF_EXIT_ERROR, "merge: source %zu is not finished", i);
    if (gf_trace_begin(dst, max_events, keep_partners, err) != 0)
        return -1;
    if (touch)
        gf_trace_set_given(dst);
    msrc *ms = calloc(nsrc ? nsrc : 1, sizeof *ms);
    gf_hmap lanes;
    gf_hmap_init(&lanes);
    int ret = -1;
    if (!ms)
        goto oom;
    dst->rank_label = malloc((nranks ? nranks : 1) * sizeof *dst->rank_label);
    if (!dst->rank_label)
        goto oom;
    for (size_t r = 0; r < nranks; r++)
        if ((dst->rank_label[r] = gf_strtab_intern_cstr(dst->str, rank_labels[r] ? rank_labels[r] : "?")) < 0)
            goto oom;
    dst->nranks = nranks;
    for (size_t i = 0; i < nsrc; i++) {
        msrc *m = &ms[i];
        m->s = src[i];
        m->idx = i;
        m->offset = offset ? offset[i] : 0;
        m->nstr = gf_strtab_count(src[i]->str);
        m->str = malloc((m->nstr ? m->nstr : 1) * sizeof *m->str);
        m->stk = malloc((src[i]->nstacks ? src[i]->nstacks : 1) * sizeof *m->stk);
        if (!m->str || !m->stk)
            goto oom;
        for (size_t k = 0; k < m->nstr; k++)
            m->str[k] = -2;
        for (size_t k = 0; k < src[i]->nstacks; k++)
            m->stk[k] = -2;
        gf_hmap_init(&m->ranks);
        m->def_rank = -1;
        for (size_t k = 0; k < nspec; k++) {
            if (spec[k].src != i || spec[k].rank < 0 || (size_t)spec[k].rank >= nranks)
                continue;
            if (spec[k].pid < 0)
                m->def_rank = spec[k].rank;
            else if (!gf_hmap_put(&m->ranks, (uint64_t)(spec[k].pid + 1), spec[k].rank, NULL))
                goto oom;
        }
    }
    size_t total = 0;
    for (size_t i = 0; i < nsrc; i++)
        total += src[i]->n;
    if (gf_trace_reserve(dst, total, err) != 0)
        goto done;
    for (size_t i = 0; i < nsrc; i++) {
        msrc *m = &ms[i];
        for (size_t w = 0; w < m->s->nwarnings; w++)
            if (gf_trace_warn(dst, "%s: %s", m->s->source ? m->s->source : "?", m->s->warnings[w]) != 0)
                goto oom;
        if (touch && digest_prelude(dst, m, &lanes, touch[i], ntouch[i], err) != 0)
            goto done;
        for (size_t k = 0; k < m->s->n; k++) {
            gf_event e;
            gf_detail dt;
            int hd = make_event(dst, m, &lanes, k, &e, &dt, err);
            if (hd < 0)
                goto done;
            if (gf_trace_add(dst, &e, hd ? &dt : NULL, err) != 0)
                goto done;
        }
    }
    if (touch && digest_aggregates(dst, ms, nsrc, err) != 0)
        goto done;
    if (gf_trace_partner_pass_needed(dst)) {
        for (size_t i = 0; i < nsrc; i++)
            for (size_t k = 0; k < ms[i].s->n; k++) {
                if (ms[i].s->kind[k] != GF_EV_API)
                    continue;
                gf_event e;
                gf_detail dt;
                if (make_event(dst, &ms[i], &lanes, k, &e, &dt, err) < 0 || gf_trace_add_partner(dst, &e, err) != 0)
                    goto done;
            }
    }
    /* source: the reports' file names */
    {
        char buf[512];
        size_t o = 0;
        buf[0] = 0;
        for (size_t i = 0; i < nsrc && o < sizeof buf - 1; i++)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? ", " : "", src[i]->source ? src[i]->source : "?");
        if (o >= sizeof buf - 1)
            snprintf(buf, sizeof buf, "%zu reports", nsrc);
        free(dst->source);
        if (!(dst->source = strdup(buf)))
            goto oom;
    }
    ret = gf_trace_finish(dst, err);
    goto done;
oom:
    gf_oom(err, "merge");
done:
    for (size_t i = 0; ms && i < nsrc; i++) {
        free(ms[i].str);
        free(ms[i].stk);
        gf_hmap_free(&ms[i].ranks);
    }
    free(ms);
    gf_hmap_free(&lanes);
    return ret;
}

int gf_trace_merge(gf_trace *dst, gf_trace *const *src, size_t nsrc, const int64_t *offset,
                   const char *const *rank_labels, size_t nranks, const gf_rank_spec *spec, size_t nspec,
                   size_t max_events, int keep_partners, gf_err *err)
{
    return merge_impl(dst, src, nsrc, offset, rank_labels, nranks, spec, nspec, max_events, keep_partners, NULL,
                      NULL, err);
}

int gf_trace_merge_digests(gf_trace *dst, gf_trace *const *src, size_t nsrc, const int64_t *offset,
                           const char *const *rank_labels, size_t nranks, const gf_rank_spec *spec, size_t nspec,
                           size_t max_events, int keep_partners, const int64_t *const *touch, const size_t *ntouch,
                           gf_err *err)
{
    return merge_impl(dst, src, nsrc, offset, rank_labels, nranks, spec, nspec, max_events, keep_partners, touch,
                      ntouch, err);
}

/* id into the first free slot of v[GF_PROC_NAMES] unless it is there already */
static void add_name(int32_t *v, int32_t id)
{
    for (int k = 0; k < GF_PROC_NAMES; k++) {
        if (v[k] == id)
            return;
        if (v[k] < 0) {
            v[k] = id;
            return;
        }
    }
}

static int prefixed(const gf_trace *t, int32_t id, const char *const *pre, size_t npre)
{
    if (id < 0 || npre == 0)
        return 0;
    size_t len;
    const char *s = gf_strtab_get(t->str, id, &len);
    for (size_t i = 0; s && i < npre; i++) {
        size_t pl = pre[i] ? strlen(pre[i]) : 0;
        if (pl <= len && memcmp(s, pre[i], pl) == 0)
            return 1;
    }
    return 0;
}

int gf_trace_processes(const gf_trace *t, const char *const *prefixes, size_t nprefixes, gf_proc_info **out,
                       size_t *n, gf_err *err)
{
    gf_hmap idx;
    gf_hmap_init(&idx);
    gf_proc_info *p = NULL;
    size_t np = 0, cap = 0;
    for (size_t i = 0; i < t->n; i++) {
        int64_t pid = t->pid[i];
        int32_t l = t->lane[i];
        if (pid < 0 && l >= 0 && t->lanes[l].kind != GF_LANE_GPU)
            pid = t->lanes[l].pid;
        if (pid < 0 || gf_ev_is_cpu_side(t->kind[i])) /* a process is a rank by its CUDA and NVTX events */
            continue;
        int ins;
        int64_t *v = gf_hmap_put(&idx, (uint64_t)pid, (int64_t)np, &ins);
        if (!v)
            goto oom;
        if (ins) {
            if (GF_GROW(p, cap, np + 1, 8) != 0)
                goto oom;
            memset(&p[np], 0, sizeof p[np]);
            p[np].pid = pid;
            for (int k = 0; k < 8; k++)
                p[np].devices[k] = -1;
            for (int k = 0; k < GF_PROC_NAMES; k++)
                p[np].threads[k] = p[np].markers[k] = -1;
            np++;
        }
        gf_proc_info *q = &p[*v];
        q->events++;
        if (t->kind[i] == GF_EV_NVTX && prefixed(t, t->name[i], prefixes, nprefixes))
            add_name(q->markers, t->name[i]);
        if (gf_ev_is_gpu_work(t->kind[i])) {
            q->gpu_events++;
            int32_t dev = l >= 0 ? t->lanes[l].device : -1;
            for (int k = 0; k < 8 && dev >= 0; k++) {
                if (q->devices[k] == dev)
                    break;
                if (q->devices[k] < 0) {
                    q->devices[k] = dev;
                    break;
                }
            }
        }
    }
    for (size_t l = 0; l < t->nlanes; l++) { /* the threads of each process, in lane order */
        const gf_lane *ln = &t->lanes[l];
        int64_t *v = ln->kind != GF_LANE_GPU && ln->pid >= 0 ? gf_hmap_get(&idx, (uint64_t)ln->pid) : NULL;
        if (v && prefixed(t, ln->tname, prefixes, nprefixes))
            add_name(p[*v].threads, ln->tname);
    }
    gf_hmap_free(&idx);
    *out = p;
    *n = np;
    return 0;
oom:
    gf_hmap_free(&idx);
    free(p);
    return gf_oom(err, "trace");
}

static int has_prefix(const char *s, const char *const *pre, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pre[i] && *pre[i] && strncmp(s, pre[i], strlen(pre[i])) == 0)
            return 1;
    return 0;
}

void gf_rank_stats_free(gf_rank_stat *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i].iters);
    free(s);
}

int gf_trace_rank_stats(const gf_trace *t, const char *const *nccl_prefixes, size_t nnccl,
                        const char *const *iter_prefixes, size_t niter, gf_rank_stat **out, gf_err *err)
{
    size_t nr = t->nranks ? t->nranks : 1;
    gf_rank_stat *s = calloc(nr, sizeof *s);
    int64_t *cur_end = malloc(nr * sizeof *cur_end), *cur_start = malloc(nr * sizeof *cur_start);
    size_t *icap = calloc(nr, sizeof *icap);
    /* open[r]: rank r has GPU work (an interval of the union is open). Not a negative sentinel: a report's
     * own clock starts before its session at times (negative timestamps), and a merge shifts it by its
     * offset, so the statistics of one report must not depend on where its clock was put. */
    uint8_t *open = calloc(nr, 1);
    size_t nstr = gf_strtab_count(t->str);
    int8_t *cls = malloc(nstr ? nstr : 1); /* per name: -1 unknown, 0 no, 1 NCCL / iteration bit 2 */
    if (!s || !cur_end || !cur_start || !icap || !cls || !open)
        goto oom;
    memset(cls, 0xff, nstr ? nstr : 1);
    for (size_t r = 0; r < nr; r++) {
        s[r].rank = t->nranks ? (int32_t)r : -1;
        s[r].first = s[r].last = -1;
        cur_end[r] = cur_start[r] = -1;
    }
    /* pass 1: busy (union of GPU work), span, kernel and NCCL time, iteration ranges */
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        if (l < 0)
            continue;
        int32_t r = t->lanes[l].rank;
        if (r < 0)
            r = 0;
        if ((size_t)r >= nr)
            continue;
        gf_rank_stat *rs = &s[r];
        int32_t nm = t->name[i];
        if (nm >= 0 && (size_t)nm < nstr && cls[nm] < 0) {
            const char *txt = gf_strtab_get(t->str, nm, NULL);
            cls[nm] = (int8_t)(has_prefix(txt, nccl_prefixes, nnccl) | (has_prefix(txt, iter_prefixes, niter) << 1));
        }
        int c = nm >= 0 && (size_t)nm < nstr ? cls[nm] : 0;
        if (gf_ev_is_gpu_work(t->kind[i])) {
            int64_t a = t->start[i], b = t->start[i] + t->dur[i];
            if (!open[r] || a < rs->first)
                rs->first = a;
            if (!open[r] || b > rs->last)
                rs->last = b;
            if (!open[r] || a > cur_end[r]) {
                if (open[r])
                    rs->busy_ns += cur_end[r] - cur_start[r];
                cur_start[r] = a;
                cur_end[r] = b;
                open[r] = 1;
            } else if (b > cur_end[r]) {
                cur_end[r] = b;
            }
            if (t->kind[i] == GF_EV_KERNEL) {
                rs->kernels++;
                rs->kernel_ns += t->dur[i];
                if (c & 1)
                    rs->nccl_ns += t->dur[i];
            }
        } else if (t->kind[i] == GF_EV_NVTX && (c & 2) && !gf_ev_is_nvtx_mark(t, i)) { /* ranges, not marks */
            /* outermost matching ranges only: skip one inside the previous kept range */
            if (rs->niters) {
                const gf_rank_iter *p = &rs->iters[rs->niters - 1];
                if (t->start[i] < p->start + p->dur && t->start[i] + t->dur[i] <= p->start + p->dur)
                    continue;
            }
            if (GF_GROW(rs->iters, icap[r], (size_t)rs->niters + 1, 16) != 0)
                goto oom;
            rs->iters[rs->niters++] = (gf_rank_iter){nm, t->start[i], t->dur[i], 0, 0};
        }
    }
    for (size_t r = 0; r < nr; r++) {
        if (open[r])
            s[r].busy_ns += cur_end[r] - cur_start[r];
        s[r].idle_ns = open[r] ? (s[r].last - s[r].first) - s[r].busy_ns : 0;
    }
    /* pass 2: kernel time inside each iteration (binary search on the iteration starts) */
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        if (l < 0 || t->kind[i] != GF_EV_KERNEL)
            continue;
        int32_t r = t->lanes[l].rank;
        if (r < 0)
            r = 0;
        if ((size_t)r >= nr || !s[r].niters)
            continue;
        gf_rank_stat *rs = &s[r];
        size_t lo = 0, hi = rs->niters;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (rs->iters[mid].start <= t->start[i])
                lo = mid;
            else
                hi = mid;
        }
        gf_rank_iter *it = &rs->iters[lo];
        if (t->start[i] < it->start || t->start[i] >= it->start + it->dur)
            continue;
        int32_t nm = t->name[i];
        if (nm >= 0 && (size_t)nm < nstr && (cls[nm] & 1))
            it->nccl_ns += t->dur[i];
        else
            it->compute_ns += t->dur[i];
    }
    free(cur_end);
    free(cur_start);
    free(open);
    free(icap);
    free(cls);
    *out = s;
    return (int)nr;
oom:
    gf_rank_stats_free(s, nr);
    free(cur_end);
    free(cur_start);
    free(open);
    free(icap);
    free(cls);
    return gf_oom(err, "rank stats");
}

static int cmp_total(const void *a, const void *b)
{
    const gf_rank_total *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

int gf_trace_rank_kernel_totals(const gf_trace *t, int kind, gf_rank_total **out, size_t *n, gf_err *err)
{
    gf_hmap idx;
    gf_hmap_init(&idx);
    gf_rank_total *v = NULL;
    size_t nv = 0, cap = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->kind[i] != kind)
            continue;
        int32_t l = t->lane[i];
        int32_t r = l >= 0 ? t->lanes[l].rank : -1;
        uint64_t key = ((uint64_t)(uint32_t)(r + 1) << 32) | (uint32_t)t->name[i];
        int ins;
        int64_t *p = gf_hmap_put(&idx, key, (int64_t)nv, &ins);
        if (!p)
            goto oom;
        if (ins) {
            if (GF_GROW(v, cap, nv + 1, 64) != 0)
                goto oom;
            v[nv++] = (gf_rank_total){r, t->name[i], 0, 0};
        }
        v[*p].total_ns += t->dur[i];
        v[*p].count++;
    }
    gf_hmap_free(&idx);
    if (nv)
        qsort(v, nv, sizeof *v, cmp_total);
    *out = v;
    *n = nv;
    return 0;
oom:
    gf_hmap_free(&idx);
    free(v);
    return gf_oom(err, "trace");
}
