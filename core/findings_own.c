/* gpuflame's own findings primitives (findings.h): launch overhead per kernel name, CUDA graphs, busy
 * time from merged intervals per device, kernels by name per (process, device). No nsys rule to follow:
 * docs/RULES.md defines what each computes. */
#include "findings.h"
#include "findings_int.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* ---- launch overhead per kernel name ---- */

static int cmp_launch_row(const void *a, const void *b, void *trace)
{
    const gf_trace *t = trace;
    const gf_launch_row *x = a, *y = b;
    if (x->api_total != y->api_total)
        return x->api_total > y->api_total ? -1 : 1;
    return strcmp(gf_strtab_get(t->str, x->name, NULL), gf_strtab_get(t->str, y->name, NULL));
}

int gf_find_launches(const gf_trace *t, const gf_fwin *w, uint64_t min_kernels, gf_launch_row **rows, size_t *n,
                     gf_launch_sum *sum, gf_err *err)
{
    int64_t *p;
    if (gf_trace_partners(t, &p, err) != 0)
        return -1;
    gf_hmap idx;
    gf_hmap_init(&idx);
    gf_launch_row *s = NULL;
    size_t ns = 0, cap = 0;
    memset(sum, 0, sizeof *sum);
    for (size_t i = 0; i < t->n; i++) {
        if (t->kind[i] != GF_EV_KERNEL || !gf_fwin_gpu(w, t->start[i], t->start[i] + t->dur[i], t->pid[i]))
            continue;
        int ins;
        int64_t *v = gf_hmap_put(&idx, (uint64_t)(uint32_t)t->name[i], (int64_t)ns, &ins);
        if (!v)
            goto fail;
        if (ins) {
            if (grow((void **)&s, &cap, ns + 1, sizeof *s) != 0)
                goto fail;
            memset(&s[ns], 0, sizeof s[ns]);
            s[ns].name = t->name[i];
            s[ns].delay_min = INT64_MAX;
            s[ns].delay_max = INT64_MIN;
            ns++;
        }
        gf_launch_row *x = &s[*v];
        x->kernels++;
        x->kernel_total += t->dur[i];
        if (t->dur[i] > x->kernel_max)
            x->kernel_max = t->dur[i];
        if (p[i] < 0 || t->kind[p[i]] != GF_EV_API)
            continue;
        size_t a = (size_t)p[i];
        int64_t api = t->dur[a], delay = t->start[i] - (t->start[a] + t->dur[a]);
        x->launched++;
        x->api_total += api;
        if (api > x->api_max)
            x->api_max = api;
        x->delay_total += delay;
        if (delay < x->delay_min)
            x->delay_min = delay;
        if (delay > x->delay_max)
            x->delay_max = delay;
        if (t->dur[i] < api)
            x->tiny++;
    }
    for (size_t k = 0; k < ns; k++) {
        gf_launch_row *x = &s[k];
        if (!x->launched)
            x->delay_min = x->delay_max = 0;
        x->storm = x->kernels >= min_kernels && x->launched && x->api_total > x->kernel_total;
        sum->kernels += x->kernels;
        sum->launched += x->launched;
        sum->tiny += x->tiny;
        sum->kernel_total += x->kernel_total;
        sum->api_total += x->api_total;
        sum->delay_total += x->delay_total;
        sum->storms += (uint64_t)x->storm;
    }
    sum->names = ns;
    gf_hmap_free(&idx);
    free(p);
    if (ns > 1)
        qsort_r(s, ns, sizeof *s, cmp_launch_row, (void *)t);
    *rows = s;
    *n = ns;
    return 0;
fail:
    gf_hmap_free(&idx);
    free(p);
    free(s);
    return oom(err);
}

/* ---- CUDA graphs ---- */

static int cmp_graph_row(const void *a, const void *b)
{
    const gf_graph_row *x = a, *y = b;
    int64_t tx = x->kernel_total + x->exec_total, ty = y->kernel_total + y->exec_total;
    if (tx != ty)
        return tx > ty ? -1 : 1;
    return x->graph < y->graph ? -1 : x->graph > y->graph;
}

static inline uint64_t pc_key(int64_t pid, int64_t corr)
{
    return ((uint64_t)(pid + 1) << 40) ^ ((uint64_t)corr & 0xFFFFFFFFFFull);
}

int gf_find_graphs(const gf_trace *t, const gf_fwin *w, const gf_like_set *launch_names, gf_graph_row **rows,
                   size_t *n, gf_graph_sum *sum, gf_err *err)
{
    name_memo m;
    if (memo_init(&m, t) != 0)
        return oom(err);
    gf_hmap calls, byg, seen;
    gf_hmap_init(&calls);
    gf_hmap_init(&byg);
    gf_hmap_init(&seen);
    gf_graph_row *s = NULL;
    size_t ns = 0, cap = 0;
    memset(sum, 0, sizeof *sum);
    for (size_t i = 0; i < t->n; i++) {
        if (t->kind[i] != GF_EV_API || !memo_match(&m, t, launch_names, gf_trace_event_raw_name(t, i)) ||
            !gf_fwin_cpu(w, t->start[i], t->start[i] + t->dur[i], t->pid[i], lane_tid(t, i)))
            continue;
        sum->calls++;
        sum->call_total += t->dur[i];
        if (t->corr[i] >= 0 && !gf_hmap_put(&calls, pc_key(t->pid[i], t->corr[i]), 1, NULL))
            goto fail;
    }
    /* one pass over kernels and one over whole-graph ranges, rows keyed by graphId */
    for (int pass = 0; pass < 2; pass++) {
        size_t lim = pass == 0 ? t->n : t->ngraph_execs;
        for (size_t i = 0; i < lim; i++) {
            int64_t graph, corr, dur, st;
            int32_t pid;
            if (pass == 0) {
                if (t->kind[i] != GF_EV_KERNEL ||
                    !gf_fwin_gpu(w, t->start[i], t->start[i] + t->dur[i], t->pid[i]))
                    continue;
                const gf_detail *d = det(t, i);
                sum->kernels++;
                sum->kernel_total += t->dur[i];
                int from_call = t->corr[i] >= 0 && gf_hmap_get(&calls, pc_key(t->pid[i], t->corr[i]));
                int node = d && d->graph_node >= 0;
                if (from_call)
                    sum->launched_kernels++;
                if (node) {
                    sum->node_kernels++;
                    sum->node_kernel_total += t->dur[i];
                }
                if (!node && !from_call)
                    continue;
                graph = d ? d->graph : -1;
                corr = t->corr[i];
                dur = t->dur[i];
                st = t->start[i];
                pid = t->pid[i];
            } else {
                const gf_graph_exec *g = &t->graph_execs[i];
                if (!gf_fwin_gpu(w, g->start, g->end, g->pid))
                    continue;
                sum->execs++;
                sum->exec_total += g->end - g->start;
                graph = g->graph;
                corr = g->corr;
                dur = g->end - g->start;
                st = g->start;
                pid = g->pid;
            }
            (void)st;
            int ins;
            int64_t *v = gf_hmap_put(&byg, (uint64_t)(graph + 1), (int64_t)ns, &ins);
            if (!v)
                goto fail;
            if (ins) {
                if (grow((void **)&s, &cap, ns + 1, sizeof *s) != 0)
                    goto fail;
                memset(&s[ns], 0, sizeof s[ns]);
                s[ns++].graph = graph;
            }
            gf_graph_row *x = &s[*v];
            if (pass == 0) {
                x->kernels++;
                x->kernel_total += dur;
            } else {
                x->execs++;
                x->exec_total += dur;
            }
            if (corr >= 0) {
                uint64_t k = gf_hash_u64(pc_key(pid, corr) ^ gf_hash_u64((uint64_t)graph));
                if (k == GF_HMAP_EMPTY)
                    k = 0;
                int nw;
                if (!gf_hmap_put(&seen, k, 1, &nw))
                    goto fail;
                if (nw)
                    x->launches++;
            }
        }
    }
    sum->collapsed = sum->execs > 0 || (sum->calls > 0 && sum->launched_kernels == 0 && sum->node_kernels == 0);
    free(m.v);
    gf_hmap_free(&calls);
    gf_hmap_free(&byg);
    gf_hmap_free(&seen);
    if (ns > 1)
        qsort(s, ns, sizeof *s, cmp_graph_row);
    *rows = s;
    *n = ns;
    return 0;
fail:
    free(m.v);
    gf_hmap_free(&calls);
    gf_hmap_free(&byg);
    gf_hmap_free(&seen);
    free(s);
    return oom(err);
}

/* ---- busy time from merged intervals ---- */

static inline void clip(const gf_fwin *w, int64_t *s, int64_t *e)
{
    if (!w || !w->filtered)
        return;
    if (*s < w->start)
        *s = w->start;
    if (*e > w->end)
        *e = w->end;
    if (*e < *s)
        *e = *s;
}

/* a union of intervals fed in start order */
typedef struct merger {
    int64_t cur_s, cur_e, total;
    int any;
} merger;

static inline void merge_add(merger *m, int64_t s, int64_t e)
{
    if (!m->any) {
        m->any = 1;
        m->cur_s = s;
        m->cur_e = e;
        return;
    }
    if (s > m->cur_e) {
        m->total += m->cur_e - m->cur_s;
        m->cur_s = s;
        m->cur_e = e;
    } else if (e > m->cur_e) {
        m->cur_e = e;
    }
}

static inline int64_t merge_total(const merger *m)
{
    return m->any ? m->total + (m->cur_e - m->cur_s) : 0;
}

typedef struct busy_acc {
    gf_busy_row row;
    merger all, kern;
} busy_acc;

static int cmp_busy(const void *a, const void *b)
{
    const busy_acc *x = a, *y = b;
    return x->row.device < y->row.device ? -1 : x->row.device > y->row.device;
}

int gf_find_busy(const gf_trace *t, const gf_fwin *w, gf_busy_row **rows, size_t *n, int64_t *span_first,
                 int64_t *span_last, gf_err *err)
{
    gf_hmap idx;
    gf_hmap_init(&idx);
    busy_acc *acc = NULL;
    size_t na = 0, cap = 0;
    int64_t f = INT64_MAX, l = INT64_MIN;
    for (size_t i = 0; i < t->n; i++) {
        int64_t s = t->start[i], e = s + t->dur[i];
        int k = t->kind[i];
        int gpu = gf_ev_is_gpu_work(k);
        if (gpu ? !gf_fwin_gpu(w, s, e, t->pid[i])
                : !gf_fwin_cpu(w, s, e, t->pid[i], k == GF_EV_API || k == GF_EV_NVTX ? lane_tid(t, i) : -1))
            continue;
        clip(w, &s, &e);
        if (s < f)
            f = s;
        if (e > l)
            l = e;
        if (!gpu)
            continue;
        int64_t dev = lane_dev(t, i);
        int ins;
        int64_t *v = gf_hmap_put(&idx, (uint64_t)(dev + 1), (int64_t)na, &ins);
        if (!v)
            goto fail;
        if (ins) {
            if (grow((void **)&acc, &cap, na + 1, sizeof *acc) != 0)
                goto fail;
            memset(&acc[na], 0, sizeof acc[na]);
            acc[na].row.device = dev;
            acc[na].row.devname = t->lanes[t->lane[i]].device;
            acc[na].row.first = INT64_MAX;
            acc[na].row.last = INT64_MIN;
            na++;
        }
        busy_acc *a = &acc[*v];
        a->row.ops++;
        if (s < a->row.first)
            a->row.first = s;
        if (e > a->row.last)
            a->row.last = e;
        merge_add(&a->all, s, e); /* events are in start order, and clipping keeps that order */
        if (k == GF_EV_KERNEL)
            merge_add(&a->kern, s, e);
    }
    gf_hmap_free(&idx);
    if (na > 1)
        qsort(acc, na, sizeof *acc, cmp_busy);
    gf_busy_row *out = malloc((na ? na : 1) * sizeof *out);
    if (!out) {
        free(acc);
        return oom(err);
    }
    for (size_t k = 0; k < na; k++) {
        out[k] = acc[k].row;
        out[k].busy = merge_total(&acc[k].all);
        out[k].kernel_busy = merge_total(&acc[k].kern);
    }
    free(acc);
    *rows = out;
    *n = na;
    *span_first = f == INT64_MAX ? 0 : f;
    *span_last = l == INT64_MIN ? 0 : l;
    return 0;
fail:
    gf_hmap_free(&idx);
    free(acc);
    return oom(err);
}

/* ---- kernels by name per (process, device) ---- */

typedef struct match_acc {
    gf_match_row row;
    merger all, match;
} match_acc;

static int cmp_match(const void *a, const void *b)
{
    const match_acc *x = a, *y = b;
    if (x->row.pid != y->row.pid)
        return x->row.pid < y->row.pid ? -1 : 1;
    return x->row.device < y->row.device ? -1 : x->row.device > y->row.device;
}

int gf_find_kernel_match(const gf_trace *t, const gf_fwin *w, const gf_like_set *names, gf_match_row **rows,
                         size_t *n, gf_err *err)
{
    name_memo m;
    if (memo_init(&m, t) != 0)
        return oom(err);
    gf_hmap idx;
    gf_hmap_init(&idx);
    match_acc *acc = NULL;
    size_t na = 0, cap = 0;
    for (size_t i = 0; i < t->n; i++) {
        int k = t->kind[i];
        if (!gf_ev_is_gpu_work(k))
            continue;
        int64_t s = t->start[i], e = s + t->dur[i];
        if (!gf_fwin_gpu(w, s, e, t->pid[i]))
            continue;
        clip(w, &s, &e);
        int64_t dev = lane_dev(t, i);
        uint64_t key = ((uint64_t)(uint32_t)(t->pid[i] + 1) << 32) | (uint32_t)(dev + 1);
        int ins;
        int64_t *v = gf_hmap_put(&idx, key, (int64_t)na, &ins);
        if (!v)
            goto fail;
        if (ins) {
            if (grow((void **)&acc, &cap, na + 1, sizeof *acc) != 0)
                goto fail;
            memset(&acc[na], 0, sizeof acc[na]);
            acc[na].row.pid = t->pid[i];
            acc[na].row.device = dev;
            acc[na].row.first = INT64_MAX;
            acc[na].row.last = INT64_MIN;
            na++;
        }
        match_acc *a = &acc[*v];
        if (s < a->row.first)
            a->row.first = s;
        if (e > a->row.last)
            a->row.last = e;
        merge_add(&a->all, s, e);
        if (k == GF_EV_KERNEL && memo_match(&m, t, names, t->name[i])) {
            a->row.kernels++;
            a->row.total += t->dur[i];
            if (t->dur[i] > a->row.max)
                a->row.max = t->dur[i];
            merge_add(&a->match, s, e);
        }
    }
    free(m.v);
    gf_hmap_free(&idx);
    if (na > 1)
        qsort(acc, na, sizeof *acc, cmp_match);
    gf_match_row *out = malloc((na ? na : 1) * sizeof *out);
    if (!out) {
        free(acc);
        return oom(err);
    }
    size_t no = 0;
    for (size_t k = 0; k < na; k++) {
        if (!acc[k].row.kernels)
            continue;
        out[no] = acc[k].row;
        out[no].busy = merge_total(&acc[k].match);
        out[no].device_busy = merge_total(&acc[k].all);
        no++;
    }
    free(acc);
    *rows = out;
    *n = no;
    return 0;
fail:
    free(m.v);
    gf_hmap_free(&idx);
    free(acc);
    return oom(err);
}
