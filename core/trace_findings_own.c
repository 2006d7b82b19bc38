/* gpuflame's own findings primitives (findings.h): launch overhead per kernel name, CUDA graphs, busy
 * time from merged intervals per device, kernels by name per (process, device). No nsys rule to follow:
 * docs/RULES.md defines what each computes. */
#include "trace_findings_own.h"
#include "trace_findings_int.h"
#include "trace.h"
#include "trace_rawnames.h"

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

static int cmp_i64_asc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The k-th smallest of a[0..n) (a reordered in place): the value sorting would put at a[k], without
 * qsort's copy of the array (issue 29: 17 MB for the 368 MB export's 2.2M launch delays). Quickselect on
 * a median of three; past 2 log2 n rounds the rest is sorted. */
static int64_t nth_i64(int64_t *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    int rounds = 0;
    for (size_t m = n; m > 1; m >>= 1)
        rounds += 2;
    while (hi - lo > 16 && rounds-- > 0) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t x = a[lo], y = a[mid], z = a[hi];
        int64_t piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        size_t i = lo, j = hi; /* Hoare: [lo, j] <= piv <= [j + 1, hi] */
        for (;;) {
            while (a[i] < piv)
                i++;
            while (piv < a[j])
                j--;
            if (i >= j)
                break;
            int64_t t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
        if (k <= j)
            hi = j;
        else
            lo = j + 1;
    }
    qsort(a + lo, hi - lo + 1, sizeof *a, cmp_i64_asc);
    return a[k];
}

/* the stream's side of a launched kernel i (launch call a): the idle gap before it on its stream, and
 * whether the stream waited on the launch (its previous op ended before the launch call returned) */
static void launch_wait(gf_launch_sum *sum, const gf_trace *t, size_t i, int64_t prev_end, size_t a)
{
    if (prev_end == INT64_MIN || t->start[i] <= prev_end)
        return;
    int64_t gap = t->start[i] - prev_end;
    sum->gap_total += gap;
    if (a != SIZE_MAX && t->start[a] + t->dur[a] > prev_end) {
        sum->waits++;
        sum->wait_total += gap;
    }
}

static void launch_finish(gf_launch_row *s, size_t ns, uint64_t min_kernels, gf_launch_sum *sum)
{
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
}

static int find_launches(const gf_trace *t, const gf_fwin *w, uint64_t min_kernels, gf_launch_row **rows, size_t *n,
                         gf_launch_sum *sum, gf_err *err)
{
    gf_launch_index lx;
    if (gf_launch_index_build(t, &lx, err) != 0)
        return -1;
    gf_hmap idx;
    gf_hmap_init(&idx);
    gf_launch_row *s = NULL;
    size_t ns = 0, cap = 0, nd = 0;
    memset(sum, 0, sizeof *sum);
    int64_t *lane_end = malloc((t->nlanes ? t->nlanes : 1) * sizeof *lane_end); /* last op end per stream */
    int64_t *delays = gf_mem_scratch((t->n ? t->n : 1) * sizeof *delays);
    if (!lane_end || !delays)
        goto fail;
    for (size_t k = 0; k < t->nlanes; k++)
        lane_end[k] = INT64_MIN;
    for (size_t i = 0; i < t->n; i++) {
        int64_t e = t->start[i] + t->dur[i];
        if (!gf_ev_is_gpu_work(t->kind[i]) || !gf_fwin_gpu(w, t->start[i], e, t->pid[i]))
            continue;
        int64_t prev_end = t->lane[i] >= 0 ? lane_end[t->lane[i]] : INT64_MIN;
        if (t->lane[i] >= 0 && e > prev_end)
            lane_end[t->lane[i]] = e;
        if (t->kind[i] != GF_EV_KERNEL)
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
        int64_t li = gf_launch_index_find(&lx, t, i);
        int launched = li >= 0 && t->kind[li] == GF_EV_API;
        launch_wait(sum, t, i, prev_end, launched ? (size_t)li : SIZE_MAX);
        if (!launched)
            continue;
        size_t a = (size_t)li;
        int64_t api = t->dur[a], delay = t->start[i] - (t->start[a] + t->dur[a]);
        x->launched++;
        x->api_total += api;
        if (api > x->api_max)
            x->api_max = api;
        x->delay_total += delay;
        delays[nd++] = delay;
        if (delay < x->delay_min)
            x->delay_min = delay;
        if (delay > x->delay_max)
            x->delay_max = delay;
        if (t->dur[i] < api)
            x->tiny++;
    }
    launch_finish(s, ns, min_kernels, sum);
    if (nd)
        sum->delay_median = nth_i64(delays, nd, (nd - 1) / 2);
    gf_hmap_free(&idx);
    gf_launch_index_free(&lx);
    free(lane_end);
    free(delays);
    if (ns > 1)
        qsort_r(s, ns, sizeof *s, cmp_launch_row, (void *)t);
    *rows = s;
    *n = ns;
    return 0;
fail:
    gf_hmap_free(&idx);
    gf_launch_index_free(&lx);
    free(lane_end);
    free(delays);
    free(s);
    return gf_oom(err, "findings");
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
        return gf_oom(err, "findings");
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
    return gf_oom(err, "findings");
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

enum { BK_COMPUTE, BK_COMM, BK_H2D, BK_D2H, BK_D2D, BK_P2P, BK_MEMSET, BK_COPY, BK_KERNEL, BK_XFER, BK_ACTIVE,
       BK_ALL, BK_N };

typedef struct busy_acc {
    gf_busy_row row;
    merger m[BK_N];
} busy_acc;

static int cmp_busy(const void *a, const void *b)
{
    const busy_acc *x = a, *y = b;
    if (x->row.rank != y->row.rank)
        return x->row.rank < y->row.rank ? -1 : 1;
    return x->row.device < y->row.device ? -1 : x->row.device > y->row.device;
}

/* the copy direction of a copyKind (CUpti_ActivityMemcpyKind), -1 for host to host and unknown */
static int copy_part(int kind)
{
    switch (kind) {
    case 1: case 3: case 11: return BK_H2D;
    case 2: case 4: case 12: return BK_D2H;
    case 5: case 6: case 7: case 8: case 13: return BK_D2D;
    case 10: return BK_P2P;
    default: return -1;
    }
}

/* feeds one op (in start order) to the unions it belongs to */
static void busy_add(busy_acc *a, const gf_trace *t, size_t i, int64_t s, int64_t e, int is_comm)
{
    int k = t->kind[i];
    a->row.ops++;
    if (s < a->row.first)
        a->row.first = s;
    if (e > a->row.last)
        a->row.last = e;
    merge_add(&a->m[BK_ALL], s, e);
    if (k == GF_EV_KERNEL) {
        merge_add(&a->m[BK_KERNEL], s, e);
        merge_add(&a->m[is_comm ? BK_COMM : BK_COMPUTE], s, e);
        if (is_comm)
            merge_add(&a->m[BK_XFER], s, e);
        merge_add(&a->m[BK_ACTIVE], s, e);
    } else if (k == GF_EV_MEMCPY) {
        const gf_detail *d = det(t, i);
        int part = copy_part(d ? d->copy_kind : -1);
        if (part >= 0)
            merge_add(&a->m[part], s, e);
        merge_add(&a->m[BK_COPY], s, e);
        merge_add(&a->m[BK_XFER], s, e);
        merge_add(&a->m[BK_ACTIVE], s, e);
    } else {
        merge_add(&a->m[BK_MEMSET], s, e);
    }
}

static void busy_row_out(gf_busy_row *r, const busy_acc *a)
{
    *r = a->row;
    r->busy = merge_total(&a->m[BK_ALL]);
    r->kernel_busy = merge_total(&a->m[BK_KERNEL]);
    r->compute = merge_total(&a->m[BK_COMPUTE]);
    r->comm = merge_total(&a->m[BK_COMM]);
    r->copy = merge_total(&a->m[BK_COPY]);
    r->h2d = merge_total(&a->m[BK_H2D]);
    r->d2h = merge_total(&a->m[BK_D2H]);
    r->d2d = merge_total(&a->m[BK_D2D]);
    r->p2p = merge_total(&a->m[BK_P2P]);
    r->memset = merge_total(&a->m[BK_MEMSET]);
    /* |compute ∩ xfer| = |compute| + |xfer| - |compute ∪ xfer| */
    r->overlap = r->compute + merge_total(&a->m[BK_XFER]) - merge_total(&a->m[BK_ACTIVE]);
}

/* gf_find_busy, and with group (one entry per event, -1: left out) per (group, device) without a window */
static int busy_scan(const gf_trace *t, const gf_fwin *w, const gf_like_set *comm, int by_rank, const int32_t *group,
                     gf_busy_row **rows, size_t *n, int64_t *span_first, int64_t *span_last, gf_err *err)
{
    gf_hmap idx;
    gf_hmap_init(&idx);
    name_memo memo = {0};
    busy_acc *acc = NULL;
    size_t na = 0, cap = 0;
    int64_t f = INT64_MAX, l = INT64_MIN;
    if (comm && memo_init(&memo, t) != 0)
        goto fail;
    for (size_t i = 0; i < t->n; i++) {
        int64_t s = t->start[i], e = s + t->dur[i];
        int k = t->kind[i];
        int gpu = gf_ev_is_gpu_work(k);
        if (gf_ev_is_cpu_side(k)) /* the span is the CUDA/NVTX events' whatever the page imports */
            continue;
        if (group && (!gpu || group[i] < 0))
            continue;
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
        int32_t rank = group ? group[i] : by_rank && t->lane[i] >= 0 ? t->lanes[t->lane[i]].rank : -1;
        int ins;
        uint64_t key = (uint64_t)(dev + 1) | (uint64_t)(uint32_t)(rank + 1) << 40;
        int64_t *v = gf_hmap_put(&idx, key, (int64_t)na, &ins);
        if (!v)
            goto fail;
        if (ins) {
            if (grow((void **)&acc, &cap, na + 1, sizeof *acc) != 0)
                goto fail;
            memset(&acc[na], 0, sizeof acc[na]);
            acc[na].row.device = dev;
            acc[na].row.devname = t->lanes[t->lane[i]].device;
            acc[na].row.rank = rank;
            acc[na].row.first = INT64_MAX;
            acc[na].row.last = INT64_MIN;
            na++;
        }
        /* events are in start order, and clipping keeps that order */
        int is_comm = k == GF_EV_KERNEL && comm && memo_match(&memo, t, comm, t->name[i]) > 0;
        busy_add(&acc[*v], t, i, s, e, is_comm);
    }
    gf_hmap_free(&idx);
    free(memo.v);
    if (na > 1)
        qsort(acc, na, sizeof *acc, cmp_busy);
    gf_busy_row *out = malloc((na ? na : 1) * sizeof *out);
    if (!out) {
        free(acc);
        return gf_oom(err, "findings");
    }
    for (size_t k = 0; k < na; k++)
        busy_row_out(&out[k], &acc[k]);
    free(acc);
    *rows = out;
    *n = na;
    *span_first = f == INT64_MAX ? 0 : f;
    *span_last = l == INT64_MIN ? 0 : l;
    return 0;
fail:
    gf_hmap_free(&idx);
    free(memo.v);
    free(acc);
    return gf_oom(err, "findings");
}

int gf_find_busy(const gf_trace *t, const gf_fwin *w, const gf_like_set *comm, int by_rank, gf_busy_row **rows,
                 size_t *n, int64_t *span_first, int64_t *span_last, gf_err *err)
{
    return busy_scan(t, w, comm, by_rank, NULL, rows, n, span_first, span_last, err);
}

int gf_find_busy_groups(const gf_trace *t, const gf_like_set *comm, const int32_t *group, gf_busy_row **rows,
                        size_t *n, gf_err *err)
{
    int64_t f, l;
    return busy_scan(t, NULL, comm, 0, group, rows, n, &f, &l, err);
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
        return gf_oom(err, "findings");
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
        return gf_oom(err, "findings");
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
    return gf_oom(err, "findings");
}

/* The delays (8 bytes an event) never beside the NVTX projection's sweep (mem.h gf_mem_gate). */
int gf_find_launches(const gf_trace *t, const gf_fwin *w, uint64_t min_kernels, gf_launch_row **rows, size_t *n,
                     gf_launch_sum *sum, gf_err *err)
{
    gf_mem_gate_enter();
    int rc = find_launches(t, w, min_kernels, rows, n, sum, err);
    gf_mem_gate_leave();
    return rc;
}

int gf_find_launches_ungated(const gf_trace *t, const gf_fwin *w, uint64_t min_kernels, gf_launch_row **rows,
                             size_t *n, gf_launch_sum *sum, gf_err *err)
{
    return find_launches(t, w, min_kernels, rows, n, sum, err);
}
