/* NVTX ranges projected onto the GPU as timeline events (trace.h gf_trace_add_nvtx_proj).
 *
 * The projection is nsys's nvtx_gpu_proj_trace, computed by core/stats_nvtx_proj.c over the SQLite export
 * (so the events equal that report's rows: name, projected start and duration, RangeId). Each projected
 * range becomes an NVTX event on a lane of its own per (device of its first GPU op, launching thread),
 * placed right after that device's stream lanes, so the pages and the Chrome export show it under the
 * device. The finished trace's event columns are merged with the new events (both in start order). */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_nvtx.h"
#include "hmap.h"

typedef struct pev {
    int64_t start, dur, rowid, pid, tid;
    int64_t ostart, oend; /* the range itself on its thread: nested ranges often project onto the same ops */
    int32_t dev, name, lane;
    const char *nm; /* the name in the export's string table, until interned in the trace's */
    size_t nl;
} pev;

static int oom(gf_err *err)
{
    return gf_errf(err, GF_EXIT_ERROR, "nvtx projection: out of memory");
}

/* Ranges that project onto the same span: the enclosing one first, as they nest on their thread, then the
 * export's row order (equal ranges only) */
static int cmp_nesting(const pev *x, const pev *y)
{
    if (x->ostart != y->ostart)
        return x->ostart < y->ostart ? -1 : 1;
    if (x->oend != y->oend)
        return x->oend > y->oend ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

static int cmp_group(const void *a, const void *b)
{
    const pev *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return cmp_nesting(x, y);
}

static int cmp_start(const void *a, const void *b)
{
    const pev *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return cmp_nesting(x, y);
}

/* The order names are interned in: by start, then the name itself, never the export's row order, so the
 * trace's string ids (and the page) do not depend on how the export stored its rows. */
static int cmp_intern(const void *a, const void *b)
{
    const pev *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    size_t n = x->nl < y->nl ? x->nl : y->nl;
    int c = n ? memcmp(x->nm, y->nm, n) : 0;
    if (c || x->nl != y->nl)
        return c ? c : (x->nl < y->nl ? -1 : 1);
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return cmp_nesting(x, y);
}

/* (process, correlation id) of an event; 0 when the id is outside 0..UINT32_MAX */
static uint64_t group_key(const gf_trace *t, size_t i, int *fits)
{
    int64_t c = t->corr[i];
    *fits = c >= 0 && c <= (int64_t)UINT32_MAX;
    return ((uint64_t)(uint32_t)t->pid[i] << 32) | (uint64_t)c; /* pid < 2^24: never GF_HMAP_EMPTY */
}

/* The calls' GPU work groups: (process, correlation id) → index, met in the trace's order (start, kind,
 * table row), so a group's first op is the one that starts first, ties as kernels, memcpys, memsets, each in
 * row order: the op load_calls (core/stats_nvtx_proj.c) keeps after its stable sort. 1: an op's id does not
 * fit a key (the caller reads the export instead); -1 OOM. */
static int op_groups(const gf_trace *t, gf_hmap *map, int64_t **gmin, int64_t **gmax, int32_t **gdev, size_t *ng)
{
    size_t cap = 0;
    *ng = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (!gf_ev_is_gpu_work(t->kind[i]))
            continue;
        int fits, ins;
        uint64_t key = group_key(t, i, &fits);
        if (!fits)
            return 1;
        int64_t *v = gf_hmap_put(map, key, (int64_t)*ng, &ins);
        if (!v)
            return -1;
        int64_t end = t->start[i] + t->dur[i];
        if (!ins) {
            if (end > (*gmax)[*v])
                (*gmax)[*v] = end;
            continue;
        }
        if (*ng == cap) {
            size_t nc = cap ? cap * 2 : 4096;
            int64_t *a = realloc(*gmin, nc * sizeof *a);
            if (a)
                *gmin = a;
            int64_t *b = a ? realloc(*gmax, nc * sizeof *b) : NULL;
            if (b)
                *gmax = b;
            int32_t *c = b ? realloc(*gdev, nc * sizeof *c) : NULL;
            if (!c)
                return -1;
            *gdev = c;
            cap = nc;
        }
        (*gmin)[*ng] = t->start[i];
        (*gmax)[*ng] = end;
        (*gdev)[*ng] = (int32_t)t->lanes[t->lane[i]].devnum;
        (*ng)++;
    }
    return 0;
}

static int cmp_lane_gtid(const void *a, const void *b, void *arg)
{
    const gf_lane *L = arg;
    const gf_lane *x = &L[*(const int32_t *)a], *y = &L[*(const int32_t *)b];
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The CUDA calls that launched GPU work, taken from the trace (t->calls_exact, nothing trimmed) instead of a
 * second read of the export, in the order the projection sweeps them: by thread (globalTid), start, end,
 * ties in RUNTIME row order (seq). *given 0: the trace cannot give them (the export is read). */
static int trace_calls(const gf_trace *t, gf_snv_call **out, size_t *nc, size_t *ngrp, int *given, gf_err *err)
{
    *out = NULL;
    *nc = *ngrp = 0;
    *given = 0;
    if (!t->calls_exact || t->n != t->total)
        return 0;
    gf_hmap map;
    gf_hmap_init(&map);
    int64_t *gmin = NULL, *gmax = NULL;
    int32_t *gdev = NULL;
    size_t ng = 0, *at = calloc(t->nlanes + 1, sizeof *at);
    int32_t *lord = malloc((t->nlanes + 1) * sizeof *lord);
    gf_snv_call *c = NULL;
    int r = at && lord ? op_groups(t, &map, &gmin, &gmax, &gdev, &ng) : -1;
    size_t n = 0;
    for (size_t i = 0; r == 0 && i < t->n; i++) { /* the calls with GPU work, counted per lane */
        int fits;
        if (t->kind[i] == GF_EV_API && gf_hmap_get(&map, group_key(t, i, &fits)) && fits) {
            at[t->lane[i]]++;
            n++;
        }
    }
    if (r == 0 && !(c = malloc((n ? n : 1) * sizeof *c)))
        r = -1;
    if (r == 0) { /* lanes in globalTid order (one host: gid_hi is common), then each lane's place */
        for (size_t l = 0; l < t->nlanes; l++)
            lord[l] = (int32_t)l;
        qsort_r(lord, t->nlanes, sizeof *lord, cmp_lane_gtid, t->lanes);
        size_t o = 0;
        for (size_t k = 0; k < t->nlanes; k++) {
            size_t cnt = at[lord[k]];
            at[lord[k]] = o;
            o += cnt;
        }
    }
    for (size_t i = 0; r == 0 && i < t->n; i++) { /* in trace order: by start, then seq, within a lane */
        int fits;
        int64_t *g;
        if (t->kind[i] != GF_EV_API || !(g = gf_hmap_get(&map, group_key(t, i, &fits))) || !fits)
            continue;
        const gf_lane *ln = &t->lanes[t->lane[i]];
        gf_snv_call *x = &c[at[t->lane[i]]++];
        x->gtid = t->gid_hi | (ln->pid << 24) | ln->tid;
        x->start = t->start[i];
        x->end = t->start[i] + t->dur[i];
        x->corr = t->corr[i];
        x->pmin = gmin[*g];
        x->pmax = gmax[*g];
        x->pdev = gdev[*g];
        x->grp = (int32_t)*g;
    }
    for (size_t k = 1; r == 0 && k < n; k++) { /* equal starts of a thread by end (stable) */
        if (c[k].gtid != c[k - 1].gtid || c[k].start != c[k - 1].start || c[k].end >= c[k - 1].end)
            continue;
        gf_snv_call x = c[k];
        size_t j = k;
        for (; j > 0 && c[j - 1].gtid == x.gtid && c[j - 1].start == x.start && c[j - 1].end > x.end; j--)
            c[j] = c[j - 1];
        c[j] = x;
    }
    gf_hmap_free(&map);
    free(gmin);
    free(gmax);
    free(gdev);
    free(at);
    free(lord);
    if (r < 0) {
        free(c);
        return oom(err);
    }
    if (r > 0) {
        free(c);
        return 0;
    }
    *out = c;
    *nc = n;
    *ngrp = ng;
    *given = 1;
    return 0;
}

/* The projected ranges of the export, names interned in t's table; the max longest when max > 0. */
static int collect(gf_trace *t, const char *path, size_t max, pev **out, size_t *np, gf_err *err)
{
    *out = NULL;
    *np = 0;
    gf_snv_call *calls = NULL;
    size_t ncalls, ngrp;
    int given;
    if (trace_calls(t, &calls, &ncalls, &ngrp, &given, err) != 0)
        return -1;
    gf_stats_db *d = gf_stats_open(path, err);
    if (!d) {
        free(calls);
        return -1;
    }
    gf_stats_res res;
    memset(&res, 0, sizeof res);
    gf_snv_set s;
    memset(&s, 0, sizeof s);
    gf_err_clear(err); /* the report code reads err->code after string look-ups (gf_stats_run does the same) */
    int ok = 0, rc = 0;
    if (d->has_stringids)
        rc = given ? gf_snv_projection_given(d, &res, calls, ncalls, ngrp, &s, &ok, err)
                   : gf_snv_projection(d, &res, &s, &ok, err);
    free(calls);
    size_t n = 0;
    for (size_t i = 0; rc == 0 && ok && i < s.n; i++)
        n += s.r[i].nops > 0;
    pev *pv = n ? malloc(n * sizeof *pv) : NULL;
    if (n && !pv)
        rc = oom(err);
    size_t k = 0;
    for (size_t i = 0; rc == 0 && pv && i < s.n; i++) {
        const gf_snv_range *x = &s.r[i];
        if (!x->nops)
            continue;
        size_t nl;
        const char *nm = gf_strtab_get(d->str, x->name, &nl);
        if (nm && nl > 0 && nm[0] == ':') { /* the default domain's ":name" is shown as the NVTX lanes show it */
            nm++;
            nl--;
        }
        pev *e = &pv[k++];
        e->start = x->pmin;
        e->dur = x->pmax - x->pmin;
        e->rowid = x->rowid;
        e->ostart = x->start;
        e->oend = x->end;
        e->pid = (x->gtid >> 24) & 0xFFFFFF;
        e->tid = x->gtid & 0xFFFFFF;
        e->dev = x->pdev;
        e->lane = -1;
        e->name = -1;
        e->nm = nm ? nm : "";
        e->nl = nm ? nl : 0;
    }
    if (rc == 0 && k > 1)
        qsort(pv, k, sizeof *pv, cmp_intern);
    if (rc == 0 && max > 0 && k > max) { /* the longest max, as the page keeps its events */
        int64_t *dur = malloc(k * sizeof *dur);
        uint8_t *keep = calloc(k, 1);
        if (!dur || !keep) {
            rc = oom(err);
        } else {
            for (size_t i = 0; i < k; i++)
                dur[i] = pv[i].dur;
            if (gf_topn_select(dur, k, max, keep) < 0) {
                rc = oom(err);
            } else {
                size_t w = 0;
                for (size_t i = 0; i < k; i++)
                    if (keep[i])
                        pv[w++] = pv[i];
                k = w;
            }
        }
        free(dur);
        free(keep);
    }
    for (size_t i = 0; rc == 0 && i < k; i++) /* the export's strings live until it is closed */
        if ((pv[i].name = gf_strtab_intern(t->str, pv[i].nm, pv[i].nl)) < 0)
            rc = oom(err);
    gf_snv_free(&s);
    gf_stats_close(d);
    if (rc != 0) {
        free(pv);
        return -1;
    }
    *out = pv;
    *np = k;
    return 0;
}

/* The thread name of (pid, tid) from its CPU or NVTX lane, -1 when none. */
static int32_t thread_name(const gf_trace *t, int64_t pid, int64_t tid)
{
    for (size_t l = 0; l < t->nlanes; l++)
        if (t->lanes[l].kind != GF_LANE_GPU && t->lanes[l].pid == pid && t->lanes[l].tid == tid &&
            t->lanes[l].tname >= 0)
            return t->lanes[l].tname;
    return -1;
}

/* A projection lane for group pv[0] (one device, one thread). */
static int make_lane(const gf_trace *t, const pev *e, int32_t device, gf_lane *ln)
{
    char buf[600];
    memset(ln, 0, sizeof *ln);
    ln->kind = GF_LANE_GPU;
    ln->proj = 1;
    ln->pid = e->pid;
    ln->tid = e->tid;
    ln->device = device;
    ln->devnum = e->dev;
    ln->stream = -1;
    ln->tname = thread_name(t, e->pid, e->tid);
    ln->rank = -1;
    const char *tn = ln->tname >= 0 ? gf_strtab_get(t->str, ln->tname, NULL) : "";
    snprintf(buf, sizeof buf, "NVTX pid %lld tid %lld%s%.300s", (long long)e->pid, (long long)e->tid, *tn ? " " : "",
             tn);
    ln->label = gf_strtab_intern_cstr(t->str, buf);
    return ln->label < 0 ? -1 : 0;
}

/* Inserts one lane per (device, thread) of pv (sorted by cmp_group) after the last lane of its device
 * (after the last GPU lane, or the CPU lanes, for a device without one); remaps the events' lanes and sets
 * pv[k].lane. */
static int add_lanes(gf_trace *t, pev *pv, size_t np, gf_err *err)
{
    size_t ng = 0;
    for (size_t k = 0; k < np; k++)
        ng += k == 0 || pv[k - 1].dev != pv[k].dev || pv[k - 1].pid != pv[k].pid || pv[k - 1].tid != pv[k].tid;
    size_t *gfirst = malloc((ng + 1) * sizeof *gfirst);
    int64_t *after = malloc((ng + 1) * sizeof *after);
    int32_t *gdev = malloc((ng + 1) * sizeof *gdev);
    int32_t *lmap = malloc((t->nlanes + 1) * sizeof *lmap);
    gf_lane *nl = malloc((t->nlanes + ng + 1) * sizeof *nl);
    int rc = 0;
    if (!gfirst || !after || !gdev || !lmap || !nl) {
        rc = oom(err);
        goto done;
    }
    int64_t last_gpu = -1, last_cpu = -1;
    for (size_t l = 0; l < t->nlanes; l++) {
        if (t->lanes[l].kind == GF_LANE_GPU)
            last_gpu = (int64_t)l;
        else if (t->lanes[l].kind == GF_LANE_CPU)
            last_cpu = (int64_t)l;
    }
    size_t g = 0;
    for (size_t k = 0; k < np; k++) {
        if (k && pv[k - 1].dev == pv[k].dev && pv[k - 1].pid == pv[k].pid && pv[k - 1].tid == pv[k].tid)
            continue;
        gfirst[g] = k;
        after[g] = last_gpu >= 0 ? last_gpu : last_cpu;
        gdev[g] = -1;
        for (size_t l = 0; l < t->nlanes; l++)
            if (t->lanes[l].kind == GF_LANE_GPU && !t->lanes[l].proj && t->lanes[l].devnum == pv[k].dev) {
                after[g] = (int64_t)l;
                gdev[g] = t->lanes[l].device;
            }
        g++;
    }
    gfirst[ng] = np;
    size_t w = 0;
    for (int64_t l = -1; l < (int64_t)t->nlanes; l++) {
        if (l >= 0) {
            nl[w] = t->lanes[l];
            lmap[l] = (int32_t)w++;
        }
        for (size_t q = 0; q < ng; q++) { /* groups are in device order, so lanes of a device stay sorted */
            if (after[q] != l)
                continue;
            if (make_lane(t, &pv[gfirst[q]], gdev[q], &nl[w]) != 0) {
                rc = oom(err);
                goto done;
            }
            for (size_t k = gfirst[q]; k < gfirst[q + 1]; k++)
                pv[k].lane = (int32_t)w;
            w++;
        }
    }
    for (size_t i = 0; i < t->n; i++)
        if (t->lane[i] >= 0)
            t->lane[i] = lmap[t->lane[i]];
    free(t->lanes);
    t->lanes = nl;
    nl = NULL;
    t->nlanes = t->lanes_cap = w;
done:
    free(gfirst);
    free(after);
    free(gdev);
    free(lmap);
    free(nl);
    return rc;
}

#define GROW_COL(col)                                                                                      \
    do {                                                                                                   \
        void *c_ = realloc(t->col, nn * sizeof *t->col);                                                   \
        if (!c_)                                                                                           \
            goto fail;                                                                                     \
        t->col = c_;                                                                                       \
    } while (0)

#define MERGE_COL(col, new_v)                                                                              \
    do {                                                                                                   \
        for (size_t w_ = nn, i_ = n, k_ = np; w_-- > 0;) {                                                 \
            if (isnew[w_]) {                                                                               \
                k_--;                                                                                      \
                t->col[w_] = (new_v);                                                                      \
            } else {                                                                                       \
                t->col[w_] = t->col[--i_];                                                                 \
            }                                                                                              \
        }                                                                                                  \
    } while (0)

/* The event columns with pv (in start order) merged in, an old event first when both start together. Each
 * column grows in place and is filled from its end (an old event only moves up), so the peak is the grown
 * model, not a second copy of it, and no column is written twice. */
static int merge_events(gf_trace *t, const pev *pv, size_t np, gf_err *err)
{
    size_t n = t->n, nn = n + np;
    uint8_t *isnew = malloc(nn);
    if (!isnew)
        return oom(err);
    for (size_t i = 0, k = 0, w = 0; w < nn; w++) {
        isnew[w] = k < np && (i >= n || pv[k].start < t->start[i]);
        if (isnew[w])
            k++;
        else
            i++;
    }
    /* all columns grown first: a failure leaves the trace as it was (larger columns, same n) */
    GROW_COL(start);
    GROW_COL(dur);
    GROW_COL(corr);
    GROW_COL(lane);
    GROW_COL(name);
    GROW_COL(stack);
    GROW_COL(pid);
    GROW_COL(detail);
    GROW_COL(kind);
    GROW_COL(seq);
    MERGE_COL(start, pv[k_].start);
    MERGE_COL(dur, pv[k_].dur);
    MERGE_COL(corr, -1);
    MERGE_COL(lane, pv[k_].lane);
    MERGE_COL(name, pv[k_].name);
    MERGE_COL(stack, -1);
    MERGE_COL(pid, (int32_t)pv[k_].pid);
    MERGE_COL(detail, -1);
    MERGE_COL(kind, GF_EV_NVTX);
    MERGE_COL(seq, (uint32_t)pv[k_].rowid);
    free(isnew);
    t->n = nn;
    return 0;
fail:
    free(isnew);
    return oom(err);
}

int gf_trace_add_nvtx_proj(gf_trace *t, const char *sqlite_path, size_t max, size_t *added, gf_err *err)
{
    *added = 0;
    if (!t->finished || t->nranks)
        return 0;
    for (size_t l = 0; l < t->nlanes; l++)
        if (t->lanes[l].proj)
            return 0; /* added already */
    pev *pv;
    size_t np;
    if (collect(t, sqlite_path, max, &pv, &np, err) != 0)
        return -1;
    if (np == 0) {
        free(pv);
        return 0;
    }
    qsort(pv, np, sizeof *pv, cmp_group);
    int rc = add_lanes(t, pv, np, err);
    if (rc == 0) {
        qsort(pv, np, sizeof *pv, cmp_start);
        rc = merge_events(t, pv, np, err);
    }
    free(pv);
    if (rc == 0)
        *added = np;
    return rc;
}
