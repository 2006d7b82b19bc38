/* The NVTX names and ranges that gpuflame.steps reads (core/trace_steps.c gf_steps_nvtx_names and
 * gf_steps_nvtx_ranges) against a brute force over the same trace: ranges of a few names on three threads of
 * two processes, at two nesting levels and in two domains, with marks, kernels and ranges projected onto a GPU
 * (neither of which is a thread's range) between them. Each (rank, process, thread, level, domain, name) is one
 * row, in order of first appearance, with its count and total; the ranges of the names asked for, in start
 * order, and only those. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "trace.h"
#include "trace_build.h"
#include "trace_steps.h"

enum { NEV = 6000, NNAMES = 5 };

static gf_trace *build(void)
{
    gf_trace *t = gf_trace_new();
    gf_err err;
    gf_trace_begin(t, 0, 0, &err);
    int32_t gpu = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, gf_strtab_intern_cstr(t->str, "GPU (0)"), 0, 7, &err);
    int32_t nv[3] = {gf_trace_lane(t, GF_LANE_NVTX, 0, 10, 10, -1, -1, -1, &err),
                     gf_trace_lane(t, GF_LANE_NVTX, 0, 10, 11, -1, -1, -1, &err),
                     gf_trace_lane(t, GF_LANE_NVTX, 0, 20, 11, -1, -1, -1, &err)};
    int32_t names[NNAMES], dom = gf_strtab_intern_cstr(t->str, "cuBLAS");
    for (int i = 0; i < NNAMES; i++) {
        char b[16];
        snprintf(b, sizeof b, "name %d", i);
        names[i] = gf_strtab_intern_cstr(t->str, b);
    }
    uint64_t r = 99;
    for (long i = 0; i < NEV; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        int th = (int)((r >> 33) % 3), nm = (int)((r >> 40) % NNAMES), what = (int)((r >> 20) % 10);
        gf_detail d;
        memset(&d, 0xff, sizeof d);
        d.nvtx_level = what == 0 ? GF_NVTX_MARK : (int32_t)((r >> 50) % 2);
        d.domain = (r >> 45) % 3 == 0 ? dom : -1;
        gf_event e = {.start = i * 100, .dur = 1 + (int64_t)((r >> 8) % 90), .corr = -1, .lane = nv[th],
                      .name = names[nm], .stack = -1, .pid = th == 2 ? 20 : 10, .kind = GF_EV_NVTX};
        if (what == 1) { /* a kernel of the same name */
            e.lane = gpu;
            e.kind = GF_EV_KERNEL;
            gf_trace_add(t, &e, NULL, &err);
        } else {
            gf_trace_add(t, &e, &d, &err);
        }
    }
    gf_trace_finish(t, &err);
    return t;
}

static int is_thread_range(const gf_trace *t, size_t i)
{
    const gf_detail *d = t->detail[i] >= 0 ? &t->details[t->detail[i]] : NULL;
    return t->kind[i] == GF_EV_NVTX && t->lanes[t->lane[i]].kind == GF_LANE_NVTX &&
           !(d && d->nvtx_level == GF_NVTX_MARK);
}

static int same_row(const gf_trace *t, size_t i, size_t j)
{
    const gf_lane *a = &t->lanes[t->lane[i]], *b = &t->lanes[t->lane[j]];
    const gf_detail *x = &t->details[t->detail[i]], *y = &t->details[t->detail[j]];
    return t->name[i] == t->name[j] && a->rank == b->rank && a->pid == b->pid && a->tid == b->tid &&
           x->nvtx_level == y->nvtx_level && x->domain == y->domain;
}

static void names_vs_brute_force(const gf_trace *t)
{
    gf_err err;
    gf_nvtx_name *rows = NULL;
    size_t n = 0, want = 0;
    int ok = gf_steps_nvtx_names(t, &rows, &n, &err) == 0, threads_share_names = 0;
    for (size_t i = 0; ok && i < t->n; i++) {
        if (!is_thread_range(t, i))
            continue;
        size_t first = i;
        for (size_t j = 0; j < i && first == i; j++)
            if (is_thread_range(t, j) && same_row(t, i, j))
                first = j;
        if (first != i)
            continue; /* counted with its first range */
        int64_t count = 0, total = 0;
        for (size_t j = i; j < t->n; j++)
            if (is_thread_range(t, j) && same_row(t, i, j)) {
                count++;
                total += t->dur[j];
            }
        const gf_lane *l = &t->lanes[t->lane[i]];
        const gf_nvtx_name *g = want < n ? &rows[want] : NULL;
        ok = g && g->name == t->name[i] && g->rank == l->rank && g->pid == l->pid && g->tid == l->tid &&
             g->level == t->details[t->detail[i]].nvtx_level && g->domain == t->details[t->detail[i]].domain &&
             g->count == count && g->total == total;
        want++;
    }
    CHECK("names: one row per thread, level, domain and name, in order of first appearance, counts and totals",
          ok && n == want);
    for (size_t i = 1; i < t->n && !threads_share_names; i++)
        threads_share_names = is_thread_range(t, i) && is_thread_range(t, 0) && t->name[0] == t->name[i] &&
                              t->lanes[t->lane[0]].tid != t->lanes[t->lane[i]].tid;
    CHECK("names: the planted trace has a name on several threads, and more rows than names",
          threads_share_names && n > 3 * NNAMES);
    free(rows);
}

static void ranges_vs_brute_force(const gf_trace *t)
{
    gf_err err;
    int32_t ask[2] = {gf_strtab_find(t->str, "name 1", 6), gf_strtab_find(t->str, "name 3", 6)};
    gf_nvtx_range *rows = NULL;
    size_t n = 0, want = 0;
    int ok = gf_steps_nvtx_ranges(t, ask, 2, &rows, &n, &err) == 0;
    for (size_t i = 0; ok && i < t->n; i++) {
        if (!is_thread_range(t, i) || (t->name[i] != ask[0] && t->name[i] != ask[1]))
            continue;
        const gf_nvtx_range *g = want < n ? &rows[want] : NULL;
        ok = g && g->start == t->start[i] && g->end == t->start[i] + t->dur[i] && g->name == t->name[i] &&
             g->tid == t->lanes[t->lane[i]].tid && g->proc == t->pid[i];
        want++;
    }
    CHECK("ranges: those of the names asked for, and no others, in start order", ok && n == want && want > 100);
    free(rows);
}

int main(void)
{
    gf_trace *t = build();
    names_vs_brute_force(t);
    ranges_vs_brute_force(t);
    gf_trace_free(t);
    return tap_done();
}
