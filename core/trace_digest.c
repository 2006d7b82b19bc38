/* A report's digest for a bounded merge (trace_digest.h): one pass over the report's events in the order
 * the merge visits them (what it sees first, what it counts, the launch stacks it hands on and the flame it
 * sums, as gf_trace_add does), then the longest-N selection and its launches, then the digest's columns. */
#include "trace_digest.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "trace.h"
#include "trace_build.h"
#include "trace_build_int.h"
#include "trace_trim.h"

typedef struct dg {
    const gf_trace *s;
    gf_trace *d;
    int32_t *smap;   /* report string id → digest id (-1: not seen) */
    int32_t *kmap;   /* report stack → digest stack (-1: not seen) */
    size_t nstr, frames_cap, stack_cap;
    int64_t *touch;
    size_t ntouch, touch_cap;
} dg;

/* The process an event counts for in the merge (make_event's): its own, else its CPU or NVTX lane's. */
static int64_t ev_pid(const gf_trace *s, size_t i)
{
    int64_t pid = s->pid[i];
    int32_t l = s->lane[i];
    if (pid < 0 && l >= 0 && s->lanes[l].kind != GF_LANE_GPU)
        pid = s->lanes[l].pid;
    return pid;
}

static int see_str(dg *g, int32_t id)
{
    if (id < 0 || (size_t)id >= g->nstr || g->smap[id] >= 0)
        return 0;
    size_t len;
    const char *v = gf_strtab_get(g->s->str, id, &len);
    return (g->smap[id] = gf_strtab_intern(g->d->str, v, len)) < 0 ? -1 : 0;
}

/* As map_stack in the merge: the frames' strings first, then the stack. */
static int see_stack(dg *g, int32_t st)
{
    const gf_trace *s = g->s;
    gf_trace *d = g->d;
    if (st < 0 || (size_t)st >= s->nstacks || g->kmap[st] >= 0)
        return 0;
    size_t a = s->stack_off[st], b = s->stack_off[st + 1];
    for (size_t k = a; k < b; k++)
        if (see_str(g, s->frames[k]) != 0)
            return -1;
    if (gf_grow((void **)&d->frames, &g->frames_cap, d->nframes + (b - a), sizeof *d->frames, 64) != 0 ||
        gf_grow((void **)&d->stack_off, &g->stack_cap, d->nstacks + 2, sizeof *d->stack_off, 64) != 0)
        return -1;
    for (size_t k = a; k < b; k++)
        d->frames[d->nframes++] = g->smap[s->frames[k]];
    d->stack_off[d->nstacks + 1] = d->nframes;
    g->kmap[st] = (int32_t)d->nstacks++;
    return 0;
}

/* What the merge sees of event i before the builder: its lane (strings when the lane is new), name, stack
 * and details' strings (make_event's order). */
static int see_event(dg *g, size_t i, gf_hmap *lane_pids, uint8_t *lane_seen)
{
    const gf_trace *s = g->s;
    int32_t l = s->lane[i];
    if (l >= 0) {
        int64_t pid = ev_pid(s, i);
        int ins;
        if (!gf_hmap_put(lane_pids, ((uint64_t)(uint32_t)l << 40) ^ (uint64_t)(pid + 1), 1, &ins))
            return -1;
        if (ins) {
            if (gf_grow((void **)&g->touch, &g->touch_cap, g->ntouch + 2, sizeof *g->touch, 64) != 0)
                return -1;
            g->touch[g->ntouch++] = l;
            g->touch[g->ntouch++] = pid;
        }
        if (!lane_seen[l]) {
            lane_seen[l] = 1;
            if (see_str(g, s->lanes[l].device) != 0 || see_str(g, s->lanes[l].tname) != 0)
                return -1;
        }
    }
    if (see_str(g, s->name[i]) != 0 || see_stack(g, s->stack[i]) != 0)
        return -1;
    if (s->detail[i] >= 0) {
        const gf_detail *dt = &s->details[s->detail[i]];
        if (see_str(g, dt->copy) != 0 || see_str(g, dt->domain) != 0)
            return -1;
    }
    return 0;
}

static int flame_put(gf_hmap *flame, int32_t stack, int32_t leaf, int gpu, int64_t w)
{
    uint64_t key = ((uint64_t)(uint32_t)stack << 32) | (uint32_t)leaf | (gpu ? 0 : 0x80000000u);
    int64_t *v = gf_hmap_put(flame, key, 0, NULL);
    if (!v)
        return -1;
    *v += w;
    return 0;
}

/* gf_trace_add's launch bookkeeping over the report's events in merge order: counts, launches with a stack
 * (first of each (process, correlation)), the stack GPU work inherits (inh[i], a report stack id) and the
 * flame's weights (report ids), with the finish's weights of launches without GPU work. */
static int simulate(dg *g, int32_t *inh, gf_hmap *flame)
{
    const gf_trace *s = g->s;
    gf_hmap api;
    gf_hmap_init(&api);
    api_rec *apis = NULL;
    size_t napis = 0, cap = 0;
    int rc = -1;
    for (size_t i = 0; i < s->n; i++) {
        int64_t dur = s->dur[i] < 0 ? 0 : s->dur[i], pid = ev_pid(s, i), corr = s->corr[i];
        int32_t st = s->stack[i] >= 0 && (size_t)s->stack[i] < s->nstacks ? s->stack[i] : -1;
        inh[i] = st;
        g->d->total_kind[s->kind[i]]++;
        if (s->kind[i] == GF_EV_API && st >= 0 && corr >= 0) {
            int ins;
            int64_t *v = gf_hmap_put(&api, pidcorr_key(pid < 0 ? -1 : pid, corr), (int64_t)napis, &ins);
            if (!v || (ins && gf_grow((void **)&apis, &cap, napis + 1, sizeof *apis, 64) != 0))
                goto done;
            if (ins) {
                apis[napis++] = (api_rec){dur, st, s->name[i], 0};
                g->d->launches_with_stack++;
            }
        } else if (gf_ev_is_gpu_work(s->kind[i]) && corr >= 0 && napis) {
            int64_t *v = gf_hmap_get(&api, pidcorr_key(pid < 0 ? -1 : pid, corr));
            if (v) {
                api_rec *a = &apis[*v];
                if (st < 0)
                    inh[i] = a->stack;
                a->partnered = 1;
                if (flame_put(flame, a->stack, s->name[i], 1, dur) != 0)
                    goto done;
            }
        }
    }
    for (size_t k = 0; k < napis; k++)
        if (!apis[k].partnered && flame_put(flame, apis[k].stack, apis[k].name, 0, apis[k].dur) != 0)
            goto done;
    rc = 0;
done:
    gf_hmap_free(&api);
    free(apis);
    return rc;
}

/* keep[]: the max longest (ties: the earlier, as the merge's heap), and with keep_partners every launch
 * (same process and correlation id, or any process for GPU work without one) of kept GPU work. */
static int select_events(const gf_trace *s, size_t max, int keep_partners, uint8_t *keep)
{
    if (max == 0 || s->n <= max) {
        memset(keep, 1, s->n);
        return 0;
    }
    if (gf_topn_select(s->dur, s->n, max, keep) < 0)
        return -1;
    if (!keep_partners)
        return 0;
    gf_hmap want;
    gf_hmap_init(&want);
    for (size_t i = 0; i < s->n; i++)
        if (keep[i] && gf_ev_is_gpu_work(s->kind[i]) && s->corr[i] >= 0) {
            int64_t pid = ev_pid(s, i);
            if (!gf_hmap_put(&want, pidcorr_key(pid < 0 ? -1 : pid, s->corr[i]), 1, NULL)) {
                gf_hmap_free(&want);
                return -1;
            }
        }
    for (size_t i = 0; i < s->n; i++) {
        if (keep[i] || s->kind[i] != GF_EV_API || s->corr[i] < 0)
            continue;
        int64_t pid = ev_pid(s, i);
        if (gf_hmap_get(&want, pidcorr_key(pid < 0 ? -1 : pid, s->corr[i])) ||
            gf_hmap_get(&want, pidcorr_key(-1, s->corr[i])))
            keep[i] = 1;
    }
    gf_hmap_free(&want);
    return 0;
}

/* The digest's events (kept ones, report order), lanes, flame and the rest, from the maps. Events that share
 * a detail record in the report share it in the digest (dmap: report detail → digest detail). */
static int fill(dg *g, const uint8_t *keep, const int32_t *inh, const gf_hmap *flame, int32_t *dmap)
{
    const gf_trace *s = g->s;
    gf_trace *d = g->d;
    size_t k = 0, nd = 0;
    for (size_t i = 0; i < s->n; i++)
        if (keep[i]) {
            k++;
            if (s->detail[i] >= 0 && dmap[s->detail[i]] == -1)
                dmap[s->detail[i]] = -2, nd++;
        }
    size_t m = k ? k : 1;
    d->start = malloc(m * sizeof *d->start);
    d->dur = malloc(m * sizeof *d->dur);
    d->corr = malloc(m * sizeof *d->corr);
    d->lane = malloc(m * sizeof *d->lane);
    d->name = malloc(m * sizeof *d->name);
    d->stack = malloc(m * sizeof *d->stack);
    d->pid = malloc(m * sizeof *d->pid);
    d->detail = malloc(m * sizeof *d->detail);
    d->kind = malloc(m);
    d->seq = malloc(m * sizeof *d->seq);
    d->details = malloc((nd ? nd : 1) * sizeof *d->details);
    d->lanes = malloc((s->nlanes ? s->nlanes : 1) * sizeof *d->lanes);
    d->flame = malloc((flame->n ? flame->n : 1) * sizeof *d->flame);
    if (!d->start || !d->dur || !d->corr || !d->lane || !d->name || !d->stack || !d->pid || !d->detail || !d->kind ||
        !d->seq || !d->details || !d->lanes || !d->flame)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        if (!keep[i])
            continue;
        size_t j = d->n++;
        d->start[j] = s->start[i];
        d->dur[j] = s->dur[i];
        d->corr[j] = s->corr[i];
        d->lane[j] = s->lane[i];
        d->name[j] = g->smap[s->name[i]];
        d->stack[j] = inh[i] >= 0 ? g->kmap[inh[i]] : -1;
        d->pid[j] = s->pid[i];
        d->kind[j] = s->kind[i];
        d->seq[j] = s->seq[i];
        d->detail[j] = -1;
        int32_t sd = s->detail[i];
        if (sd >= 0 && dmap[sd] < 0) {
            gf_detail dt = s->details[sd];
            dt.copy = dt.copy >= 0 && (size_t)dt.copy < g->nstr ? g->smap[dt.copy] : -1;
            dt.domain = dt.domain >= 0 && (size_t)dt.domain < g->nstr ? g->smap[dt.domain] : -1;
            d->details[d->ndetails] = dt;
            dmap[sd] = (int32_t)d->ndetails++;
        }
        if (sd >= 0)
            d->detail[j] = dmap[sd];
    }
    for (size_t l = 0; l < s->nlanes; l++) { /* lanes no event touched keep no strings: the merge never sees them */
        gf_lane ln = s->lanes[l];
        ln.device = ln.device >= 0 && (size_t)ln.device < g->nstr ? g->smap[ln.device] : -1;
        ln.tname = ln.tname >= 0 && (size_t)ln.tname < g->nstr ? g->smap[ln.tname] : -1;
        ln.label = -1;
        d->lanes[d->nlanes++] = ln;
    }
    d->lanes_cap = d->nlanes;
    for (size_t i = 0; i < flame->cap; i++)
        if (flame->slots[i].key != GF_HMAP_EMPTY) {
            const gf_hslot *e = &flame->slots[i];
            d->flame[d->nflame++] = (gf_flame_entry){g->kmap[(int32_t)(e->key >> 32)],
                                                     g->smap[(int32_t)(e->key & 0x7FFFFFFFu)],
                                                     !(e->key & 0x80000000u), e->val};
        }
    d->total = s->n;
    for (size_t w = 0; w < s->nwarnings; w++)
        if (gf_trace_warn(d, "%s", s->warnings[w]) != 0)
            return -1;
    if (s->source && !(d->source = strdup(s->source)))
        return -1;
    d->tables = s->tables;
    d->any_pid = s->any_pid;
    d->finished = 1;
    return 0;
}

int gf_trace_digest(const gf_trace *s, size_t max_events, int keep_partners, gf_trace **out, int64_t **touch,
                    size_t *ntouch, gf_err *err)
{
    *out = NULL;
    *touch = NULL;
    *ntouch = 0;
    if (!s->finished)
        return gf_errf(err, GF_EXIT_ERROR, "digest: the model is not finished");
    dg g = {0};
    g.s = s;
    g.d = gf_trace_new();
    g.nstr = gf_strtab_count(s->str);
    g.stack_cap = g.d ? g.d->stacks_cap + 1 : 0;
    g.smap = malloc((g.nstr ? g.nstr : 1) * sizeof *g.smap);
    g.kmap = malloc((s->nstacks ? s->nstacks : 1) * sizeof *g.kmap);
    int32_t *inh = malloc((s->n ? s->n : 1) * sizeof *inh);
    uint8_t *keep = malloc(s->n ? s->n : 1), *lane_seen = calloc(s->nlanes ? s->nlanes : 1, 1);
    int32_t *dmap = malloc((s->ndetails ? s->ndetails : 1) * sizeof *dmap);
    gf_hmap lane_pids, flame;
    gf_hmap_init(&lane_pids);
    gf_hmap_init(&flame);
    int rc = -1;
    if (!g.d || !g.smap || !g.kmap || !inh || !keep || !lane_seen || !dmap)
        goto done;
    memset(dmap, 0xff, (s->ndetails ? s->ndetails : 1) * sizeof *dmap);
    memset(g.smap, 0xff, (g.nstr ? g.nstr : 1) * sizeof *g.smap);
    memset(g.kmap, 0xff, (s->nstacks ? s->nstacks : 1) * sizeof *g.kmap);
    for (size_t i = 0; i < s->n; i++)
        if (see_event(&g, i, &lane_pids, lane_seen) != 0)
            goto done;
    if (simulate(&g, inh, &flame) != 0 || select_events(s, max_events, keep_partners, keep) != 0 ||
        fill(&g, keep, inh, &flame, dmap) != 0)
        goto done;
    g.d->stacks_cap = g.stack_cap - 1;
    rc = 0;
done:
    free(g.smap);
    free(g.kmap);
    free(inh);
    free(keep);
    free(lane_seen);
    free(dmap);
    gf_hmap_free(&lane_pids);
    gf_hmap_free(&flame);
    if (rc != 0) {
        gf_trace_free(g.d);
        free(g.touch);
        return gf_errf(err, GF_EXIT_ERROR, "digest: out of memory (%zu events)", s->n);
    }
    *out = g.d;
    *touch = g.touch;
    *ntouch = g.ntouch / 2;
    return 0;
}
