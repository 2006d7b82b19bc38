/* Writers of the Trace model: the timeline page data (docs/TIMELINE_DATA.md), Chrome Trace Event JSON
 * (Perfetto / chrome://tracing, Kineto-style ac2g flows) and folded launch stacks. All stream to a
 * FILE*; nothing is built in memory first. */
#include "trace.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "threads.h"
#include "stacks.h"
#include "trace_pack.h"
#include "trace_rows.h"
#include "trace_view.h"
#include "trace_json.h"
#include "trace_nvtx_group.h"

static void jstr(FILE *out, const gf_trace *t, int32_t id)
{
    size_t len;
    const char *s = gf_strtab_get(t->str, id, &len);
    gf_json_file_string(out, s, len);
}

/* The aggregate launch-stack flamegraph as a prefix tree (root-first paths: outermost frame ... innermost,
 * then the kernel). Subtrees lighter than min_fraction of the total are folded into their parent, so a
 * million (stack, kernel) pairs do not make a page no browser can draw; "total" stays exact and the
 * weights written always sum to it. */
typedef struct fnode {
    int32_t frame, parent, child, sibling;
    int64_t weight, self;
} fnode;

typedef struct ftree {
    fnode *n;
    size_t len, cap;
    gf_hmap idx; /* (parent + 1) << 32 | frame → node */
} ftree;

static int64_t fnode_get(ftree *tr, int32_t parent, int32_t frame)
{
    uint64_t key = ((uint64_t)(uint32_t)(parent + 1) << 32) | (uint32_t)frame;
    int ins;
    int64_t *v = gf_hmap_put(&tr->idx, key, (int64_t)tr->len, &ins);
    if (!v)
        return -1;
    if (!ins)
        return *v;
    if (GF_GROW(tr->n, tr->cap, tr->len + 1, 1024) != 0)
        return -1;
    fnode *x = &tr->n[tr->len];
    x->frame = frame;
    x->parent = parent;
    x->child = -1;
    x->weight = x->self = 0;
    if (parent >= 0) {
        x->sibling = tr->n[parent].child;
        tr->n[parent].child = (int32_t)tr->len;
    } else {
        x->sibling = -1;
    }
    return (int64_t)tr->len++;
}

static int write_launch_flame(const gf_trace *t, FILE *out, int32_t *fmap, size_t nstr, double min_fraction)
{
    if (!t->nflame) {
        fputs("null", out);
        return 0;
    }
    ftree tr = {0};
    gf_hmap_init(&tr.idx);
    int64_t total = 0;
    int32_t roots = -1; /* roots chained through sibling */
    int32_t last_stack = -1;
    int64_t stack_node = -1;
    for (size_t e = 0; e < t->nflame; e++) { /* entries are sorted by stack: walk each stack's path once */
        const gf_flame_entry *fe = &t->flame[e];
        total += fe->weight;
        if (fe->stack != last_stack) {
            size_t a = t->stack_off[fe->stack], b = t->stack_off[fe->stack + 1];
            int64_t cur = -1;
            for (size_t f = b; f-- > a;) { /* frames outermost first */
                size_t before = tr.len;
                int64_t nx = fnode_get(&tr, (int32_t)cur, t->frames[f]);
                if (nx < 0)
                    goto oom;
                if (cur < 0 && tr.len > before) {
                    tr.n[nx].sibling = roots;
                    roots = (int32_t)nx;
                }
                cur = nx;
            }
            last_stack = fe->stack;
            stack_node = cur;
        }
        size_t before = tr.len;
        int64_t leaf = fnode_get(&tr, (int32_t)stack_node, fe->leaf); /* the kernel (or API) name */
        if (leaf < 0)
            goto oom;
        if (stack_node < 0 && tr.len > before) {
            tr.n[leaf].sibling = roots;
            roots = (int32_t)leaf;
        }
        tr.n[leaf].self += fe->weight;
    }
    /* subtree weights: children are created after their parents */
    for (size_t i = tr.len; i-- > 0;) {
        tr.n[i].weight += tr.n[i].self;
        if (tr.n[i].parent >= 0)
            tr.n[tr.n[i].parent].weight += tr.n[i].weight;
    }
    gf_hmap_free(&tr.idx);
    int64_t thr = min_fraction > 0 ? (int64_t)((double)total * min_fraction) : 0;
    /* frames table: in DFS order of the kept nodes */
    memset(fmap, 0xff, (nstr ? nstr : 1) * sizeof *fmap);
    int32_t nf = 0;
    int32_t *st = malloc((tr.len ? tr.len : 1) * sizeof *st);
    int32_t *path = malloc((tr.len ? tr.len : 1) * sizeof *path);
    if (!st || !path) {
        free(st);
        free(path);
        free(tr.n);
        return -1;
    }
    fputs("{\"unit\":\"ns\",\"frames\":[", out);
    size_t sp = 0;
    for (int32_t r = roots; r >= 0; r = tr.n[r].sibling)
        st[sp++] = r;
    while (sp) {
        int32_t x = st[--sp];
        if (fmap[tr.n[x].frame] < 0) {
            fputs(nf ? "," : "", out);
            fmap[tr.n[x].frame] = nf++;
            jstr(out, t, tr.n[x].frame);
        }
        for (int32_t c = tr.n[x].child; c >= 0; c = tr.n[c].sibling)
            if (tr.n[c].weight >= thr)
                st[sp++] = c;
    }
    fputs("],\"stacks\":[", out);
    int first = 1;
    for (int32_t r = roots; r >= 0; r = tr.n[r].sibling)
        st[sp++] = r;
    while (sp) {
        int32_t x = st[--sp];
        int64_t self = tr.n[x].self;
        for (int32_t c = tr.n[x].child; c >= 0; c = tr.n[c].sibling) {
            if (tr.n[c].weight >= thr)
                st[sp++] = c;
            else
                self += tr.n[c].weight;
        }
        if (self <= 0)
            continue;
        size_t depth = 0;
        for (int32_t y = x; y >= 0; y = tr.n[y].parent)
            path[depth++] = fmap[tr.n[y].frame];
        fputs(first ? "[[" : ",[[", out);
        first = 0;
        for (size_t i = depth; i-- > 0;)
            fprintf(out, i ? "%d," : "%d", path[i]);
        fprintf(out, "],%lld]", (long long)self);
    }
    fprintf(out, "],\"total\":%lld}", (long long)total);
    free(st);
    free(path);
    free(tr.n);
    return 0;
oom:
    gf_hmap_free(&tr.idx);
    free(tr.n);
    return -1;
}

/* The page's lanes (those lmap keeps, lmap[l] >= 0), in model order; depth[l]: rows of a lane with nesting. */
static void write_lanes(const gf_trace *t, FILE *out, const int32_t *lmap, const uint8_t *depth)
{
    fputs(",\"lanes\":[", out);
    int first = 1;
    int32_t next = 0; /* page lanes in order: a lane whose index came already (a sync lane on its stream's) is skipped */
    for (size_t l = 0; l < t->nlanes; l++) {
        if (lmap[l] < next)
            continue;
        next = lmap[l] + 1;
        const gf_lane *ln = &t->lanes[l];
        fputs(first ? "{\"label\":" : ",{\"label\":", out);
        first = 0;
        jstr(out, t, ln->label);
        fprintf(out, ",\"kind\":\"%s\"", gf_lane_kind_names[ln->kind]);
        if (depth[l] > 1)
            fprintf(out, ",\"depth\":%d", depth[l]);
        if (ln->rank >= 0 && (size_t)ln->rank < t->nranks) {
            fputs(",\"rank\":", out);
            jstr(out, t, t->rank_label[ln->rank]);
        }
        if (ln->kind == GF_LANE_GPU) {
            fputs(",\"device\":", out);
            if (ln->device >= 0)
                jstr(out, t, ln->device);
            else
                fputs("null", out);
            fprintf(out, ",\"stream\":%lld", (long long)ln->stream);
            if (ln->devnum >= 0)
                fprintf(out, ",\"deviceId\":%lld", (long long)ln->devnum);
            if (ln->sync)
                fputs(",\"sync\":true", out);
            if (ln->proj)
                fprintf(out, ",\"proj\":true,\"pid\":%lld,\"tid\":%lld", (long long)ln->pid, (long long)ln->tid);
        } else {
            fprintf(out, ",\"pid\":%lld,\"tid\":%lld", (long long)ln->pid, (long long)ln->tid);
            if (ln->kind == GF_LANE_CPU && ln->sub) /* a thread's CPU samples or running intervals */
                fputs(ln->sub == GF_SUB_SAMPLES ? ",\"sub\":\"samples\"" : ",\"sub\":\"running\"", out);
            if (ln->tname >= 0) {
                fputs(",\"thread\":", out);
                jstr(out, t, ln->tname);
            }
        }
        putc('}', out);
    }
}

/* What a page's data is made of: lanes (every lane with an event), and the names and stacks of the events
 * written (all, or a preview's subset), numbered in order of first appearance. */
typedef struct page_maps {
    int32_t *nmap, *lmap, *smap, *order; /* strtab id / lane / stack → page index (-1: not written) */
    uint8_t *depth;                      /* per model lane: its rows (nested NVTX ranges or CUDA calls) */
    uint8_t *row;                        /* per model event: its row in its lane (trace_rows.h) */
    int32_t nn, ncpu;
    int64_t t0, span;
} page_maps;

static void page_maps_free(page_maps *pm)
{
    free(pm->nmap);
    free(pm->lmap);
    free(pm->smap);
    free(pm->order);
    free(pm->depth);
    free(pm->row);
}

/* The page's time 0 (the first start) and span (to the last end, at least 1 ns). */
static void page_time(const gf_trace *t, int64_t *t0, int64_t *span)
{
    int64_t lo = 0, hi = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (i == 0 || t->start[i] < lo)
            lo = t->start[i];
        if (i == 0 || t->start[i] + t->dur[i] > hi)
            hi = t->start[i] + t->dur[i];
    }
    *t0 = lo;
    *span = hi - lo > 1 ? hi - lo : 1;
}

/* A sync lane's events are drawn on their stream's lane (a thin band there): the page index of the lane of
 * the same device and stream that the page already has, -1 when none (lanes are ordered so that the stream's
 * lane comes first). The page's lane list then has no lane of its own for them. */
static int32_t sync_home(const gf_trace *t, const int32_t *lmap, size_t l)
{
    const gf_lane *s = &t->lanes[l];
    if (s->kind != GF_LANE_GPU || !s->sync || s->stream < 0)
        return -1;
    for (size_t k = 0; k < l; k++) {
        const gf_lane *x = &t->lanes[k];
        if (lmap[k] >= 0 && x->kind == GF_LANE_GPU && !x->sync && !x->proj && x->rank == s->rank &&
            x->devnum == s->devnum && x->device == s->device && x->stream == s->stream)
            return lmap[k];
    }
    return -1;
}

/* The events' rows in their lanes and each lane's depth (what the page's lanes and detail column need). */
static int page_rows(const gf_trace *t, page_maps *pm)
{
    if (gf_trace_lane_rows(t, &pm->row) != 0)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        int rows = pm->row[i] + 1;
        if (l >= 0 && rows > pm->depth[l])
            pm->depth[l] = (uint8_t)rows;
    }
    return 0;
}

/* page_maps_init's two passes over the events, independent of each other (one on a second thread: issue 42,
 * ~0.13 s of one core on the 368 MB export's page): 0, the page's time and the lanes with events; 1, the
 * stacks and names of the events written (names in order of first appearance). */
typedef struct maps_pass {
    const gf_trace *t;
    page_maps *pm;
    const uint32_t *only;
    size_t nw;
} maps_pass;

static void maps_passes(void *arg, size_t lo, size_t hi)
{
    maps_pass *m = arg;
    const gf_trace *t = m->t;
    page_maps *pm = m->pm;
    if (lo == 0) {
        page_time(t, &pm->t0, &pm->span);
        for (size_t i = 0; i < t->n; i++) {
            int32_t l = t->lane[i];
            if (l >= 0)
                pm->lmap[l] = 0;
        }
    }
    if (hi == 2)
        for (size_t k = 0; k < m->nw; k++) {
            size_t i = m->only ? m->only[k] : k;
            if (t->stack[i] >= 0)
                pm->smap[t->stack[i]] = 0;
            if (pm->nmap[t->name[i]] < 0) {
                pm->nmap[t->name[i]] = pm->nn;
                pm->order[pm->nn++] = t->name[i];
            }
        }
}

/* rows: also page_rows (else the caller calls it, e.g. while the columns compress); threads: policy
 * limits.threads, resolved (>= 2: the two passes side by side on pages of 65,536 events or more). */
static int page_maps_init(const gf_trace *t, page_maps *pm, const uint32_t *only, size_t nonly, int rows, int threads)
{
    size_t nstr = gf_strtab_count(t->str), nw = only ? nonly : t->n;
    memset(pm, 0, sizeof *pm);
    pm->nmap = malloc((nstr ? nstr : 1) * sizeof *pm->nmap);
    pm->lmap = malloc((t->nlanes ? t->nlanes : 1) * sizeof *pm->lmap);
    pm->smap = malloc((t->nstacks ? t->nstacks : 1) * sizeof *pm->smap);
    pm->order = malloc((nstr ? nstr : 1) * sizeof *pm->order);
    pm->depth = calloc(t->nlanes ? t->nlanes : 1, 1);
    if (!pm->nmap || !pm->lmap || !pm->smap || !pm->order || !pm->depth || (rows && page_rows(t, pm) != 0)) {
        page_maps_free(pm);
        return -1;
    }
    memset(pm->nmap, 0xff, (nstr ? nstr : 1) * sizeof *pm->nmap);
    memset(pm->lmap, 0xff, (t->nlanes ? t->nlanes : 1) * sizeof *pm->lmap);
    memset(pm->smap, 0xff, (t->nstacks ? t->nstacks : 1) * sizeof *pm->smap);
    maps_pass m = {t, pm, only, nw};
    gf_threads_in_two(t->n >= (1u << 16) ? threads : 1, 2, 1, 0, maps_passes, &m);
    int32_t nl = 0, ns = 0;
    for (size_t l = 0; l < t->nlanes; l++)
        if (pm->lmap[l] == 0) {
            int32_t to = sync_home(t, pm->lmap, l);
            if (to >= 0) {
                pm->lmap[l] = to;
                continue;
            }
            pm->lmap[l] = nl++;
            pm->ncpu += t->lanes[l].kind == GF_LANE_CPU;
        }
    for (size_t st = 0; st < t->nstacks; st++)
        if (pm->smap[st] == 0)
            pm->smap[st] = ns++;
    return 0;
}

/* From the title to the names: what the page and its preview share. */
static void write_head(const gf_trace *t, FILE *out, const gf_timeline_opts *o, const page_maps *pm, size_t shown,
                       double vs, double ve)
{
    fputs("{\"title\":", out);
    const char *title = o && o->title ? o->title : ""; /* the page title is the caller's (policy timeline.title) */
    gf_json_file_string(out, title, strlen(title));
    fprintf(out, ",\"t0\":%lld,\"span\":%lld,\"total\":%llu,\"shown\":%zu", (long long)pm->t0,
            (long long)pm->span, (unsigned long long)t->total, shown);
    if (o && o->initial_view) {
        fputs(",\"initialView\":", out);
        gf_json_file_string(out, o->initial_view, strlen(o->initial_view));
        fprintf(out, ",\"view\":[%.17g,%.17g]", vs, ve);
    }
    write_lanes(t, out, pm->lmap, pm->depth);
    fprintf(out, "],\"cpuLanes\":%d", pm->ncpu);
    if (t->nranks) {
        fputs(",\"ranks\":[", out);
        for (size_t r = 0; r < t->nranks; r++) {
            if (r)
                putc(',', out);
            jstr(out, t, t->rank_label[r]);
        }
        putc(']', out);
    }
    fputs(",\"kinds\":[", out);
    for (int k = 0; k < GF_EV_NKINDS; k++)
        fprintf(out, "%s\"%s\"", k ? "," : "", gf_ev_kind_names[k]);
    fputs("],\"names\":[", out);
    for (int32_t i = 0; i < pm->nn; i++) {
        if (i)
            putc(',', out);
        jstr(out, t, pm->order[i]);
    }
    putc(']', out);
    if (t->nvtx_group.n) { /* NVTX names grouped by policy nvtx.group: page name index → grouped name */
        fputs(",\"nameGroups\":{", out);
        int any = 0;
        for (int32_t i = 0; i < pm->nn; i++) {
            int32_t g = gf_trace_nvtx_group(t, pm->order[i]);
            if (g == pm->order[i])
                continue;
            fprintf(out, "%s\"%d\":", any++ ? "," : "", (int)i);
            jstr(out, t, g);
        }
        putc('}', out);
    }
    putc(',', out);
}

static void write_source(const gf_trace *t, FILE *out)
{
    fputs(",\"source\":", out);
    if (t->source)
        gf_json_file_string(out, t->source, strlen(t->source));
    else
        fputs("null", out);
}

static int opening_view(const gf_trace *t, const gf_timeline_opts *o, int64_t t0, int64_t span, double *vs, double *ve)
{
    *vs = 0;
    *ve = (double)span;
    if (!o || !o->initial_view)
        return 0;
    return gf_trace_opening_view(t, o->initial_view, o->view_events, t0, span, vs, ve);
}

/* A page begun before its template is rendered: the maps, the rows and the opening view are found once, for
 * the preview and the data, and the event columns compress on workers (limits.threads) from then on, while
 * the preview, the template's text and the head are written (issue 42: the whole-capture timeline). */
struct gf_timeline_page {
    page_maps pm;
    gf_pack_job *job; /* NULL once written (gf_trace_pack_write frees it) */
    double vs, ve;
};

void gf_trace_timeline_free(gf_timeline_page *p)
{
    if (!p)
        return;
    gf_trace_pack_free(p->job);
    page_maps_free(&p->pm);
    free(p);
}

int gf_trace_timeline_begin(const gf_trace *t, const gf_timeline_opts *o, gf_timeline_page **out, gf_err *err)
{
    gf_timeline_page *p = calloc(1, sizeof *p);
    *out = NULL;
    if (!p || page_maps_init(t, &p->pm, NULL, 0, 0, gf_threads_resolve(o ? o->threads : 1, 2)) != 0) {
        free(p);
        return gf_oom(err, "timeline");
    }
    /* the rows come while the first columns compress (the detail column waits for them) */
    page_maps *pm = &p->pm;
    gf_pack_maps packm = {pm->t0, pm->lmap, pm->nmap, pm->smap, NULL, o ? o->compress : 0, NULL, 0, 1};
    if (gf_trace_pack_start(t, &packm, gf_threads_resolve(o ? o->threads : 1, GF_PACK_COLUMNS), &p->job, err) != 0) {
        page_maps_free(pm);
        free(p);
        return -1;
    }
    int rc = page_rows(t, pm);
    if (rc == 0) {
        gf_trace_pack_set_row(p->job, pm->row);
        rc = opening_view(t, o, pm->t0, pm->span, &p->vs, &p->ve);
    }
    if (rc != 0) {
        gf_trace_timeline_free(p);
        return gf_oom(err, "timeline");
    }
    *out = p;
    return 0;
}

int gf_trace_write_timeline_json(const gf_trace *t, FILE *out, const gf_timeline_opts *o, gf_err *err)
{
    gf_timeline_page *p;
    if (gf_trace_timeline_begin(t, o, &p, err) != 0)
        return -1;
    int rc = gf_trace_timeline_write(t, p, out, o, err);
    gf_trace_timeline_free(p);
    return rc;
}

int gf_trace_timeline_write(const gf_trace *t, gf_timeline_page *p, FILE *out, const gf_timeline_opts *o, gf_err *err)
{
    const page_maps *pm = &p->pm;
    if (!p->job)
        return gf_errf(err, GF_EXIT_ERROR, "timeline: the page's data written twice");
    write_head(t, out, o, pm, t->n, p->vs, p->ve);
    gf_pack_job *job = p->job;
    p->job = NULL;
    if (gf_trace_pack_write(job, out, err) != 0)
        return -1;
    fputs(",\"stacks\":[", out);
    int sfirst = 1;
    for (size_t st = 0; st < t->nstacks; st++) {
        if (pm->smap[st] < 0)
            continue;
        fputs(sfirst ? "[" : ",[", out);
        sfirst = 0;
        for (size_t f = t->stack_off[st]; f < t->stack_off[st + 1]; f++) {
            if (f > t->stack_off[st])
                putc(',', out);
            jstr(out, t, t->frames[f]);
        }
        putc(']', out);
    }
    fputs("],\"launchFlame\":", out);
    if (write_launch_flame(t, out, pm->nmap, gf_strtab_count(t->str), o ? o->flame_min_fraction : 0) != 0)
        return gf_oom(err, "timeline");
    fputs(",\"warnings\":[", out);
    for (size_t w = 0; w < t->nwarnings; w++) {
        if (w)
            putc(',', out);
        gf_json_file_string(out, t->warnings[w], strlen(t->warnings[w]));
    }
    putc(']', out);
    write_source(t, out);
    if (t->clock) {
        fputs(",\"clockAlignment\":", out);
        gf_json_file_string(out, t->clock, strlen(t->clock));
    }
    putc('}', out);
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "timeline: write failed");
    return 0;
}

static int in_view(const gf_trace *t, size_t i, int64_t t0, double vs, double ve)
{
    double s = (double)(t->start[i] - t0), e = s + (double)t->dur[i];
    return s <= ve && e >= vs;
}

int gf_trace_write_timeline_preview_json(const gf_trace *t, FILE *out, const gf_timeline_opts *o, gf_err *err)
{
    return gf_trace_timeline_write_preview(t, NULL, out, o, err);
}

int gf_trace_timeline_write_preview(const gf_trace *t, const gf_timeline_page *p, FILE *out, const gf_timeline_opts *o,
                                    gf_err *err)
{
    if (!o || !o->initial_view || o->preview_min_events <= 0 || t->n < (size_t)o->preview_min_events) {
        fputs("null", out);
        return ferror(out) ? gf_errf(err, GF_EXIT_ERROR, "timeline: write failed") : 0;
    }
    int64_t t0, span;
    double vs, ve;
    int rc = 0;
    if (p) { /* the page's own time, rows and opening view */
        t0 = p->pm.t0;
        span = p->pm.span;
        vs = p->vs;
        ve = p->ve;
    } else {
        page_time(t, &t0, &span);
        rc = opening_view(t, o, t0, span, &vs, &ve);
    }
    /* the events the opening view shows: those overlapping it, in page (start) order, counted first (an
     * array for every event, 27 MB at 6.8M events, raised the timeline's peak RSS while written: issue 42) */
    size_t nonly = 0;
    for (size_t i = 0; rc == 0 && i < t->n; i++)
        nonly += in_view(t, i, t0, vs, ve);
    if (rc == 0 && nonly > t->n / 2) { /* a view of most of the capture ("full"): a preview would be the page again */
        fputs("null", out);
        return ferror(out) ? gf_errf(err, GF_EXIT_ERROR, "timeline: write failed") : 0;
    }
    uint32_t *only = rc == 0 ? malloc((nonly ? nonly : 1) * sizeof *only) : NULL;
    for (size_t i = 0, k = 0; only && i < t->n; i++)
        if (in_view(t, i, t0, vs, ve))
            only[k++] = (uint32_t)i;
    page_maps pm;
    if (!only || page_maps_init(t, &pm, only, nonly, !p, 1) != 0) {
        free(only);
        return gf_oom(err, "timeline");
    }
    if (p) { /* the rows of every event, and so each lane's depth, are the page's */
        pm.row = p->pm.row;
        memcpy(pm.depth, p->pm.depth, t->nlanes ? t->nlanes : 1);
    }
    write_head(t, out, o, &pm, t->n, vs, ve);
    gf_pack_maps packm = {pm.t0, pm.lmap, pm.nmap, pm.smap, pm.row, 0, only, nonly, 0};
    rc = gf_trace_write_packed(t, out, &packm, 1, err);
    if (rc == 0) {
        fputs(",\"stacks\":[],\"launchFlame\":null,\"warnings\":[]", out);
        write_source(t, out);
        fputs(",\"preview\":true}", out);
        if (ferror(out))
            rc = gf_errf(err, GF_EXIT_ERROR, "timeline: write failed");
    }
    free(only);
    if (p)
        pm.row = NULL; /* the page's */
    page_maps_free(&pm);
    return rc;
}

/* ---- Chrome Trace Event format ---- */

static void us(FILE *out, int64_t ns)
{
    if (ns < 0) {
        putc('-', out);
        ns = -ns;
    }
    fprintf(out, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

typedef struct ctrack {
    int64_t pid, tid;
    int rows; /* CPU lanes: nesting rows of overlapping calls; rows after the first are tracks of their own */
} ctrack;

/* The track of row r of a lane: row 0 is the lane's; tids above 2^33 do not collide with real thread ids
 * (below 2^32) or NVTX tracks (tid + 2^32). */
static int64_t row_tid(const ctrack *tr, int r)
{
    return tr->tid + ((int64_t)r << 33);
}

static void thread_meta(FILE *out, int *first, const ctrack *tr, int r, const char *label, size_t sort)
{
    char buf[1200];
    fprintf(out, "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
            *first ? "" : ",", (long long)tr->pid, (long long)row_tid(tr, r));
    *first = 0;
    if (r) {
        snprintf(buf, sizeof buf, "%s (nested calls, row %d)", label, r + 1);
        gf_json_file_string(out, buf, strlen(buf));
    } else {
        gf_json_file_string(out, label, strlen(label));
    }
    fprintf(out, "}},{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%lld,\"tid\":%lld,"
                 "\"args\":{\"sort_index\":%zu}}",
            (long long)tr->pid, (long long)row_tid(tr, r), sort);
}

/* Processes and threads: one process per rank of a merged trace, else GPU devices as processes of their
 * own (numbered after the real pids) and CPU/NVTX lanes as threads of their process. */
static void chrome_tracks(const gf_trace *t, FILE *out, ctrack *tr, int *first)
{
    const int64_t gpu_pid_base = 1ll << 32;
    int32_t lastdev = -2;
    int64_t devidx = -1;
    if (t->nranks) {
        /* merged reports: one process per rank (pid = rank index + 1), every lane of the rank a thread */
        for (size_t r = 0; r < t->nranks; r++) {
            fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,\"tid\":0,\"args\":{\"name\":",
                    *first ? "" : ",", r + 1);
            *first = 0;
            jstr(out, t, t->rank_label[r]);
            fprintf(out, "}},{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%zu,\"tid\":0,"
                         "\"args\":{\"sort_index\":%zu}}",
                    r + 1, r);
        }
    }
    for (size_t l = 0; l < t->nlanes; l++) {
        const gf_lane *ln = &t->lanes[l];
        if (t->nranks) {
            tr[l].pid = ln->rank >= 0 ? (int64_t)ln->rank + 1 : 0;
            tr[l].tid = (int64_t)l + 1;
        } else if (ln->kind == GF_LANE_GPU) {
            if (ln->device != lastdev) {
                lastdev = ln->device;
                devidx++;
                fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"tid\":0,\"args\":{\"name\":",
                        *first ? "" : ",", (long long)(gpu_pid_base + devidx));
                *first = 0;
                char buf[600];
                const char *dev = ln->device >= 0 ? gf_strtab_get(t->str, ln->device, NULL) : "?";
                snprintf(buf, sizeof buf, "%s%s", strncmp(dev, "GPU", 3) == 0 ? "" : "GPU ", dev);
                gf_json_file_string(out, buf, strlen(buf));
                fprintf(out, "}},{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%lld,\"tid\":0,"
                             "\"args\":{\"sort_index\":%lld}}",
                        (long long)(gpu_pid_base + devidx), (long long)(1000000 + devidx));
            }
            tr[l].pid = gpu_pid_base + devidx;
            tr[l].tid = (int64_t)l + 1;
        } else {
            tr[l].pid = ln->pid >= 0 ? ln->pid : 0;
            tr[l].tid = (ln->tid >= 0 ? ln->tid : 0) + (ln->kind == GF_LANE_NVTX ? (1ll << 32) : 0) +
                        (ln->sub == GF_SUB_RUNNING ? (3ll << 32) : 0); /* samples: on the thread's own track */
            if (ln->sub == GF_SUB_SAMPLES && l > 0 && t->lanes[l - 1].kind == GF_LANE_CPU &&
                t->lanes[l - 1].pid == ln->pid && t->lanes[l - 1].tid == ln->tid)
                continue; /* the thread's track is named by its calls lane */
        }
        const char *label = gf_strtab_get(t->str, ln->label, NULL);
        for (int r = 0; r < tr[l].rows; r++)
            thread_meta(out, first, &tr[l], r, label ? label : "?", l * GF_NVTX_MAX_ROWS + (size_t)r);
    }
}

/* A CPU sample: a thread-scoped instant event on its thread's track, the sampled stack (innermost first) in
 * args.stack. */
static void chrome_sample(const gf_trace *t, FILE *out, const ctrack *tr, size_t i, int *first)
{
    fputs(*first ? "{\"ph\":\"i\",\"s\":\"t\",\"name\":" : ",{\"ph\":\"i\",\"s\":\"t\",\"name\":", out);
    *first = 0;
    jstr(out, t, t->name[i]);
    fprintf(out, ",\"cat\":\"cpu_sample\",\"pid\":%lld,\"tid\":%lld,\"ts\":", (long long)tr->pid, (long long)tr->tid);
    us(out, t->start[i]);
    fputs(",\"args\":{\"stack\":[", out);
    if (t->stack[i] >= 0)
        for (size_t f = t->stack_off[t->stack[i]]; f < t->stack_off[t->stack[i] + 1]; f++) {
            if (f > t->stack_off[t->stack[i]])
                putc(',', out);
            jstr(out, t, t->frames[f]);
        }
    fputs("]}}", out);
}

int gf_trace_write_chrome(const gf_trace *t, FILE *out, gf_err *err)
{
    ctrack *tr = calloc(t->nlanes ? t->nlanes : 1, sizeof *tr);
    uint8_t *row = NULL;
    if (!tr || gf_trace_lane_rows(t, &row) != 0) {
        free(tr);
        return gf_oom(err, "chrome-trace");
    }
    /* overlapping calls of a CPU thread are not properly nested X events of one track: each nesting row
     * is a track of its own (NVTX push/pop ranges nest properly and stay on their lane's track) */
    for (size_t l = 0; l < t->nlanes; l++)
        tr[l].rows = 1;
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        if (l < 0 || (t->lanes[l].kind != GF_LANE_CPU && !t->lanes[l].proj) || t->kind[i] == GF_EV_OSRT)
            row[i] = 0; /* an OS runtime call nests inside the thread's calls: on the thread's own track */
        else if (row[i] + 1 > tr[l].rows)
            tr[l].rows = row[i] + 1;
    }
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{", out);
    if (t->clock) { /* merged reports: the clock alignment the timestamps follow */
        fputs("\"clockAlignment\":", out);
        gf_json_file_string(out, t->clock, strlen(t->clock));
        putc(',', out);
    }
    fputs("\"generator\":\"gpuflame\"},\"traceEvents\":[", out);
    int first = 1;
    chrome_tracks(t, out, tr, &first);
    /* one process_name per CPU pid */
    for (size_t l = 0; l < t->nlanes && !t->nranks; l++) {
        const gf_lane *ln = &t->lanes[l];
        if (ln->kind == GF_LANE_GPU)
            continue;
        int seen = 0;
        for (size_t k = 0; k < l && !seen; k++)
            seen = t->lanes[k].kind != GF_LANE_GPU && t->lanes[k].pid == ln->pid;
        if (!seen) {
            fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"tid\":0,"
                         "\"args\":{\"name\":\"Process %lld\"}}",
                    first ? "" : ",", (long long)tr[l].pid, (long long)ln->pid);
            first = 0;
        }
    }
    int32_t *partner = NULL;
    if (gf_trace_partners(t, &partner, err) != 0) {
        free(tr);
        free(row);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        if (l < 0)
            continue;
        if (t->kind[i] == GF_EV_SAMPLE) {
            chrome_sample(t, out, &tr[l], i, &first);
            continue;
        }
        fputs(first ? "{\"ph\":\"X\",\"name\":" : ",{\"ph\":\"X\",\"name\":", out);
        first = 0;
        int32_t shown = t->kind[i] == GF_EV_NVTX ? gf_trace_nvtx_group(t, t->name[i]) : t->name[i];
        jstr(out, t, shown); /* an NVTX range under its grouped name (policy nvtx.group), the raw one in args */
        int proj = t->lanes[l].proj; /* an NVTX range projected onto the GPU (trace_proj.c): seq is its RangeId */
        fprintf(out, ",\"cat\":\"%s\",\"pid\":%lld,\"tid\":%lld,\"ts\":",
                proj ? "nvtx_gpu_proj" : gf_ev_kind_names[t->kind[i]], (long long)tr[l].pid,
                (long long)row_tid(&tr[l], row[i]));
        us(out, t->start[i]);
        fputs(",\"dur\":", out);
        us(out, t->dur[i]);
        fputs(",\"args\":{", out);
        int af = 1;
        if (proj) {
            fprintf(out, "\"range_id\":%llu", (unsigned long long)t->seq[i]);
            af = 0;
        }
        if (t->corr[i] >= 0) {
            fprintf(out, "%s\"correlation\":%lld", af ? "" : ",", (long long)t->corr[i]);
            af = 0;
        }
        if (shown != t->name[i]) {
            fputs(af ? "\"raw name\":" : ",\"raw name\":", out);
            af = 0;
            jstr(out, t, t->name[i]);
        }
        if (t->detail[i] >= 0) {
            const gf_detail *d = &t->details[t->detail[i]];
            if (d->grid[0] >= 0)
                fprintf(out, "%s\"grid\":[%d,%d,%d]", af ? "" : ",", d->grid[0], d->grid[1], d->grid[2]), af = 0;
            if (d->block[0] >= 0)
                fprintf(out, "%s\"block\":[%d,%d,%d]", af ? "" : ",", d->block[0], d->block[1], d->block[2]), af = 0;
            if (d->regs >= 0)
                fprintf(out, "%s\"registers per thread\":%d", af ? "" : ",", d->regs), af = 0;
            if (d->bytes >= 0)
                fprintf(out, "%s\"bytes\":%lld", af ? "" : ",", (long long)d->bytes), af = 0;
            if (d->domain >= 0) {
                fprintf(out, "%s\"domain\":", af ? "" : ",");
                af = 0;
                jstr(out, t, d->domain);
            }
        }
        if (t->stack[i] >= 0) {
            fprintf(out, "%s\"backtrace\":[", af ? "" : ",");
            for (size_t f = t->stack_off[t->stack[i]]; f < t->stack_off[t->stack[i] + 1]; f++) {
                if (f > t->stack_off[t->stack[i]])
                    putc(',', out);
                jstr(out, t, t->frames[f]);
            }
            putc(']', out);
        }
        fputs("}}", out);
    }
    /* launch → GPU work flows, Kineto's ac2g shape */
    for (size_t i = 0; i < t->n; i++) {
        if (!gf_ev_is_gpu_work(t->kind[i]) || partner[i] < 0)
            continue;
        size_t a = (size_t)partner[i];
        int32_t la = t->lane[a], lg = t->lane[i];
        if (la < 0 || lg < 0)
            continue;
        fprintf(out, ",{\"ph\":\"s\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld,\"ts\":", (long long)t->corr[i],
                (long long)tr[la].pid, (long long)row_tid(&tr[la], row[a]));
        us(out, t->start[a]);
        fprintf(out, ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"args\":{\"correlation\":%lld}}", (long long)t->corr[i]);
        fprintf(out, ",{\"ph\":\"f\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld,\"ts\":", (long long)t->corr[i],
                (long long)tr[lg].pid, (long long)tr[lg].tid);
        us(out, t->start[i]);
        fprintf(out, ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\",\"args\":{\"correlation\":%lld}}",
                (long long)t->corr[i]);
    }
    fputs("]}\n", out);
    free(partner);
    free(tr);
    free(row);
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "chrome-trace: write failed");
    return 0;
}

/* ---- folded launch stacks ---- */

static void folded_frame(FILE *out, const char *s)
{
    for (; *s; s++) {
        char c = *s;
        if (c == ';')
            c = ':';
        else if (c == '\n' || c == '\r')
            c = ' ';
        putc(c, out);
    }
}

int gf_trace_write_launch_folded(const gf_trace *t, FILE *out, gf_err *err)
{
    for (size_t e = 0; e < t->nflame; e++) {
        const gf_flame_entry *fe = &t->flame[e];
        size_t a = t->stack_off[fe->stack], b = t->stack_off[fe->stack + 1];
        for (size_t f = b; f-- > a;) {
            folded_frame(out, gf_strtab_get(t->str, t->frames[f], NULL));
            putc(';', out);
        }
        folded_frame(out, gf_strtab_get(t->str, fe->leaf, NULL));
        fprintf(out, "%s %lld\n", fe->gpu ? "_[G]" : "", (long long)fe->weight);
    }
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "folded: write failed");
    return 0;
}

/* Appends the cleaned frame name (folded_frame's rules) to *buf at *len. */
static int put_frame(char **buf, size_t *len, size_t *cap, const char *s, const char *suffix)
{
    size_t n = strlen(s), m = suffix ? strlen(suffix) : 0;
    if (gf_grow((void **)buf, cap, *len + n + m + 1, 1, 256) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        (*buf)[(*len)++] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
    }
    if (m) {
        memcpy(*buf + *len, suffix, m);
        *len += m;
    }
    return 0;
}

int gf_trace_launch_stacks(const gf_trace *t, gf_stacks *s, int gpu_only, gf_err *err)
{
    char *buf = NULL;
    size_t cap = 0;
    uint32_t *ids = NULL;
    size_t idcap = 0;
    int rc = 0;
    for (size_t e = 0; e < t->nflame && rc == 0; e++) {
        const gf_flame_entry *fe = &t->flame[e];
        if (gpu_only && !fe->gpu)
            continue;
        size_t a = t->stack_off[fe->stack], b = t->stack_off[fe->stack + 1], depth = b - a + 1;
        if (GF_GROW(ids, idcap, depth, 64) != 0) {
            rc = gf_oom(err, "launch stacks");
            break;
        }
        size_t k = 0;
        for (size_t f = b; f-- > a;) {
            size_t len = 0;
            if (put_frame(&buf, &len, &cap, gf_strtab_get(t->str, t->frames[f], NULL), NULL) != 0 ||
                (ids[k++] = gf_stacks_intern(s, buf, len)) == UINT32_MAX) {
                rc = gf_oom(err, "launch stacks");
                break;
            }
        }
        if (rc)
            break;
        size_t len = 0;
        if (put_frame(&buf, &len, &cap, gf_strtab_get(t->str, fe->leaf, NULL), fe->gpu ? "_[G]" : NULL) != 0 ||
            (ids[k++] = gf_stacks_intern(s, buf, len)) == UINT32_MAX) {
            rc = gf_oom(err, "launch stacks");
            break;
        }
        if (gf_stacks_add_ids(s, ids, k, fe->weight, err) != 0)
            rc = -1;
    }
    free(buf);
    free(ids);
    return rc;
}
