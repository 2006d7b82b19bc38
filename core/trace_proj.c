/* NVTX ranges projected onto the GPU as timeline events (trace_proj.h gf_trace_add_nvtx_proj).
 *
 * The projection is nsys's nvtx_gpu_proj_trace, computed by core/stats_nvtx_proj.c (so the events equal that
 * report's rows: name, projected start and duration, RangeId). The NVTX ranges come from the SQLite export;
 * the CUDA calls and their GPU work come from the trace itself when the import says its events are those
 * rows exactly (trace_types.h calls_exact; issue 29: the second read of the export was a third of the timeline's
 * time), else from the export too. Each projected range becomes an NVTX event on a lane of its own per
 * (device of its first GPU op, launching thread), placed right after that device's stream lanes, so the
 * pages and the Chrome export show it under the device. The new events are merged into the finished
 * trace's columns in place (both in start order; core/trace_proj_merge.c). In two halves (trace_proj.h):
 * gf_proj_read only reads the trace, so the timeline runs it on a thread of its own beside the rules
 * (core/trace_proj_job.c); gf_proj_merge changes the trace. */
#include "trace.h"
#include "trace_proj.h"

#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_nvtx.h"
#include "hmap.h"
#include "mem.h"
#include "trace_proj_sweep.h"
#include "trace_proj_merge.h"
#include "trace_trim.h"

/* A projected range waiting for the merge (32 bytes: 1.67M of them are held while the rules run on a
 * 5M-event export, issue 42). Where the range itself lies (its start and end on its thread, its process and
 * thread, its row) is read through ev: its event in the trace (the swept path: the trace is not reordered
 * until the merge) or its entry in the part's side table (the export's path). */
typedef struct pev {
    int64_t start, dur; /* projected */
    uint32_t ev;
    uint32_t rowid; /* RangeId (the page's seq) */
    union {
        int32_t dev;  /* the device of its first GPU op */
        int32_t lane; /* once add_lanes placed it */
    };
    union {
        int32_t sid;  /* its name in the table the projection named it in (gf_proj_part's names or d's) */
        int32_t name; /* in t's, once interned */
    };
} pev;

/* The range itself, for the export's path (gf_proj_part side) */
typedef struct porig {
    int64_t ostart, oend, rowid;
    int32_t pid, tid;
} porig;

/* What pev's comparisons read: the trace (swept path) or the side table, and the names' table */
typedef struct pctx {
    const gf_trace *t;
    const porig *side;
    const gf_strtab *str;
} pctx;

static inline porig orig(const pctx *c, const pev *e)
{
    if (c->side)
        return c->side[e->ev];
    const gf_trace *t = c->t;
    const gf_lane *ln = &t->lanes[t->lane[e->ev]];
    int64_t gtid = (int64_t)((uint64_t)t->gid_hi | ((uint64_t)ln->pid << 24) | (uint64_t)ln->tid);
    return (porig){t->start[e->ev], t->start[e->ev] + t->dur[e->ev], e->rowid, (int32_t)((gtid >> 24) & 0xFFFFFF),
                   (int32_t)(gtid & 0xFFFFFF)};
}

/* pev e's name: its sid in str, the default domain's ":name" shown as the NVTX lanes show it ("" when none) */
static const char *pev_nm(const gf_strtab *str, const pev *e, size_t *nl)
{
    const char *nm = e->sid >= 0 ? gf_strtab_get(str, e->sid, nl) : NULL;
    if (!nm) {
        *nl = 0;
        return "";
    }
    if (*nl > 0 && nm[0] == ':') {
        nm++;
        (*nl)--;
    }
    return nm;
}

/* Ranges that project onto the same span: the enclosing one first, as they nest on their thread, then the
 * export's row order (equal ranges only) */
static int cmp_nesting(const porig *x, const porig *y)
{
    if (x->ostart != y->ostart)
        return x->ostart < y->ostart ? -1 : 1;
    if (x->oend != y->oend)
        return x->oend > y->oend ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

static int cmp_start(const pev *x, const pev *y, const pctx *c)
{
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    porig ox = orig(c, x), oy = orig(c, y);
    return cmp_nesting(&ox, &oy);
}

/* The order names are interned in: by start, then the name itself, never the export's row order, so the
 * trace's string ids (and the page) do not depend on how the export stored its rows. */
static int cmp_intern(const void *a, const void *b, void *ctx)
{
    const pev *x = a, *y = b;
    const pctx *c = ctx;
    const gf_strtab *str = c->str;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    size_t xl, yl;
    const char *xn = pev_nm(str, x, &xl), *yn = pev_nm(str, y, &yl);
    size_t n = xl < yl ? xl : yl;
    int d = n ? memcmp(xn, yn, n) : 0;
    if (d || xl != yl)
        return d ? d : (xl < yl ? -1 : 1);
    porig ox = orig(c, x), oy = orig(c, y);
    if (ox.tid != oy.tid)
        return ox.tid < oy.tid ? -1 : 1;
    if (ox.pid != oy.pid)
        return ox.pid < oy.pid ? -1 : 1;
    return cmp_nesting(&ox, &oy);
}

static int cmp_intern_p(const void *a, const void *b, void *ctx)
{
    return cmp_intern(*(const pev *const *)a, *(const pev *const *)b, ctx);
}

/* Names into t's table as if interned in cmp_intern order (which decides the ids of names new to the table:
 * not the export's row order). Each distinct name (sid, < nsid) is looked up once; a new one takes its id in
 * the order of its first range by cmp_intern, so only the new names are sorted, not the ranges. -1 on OOM. */
static int intern_names(gf_trace *t, const pctx *c, pev *pv, size_t k, size_t nsid)
{
    size_t nl;
    const char *nm;
    const gf_strtab *str = c->str;
    size_t ns = nsid ? nsid : 1;
    int32_t *known = malloc(ns * sizeof *known); /* sid → id in t->str, -1 new, -2 not looked up */
    size_t *first = malloc(ns * sizeof *first);  /* new sid → its first range by cmp_intern */
    int32_t *nid = malloc((k ? k : 1) * sizeof *nid); /* the ranges' ids in t->str (pev's sid until the end) */
    pev **q = NULL;
    int rc = known && first && nid ? 0 : -1;
    size_t nnew = 0, nq = 0;
    for (size_t i = 0; rc == 0 && i < ns; i++)
        known[i] = -2;
    for (size_t i = 0; rc == 0 && i < k; i++) {
        int32_t sid = pv[i].sid;
        if (sid < 0 || (size_t)sid >= nsid) { /* not from the table: on its own */
            nm = pev_nm(str, &pv[i], &nl);
            nid[i] = gf_strtab_find(t->str, nm, nl);
            nnew += nid[i] < 0;
            continue;
        }
        if (known[sid] == -2 && (nm = pev_nm(str, &pv[i], &nl), known[sid] = gf_strtab_find(t->str, nm, nl)) < 0) {
            first[sid] = i;
            nnew++;
        } else if (known[sid] == -1 && cmp_intern(&pv[i], &pv[first[sid]], (void *)c) < 0) {
            first[sid] = i;
        }
        nid[i] = known[sid];
    }
    if (rc == 0 && nnew && !(q = malloc(nnew * sizeof *q)))
        rc = -1;
    for (size_t i = 0; rc == 0 && nnew && i < k; i++) {
        int32_t sid = pv[i].sid;
        if (sid < 0 || (size_t)sid >= nsid ? nid[i] < 0 : known[sid] == -1 && first[sid] == i)
            q[nq++] = &pv[i];
    }
    if (rc == 0 && nq > 1)
        qsort_r(q, nq, sizeof *q, cmp_intern_p, (void *)c);
    for (size_t j = 0; rc == 0 && j < nq; j++) {
        nm = pev_nm(str, q[j], &nl);
        int32_t id = gf_strtab_intern(t->str, nm, nl);
        if (id < 0)
            rc = -1;
        else if (q[j]->sid >= 0 && (size_t)q[j]->sid < nsid)
            known[q[j]->sid] = id;
        else
            nid[q[j] - pv] = id;
    }
    for (size_t i = 0; rc == 0 && nnew && i < k; i++)
        if (pv[i].sid >= 0 && (size_t)pv[i].sid < nsid)
            nid[i] = known[pv[i].sid];
    for (size_t i = 0; rc == 0 && i < k; i++)
        pv[i].name = nid[i]; /* sid is not read again */
    free(q);
    free(known);
    free(first);
    free(nid);
    return rc;
}

typedef struct sctx {
    const pev *pv;
    const pctx *c;
} sctx;

static int cmp_start_ix(const void *a, const void *b, void *arg)
{
    const sctx *x = arg;
    return cmp_start(&x->pv[*(const uint32_t *)a], &x->pv[*(const uint32_t *)b], x->c);
}

/* ord[0..n): pv's indices by cmp_start: an LSD radix sort of the projected starts (8-bit digits, only those
 * that vary), then each run of equal starts by the rest of cmp_start (nested ranges share their first op).
 * cmp_start is a total order, so the result is qsort's. -1 on OOM. */
static int sort_start(const pev *pv, size_t n, const pctx *c, uint32_t **out)
{
    if (n >= UINT32_MAX)
        return -1;
    size_t m = n ? n : 1;
    uint32_t *a = gf_mem_scratch(m * sizeof *a), *b = gf_mem_scratch(m * sizeof *b);
    uint64_t *ka = gf_mem_scratch(m * sizeof *ka), *kb = gf_mem_scratch(m * sizeof *kb);
    if (!a || !b || !ka || !kb) {
        free(a);
        free(b);
        free(ka);
        free(kb);
        return -1;
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        lo = pv[i].start < lo ? pv[i].start : lo;
        hi = pv[i].start > hi ? pv[i].start : hi;
    }
    uint64_t span = n ? (uint64_t)hi - (uint64_t)lo : 0;
    for (size_t i = 0; i < n; i++) {
        a[i] = (uint32_t)i;
        ka[i] = (uint64_t)pv[i].start - (uint64_t)lo;
    }
    for (unsigned sh = 0; sh < 64 && (span >> sh); sh += 8) {
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((ka[i] >> sh) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++) {
            size_t o = cnt[(ka[i] >> sh) & 0xff]++;
            b[o] = a[i];
            kb[o] = ka[i];
        }
        uint32_t *x = a;
        a = b;
        b = x;
        uint64_t *y = ka;
        ka = kb;
        kb = y;
    }
    for (size_t i = 0; i < n;) { /* runs of one start */
        size_t j = i + 1;
        while (j < n && ka[j] == ka[i])
            j++;
        if (j - i > 16) {
            sctx x = {pv, c};
            qsort_r(a + i, j - i, sizeof *a, cmp_start_ix, &x);
        } else {
            for (size_t p = i + 1; p < j; p++) {
                uint32_t v = a[p];
                size_t q = p;
                for (; q > i && cmp_start(&pv[v], &pv[a[q - 1]], c) < 0; q--)
                    a[q] = a[q - 1];
                a[q] = v;
            }
        }
        i = j;
    }
    free(b);
    free(ka);
    free(kb);
    *out = a;
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
    gf_gidx gi;
    int64_t *gmin = NULL, *gmax = NULL;
    int32_t *gdev = NULL;
    size_t ng = 0, *at = calloc(t->nlanes + 1, sizeof *at);
    int32_t *lord = malloc((t->nlanes + 1) * sizeof *lord);
    gf_snv_call *c = NULL;
    int r = gf_gidx_init(&gi, t), dummy;
    if (r == 0)
        r = at && lord ? gf_proj_op_groups(t, &gi, &gmin, &gmax, &gdev, &ng) : -1;
    size_t n = 0;
    if (r == 0) /* lanes in globalTid order (one host: gid_hi is common), then each lane's place */
        n = gf_proj_call_slots(t, &gi, at, lord, cmp_lane_gtid);
    if (r == 0 && !(c = gf_mem_scratch((n ? n : 1) * sizeof *c)))
        r = -1;
    for (size_t i = 0; r == 0 && i < t->n; i++) { /* in trace order: by start, then seq, within a lane */
        int64_t g;
        if (t->kind[i] != GF_EV_API || (g = gf_gidx_find(&gi, t, i, 0, 0, &dummy)) < 0)
            continue;
        const gf_lane *ln = &t->lanes[t->lane[i]];
        gf_snv_call *x = &c[at[t->lane[i]]++];
        x->gtid = t->gid_hi | (ln->pid << 24) | ln->tid;
        x->start = t->start[i];
        x->end = t->start[i] + t->dur[i];
        x->corr = t->corr[i];
        x->pmin = gmin[g];
        x->pmax = gmax[g];
        x->pdev = gdev[g];
        x->grp = (int32_t)g;
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
    gf_gidx_free(&gi);
    free(gmin);
    free(gmax);
    free(gdev);
    free(at);
    free(lord);
    if (r < 0) {
        free(c);
        return gf_oom(err, "nvtx projection");
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

/* The projection's NVTX ranges from the trace (t->nvtx_rowid: the import read them as gf_snv_load does), in
 * gf_snv_tree's order (globalTid, start, end desc, rowid: the import's ORDER BY, which is seq order), named
 * as gf_snv_load names them (domain ":" text) in *names. *given 0: the trace cannot give them. */
static int trace_ranges(const gf_trace *t, gf_snv_set *s, gf_strtab **names, int *given, gf_err *err)
{
    *given = 0;
    *names = NULL;
    memset(s, 0, sizeof *s);
    size_t n = t->nvtx_nrid;
    if (!t->nvtx_rowid || !t->calls_exact || t->n != t->total || t->n >= UINT32_MAX)
        return 0;
    uint32_t *at = malloc((n ? n : 1) * sizeof *at); /* seq - nvtx_seq0 → event */
    gf_hmap cache;                                    /* (domain, name) → name in *names */
    gf_hmap_init(&cache);
    gf_snv_buf b = {0};
    gf_strtab *ns = gf_strtab_new();
    int rc = at && ns ? 0 : -1;
    size_t m = 0;
    if (rc == 0) {
        memset(at, 0xff, (n ? n : 1) * sizeof *at);
        for (size_t i = 0; i < t->n; i++)
            if (t->kind[i] == GF_EV_NVTX && t->seq[i] >= t->nvtx_seq0 && t->seq[i] - t->nvtx_seq0 < n)
                at[t->seq[i] - t->nvtx_seq0] = (uint32_t)i;
        for (size_t k = 0; k < n; k++) {
            if (at[k] == UINT32_MAX)
                goto out; /* not the import's ranges any more */
            m += t->nvtx_rowid[k] != UINT32_MAX;
        }
        s->r = malloc((m ? m : 1) * sizeof *s->r);
        s->ord = malloc((m ? m : 1) * sizeof *s->ord);
        if (!s->r || !s->ord)
            rc = -1;
    }
    for (size_t k = 0; rc == 0 && k < n; k++) {
        if (t->nvtx_rowid[k] == UINT32_MAX)
            continue;
        size_t i = at[k];
        const gf_lane *ln = &t->lanes[t->lane[i]];
        int32_t dom = t->detail[i] >= 0 ? t->details[t->detail[i]].domain : -1;
        gf_snv_range *x = &s->r[s->n];
        memset(x, 0, sizeof *x);
        x->start = t->start[i];
        x->end = t->start[i] + t->dur[i];
        x->gtid = t->gid_hi | (ln->pid << 24) | ln->tid;
        x->rowid = t->nvtx_rowid[k];
        x->parent = -1;
        uint64_t key = ((uint64_t)(uint32_t)(dom + 1) << 32) | (uint32_t)t->name[i];
        int64_t *v = gf_hmap_get(&cache, key);
        if (v) {
            x->name = (int32_t)*v;
        } else {
            size_t l = 0;
            const char *p = dom >= 0 ? gf_strtab_get(t->str, dom, &l) : "";
            b.len = 0;
            int bad = gf_snv_put(&b, p, l) | gf_snv_put(&b, ":", 1);
            p = gf_strtab_get(t->str, t->name[i], &l);
            bad |= gf_snv_put(&b, p, l);
            if (bad || (x->name = gf_strtab_intern(ns, b.p, b.len)) < 0 || !gf_hmap_put(&cache, key, x->name, NULL))
                rc = -1;
        }
        s->ord[s->n] = (int32_t)s->n;
        s->n++;
    }
    if (rc == 0) {
        *given = 1;
        *names = ns;
        ns = NULL;
    }
out:
    free(at);
    free(b.p);
    gf_hmap_free(&cache);
    if (ns)
        gf_strtab_free(ns);
    if (!*given)
        gf_snv_free(s);
    return rc == 0 ? 0 : gf_oom(err, "nvtx projection");
}

/* The read-only half's result (trace_proj.h gf_proj_part): the projected ranges, their start order, and the
 * tables their names point into until they are interned in the trace's (gf_proj_merge). */
struct gf_proj_part {
    pev *pv;            /* in start order (cmp_start) once gf_proj_read returns */
    size_t np;
    porig *side;        /* where pv's ranges lie, by pev ev (the export's path; NULL: the trace's events) */
    gf_stats_db *d;     /* the export: its string table holds names when the trace gave no ranges */
    gf_strtab *names;   /* the ranges' names when the trace gave them */
    size_t nsid;        /* the names' table's count */
};

void gf_proj_free(gf_proj_part *p)
{
    if (!p)
        return;
    free(p->pv);
    free(p->side);
    if (p->names)
        gf_strtab_free(p->names);
    if (p->d)
        gf_stats_close(p->d);
    free(p);
}

/* The projected ranges from the export's path: the calls from the trace or the export, the ranges from the
 * trace or the export, core/stats_nvtx_proj.c's projection; *pv in the ranges' own memory, named in *names
 * (the trace gave the ranges) or d->str. Reads t, never writes it. */
static int collect_export(const gf_trace *t, gf_stats_db *d, pev **out, porig **side_out, size_t *np,
                          gf_strtab **names_out, gf_err *err)
{
    gf_snv_call *calls = NULL;
    size_t ncalls, ngrp;
    int given;
    if (trace_calls(t, &calls, &ncalls, &ngrp, &given, err) != 0)
        return -1;
    gf_stats_res res;
    memset(&res, 0, sizeof res);
    gf_snv_set s;
    gf_strtab *names = NULL; /* the ranges' names when the trace gives them, else the export's d->str */
    int ranges = 0, rc = 0, ok = 0;
    gf_err_clear(err); /* the report code reads err->code after string look-ups (gf_stats_run does the same) */
    if (given)
        rc = trace_ranges(t, &s, &names, &ranges, err);
    else
        memset(&s, 0, sizeof s);
    if (rc == 0)
        rc = given ? gf_snv_projection_given(d, &res, calls, ncalls, ngrp, &s, ranges, &ok, err)
                   : gf_snv_projection(d, &res, &s, &ok, err);
    free(calls);
    /* the projected ranges become pv in the ranges' own memory (range i gives pev k <= i, and a pev is no
     * larger): the projection's peak holds them once. Both are copied as bytes, so the types never alias. */
    _Static_assert(sizeof(pev) <= sizeof(gf_snv_range), "a projected range fits in its range's place");
    char *mem = (char *)s.r;
    size_t k = 0, m = 0;
    for (size_t i = 0; rc == 0 && ok && i < s.n; i++)
        m += s.r[i].nops > 0;
    porig *side = rc == 0 && ok ? gf_mem_scratch((m ? m : 1) * sizeof *side) : NULL;
    if (rc == 0 && ok && !side)
        rc = gf_oom(err, "nvtx projection");
    for (size_t i = 0; rc == 0 && ok && i < s.n; i++) {
        gf_snv_range x;
        memcpy(&x, mem + i * sizeof x, sizeof x);
        if (!x.nops)
            continue;
        side[k] = (porig){x.start, x.end, x.rowid, (int32_t)((x.gtid >> 24) & 0xFFFFFF), (int32_t)(x.gtid & 0xFFFFFF)};
        pev e = {.start = x.pmin, .dur = x.pmax - x.pmin, .ev = (uint32_t)k, .rowid = (uint32_t)x.rowid,
                 .dev = x.pdev, .sid = x.name};
        memcpy(mem + k++ * sizeof e, &e, sizeof e);
    }
    pev *pv = NULL;
    if (rc == 0 && k) { /* pv owns the memory now: the unused tail goes back */
        (void)gf_resize((void **)&mem, k, sizeof *pv); /* kept as it was when the shrink fails */
        pv = (pev *)mem;
        s.r = NULL;
        s.n = 0;
    }
    gf_snv_free(&s);
    if (rc != 0) {
        if (names)
            gf_strtab_free(names);
        free(side);
        return -1;
    }
    *out = pv;
    *side_out = side;
    *np = k;
    *names_out = names;
    return 0;
}

/* The name id in ns of NVTX event i as gf_snv_load names ranges (domain ":" text), cached by (domain, name)
 * in cache; -1 on OOM. */
static int32_t range_name(const gf_trace *t, size_t i, gf_strtab *ns, gf_hmap *cache, gf_snv_buf *b)
{
    int32_t dom = t->detail[i] >= 0 ? t->details[t->detail[i]].domain : -1;
    uint64_t key = ((uint64_t)(uint32_t)(dom + 1) << 32) | (uint32_t)t->name[i];
    int64_t *v = gf_hmap_get(cache, key);
    if (v)
        return (int32_t)*v;
    size_t l = 0;
    const char *p = dom >= 0 ? gf_strtab_get(t->str, dom, &l) : "";
    b->len = 0;
    int bad = gf_snv_put(b, p, l) | gf_snv_put(b, ":", 1);
    p = gf_strtab_get(t->str, t->name[i], &l);
    bad |= gf_snv_put(b, p, l);
    int32_t id = bad ? -1 : gf_strtab_intern(ns, b->p, b->len);
    if (id < 0 || !gf_hmap_put(cache, key, id, NULL))
        return -1;
    return id;
}

/* The projected ranges from the trace alone (trace_proj_sweep.h gf_proj_sweep) when it holds the export's
 * calls and ranges (*swept 1; else nothing done): compact records, and pv allocated for the projected ranges
 * only, named in *names. d says whether the export has what the projection needs. */
static int collect_swept(const gf_trace *t, gf_stats_db *d, pev **out, size_t *np, gf_strtab **names, int *swept,
                         gf_err *err)
{
    gf_proj_hit *H = NULL;
    size_t nh = 0;
    if (gf_proj_sweep(t, &H, &nh, swept, err) != 0 || !*swept)
        return *swept ? -1 : 0;
    gf_stats_res res;
    memset(&res, 0, sizeof res);
    int ok = 0;
    gf_err_clear(err);
    int u = gf_snv_projection_usable(d, &res, &ok, err);
    if (u != 0 || !ok) {
        free(H);
        return u != 0 ? -1 : 0;
    }
    gf_strtab *ns = gf_strtab_new();
    gf_hmap cache; /* (domain, name) → name in ns */
    gf_hmap_init(&cache);
    gf_snv_buf b = {0};
    int rc = ns ? 0 : -1;
    /* the projected ranges become pv in the hits' own memory (hit i gives pev k <= i, of the same size) */
    _Static_assert(sizeof(pev) <= sizeof(gf_proj_hit), "a projected range fits in its hit's place");
    char *mem = (char *)H;
    size_t k = 0;
    for (size_t i = 0; rc == 0 && i < nh; i++) {
        gf_proj_hit h;
        memcpy(&h, mem + i * sizeof h, sizeof h);
        if (!h.projected)
            continue;
        int32_t sid = range_name(t, h.ev, ns, &cache, &b);
        rc = sid < 0 ? -1 : 0;
        pev e = {.start = h.pmin, .dur = h.pmax - h.pmin, .ev = h.ev, .rowid = h.rowid, .dev = h.pdev, .sid = sid};
        memcpy(mem + k++ * sizeof e, &e, sizeof e);
    }
    free(b.p);
    gf_hmap_free(&cache);
    if (rc != 0) {
        free(H);
        if (ns)
            gf_strtab_free(ns);
        return gf_oom(err, "nvtx projection");
    }
    if (k)
        (void)gf_resize((void **)&mem, k, sizeof(pev)); /* kept as it was when the shrink fails */
    else {
        free(mem);
        mem = NULL;
    }
    *out = (pev *)mem;
    *np = k;
    *names = ns;
    return 0;
}

/* The projected ranges of the export (the max longest when max > 0) into p->pv, named in p->d's or p->names'
 * table (kept open for gf_proj_merge; the export is closed when the names are p->names'). Reads t, never
 * writes it. */
static int collect(const gf_trace *t, const char *path, size_t max, gf_proj_part *P, gf_err *err)
{
    P->pv = NULL;
    P->np = 0;
    gf_stats_db *d = gf_stats_open(path, err);
    if (!d)
        return -1;
    pev *pv = NULL;
    size_t k = 0;
    gf_strtab *names = NULL;
    int rc = 0, swept = 0;
    gf_err_clear(err);
    porig *side = NULL;
    if (d->has_stringids && (rc = collect_swept(t, d, &pv, &k, &names, &swept, err)) == 0 && !swept)
        rc = collect_export(t, d, &pv, &side, &k, &names, err);
    const gf_strtab *str = names ? names : d->str;
    pctx c = {t, side, str};
    if (rc == 0 && max > 0 && k > max) { /* the longest max, as the page keeps its events (ties: cmp_intern) */
        qsort_r(pv, k, sizeof *pv, cmp_intern, &c);
        int64_t *dur = malloc(k * sizeof *dur);
        uint8_t *keep = calloc(k, 1);
        if (!dur || !keep) {
            rc = gf_oom(err, "nvtx projection");
        } else {
            for (size_t i = 0; i < k; i++)
                dur[i] = pv[i].dur;
            if (gf_topn_select(dur, k, max, keep) < 0) {
                rc = gf_oom(err, "nvtx projection");
            } else {
                size_t w = 0;
                for (size_t i = 0; i < k; i++)
                    if (keep[i])
                        pv[w++] = pv[i];
                k = w; /* the side entries of the dropped ones stay, unread */
            }
        }
        free(dur);
        free(keep);
    }
    if (rc != 0) {
        gf_stats_close(d);
        if (names)
            gf_strtab_free(names);
        free(pv);
        free(side);
        return -1;
    }
    P->side = side;
    P->nsid = gf_strtab_count(str); /* the names live until gf_proj_free closes their tables */
    if (names) {                    /* the export's strings are not needed: its memory goes back now */
        gf_stats_close(d);
        d = NULL;
    }
    P->d = d;
    P->names = names;
    P->pv = pv;
    P->np = k;
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
static int make_lane(const gf_trace *t, const pctx *c, const pev *pe, int32_t device, gf_lane *ln)
{
    char buf[600];
    porig o = orig(c, pe), *e = &o;
    memset(ln, 0, sizeof *ln);
    ln->kind = GF_LANE_GPU;
    ln->proj = 1;
    ln->pid = e->pid;
    ln->tid = e->tid;
    ln->device = device;
    ln->devnum = pe->dev;
    ln->stream = -1;
    ln->tname = thread_name(t, e->pid, e->tid);
    ln->rank = -1;
    const char *tn = ln->tname >= 0 ? gf_strtab_get(t->str, ln->tname, NULL) : "";
    snprintf(buf, sizeof buf, "NVTX pid %lld tid %lld%s%.300s", (long long)e->pid, (long long)e->tid, *tn ? " " : "",
             tn);
    ln->label = gf_strtab_intern_cstr(t->str, buf);
    return ln->label < 0 ? -1 : 0;
}

typedef struct pgroup {
    int32_t dev, lane;
    int64_t pid, tid;
    size_t first; /* a range of the group */
} pgroup;

static int cmp_pgroup(const void *a, const void *b)
{
    const pgroup *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The (device, thread) groups of pv, in that order (cmp_group's): *gid[k] is pv[k]'s group. -1 on OOM. */
static int find_groups(const pctx *c, const pev *pv, size_t np, pgroup **out, size_t *ng, int32_t **gid)
{
    gf_hmap map; /* hash of (dev, pid, tid) → groups with that hash */
    gf_hmap_init(&map);
    pgroup *g = NULL;
    size_t n = 0, cap = 0;
    int32_t *id = malloc((np ? np : 1) * sizeof *id), last = -1;
    int rc = id ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < np; k++) {
        porig o = orig(c, &pv[k]), *e = &o;
        int32_t dev = pv[k].dev;
        if (last >= 0 && g[last].dev == dev && g[last].pid == e->pid && g[last].tid == e->tid) {
            id[k] = last;
            continue;
        }
        uint64_t key = gf_hash_u64(((uint64_t)(uint32_t)dev << 48) ^ ((uint64_t)e->pid << 24) ^ (uint64_t)e->tid);
        key = key == GF_HMAP_EMPTY ? 0 : key;
        size_t pos = 0;
        int64_t *v;
        while ((v = gf_hmap_next(&map, key, &pos)))
            if (g[*v].dev == dev && g[*v].pid == e->pid && g[*v].tid == e->tid)
                break;
        if (!v) {
            if ((n == cap && gf_grow((void **)&g, &cap, n + 1, sizeof *g, 16) != 0) ||
                gf_hmap_add(&map, key, (int64_t)n) != 0) {
                rc = -1;
                break;
            }
            g[n] = (pgroup){dev, -1, e->pid, e->tid, k};
            last = (int32_t)n++;
        } else {
            last = (int32_t)*v;
        }
        id[k] = last;
    }
    gf_hmap_free(&map);
    int32_t *rank = rc == 0 ? malloc((n ? n : 1) * sizeof *rank) : NULL;
    if (rc == 0 && !rank)
        rc = -1;
    if (rc == 0) { /* sorted, and the ids follow their groups */
        for (size_t i = 0; i < n; i++)
            g[i].lane = (int32_t)i; /* the old index, for the moment */
        qsort(g, n, sizeof *g, cmp_pgroup);
        for (size_t i = 0; i < n; i++)
            rank[g[i].lane] = (int32_t)i;
        for (size_t k = 0; k < np; k++)
            id[k] = rank[id[k]];
        for (size_t i = 0; i < n; i++)
            g[i].lane = -1;
    }
    free(rank);
    if (rc != 0) {
        free(g);
        free(id);
        return -1;
    }
    *out = g;
    *ng = n;
    *gid = id;
    return 0;
}

/* Inserts one lane per (device, thread) of pv after the last lane of its device (after the last GPU lane, or
 * the CPU lanes, for a device without one); remaps the events' lanes and sets pv[k].lane. */
static int add_lanes(gf_trace *t, const pctx *c, pev *pv, size_t np, gf_err *err)
{
    pgroup *grp = NULL;
    size_t ng = 0;
    int32_t *gid = NULL;
    if (find_groups(c, pv, np, &grp, &ng, &gid) != 0)
        return gf_oom(err, "nvtx projection");
    int64_t *after = malloc((ng + 1) * sizeof *after);
    int32_t *gdev = malloc((ng + 1) * sizeof *gdev);
    int32_t *lmap = malloc((t->nlanes + 1) * sizeof *lmap);
    gf_lane *nl = malloc((t->nlanes + ng + 1) * sizeof *nl);
    int rc = 0;
    if (!after || !gdev || !lmap || !nl) {
        rc = gf_oom(err, "nvtx projection");
        goto done;
    }
    int64_t last_gpu = -1, last_cpu = -1;
    for (size_t l = 0; l < t->nlanes; l++) {
        if (t->lanes[l].kind == GF_LANE_GPU)
            last_gpu = (int64_t)l;
        else if (t->lanes[l].kind == GF_LANE_CPU)
            last_cpu = (int64_t)l;
    }
    for (size_t g = 0; g < ng; g++) {
        after[g] = last_gpu >= 0 ? last_gpu : last_cpu;
        gdev[g] = -1;
        for (size_t l = 0; l < t->nlanes; l++)
            if (t->lanes[l].kind == GF_LANE_GPU && !t->lanes[l].proj && t->lanes[l].devnum == grp[g].dev) {
                after[g] = (int64_t)l;
                gdev[g] = t->lanes[l].device;
            }
    }
    size_t w = 0;
    for (int64_t l = -1; l < (int64_t)t->nlanes; l++) {
        if (l >= 0) {
            nl[w] = t->lanes[l];
            lmap[l] = (int32_t)w++;
        }
        for (size_t q = 0; q < ng; q++) { /* groups are in device order, so lanes of a device stay sorted */
            if (after[q] != l)
                continue;
            if (make_lane(t, c, &pv[grp[q].first], gdev[q], &nl[w]) != 0) {
                rc = gf_oom(err, "nvtx projection");
                goto done;
            }
            grp[q].lane = (int32_t)w++;
        }
    }
    for (size_t k = 0; k < np; k++)
        pv[k].lane = grp[gid[k]].lane;
    for (size_t i = 0; i < t->n; i++)
        if (t->lane[i] >= 0)
            t->lane[i] = lmap[t->lane[i]];
    free(t->lanes);
    t->lanes = nl;
    nl = NULL;
    t->nlanes = t->lanes_cap = w;
done:
    free(grp);
    free(gid);
    free(after);
    free(gdev);
    free(lmap);
    free(nl);
    return rc;
}

/* Puts pv in ord's order in place (pv[k] becomes the old pv[ord[k]]), following each cycle of ord once; ord
 * is used up (every entry UINT32_MAX, which no index is: np < UINT32_MAX, sort_start). */
static void permute(pev *pv, uint32_t *ord, size_t np)
{
    for (size_t i = 0; i < np; i++) {
        if (ord[i] == UINT32_MAX)
            continue;
        pev first = pv[i];
        size_t j = i;
        for (;;) {
            size_t k = ord[j];
            ord[j] = UINT32_MAX;
            if (k == i) {
                pv[j] = first;
                break;
            }
            pv[j] = pv[k];
            j = k;
        }
    }
}

#define TAKE_CHUNK ((size_t)1 << 16) /* 2 MiB of pev: how often pv gives back what was taken */

/* The new events' columns from p's ranges, in start order (gf_proj_read's): pv is taken from its end, and given
 * back as it goes (issue 42: the 5M-event timeline's peak was pv and these columns at once, 32 bytes a range
 * each). -1 on OOM (p still frees what it holds). */
static int take_events(const pctx *c, gf_proj_part *p, size_t np, gf_proj_newev *ne)
{
    size_t m = np ? np : 1;
    ne->start = gf_mem_scratch(m * sizeof *ne->start);
    ne->dur = gf_mem_scratch(m * sizeof *ne->dur);
    ne->lane = gf_mem_scratch(m * sizeof *ne->lane);
    ne->name = gf_mem_scratch(m * sizeof *ne->name);
    ne->pid = gf_mem_scratch(m * sizeof *ne->pid);
    ne->seq = gf_mem_scratch(m * sizeof *ne->seq);
    if (!ne->start || !ne->dur || !ne->lane || !ne->name || !ne->pid || !ne->seq)
        return -1;
    for (size_t k = np; k-- > 0;) {
        const pev *e = &p->pv[k];
        ne->start[k] = e->start;
        ne->dur[k] = e->dur;
        ne->lane[k] = e->lane;
        ne->name[k] = e->name;
        ne->pid[k] = orig(c, e).pid;
        ne->seq[k] = (uint32_t)e->rowid;
        if (k % TAKE_CHUNK == 0 && k > 0)
            (void)gf_resize((void **)&p->pv, k, sizeof *p->pv); /* kept as it was when the shrink fails */
    }
    return 0;
}

int gf_proj_wanted(const gf_trace *t)
{
    if (!t->finished || t->nranks)
        return 0;
    for (size_t l = 0; l < t->nlanes; l++)
        if (t->lanes[l].proj)
            return 0; /* added already */
    return 1;
}

int gf_proj_read(const gf_trace *t, const char *sqlite_path, size_t max, gf_proj_part **out, gf_err *err)
{
    *out = NULL;
    if (!gf_proj_wanted(t))
        return 0;
    gf_proj_part *p = calloc(1, sizeof *p);
    if (!p)
        return gf_oom(err, "nvtx projection");
    if (collect(t, sqlite_path, max, p, err) != 0) {
        free(p);
        return -1;
    }
    pctx c = {t, p->side, NULL};
    uint32_t *ord = NULL;
    gf_mem_gate_enter(); /* the sort's 24 bytes a range never beside launch-overhead's delays (mem.h) */
    int sr = p->np ? sort_start(p->pv, p->np, &c, &ord) : 0;
    gf_mem_gate_leave();
    if (sr != 0) {
        gf_proj_free(p);
        return gf_oom(err, "nvtx projection");
    }
    /* pv in start order here, on the projection's thread, not in the merge on the caller's (issue 42) */
    if (p->np)
        permute(p->pv, ord, p->np);
    free(ord);
    *out = p;
    return 0;
}

int gf_proj_merge(gf_trace *t, gf_proj_part *p, int threads, size_t *added, gf_err *err)
{
    *added = 0;
    if (!p || p->np == 0) {
        gf_proj_free(p);
        return 0;
    }
    size_t np = p->np;
    gf_proj_newev ne;
    memset(&ne, 0, sizeof ne);
    /* the names' tables live until here: the export's strings until it is closed */
    pctx c = {t, p->side, p->names ? p->names : p->d->str};
    int rc = intern_names(t, &c, p->pv, np, p->nsid) != 0 ? gf_oom(err, "nvtx projection") : add_lanes(t, &c, p->pv, np, err);
    if (rc == 0 && take_events(&c, p, np, &ne) != 0)
        rc = gf_oom(err, "nvtx projection");
    gf_proj_free(p);
    if (rc == 0)
        rc = gf_proj_merge_events(t, &ne, np, threads, err);
    gf_proj_newev_free(&ne);
    if (rc == 0)
        *added = np;
    return rc;
}

int gf_trace_add_nvtx_proj(gf_trace *t, const char *sqlite_path, size_t max, size_t *added, gf_err *err)
{
    *added = 0;
    gf_proj_part *p;
    if (gf_proj_read(t, sqlite_path, max, &p, err) != 0)
        return -1;
    return gf_proj_merge(t, p, 1, added, err);
}
