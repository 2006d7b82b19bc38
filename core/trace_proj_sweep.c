/* The NVTX projection from the trace's own columns (trace_proj_sweep.h): GPU work groups by (process,
 * correlation id), and nsys's nvtx_gpu_proj_trace sweep (core/stats_nvtx_proj.c project(): the same
 * order, the same values) over compact records that point into the trace instead of copies of its calls and
 * ranges: 8 bytes a call and 32 a range, against 64 and 88 (issue 42: those copies, with the trace, were
 * the timeline's peak memory on a 5M-event export). */
#include "trace_proj_sweep.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "stats.h"

static int fits_key(int64_t corr)
{
    return corr >= 0 && corr <= (int64_t)UINT32_MAX;
}

static int pid_slot(const gf_gidx *g, int32_t pid)
{
    for (size_t i = 0; i < g->npid; i++)
        if (g->pid[i] == pid)
            return (int)i;
    return -1;
}

/* Sizes g over the trace's GPU ops. 1: an op's id does not fit a key (the caller reads the export); -1 OOM. */
int gf_gidx_init(gf_gidx *g, const gf_trace *t)
{
    memset(g, 0, sizeof *g);
    gf_hmap_init(&g->map);
    int64_t cmin = INT64_MAX, cmax = INT64_MIN;
    size_t nops = 0;
    int many = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (!gf_ev_is_gpu_work(t->kind[i]))
            continue;
        int64_t c = t->corr[i];
        if (!fits_key(c))
            return 1;
        nops++;
        cmin = c < cmin ? c : cmin;
        cmax = c > cmax ? c : cmax;
        if (!many && pid_slot(g, t->pid[i]) < 0) {
            if (g->npid == GIDX_PIDS)
                many = 1;
            else
                g->pid[g->npid++] = t->pid[i];
        }
    }
    if (!nops || many || (uint64_t)(cmax - cmin + 1) * g->npid > 2 * (uint64_t)nops + 4096)
        return 0;
    g->cmin = cmin;
    g->span = (size_t)(cmax - cmin + 1);
    g->dense = malloc(g->span * g->npid * sizeof *g->dense);
    if (!g->dense)
        return -1;
    memset(g->dense, 0xff, g->span * g->npid * sizeof *g->dense);
    return 0;
}

void gf_gidx_free(gf_gidx *g)
{
    free(g->dense);
    gf_hmap_free(&g->map);
}

/* The group of event i's (pid, corr); with add, a new one numbered next when absent (*added set). -1 none,
 * -2 OOM. */
int64_t gf_gidx_find(gf_gidx *g, const gf_trace *t, size_t i, int add, int64_t next, int *added)
{
    int64_t c = t->corr[i];
    *added = 0;
    if (!fits_key(c))
        return -1;
    if (g->dense) {
        int s = pid_slot(g, t->pid[i]);
        if (s < 0 || c < g->cmin || c - g->cmin >= (int64_t)g->span)
            return -1;
        int32_t *v = &g->dense[(size_t)s * g->span + (size_t)(c - g->cmin)];
        if (*v < 0 && add) {
            *v = (int32_t)next;
            *added = 1;
        }
        return *v;
    }
    uint64_t key = ((uint64_t)(uint32_t)t->pid[i] << 32) | (uint64_t)c; /* pid < 2^24: never GF_HMAP_EMPTY */
    if (!add) {
        int64_t *v = gf_hmap_get(&g->map, key);
        return v ? *v : -1;
    }
    int64_t *v = gf_hmap_put(&g->map, key, next, added);
    return v ? *v : -2;
}

/* The groups, met in the trace's order (start, kind, table row), so a group's first op is the one that starts
 * first, ties as kernels, memcpys, memsets, each in row order: the op load_calls (core/stats_nvtx_proj.c)
 * keeps after its stable sort. -1 OOM. */
int gf_proj_op_groups(const gf_trace *t, gf_gidx *gi, int64_t **gmin, int64_t **gmax, int32_t **gdev, size_t *ng)
{
    size_t cap = 0;
    *ng = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (!gf_ev_is_gpu_work(t->kind[i]))
            continue;
        int ins;
        int64_t v = gf_gidx_find(gi, t, i, 1, (int64_t)*ng, &ins);
        if (v < 0)
            return -1; /* every op's id fits (gidx_init) */
        int64_t end = t->start[i] + t->dur[i];
        if (!ins) {
            if (end > (*gmax)[v])
                (*gmax)[v] = end;
            continue;
        }
        void **const cols[] = {(void **)gmin, (void **)gmax, (void **)gdev};
        const size_t elem[] = {sizeof **gmin, sizeof **gmax, sizeof **gdev};
        if (gf_grow_cols(cols, elem, 3, &cap, *ng + 1, 4096) != 0)
            return -1;
        (*gmin)[*ng] = t->start[i];
        (*gmax)[*ng] = end;
        (*gdev)[*ng] = (int32_t)t->lanes[t->lane[i]].devnum;
        (*ng)++;
    }
    return 0;
}

/* A call with GPU work: its event and its group. nsys counts a range's correlation ids once each (core/
 * stats_nvtx_proj.c mark_dups); the trace's path only asks whether a range encloses any, so it keeps no
 * places among a group's calls. */
typedef struct scall {
    uint32_t ev;
    int32_t grp;
} scall;

typedef struct sweep {
    const gf_trace *t;
    int64_t *lg; /* lane → globalTid */
    scall *c;
    size_t nc, ng;
    int64_t *gmin, *gmax;
    int32_t *gdev;
} sweep;

static inline int64_t ev_gtid(const sweep *s, uint32_t ev)
{
    return s->lg[s->t->lane[ev]];
}

static inline int64_t ev_end(const gf_trace *t, uint32_t ev)
{
    return t->start[ev] + t->dur[ev];
}

static int cmp_lane_pidtid(const void *a, const void *b, void *arg)
{
    const gf_lane *L = arg;
    int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
    const gf_lane *x = &L[i], *y = &L[j];
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return i < j ? -1 : i > j;
}

size_t gf_proj_call_slots(const gf_trace *t, gf_gidx *gi, size_t *at, int32_t *lord,
                          int (*cmp)(const void *, const void *, void *))
{
    size_t n = 0;
    int dummy;
    for (size_t i = 0; i < t->n; i++) {
        if (t->kind[i] == GF_EV_API && gf_gidx_find(gi, t, i, 0, 0, &dummy) >= 0) {
            at[t->lane[i]]++;
            n++;
        }
    }
    for (size_t l = 0; l < t->nlanes; l++)
        lord[l] = (int32_t)l;
    qsort_r(lord, t->nlanes, sizeof *lord, cmp, t->lanes);
    size_t o = 0;
    for (size_t k = 0; k < t->nlanes; k++) {
        size_t cnt = at[lord[k]];
        at[lord[k]] = o;
        o += cnt;
    }
    return n;
}


/* The calls with GPU work in the projection's sweep order (globalTid, start, end; ties in trace order), as
 * core/trace_proj.c trace_calls orders them. 1: not in that order after all (two lanes of one thread: the
 * caller falls back to the export's path); -1 OOM. */
static int build_calls(sweep *s, gf_gidx *gi)
{
    const gf_trace *t = s->t;
    size_t *at = calloc(t->nlanes + 1, sizeof *at), n = 0;
    int32_t *lord = malloc((t->nlanes + 1) * sizeof *lord);
    int dummy, r = at && lord ? gf_proj_op_groups(t, gi, &s->gmin, &s->gmax, &s->gdev, &s->ng) : -1;
    if (r == 0)
        n = gf_proj_call_slots(t, gi, at, lord, cmp_lane_pidtid);
    if (r == 0 && !(s->c = gf_mem_scratch((n ? n : 1) * sizeof *s->c)))
        r = -1;
    for (size_t i = 0; r == 0 && i < t->n; i++) {
        int64_t g;
        if (t->kind[i] == GF_EV_API && (g = gf_gidx_find(gi, t, i, 0, 0, &dummy)) >= 0)
            s->c[at[t->lane[i]]++] = (scall){(uint32_t)i, (int32_t)g};
    }
    scall *c = s->c;
    for (size_t k = 1; r == 0 && k < n; k++) { /* equal starts of a thread by end (stable) */
        scall x = c[k];
        int64_t xg = ev_gtid(s, x.ev), xs = t->start[x.ev], xe = ev_end(t, x.ev);
        size_t j = k;
        for (; j > 0 && ev_gtid(s, c[j - 1].ev) == xg && t->start[c[j - 1].ev] == xs && ev_end(t, c[j - 1].ev) > xe; j--)
            c[j] = c[j - 1];
        c[j] = x;
    }
    for (size_t k = 1; r == 0 && k < n; k++) { /* sorted by (globalTid, start, end), or not this path */
        int64_t g0 = ev_gtid(s, c[k - 1].ev), g1 = ev_gtid(s, c[k].ev);
        int64_t s0 = t->start[c[k - 1].ev], s1 = t->start[c[k].ev];
        if (g0 > g1 || (g0 == g1 && (s0 > s1 || (s0 == s1 && ev_end(t, c[k - 1].ev) > ev_end(t, c[k].ev)))))
            r = 1;
    }
    free(at);
    free(lord);
    s->nc = n;
    return r;
}

/* The ranges of t in nvtx_rowid order (the import's, which is gf_snv_tree's order). 1: the trace no longer
 * holds them all; -1 OOM. */
static int build_ranges(const gf_trace *t, gf_proj_hit **out, size_t *nr)
{
    size_t n = t->nvtx_nrid, m = 0;
    uint32_t *at = gf_mem_scratch((n ? n : 1) * sizeof *at); /* seq - nvtx_seq0 → event */
    if (!at)
        return -1;
    memset(at, 0xff, (n ? n : 1) * sizeof *at);
    for (size_t i = 0; i < t->n; i++)
        if (t->kind[i] == GF_EV_NVTX && t->seq[i] >= t->nvtx_seq0 && t->seq[i] - t->nvtx_seq0 < n)
            at[t->seq[i] - t->nvtx_seq0] = (uint32_t)i;
    for (size_t k = 0; k < n; k++) {
        if (at[k] == UINT32_MAX) {
            free(at);
            return 1;
        }
        m += t->nvtx_rowid[k] != UINT32_MAX;
    }
    gf_proj_hit *R = gf_mem_scratch((m ? m : 1) * sizeof *R);
    if (!R) {
        free(at);
        return -1;
    }
    size_t w = 0;
    for (size_t k = 0; k < n; k++)
        if (t->nvtx_rowid[k] != UINT32_MAX)
            R[w++] = (gf_proj_hit){INT64_MAX, INT64_MIN, at[k], t->nvtx_rowid[k], -1, 0};
    free(at);
    *out = R;
    *nr = m;
    return 0;
}

/* core/stats_nvtx_proj.c project(): each call onto every range of its thread that encloses it, by a sweep
 * by start with the ranges still open. -1 interrupted or OOM (err set when interrupted). */
static int project(const sweep *s, gf_proj_hit *R, size_t nr, gf_err *err)
{
    const gf_trace *t = s->t;
    uint32_t *act = gf_mem_scratch((nr ? nr : 1) * sizeof *act);
    if (!act)
        return gf_oom(err, "nvtx projection");
    size_t ri = 0, nact = 0;
    int64_t cur = INT64_MIN;
    for (size_t k = 0; k < s->nc; k++) {
        if ((k & 0xffff) == 0xffff && gf_stats_interrupted(err)) {
            free(act);
            return -1;
        }
        const scall *x = &s->c[k];
        int64_t xg = ev_gtid(s, x->ev), xs = t->start[x->ev], xe = ev_end(t, x->ev);
        if (xg != cur) {
            cur = xg;
            nact = 0;
            while (ri < nr && ev_gtid(s, R[ri].ev) < cur)
                ri++;
        }
        while (ri < nr && ev_gtid(s, R[ri].ev) == cur && t->start[R[ri].ev] <= xs)
            act[nact++] = (uint32_t)ri++;
        size_t w = 0;
        for (size_t i = 0; i < nact; i++) {
            gf_proj_hit *a = &R[act[i]];
            int64_t ae = ev_end(t, a->ev);
            if (ae < xs)
                continue;
            act[w++] = act[i];
            if (ae >= xe) {
                if (s->gmin[x->grp] < a->pmin) {
                    a->pmin = s->gmin[x->grp];
                    a->pdev = s->gdev[x->grp];
                }
                if (s->gmax[x->grp] > a->pmax)
                    a->pmax = s->gmax[x->grp];
                a->projected = 1;
            }
        }
        nact = w;
    }
    free(act);
    return 0;
}

static int proj_sweep(const gf_trace *t, gf_proj_hit **out, size_t *n, int *given, gf_err *err)
{
    *out = NULL;
    *n = 0;
    *given = 0;
    if (!t->nvtx_rowid || !t->calls_exact || t->n != t->total || t->n >= UINT32_MAX)
        return 0;
    sweep s;
    memset(&s, 0, sizeof s);
    s.t = t;
    gf_proj_hit *R = NULL;
    size_t nr = 0;
    gf_gidx gi;
    int r = gf_gidx_init(&gi, t);
    if (r == 0 && !(s.lg = malloc((t->nlanes + 1) * sizeof *s.lg)))
        r = -1;
    /* unsigned: GPU lanes have pid -1 (no call or range is on them, so their value is never compared) */
    for (size_t l = 0; r == 0 && l < t->nlanes; l++)
        s.lg[l] = (int64_t)((uint64_t)t->gid_hi | ((uint64_t)t->lanes[l].pid << 24) | (uint64_t)t->lanes[l].tid);
    if (r == 0)
        r = build_calls(&s, &gi);
    gf_gidx_free(&gi);
    if (r == 0)
        r = build_ranges(t, &R, &nr);
    int pr = r == 0 ? project(&s, R, nr, err) : 0;
    free(s.lg);
    free(s.c);
    free(s.gmin);
    free(s.gmax);
    free(s.gdev);
    if (r < 0 || pr < 0) {
        free(R);
        return pr < 0 ? -1 : gf_oom(err, "nvtx projection");
    }
    if (r > 0) {
        free(R);
        return 0;
    }
    *out = R;
    *n = nr;
    *given = 1;
    return 0;
}

/* The sweep's scratch (a third of the trace's size) never beside launch-overhead's (mem.h gf_mem_gate). */
int gf_proj_sweep(const gf_trace *t, gf_proj_hit **out, size_t *n, int *given, gf_err *err)
{
    gf_mem_gate_enter();
    int rc = proj_sweep(t, out, n, given, err);
    gf_mem_gate_leave();
    return rc;
}
