#include "trace_stats.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

static int cmp_stat(const void *a, const void *b, void *trace)
{
    const gf_name_stat *x = a, *y = b;
    const gf_trace *t = trace;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(gf_strtab_get(t->str, x->name, NULL), gf_strtab_get(t->str, y->name, NULL));
}

/* The rows of the events of one kind, one per distinct name (elem bytes, zeroed when new), in first-seen
 * order: add(row, t, i, isnew, arg) for each event i of that kind. 0, or -1 out of memory. */
typedef void add_fn(void *row, const gf_trace *t, size_t i, int isnew, void *arg);
static int rows_by_name(const gf_trace *t, int kind, size_t elem, add_fn *add, void *arg, void **out, size_t *n)
{
    gf_hmap idx;
    gf_hmap_init(&idx);
    void *s = NULL;
    size_t ns = 0, cap = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->kind[i] != kind)
            continue;
        int ins;
        int64_t *v = gf_hmap_put(&idx, (uint64_t)t->name[i], (int64_t)ns, &ins);
        if (!v || (ins && gf_grow(&s, &cap, ns + 1, elem, 64) != 0)) {
            gf_hmap_free(&idx);
            free(s);
            return -1;
        }
        if (ins)
            memset((char *)s + ns++ * elem, 0, elem);
        add((char *)s + (size_t)*v * elem, t, i, ins, arg);
    }
    gf_hmap_free(&idx);
    *out = s;
    *n = ns;
    return 0;
}

static void add_name_stat(void *row, const gf_trace *t, size_t i, int isnew, void *arg)
{
    gf_name_stat *x = row;
    (void)arg;
    if (isnew)
        *x = (gf_name_stat){t->name[i], 0, 0, t->dur[i], t->dur[i]};
    x->count++;
    x->total += t->dur[i];
    if (t->dur[i] < x->min)
        x->min = t->dur[i];
    if (t->dur[i] > x->max)
        x->max = t->dur[i];
}

int gf_trace_name_stats(const gf_trace *t, int kind, gf_name_stat **out, size_t *n, gf_err *err)
{
    void *s;
    size_t ns;
    if (rows_by_name(t, kind, sizeof(gf_name_stat), add_name_stat, NULL, &s, &ns) != 0)
        return gf_oom(err, "trace");
    if (ns)
        qsort_r(s, ns, sizeof(gf_name_stat), cmp_stat, (void *)t);
    *out = s;
    *n = ns;
    return 0;
}

static int cmp_launch(const void *a, const void *b, void *trace)
{
    const gf_launch_stat *x = a, *y = b;
    const gf_trace *t = trace;
    if (x->kernel_total != y->kernel_total)
        return x->kernel_total > y->kernel_total ? -1 : 1;
    return strcmp(gf_strtab_get(t->str, x->name, NULL), gf_strtab_get(t->str, y->name, NULL));
}

typedef struct launch_arg {
    const int32_t *partner;
    int64_t late_ns;
} launch_arg;

static void add_launch_stat(void *row, const gf_trace *t, size_t i, int isnew, void *arg)
{
    gf_launch_stat *x = row;
    const launch_arg *la = arg;
    if (isnew) {
        x->name = t->name[i];
        x->delay_max = INT64_MIN;
    }
    x->kernels++;
    x->kernel_total += t->dur[i];
    if (la->partner[i] < 0)
        return;
    size_t a = (size_t)la->partner[i];
    int64_t api = t->dur[a], delay = t->start[i] - (t->start[a] + t->dur[a]);
    x->launched++;
    x->api_total += api;
    if (api > x->api_max)
        x->api_max = api;
    x->delay_total += delay;
    if (delay > x->delay_max)
        x->delay_max = delay;
    if (t->dur[i] < api)
        x->shorter_than_launch++;
    if (delay > la->late_ns)
        x->late++;
}

int gf_trace_launch_stats(const gf_trace *t, int64_t late_ns, gf_launch_stat **out, size_t *n, gf_err *err)
{
    int32_t *p;
    if (gf_trace_partners(t, &p, err) != 0)
        return -1;
    launch_arg la = {p, late_ns};
    void *rows;
    size_t ns;
    int rc = rows_by_name(t, GF_EV_KERNEL, sizeof(gf_launch_stat), add_launch_stat, &la, &rows, &ns);
    free(p);
    if (rc != 0)
        return gf_oom(err, "trace");
    gf_launch_stat *s = rows;
    for (size_t k = 0; k < ns; k++)
        if (!s[k].launched)
            s[k].delay_max = 0;
    if (ns)
        qsort_r(s, ns, sizeof *s, cmp_launch, (void *)t);
    *out = s;
    *n = ns;
    return 0;
}

int gf_trace_gpu_idle(const gf_trace *t, int64_t short_gap_ns, gf_idle_stat **out, size_t *n, gf_err *err)
{
    int32_t *p;
    if (gf_trace_partners(t, &p, err) != 0)
        return -1;
    int32_t *slot = malloc((t->nlanes ? t->nlanes : 1) * sizeof *slot);
    gf_idle_stat *s = calloc(t->nlanes ? t->nlanes : 1, sizeof *s);
    int64_t *cur_end = malloc((t->nlanes ? t->nlanes : 1) * sizeof *cur_end);
    if (!slot || !s || !cur_end) {
        free(p);
        free(slot);
        free(s);
        free(cur_end);
        return gf_oom(err, "trace");
    }
    size_t ns = 0;
    for (size_t l = 0; l < t->nlanes; l++) {
        slot[l] = -1;
        if (t->lanes[l].kind == GF_LANE_GPU && !t->lanes[l].sync) {
            slot[l] = (int32_t)ns;
            s[ns].lane = (int32_t)l;
            ns++;
        }
    }
    int64_t *first = calloc(ns ? ns : 1, sizeof *first);
    if (!first) {
        free(p);
        free(slot);
        free(s);
        free(cur_end);
        return gf_oom(err, "trace");
    }
    /* events are in start order: walk each lane keeping the end of the busy interval so far */
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        if (l < 0 || slot[l] < 0 || !gf_ev_is_gpu_work(t->kind[i]))
            continue;
        gf_idle_stat *x = &s[slot[l]];
        int64_t st = t->start[i], en = st + t->dur[i];
        if (x->ops == 0) {
            first[slot[l]] = st;
            cur_end[slot[l]] = en;
            x->busy = en - st;
        } else {
            int64_t ce = cur_end[slot[l]];
            if (st > ce) {
                int64_t gap = st - ce;
                x->gaps++;
                if (gap < short_gap_ns) {
                    x->kernel_wait += gap;
                } else {
                    int64_t host = 0;
                    if (p[i] >= 0) {
                        int64_t api_end = t->start[p[i]] + t->dur[p[i]];
                        host = api_end - ce;
                        if (host < 0)
                            host = 0;
                        if (host > gap)
                            host = gap;
                    }
                    x->host_wait += host;
                    x->other += gap - host;
                }
                x->busy += en - st;
                cur_end[slot[l]] = en;
            } else if (en > ce) {
                x->busy += en - ce;
                cur_end[slot[l]] = en;
            }
        }
        x->ops++;
    }
    for (size_t k = 0; k < ns; k++) {
        if (s[k].ops) {
            s[k].span = cur_end[k] - first[k];
            s[k].idle = s[k].span - s[k].busy;
        }
    }
    free(first);
    free(cur_end);
    free(slot);
    free(p);
    *out = s;
    *n = ns;
    return 0;
}
