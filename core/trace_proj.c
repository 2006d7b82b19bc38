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

/* The projected ranges of the export, names interned in t's table; the max longest when max > 0. */
static int collect(gf_trace *t, const char *path, size_t max, pev **out, size_t *np, gf_err *err)
{
    *out = NULL;
    *np = 0;
    gf_stats_db *d = gf_stats_open(path, err);
    if (!d)
        return -1;
    gf_stats_res res;
    memset(&res, 0, sizeof res);
    gf_snv_set s;
    memset(&s, 0, sizeof s);
    gf_err_clear(err); /* the report code reads err->code after string look-ups (gf_stats_run does the same) */
    int ok = 0, rc = d->has_stringids ? gf_snv_projection(d, &res, &s, &ok, err) : 0;
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

#define MERGE_COL(T, col, old_v, new_v)                                                                         \
    do {                                                                                                    \
        T *c_ = malloc(nn * sizeof *c_);                                                                     \
        if (!c_)                                                                                            \
            goto fail;                                                                                      \
        for (size_t i_ = 0, k_ = 0, w_ = 0; w_ < nn; w_++) {                                                  \
            if (k_ < np && (i_ >= t->n || pv[k_].start < t->start[i_])) {                                     \
                c_[w_] = (new_v);                                                                           \
                k_++;                                                                                       \
            } else {                                                                                        \
                c_[w_] = (old_v);                                                                           \
                i_++;                                                                                       \
            }                                                                                               \
        }                                                                                                   \
        cols[ncols].p = (void **)&t->col;                                                                   \
        cols[ncols++].v = c_;                                                                               \
    } while (0)

/* The event columns with pv (in start order) merged in: an old event first when both start together. */
static int merge_events(gf_trace *t, const pev *pv, size_t np, gf_err *err)
{
    size_t nn = t->n + np;
    struct {
        void **p;
        void *v;
    } cols[10];
    int ncols = 0;
    MERGE_COL(int64_t, dur, t->dur[i_], pv[k_].dur);
    MERGE_COL(int64_t, corr, t->corr[i_], -1);
    MERGE_COL(int32_t, lane, t->lane[i_], pv[k_].lane);
    MERGE_COL(int32_t, name, t->name[i_], pv[k_].name);
    MERGE_COL(int32_t, stack, t->stack[i_], -1);
    MERGE_COL(int32_t, pid, t->pid[i_], (int32_t)pv[k_].pid);
    MERGE_COL(int32_t, detail, t->detail[i_], -1);
    MERGE_COL(uint8_t, kind, t->kind[i_], GF_EV_NVTX);
    MERGE_COL(uint32_t, seq, t->seq[i_], (uint32_t)pv[k_].rowid);
    MERGE_COL(int64_t, start, t->start[i_], pv[k_].start); /* last: the others compare t->start */
    for (int c = 0; c < ncols; c++) {
        free(*cols[c].p);
        *cols[c].p = cols[c].v;
    }
    t->n = nn;
    return 0;
fail:
    for (int c = 0; c < ncols; c++)
        free(cols[c].v);
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
